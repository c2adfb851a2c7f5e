"""Generic negamax with alpha-beta for any :class:`~outflank.games.base.Game`.

The search is the textbook one, written for speed in plain Python:

* **negamax** (one function for both sides: a child's value is negated) with
  **alpha-beta** pruning, fail-soft;
* a **depth cut-off**: at depth 0 an unfinished position is scored by the
  game's ``heuristic()`` (seed 001's "cutoff");
* **iterative deepening** from depth 1 up to a depth, time or node limit, each
  iteration ordering moves by the previous ones;
* a **transposition table** (a ``dict`` keyed by ``game.key()``) storing
  depth, bound type, score and best move; the stored move is tried first
  (move ordering), then the game's own static order.

Scores are from the side to move's view. A finished game scores beyond any
heuristic: ``+-(WIN + MARGIN * |utility| - ply)``, so a quicker win (or a
slower loss) is preferred and, for margin games, a bigger margin first.
A search is *exact* when no leaf was cut off by the depth limit: its score is
then the game-theoretic value.

>>> from outflank.games import TicTacToe
>>> result = solve(TicTacToe())
>>> result.exact, result.score, result.outcome()
(True, 0, 'draw')
"""

from __future__ import annotations

import dataclasses
import math
import time as _time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from outflank.errors import GameOverError, SearchLimitError
from outflank.games.base import Game

__all__ = [
    "MARGIN",
    "WIN",
    "MoveScore",
    "SearchInfo",
    "SearchResult",
    "Searcher",
    "analyze",
    "describe_score",
    "recommend",
    "search",
    "solve",
]

#: Base score of a finished, won game (a heuristic never reaches it).
WIN = 10**9
#: Score units per unit of utility margin in a finished game.
MARGIN = 1000
#: Deepest ply a search may reach (also the iterative-deepening ceiling).
MAX_PLY = 999

_INF = 1 << 62
_EXACT, _LOWER, _UPPER = 0, 1, 2
_RESOLVED = 1 << 30  # TT depth of an entry whose subtree met no depth cut-off
_CHECK_EVERY = 2048


def _whole(value: object) -> bool:
    """An int, and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_win_score(score: float) -> bool:
    """True for a score that proves a won or lost game."""
    return abs(score) > WIN


def win_plies(score: float) -> int:
    """The plies to the end of the game of a win or loss score."""
    excess = int(abs(score)) - WIN
    margin = (excess + MARGIN - 1) // MARGIN
    return margin * MARGIN - excess


def describe_score(score: float, exact: bool = False) -> str:
    """A person's reading of a score: ``"win in 3"``, ``"loss in 4"``, ``"draw"``, ``"+12"``."""
    if is_win_score(score):
        return f"{'win' if score > 0 else 'loss'} in {win_plies(score)}"
    if exact:
        return "draw" if score == 0 else f"{score:+g} exact"
    return f"{score:+g}"


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """Progress of an iterative-deepening search, once per finished depth."""

    depth: int
    score: int
    nodes: int
    nps: float
    pv: list[Hashable]
    elapsed: float


@dataclass(frozen=True, slots=True)
class MoveScore:
    """One move's score in :func:`analyze` (side-to-move view)."""

    move: Hashable
    score: int
    exact: bool


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found; the fields match :class:`outflank.engine.SearchResult`.

    ``score`` is from the side to move's view; ``exact`` is true when it is
    the game-theoretic value (the tree was searched to the end, or a forced
    win/loss was proven).
    """

    best_move: Hashable
    score: int
    pv: list[Hashable] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    elapsed: float = 0.0
    nps: float = 0.0
    exact: bool = False

    def outcome(self) -> str | None:
        """``"win in N"``, ``"loss in N"`` or ``"draw"`` when proven, else ``None``."""
        if is_win_score(self.score) or (self.exact and self.score == 0):
            return describe_score(self.score, True)
        return None

    def proven(self) -> int | None:
        """``+1``/``-1``/``0`` when the side to move's win/loss/draw is proven, else ``None``."""
        if is_win_score(self.score):
            return 1 if self.score > 0 else -1
        if self.exact:
            return (self.score > 0) - (self.score < 0)
        return None

    def describe(self) -> str:
        """The score as a person reads it (``"draw"``, ``"win in 3"``, ``"+14"``)."""
        return describe_score(self.score, self.exact)


class _Abort(Exception):
    """Raised inside the tree when a time or node limit is reached."""


class Searcher:
    """A negamax searcher with its own transposition table.

    Keep one ``Searcher`` per game being played: the table carries over from
    move to move (positions are keyed by the game, not by the searcher).

    ``tt_entries`` caps the table; it is cleared when full.
    """

    def __init__(self, tt_entries: int = 1 << 20) -> None:
        if not (_whole(tt_entries) and tt_entries >= 1):
            raise SearchLimitError(f"tt_entries must be a whole number >= 1, not {tt_entries!r}")
        self._tt: dict[Hashable, tuple[int, int, int, Hashable]] = {}
        self._tt_limit = tt_entries
        self._game: Game | None = None
        self._variant: Hashable = None
        self._quick_wins = True
        self.nodes = 0
        self._horizon = 0
        self._seldepth = 1
        self._check_at = _CHECK_EVERY
        self._deadline = math.inf
        self._node_limit = math.inf
        self._can_abort = False

    def clear(self) -> None:
        """Forget the transposition table."""
        self._tt.clear()

    # ------------------------------------------------------------ public API
    def search(
        self,
        game: Game,
        depth: int | None = None,
        time: float | None = None,
        nodes: int | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Best move for the side to move by iterative deepening.

        Stops at ``depth`` plies, after ``time`` seconds (the last finished
        depth's result is returned), after about ``nodes`` nodes, or as soon
        as an iteration is exact. With no limit it searches to the end of the
        game (only sensible for small games). ``game`` is left as it was.
        """
        self._validate(game, depth, time, nodes)
        start = _time.perf_counter()
        self._begin(game, start, time, nodes)
        max_depth = MAX_PLY if depth is None else min(depth, MAX_PLY)
        # Without any limit the search is a solve: one pass to the end of the game.
        first = max_depth if depth is time is nodes is None else 1
        best: SearchResult | None = None
        try:
            for iteration in range(first, max_depth + 1):
                self._can_abort = best is not None
                horizon_before = self._horizon
                try:
                    move, score = self._root(iteration, game)
                except _Abort:
                    break
                elapsed = _time.perf_counter() - start
                # a win (or loss) is the game's value once its length is within
                # the depth searched: one that a table entry of an earlier, deeper
                # search brought from beyond it may hide a quicker win
                exact = self._horizon == horizon_before or (
                    is_win_score(score)
                    and not game.margin_utility
                    and win_plies(score) <= iteration
                )
                pv = self._principal_variation(game, move, iteration)
                nps = _rate(self.nodes, elapsed)
                # a solve reports how deep it saw: the deepest ply it visited, or
                # its line to the end when the table already held the answer
                reached = (
                    iteration if iteration < max_depth or depth else max(self._seldepth, len(pv))
                )
                best = SearchResult(move, score, pv, reached, self.nodes, elapsed, nps, exact)
                if on_info is not None:
                    on_info(SearchInfo(reached, score, self.nodes, nps, pv, elapsed))
                if exact or (time is not None and elapsed > time * 0.5):
                    break
                if self.nodes >= self._node_limit:
                    break
        finally:
            self._game = None
        assert best is not None
        # the result is the deepest finished depth's; the figures count all the
        # work, an abandoned deeper depth included
        elapsed = _time.perf_counter() - start
        return dataclasses.replace(
            best, nodes=self.nodes, elapsed=elapsed, nps=_rate(self.nodes, elapsed)
        )

    def analyze(self, game: Game, depth: int | None = None) -> list[MoveScore]:
        """Every legal move with its score at ``depth`` (to the end if ``None``), best first."""
        self._validate(game, depth, None, None)
        self._begin(game, _time.perf_counter(), None, None)
        remaining = MAX_PLY if depth is None else depth
        scores = []
        try:
            for move in game.legal_moves():
                horizon_before = self._horizon
                game.play(move)
                try:
                    score = -self._value(remaining - 1, -_INF, _INF, 1)
                finally:
                    game.undo()
                exact = self._horizon == horizon_before or (
                    is_win_score(score)
                    and not game.margin_utility
                    and win_plies(score) <= remaining
                )
                scores.append(MoveScore(move, score, exact))
        finally:
            self._game = None
        scores.sort(key=lambda ms: -ms.score)
        return scores

    # ------------------------------------------------------------ internals
    @staticmethod
    def _validate(game: Game, depth: int | None, time: float | None, nodes: int | None) -> None:
        if depth is not None and not (_whole(depth) and depth >= 1):
            raise SearchLimitError(f"search depth must be a whole number >= 1, not {depth!r}")
        if time is not None and (
            isinstance(time, bool) or not (isinstance(time, int | float) and time > 0)
        ):
            raise SearchLimitError(f"search time must be a positive number, not {time!r}")
        if nodes is not None and not (_whole(nodes) and nodes >= 1):
            raise SearchLimitError(f"node limit must be a whole number >= 1, not {nodes!r}")
        if game.is_over():
            raise GameOverError(f"the game is over ({game.result_text()}): nothing to search")

    def _begin(self, game: Game, start: float, time: float | None, nodes: int | None) -> None:
        if game.variant() != self._variant:  # another game: its keys mean other positions
            self._tt.clear()
            self._variant = game.variant()
        self._game = game
        self._quick_wins = not game.margin_utility
        self.nodes = 0
        self._horizon = 0
        self._seldepth = 1
        self._check_at = _CHECK_EVERY
        self._deadline = math.inf if time is None else start + time
        self._node_limit = math.inf if nodes is None else nodes
        self._can_abort = False

    def _check_limits(self) -> None:
        self._check_at = self.nodes + _CHECK_EVERY
        if self._can_abort and (
            self.nodes >= self._node_limit or _time.perf_counter() >= self._deadline
        ):
            raise _Abort

    def _ordered(self, game: Game, tt_move: Hashable | None) -> list[Hashable]:
        moves = game.legal_moves()
        if tt_move is not None and moves and moves[0] != tt_move:
            try:
                moves.remove(tt_move)
            except ValueError:
                return moves
            moves.insert(0, tt_move)
        return moves

    def _root(self, depth: int, game: Game) -> tuple[Hashable, int]:
        entry = self._tt.get(game.key())
        moves = self._ordered(game, None if entry is None else entry[3])
        alpha, beta = -_INF, _INF
        best_score, best_move = -_INF, moves[0]
        horizon_before = self._horizon
        for move in moves:
            game.play(move)
            try:
                score = -self._value(depth - 1, -beta, -alpha, 1)
            finally:
                game.undo()
            if score > best_score:
                best_score, best_move = score, move
                alpha = max(alpha, score)
        store_depth = depth if self._horizon != horizon_before else _RESOLVED
        self._tt[game.key()] = (store_depth, _EXACT, best_score, best_move)
        return best_move, best_score

    def _value(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Value of the current position (just played into) for the side to move."""
        game = self._game
        self.nodes += 1
        if game.is_over():  # type: ignore[union-attr]
            u = game.utility()  # type: ignore[union-attr]
            if u > 0:
                return WIN + u * MARGIN - ply
            return -WIN + u * MARGIN + ply if u < 0 else 0
        if depth <= 0:
            self._horizon += 1
            return game.heuristic()  # type: ignore[union-attr]
        return self._negamax(depth, alpha, beta, ply)

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Alpha-beta value of an unfinished position with ``depth >= 1`` plies to go.

        Children that end the game or sit at the cut-off are scored in the
        loop itself: most nodes are such leaves, and a Python call costs.
        """
        game = self._game
        if self.nodes >= self._check_at:
            self._check_limits()
        key = game.key()  # type: ignore[union-attr]
        tt = self._tt
        entry = tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, score, tt_move = entry
            if e_depth >= depth:
                if score > WIN:
                    score -= ply
                elif score < -WIN:
                    score += ply
                if (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and score >= beta)
                    or (e_flag == _UPPER and score <= alpha)
                ):
                    if e_depth < _RESOLVED:
                        self._horizon += 1
                    return score
        moves = game.legal_moves()  # type: ignore[union-attr]
        if tt_move is not None and moves[0] != tt_move:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        child_win = WIN - ply - 1  # a finished child's score base, from the parent's view
        if depth >= 2 and self._quick_wins:
            # An immediate win is the best possible result: look for one before going deep.
            move = game.winning_move()  # type: ignore[union-attr]
            if move is not None:
                self.nodes += 1
                score = child_win + MARGIN
                tt[key] = (_RESOLVED, _EXACT, score + ply, move)
                return score
        horizon_before = self._horizon
        alpha_orig = alpha
        best = -_INF
        best_move = None
        self.nodes += len(moves)  # every child is visited, unless a cut-off comes first
        if ply >= self._seldepth:
            self._seldepth = ply + 1
        negamax = self._negamax
        play, undo, is_over = game.play, game.undo, game.is_over  # type: ignore[union-attr]
        for visited, move in enumerate(moves, 1):
            play(move)
            if is_over():
                u = game.utility()  # type: ignore[union-attr]
                undo()
                if u > 0:
                    score = -(child_win + u * MARGIN)
                else:
                    score = child_win - u * MARGIN if u < 0 else 0
            elif depth == 1:
                self._horizon += 1
                score = -game.heuristic()  # type: ignore[union-attr]
                undo()
            else:
                try:
                    score = -negamax(depth - 1, -beta, -alpha, ply + 1)
                finally:
                    undo()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        self.nodes -= len(moves) - visited
                        break
        if best <= alpha_orig:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        stored = best
        if stored > WIN:
            stored += ply
        elif stored < -WIN:
            stored -= ply
        if len(tt) >= self._tt_limit:
            tt.clear()
        tt[key] = (
            depth if self._horizon != horizon_before else _RESOLVED,
            flag,
            stored,
            best_move,
        )
        return best

    def _principal_variation(self, game: Game, first: Hashable, depth: int) -> list[Hashable]:
        """The expected line: the root's best move, then stored best moves from the table."""
        pv = [first]
        game.play(first)
        played = 1
        try:
            while len(pv) < depth and not game.is_over():
                entry = self._tt.get(game.key())
                if entry is None or entry[1] == _UPPER or entry[3] is None:
                    break
                move = entry[3]
                if move not in game.legal_moves():
                    break
                pv.append(move)
                game.play(move)
                played += 1
        finally:
            for _ in range(played):
                game.undo()
        return pv


def _rate(nodes: int, elapsed: float) -> float:
    return nodes / elapsed if elapsed > 0 else float(nodes)


def search(
    game: Game,
    depth: int | None = None,
    time: float | None = None,
    nodes: int | None = None,
    on_info: Callable[[SearchInfo], None] | None = None,
) -> SearchResult:
    """Search ``game`` with a fresh :class:`Searcher` (see :meth:`Searcher.search`)."""
    return Searcher().search(game, depth=depth, time=time, nodes=nodes, on_info=on_info)


def solve(game: Game) -> SearchResult:
    """Search to the end of the game: the exact value and a best move."""
    return Searcher().search(game)


def analyze(game: Game, depth: int | None = None) -> list[MoveScore]:
    """Every legal move's score, best first (see :meth:`Searcher.analyze`)."""
    return Searcher().analyze(game, depth)


def recommend(
    game: Game,
    depth: int | None = None,
    time: float | None = None,
    searcher: Searcher | None = None,
) -> SearchResult:
    """The move the AI recommends to the side to move, with its score (seed 001).

    ``depth`` defaults to the game's ``default_depth`` (``None``: to the end).
    """
    if depth is None:
        depth = getattr(game, "default_depth", None)
    return (searcher or Searcher()).search(game, depth=depth, time=time)
