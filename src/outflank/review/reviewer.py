"""The reviewer: book, exact endgame and searches over a game's positions.

Where the values come from, in the order the reviewer works:

1. **Book**: a position of the opening book is answered from it (every
   legal move's value, searched offline to depth 16 and backed up by
   negamax); a move that stays in the book is a *book move*.
2. **Exact**: from the end of the game backwards, every position with at
   most ``exact`` empties (20 by default) is solved exactly, and the
   positions before them too while the solver answers within the
   ``exact_time`` budget (:class:`ReviewSettings`). The played move's
   value is then the solved value of the position it leads to.
3. **Search**: every other position is searched to ``depth`` plies (with
   probable cut-offs); a move other than the one the search found best is
   scored by a search of the position it leads to, one ply shallower, so
   that both values see equally far.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from outflank.board import BLACK, PASS, Board, Move, Rules, parse_position
from outflank.book.store import Book
from outflank.engine import Engine, SearchResult
from outflank.review.judging import THRESHOLDS, Label, ReviewError, Source, Thresholds, outcome
from outflank.review.result import GameReview, MoveReview, ReviewSettings

__all__ = ["OnMove", "Reviewer", "game_board", "review_game"]

#: About how much longer a solve takes with one more empty square.
_GROWTH: Final = 2.5


def game_board(game: Board | Any | str) -> Board:
    """The board of a game to review, with its moves: a :class:`Board` (its
    history from its root), a :class:`~outflank.ggf.GameRecord`, or text
    (a GGF game, a transcript such as ``f5d6c3``, an OBF line followed by
    moves). Raises :class:`ReviewError` for a game without moves and the
    parsers' errors for bad text or an illegal move."""
    from outflank.ggf import GameRecord, load_game

    if isinstance(game, Board):
        board = game.copy()
    elif isinstance(game, GameRecord):
        board = game.board()
    elif isinstance(game, str):
        text = game.strip()
        board = load_game(text).board() if text.startswith("(") else parse_position(text)
    else:
        raise ReviewError(f"cannot review a {type(game).__name__}: give a Board, record or text")
    if not any(not m.is_pass for m in board.move_stack):
        raise ReviewError("the game has no moves to review")
    return board


def _final_value(board: Board) -> float:
    """A finished game's disc difference from the side to move's view."""
    outcome = board.outcome()
    assert outcome is not None
    return float(outcome.margin if board.turn is BLACK else -outcome.margin)


def _round(value: float) -> float:
    return round(value, 2) + 0.0  # no -0.0


class _Stopped(Exception):
    """The review was asked to stop."""


class _OutOfTime(Exception):
    """A solve did not finish within the time it was given."""


OnMove = Callable[[MoveReview, int, int], Any]


class Reviewer:
    """Reviews games with one engine (its table reused from move to move).

    ``threads``: threads per search (default: every core). :meth:`stop`,
    from another thread, ends a running review soon: it returns what it
    has, ``complete`` false. One review at a time per reviewer.
    """

    def __init__(
        self,
        settings: ReviewSettings | None = None,
        *,
        threads: int | None = None,
        book: Book | None = None,
        thresholds: Thresholds = THRESHOLDS,
    ) -> None:
        self.settings = settings or ReviewSettings()
        if not isinstance(self.settings, ReviewSettings):
            raise ReviewError(f"settings must be ReviewSettings, not {settings!r}")
        self.thresholds = thresholds
        self._engine = Engine(
            "default", selective=self.settings.selective, endgame=0, threads=threads
        )
        self._book = (book or Book.default()) if self.settings.book else None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def stop(self) -> None:
        """End the running review soon (it returns a partial review)."""
        self._stop.set()
        self._engine.stop()

    def review(self, game: Board | Any | str, on_move: OnMove | None = None) -> GameReview:
        """Review a game (see :func:`game_board` for what it may be).

        ``on_move(move_review, done, total)`` is called as each move's review
        is ready: first the book moves, then the exact ones from the end
        backwards, then the searched ones in order.
        """
        board = game_board(game)
        with self._lock:
            self._stop.clear()
            return _Review(self, board, on_move).run()


def review_game(
    game: Board | Any | str,
    settings: ReviewSettings | None = None,
    *,
    threads: int | None = None,
    on_move: OnMove | None = None,
) -> GameReview:
    """Review a game with a new :class:`Reviewer` (see :meth:`Reviewer.review`)."""
    return Reviewer(settings, threads=threads).review(game, on_move)


class _Review:
    """One review in progress: the game's positions and the values found."""

    def __init__(self, reviewer: Reviewer, board: Board, on_move: OnMove | None) -> None:
        self.reviewer = reviewer
        self.settings = reviewer.settings
        self.engine = reviewer._engine
        self.book = reviewer._book
        self.on_move = on_move
        self.moves: tuple[Move, ...] = tuple(board.move_stack)
        self.start = board.root()
        replay = self.start.copy(stack=False)
        self.boards = [replay.copy(stack=False)]
        for move in self.moves:
            replay.push(move)
            self.boards.append(replay.copy(stack=False))
        self.plies = [i for i, m in enumerate(self.moves) if not m.is_pass]
        self.done: dict[int, MoveReview] = {}
        # exact values of positions (side to move's view) and their lines
        self.exact: dict[int, float] = {}
        self.lines: dict[int, tuple[Move, ...]] = {}

    # ------------------------------------------------------------ running
    def run(self) -> GameReview:
        started = time.monotonic()
        stopped = False
        try:
            self._book_moves()
            self._exact_moves()
            self._searched_moves()
        except _Stopped:
            stopped = True
        return GameReview(
            start=self.start,
            game_moves=self.moves,
            moves=tuple(self.done[p] for p in sorted(self.done)),
            settings=self.settings,
            elapsed=time.monotonic() - started,
            complete=not stopped and len(self.done) == len(self.plies),
        )

    def _check(self) -> None:
        if self.reviewer._stop.is_set():
            raise _Stopped

    def _emit(self, review: MoveReview) -> None:
        self.done[review.ply] = review
        if self.on_move is not None:
            self.on_move(review, len(self.done), len(self.plies))

    def _judged(
        self,
        ply: int,
        *,
        value: float,
        exact: bool,
        best_move: Move,
        best_value: float,
        best_exact: bool,
        source: Source,
        depth: int,
        pv: Sequence[Move],
        reply: Sequence[Move],
        book: bool = False,
    ) -> MoveReview:
        """A move's review from its values: the loss, the label."""
        board = self.boards[ply]
        move = self.moves[ply]
        value, best_value = _round(value), _round(best_value)
        if value >= best_value or best_move == move:
            # nothing better found: the move played is the best (its value
            # exact only if the best one's was: a search may have seen less)
            best_move, best_value, best_exact = move, value, best_exact and exact
            pv = (move, *reply)
        loss = _round(best_value - value)
        label = self.reviewer.thresholds.label(loss)
        if exact and best_exact and outcome(value) < outcome(best_value):
            # a result thrown away (win to draw or loss, draw to loss)
            label = max(label, Label.MISTAKE, key=lambda lab: lab.severity)
        if book and label.severity < Label.INACCURACY.severity:
            label = Label.BOOK
        return MoveReview(
            ply=ply,
            color=board.turn,
            move=move,
            empties=board.empties,
            value=value,
            exact=exact,
            best_move=best_move,
            best_value=best_value,
            best_exact=best_exact,
            loss=loss,
            label=label,
            source=source,
            depth=depth,
            book=book,
            forced=len(board.legal_moves) == 1,
            pv=tuple(pv),
            reply=tuple(reply),
        )

    # ------------------------------------------------------------ the book
    def _book_moves(self) -> None:
        if self.book is None or self.start.rules is not Rules.OTHELLO:
            return
        for ply in self.plies:
            board = self.boards[ply]
            entry = self.book.probe(board)
            if entry is None or not entry.moves:
                continue
            played = next((m for m in entry.moves if m.move == self.moves[ply]), None)
            if played is None:
                continue
            after = self.boards[ply + 1]
            line = self.book.line(after) if not after.is_game_over() else []
            self._emit(
                self._judged(
                    ply,
                    value=played.value,
                    exact=False,
                    best_move=entry.best.move,
                    best_value=entry.best.value,
                    best_exact=False,
                    source=Source.BOOK,
                    depth=entry.depth,
                    pv=self._book_pv(board),
                    reply=line,
                    book=played.in_book,
                )
            )

    def _book_pv(self, board: Board) -> list[Move]:
        assert self.book is not None
        return self.book.line(board) or [self.book.probe(board).best.move]  # type: ignore[union-attr]

    # ------------------------------------------------------------ exact
    def _exact_moves(self) -> None:
        """From the last move backwards: solve every position within
        ``exact`` empties, then earlier ones while the budget lasts (each
        one only if the position after it was solved, and not when the last
        solve, times :data:`_GROWTH`, would not fit in what is left)."""
        budget = self.settings.exact_time
        last = 0.0  # seconds the previous solve took
        for ply in reversed(self.plies):
            if ply in self.done:
                continue
            board = self.boards[ply]
            limit = None
            if board.empties > self.settings.exact:
                after = self.boards[ply + 1]
                after_known = (
                    ply + 1 in self.exact
                    or after.is_game_over()
                    or after.empties <= self.settings.exact
                )
                if not after_known or budget <= 0 or last * _GROWTH > budget:
                    return
                limit = budget
            started = time.monotonic()
            try:
                value = -self._solved(ply + 1, limit)
                best = self._solved(ply, limit)
            except _OutOfTime:
                return
            finally:
                last = time.monotonic() - started
                if limit is not None:
                    budget -= last
            line = self.lines[ply]
            self._emit(
                self._judged(
                    ply,
                    value=value,
                    exact=True,
                    best_move=line[0],
                    best_value=best,
                    best_exact=True,
                    source=Source.EXACT,
                    depth=board.empties,
                    pv=line,
                    reply=self.lines.get(ply + 1, ()),
                )
            )

    def _solved(self, index: int, limit: float | None) -> float:
        """The exact value of position ``index`` (side to move's view),
        solved once; raises :class:`_OutOfTime` if ``limit`` seconds were
        not enough."""
        if index in self.exact:
            return self.exact[index]
        board = self.boards[index]
        if board.is_game_over():
            value, line = _final_value(board), ()
        elif index < len(self.moves) and self.moves[index].is_pass:
            value = -self._solved(index + 1, limit)
            line = (PASS, *self.lines.get(index + 1, ()))
        else:
            self._check()
            result = self.engine.solve(board, time=limit)
            self._check()
            if not result.exact:
                raise _OutOfTime
            value, line = result.score, tuple(result.pv)
        self.exact[index], self.lines[index] = value, line
        return value

    # ------------------------------------------------------------ searched
    def _search(self, board: Board, depth: int) -> SearchResult:
        self._check()
        result = self.engine.search(board, depth=depth, time=self.settings.move_time)
        self._check()
        return result

    def _searched_moves(self) -> None:
        depth = self.settings.depth
        for ply in self.plies:
            if ply in self.done:
                continue
            board = self.boards[ply]
            move = self.moves[ply]
            result = self._search(board, depth)
            after = self.boards[ply + 1]
            if ply + 1 in self.exact:  # the move leads into the solved endgame
                value, exact = -self.exact[ply + 1], True
                reply = self.lines.get(ply + 1, ())
            elif after.is_game_over():
                value, exact, reply = -_final_value(after), True, ()
            elif result.best_move == move:
                value, exact, reply = result.score, False, tuple(result.pv[1:])
            else:  # the move played, searched as deep as the root search saw it
                child = self._search(after, max(1, result.depth - 1))
                value, exact, reply = -child.score, False, tuple(child.pv)
            self._emit(
                self._judged(
                    ply,
                    value=value,
                    exact=exact,
                    best_move=result.best_move,
                    best_value=result.score,
                    best_exact=False,
                    source=Source.SEARCH,
                    depth=result.depth,
                    pv=result.pv,
                    reply=reply,
                )
            )
