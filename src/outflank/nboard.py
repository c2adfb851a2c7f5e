"""The NBoard engine protocol (Chris Welty's NBoard GUI), both sides.

Server side, :class:`NBoardServer` (``outflank nboard``): outflank is an
engine reading commands on stdin and answering on stdout, one line each:

==========================  ==================================================
GUI -> engine               engine -> GUI
==========================  ==================================================
``nboard 2``                ``set myname outflank``
``set depth N``             ``set myname outflankN``
``set game (;GM[...];)``    (nothing: the position is the game's last one)
``set contempt N``          (nothing; stored)
``move f5[/eval/time]``     (nothing: the move is played; ``PA`` passes)
``hint N``                  ``status ...``, ``search <pv> <eval> 0 <depth>``
                            per finished depth, then one ``search`` line per
                            move for the best N moves (``book`` lines in the
                            opening book: depth is the book's), ``status ...``
``go``                      ``status ...``, ``search`` lines,
                            ``=== <move>/<eval>/<time>``, ``status ...``
``ping N``                  stops a running search (its result is dropped:
                            the position is about to change), then ``pong N``
``learn``                   ``learned``
``quit``                    (the engine exits)
==========================  ==================================================

Evals are in discs from the side to move's view. Unknown or malformed lines
are answered with ``status error: ...`` (NBoard shows it in its status bar)
and the engine keeps running.

Client side, :class:`NBoardClient` (in :mod:`outflank.nboard_client`, which
knows nothing of players, so that :class:`outflank.players.ExternalPlayer`
can drive it; its names are importable from here too): start any NBoard
engine (Edax, NTest, ``outflank nboard``) as a subprocess and ask it for
moves and hints, with timeouts; a dead, silent or garbled engine raises
:class:`~outflank.errors.PlayerError`.
"""

from __future__ import annotations

import contextlib
import queue
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from outflank.board import PASS, Board, Move
from outflank.errors import InvalidBoardError, OutflankError
from outflank.ggf import GameRecord, parse_ggf
from outflank.nboard_client import (
    EngineAnswer,
    HintLine,
    NBoardClient,
    format_move,
    parse_engine_move,
    pump_lines,
)
from outflank.players import BasePlayer, make_player

__all__ = [
    "EngineAnswer",
    "HintLine",
    "NBoardClient",
    "NBoardServer",
    "format_move",
    "parse_engine_move",
]

ENGINE_NAME = "outflank"
# what a finished search puts in the input queue to wake the loop waiting on it
# (a blank line: nothing to do, were it ever read as a command)
_WAKE = ""
# how often the loop waiting on a running search looks for a stop it has to pass on
_POLL_SECONDS = 0.02


def _num(value: float) -> str:
    return f"{value:.2f}"


@dataclass
class _Analysis:
    move: Move
    eval: float | None
    depth: int
    pv: list[Move]
    exact: bool = False
    nodes: int = 0
    book: bool = False  # from the opening book: a ``book`` line


InfoSink = Callable[[_Analysis], None]


class _Analyst:
    """What the server needs from a searcher: a best move and move hints."""

    name = ENGINE_NAME
    stoppable = True  # stop() ends a search soon; otherwise it runs to its end

    def __init__(self) -> None:
        self.halted = threading.Event()  # set by stop(), cleared before each job

    def best(self, board: Board, depth: int | None, on_info: InfoSink) -> _Analysis:
        raise NotImplementedError

    def hints(self, board: Board, n: int, depth: int | None, on_info: InfoSink) -> list[_Analysis]:
        raise NotImplementedError

    def stop(self) -> None:
        """Ask a running search to return soon (from another thread)."""
        self.halted.set()


#: ``set depth N`` solves exactly from N + this many empties (at most from the
#: ``default`` preset's 18), as a level of midgame depth N would.
DEPTH_ENDGAME_MARGIN = 8


class _EngineAnalyst(_Analyst):
    """The native engine: iterative deepening with streamed info lines.

    A ``level`` serves until the GUI sends ``set depth N``; a depth is the
    ``default`` preset's search N plies deep with the probable cut-offs of
    the top levels (1.5 standard deviations: as NTest's and Edax's depths,
    selective), no time limit, exact from N + :data:`DEPTH_ENDGAME_MARGIN`
    empties.
    """

    def __init__(self, level: int | None = None, *, book: bool = True) -> None:
        from outflank.engine import LEVELS, PRESETS, Engine

        super().__init__()
        if level is not None:  # a level has its own book setting; --no-book turns it off
            self.engine = Engine.level(level, **({} if book else {"book": False}))
        else:
            # the margin of the depth-bound top levels (the preset's is for a time)
            selective = LEVELS[max(LEVELS)]["selective"]
            self.engine = Engine.preset("default", book=book, time=None, selective=selective)
        self.level = level
        self._max_endgame = int(PRESETS["default"]["endgame"])

    def _use_depth(self, depth: int | None) -> None:
        """Make the GUI's depth the engine's own, so that its exact endgame
        applies (a depth passed to a call would be honoured as it is). A
        level never gets one: the server replaces it on ``set depth``."""
        if depth is not None and self.level is None and depth != self.engine.depth:
            endgame = min(depth + DEPTH_ENDGAME_MARGIN, self._max_endgame)
            self.engine.configure(depth=depth, endgame=endgame)

    def best(self, board: Board, depth: int | None, on_info: InfoSink) -> _Analysis:
        def info(i: Any) -> None:
            pv = list(i.pv)
            if pv:
                on_info(_Analysis(pv[0], float(i.score), int(i.depth), pv, nodes=int(i.nodes)))

        picked = self.engine.book_move(board)
        if picked is not None:  # the book's move (a level varies among the good ones)
            after = board.copy()
            after.push(picked.move)
            pv = [picked.move, *self.engine.book.line(after)]
            entry = self.engine.book.probe(board)
            return _Analysis(picked.move, picked.value, entry.depth, pv, book=True)
        self._use_depth(depth)
        res = self.engine.search(board.copy(), on_info=info)
        return _Analysis(
            res.best_move, float(res.score), int(res.depth), list(res.pv), bool(res.exact),
            book=res.book,
        )  # fmt: skip

    def hints(self, board: Board, n: int, depth: int | None, on_info: InfoSink) -> list[_Analysis]:
        best = self.best(board, depth, on_info)
        if n <= 1 or best.move.is_pass or self.halted.is_set():  # stopped: no second search
            return [best]
        # the n best exactly, the others only bounded (far cheaper than every score)
        self._use_depth(depth)
        scores = self.engine.analyze(board.copy(), multipv=n)
        out = [best]
        for ms in scores:
            if ms.move != best.move and not ms.upper and len(out) < n:
                depth = ms.depth if ms.book else best.depth
                out.append(
                    _Analysis(ms.move, float(ms.score), depth, [ms.move], ms.exact, book=ms.book)
                )
        return out

    def stop(self) -> None:
        super().stop()
        self.engine.stop()


class _PlayerAnalyst(_Analyst):
    """Any outflank player (greedy, random, classic...) behind the protocol.
    A player cannot be told to stop: an interrupted one is left to finish
    alone and replaced (see NBoardServer._search)."""

    stoppable = False

    def __init__(self, player: BasePlayer) -> None:
        super().__init__()
        self.player = player
        self.name = player.name.replace(" ", "_")

    def best(self, board: Board, depth: int | None, on_info: InfoSink) -> _Analysis:
        move = self.player.choose_move(board.copy())
        return _Analysis(move, self.player.last_eval, 1, [move])

    def hints(self, board: Board, n: int, depth: int | None, on_info: InfoSink) -> list[_Analysis]:
        return [self.best(board, depth, on_info)]  # a plain player knows one move


class NBoardServer:
    """An NBoard engine: reads protocol lines, answers on ``output``.

    ``player`` (a spec such as ``"greedy"``) serves any outflank player
    instead of the engine; ``level`` picks an engine level when the GUI
    has not sent ``set depth``; ``book=False``: no opening book.
    """

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        *,
        player: str | None = None,
        level: int | None = None,
        book: bool = True,
    ) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.board = Board()
        self.record = GameRecord.from_board(self.board)
        self.depth: int | None = None
        self.contempt = 0.0
        self._player_spec = player
        self._level = level
        self._book = book
        self._analyst: _Analyst | None = None
        self._lock = threading.Lock()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._pending: list[str | None] = []
        self._running = True

    # ------------------------------------------------------------ output
    def send(self, line: str) -> None:
        """Write one line and flush (NBoard reads through a pipe)."""
        with self._lock:
            self.output.write(line + "\n")
            self.output.flush()

    def error(self, message: str) -> None:
        """Answer a bad line without dying."""
        self.send(f"status error: {message}")

    @property
    def name(self) -> str:
        """NBoard's habit: the engine's name with its depth (``outflank6``); a
        served player (``--player``) keeps its own name, the depth means
        nothing to it."""
        if self._player_spec:  # the player's own name, from the first line on
            return self.analyst().name
        return ENGINE_NAME if self.depth is None else f"{ENGINE_NAME}{self.depth}"

    def analyst(self) -> _Analyst:
        if self._analyst is None:
            if self._player_spec:
                self._analyst = _PlayerAnalyst(make_player(self._player_spec))
            else:
                self._analyst = _EngineAnalyst(
                    level=self._level if self.depth is None else None, book=self._book
                )
        return self._analyst

    # ------------------------------------------------------------ loop
    def serve(self) -> int:
        """Answer commands until ``quit`` or the end of input; returns 0."""
        with contextlib.suppress(AttributeError, ValueError, OSError):
            self.input.reconfigure(errors="replace")  # a bad byte is a bad line, not the end

        def unreadable(exc: Exception) -> None:  # an unreadable input ends the session
            print(f"outflank nboard: cannot read the input: {exc}", file=sys.stderr)

        reader = threading.Thread(
            target=pump_lines, args=(self.input, self._lines, unreadable), daemon=True
        )
        reader.start()
        while self._running:
            if self._pending:
                line: str | None = self._pending.pop(0)
            else:
                line = self._lines.get()
            if line is None:
                break
            self.handle(line)
        return 0

    def handle(self, line: str) -> None:
        """Process one command line (never raises for bad input)."""
        words = line.split()
        if not words:
            return
        command, args = words[0].lower(), words[1:]
        try:
            handler = getattr(self, f"_cmd_{command}", None)
            if handler is not None:
                handler(line, args)
            elif re.fullmatch(r"[a-hA-H][1-8]|PA|pa", words[0]) and len(words) == 1:
                self._cmd_move(line, words)  # NBoard 1.1 sends bare moves
            else:
                self.error(f"unknown command {words[0]!r}")
        except OutflankError as exc:
            self.error(str(exc))
        except Exception as exc:  # a bug must not kill the GUI's engine
            self.error(f"internal error on {command!r}: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ commands
    def _cmd_nboard(self, line: str, args: list[str]) -> None:
        if len(args) != 1 or not re.fullmatch(r"[0-9]{1,3}", args[0]):
            raise OutflankError("usage: nboard <version>")
        if int(args[0]) not in (1, 2):
            raise OutflankError(f"unsupported nboard protocol version {args[0]} (1 and 2 are)")
        self.send(f"set myname {self.name}")

    def _cmd_set(self, line: str, args: list[str]) -> None:
        if not args:
            raise OutflankError("usage: set depth N | set game GGF | set contempt N")
        what = args[0].lower()
        if what == "depth":
            if len(args) != 2 or not re.fullmatch(r"-?[0-9]{1,3}", args[1]):
                raise OutflankError("usage: set depth N (1..60)")
            depth = int(args[1])
            if not 1 <= depth <= 60:
                raise OutflankError(f"depth must be in 1..60, not {depth}")
            self.depth = depth
            if self._level is not None and not self._player_spec:
                self._analyst = None  # the level served until the GUI chose a depth
            self.send(f"set myname {self.name}")
        elif what == "game":
            parts = line.split(None, 2)
            text = parts[2] if len(parts) == 3 else ""
            try:
                record = parse_ggf(text)
                board = record.board()
            except InvalidBoardError as exc:
                raise OutflankError(f"cannot read game: {exc}") from None
            self.record, self.board = record, board
        elif what == "contempt":
            try:
                self.contempt = float(args[1])
            except (IndexError, ValueError):
                raise OutflankError("usage: set contempt N") from None
        elif what == "myname":
            pass  # an echo of our own name: nothing to do
        else:
            raise OutflankError(f"unknown option {args[0]!r} (depth, game, contempt)")

    def _cmd_move(self, line: str, args: list[str]) -> None:
        if len(args) != 1:
            raise OutflankError("usage: move <move>[/eval/time]")
        text = args[0].split("/", 1)[0]
        try:
            move = Move.from_str(text)
        except OutflankError:
            raise OutflankError(f"cannot read move {args[0]!r}") from None
        board = self.board.copy()  # an illegal move leaves the board as it was
        if not move.is_pass and board.must_pass():
            board.push(PASS)
        board.push(move)
        self.board = board

    def _cmd_ping(self, line: str, args: list[str]) -> None:
        self.send(f"pong {args[0] if args else ''}".rstrip())

    def _cmd_learn(self, line: str, args: list[str]) -> None:
        self.send("learned")

    def _cmd_quit(self, line: str, args: list[str]) -> None:
        self._running = False

    def _cmd_analyze(self, line: str, args: list[str]) -> None:
        raise OutflankError("analyze is not supported; use hint")

    def _cmd_hint(self, line: str, args: list[str]) -> None:
        try:
            n = int(args[0]) if args else 1
        except ValueError:
            raise OutflankError(f"usage: hint N (not {args[0]!r})") from None
        if n < 1:
            raise OutflankError("hint needs at least 1 move")
        self._require_moves()
        self._search(lambda analyst, info: analyst.hints(self.board, n, self.depth, info), go=False)

    def _cmd_go(self, line: str, args: list[str]) -> None:
        self._require_moves()
        self._search(lambda analyst, info: [analyst.best(self.board, self.depth, info)], go=True)

    # ------------------------------------------------------------ search
    def _require_moves(self) -> None:
        if self.board.is_game_over():
            raise OutflankError("the game is over: no move to search")

    def _search_line(self, a: _Analysis) -> str:
        pv = "-".join(format_move(m) for m in (a.pv or [a.move]))
        value = _num(a.eval) if a.eval is not None else "0"
        depth = "100%" if a.exact else str(a.depth)
        return f"{'book' if a.book else 'search'} {pv} {value} 0 {depth}"

    def _search(
        self,
        job: Callable[[_Analyst, Callable[[_Analysis], None]], list[_Analysis]],
        *,
        go: bool,
    ) -> None:
        analyst = self.analyst()
        analyst.halted.clear()
        self.send(f"status {self.name} is thinking")
        start = time.perf_counter()
        interrupted = threading.Event()
        out: list[Any] = []

        def info(a: _Analysis) -> None:
            # Progress of a go only: a hint's lines are the final ones (the GUI
            # keys search lines by their first move, which changes with depth).
            if go and not interrupted.is_set():
                self.send(self._search_line(a))
                self.send(f"nodestats {a.nodes} {time.perf_counter() - start:.2f}")

        def work() -> None:
            try:
                out.append(job(analyst, info))
            except BaseException as exc:
                out.append(exc)
            finally:
                self._lines.put(_WAKE)  # the loop below waits on the input: wake it now

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        while worker.is_alive():
            if interrupted.is_set() and not analyst.stoppable:
                # a plain player searches on regardless: leave its thread to end
                # alone (its answer is dropped) and serve a fresh player next
                self._analyst = None
                self.send(f"status {self.name} is waiting")
                return
            if interrupted.is_set():  # again until it ends: a stop between two searches
                analyst.stop()  # of a job (best, then analyze) must not be lost
                worker.join(_POLL_SECONDS)
                continue
            try:
                line = self._lines.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue
            if line == _WAKE:
                continue
            self._pending.append(line)  # handled once the search is over
            # ping: the position is about to change; quit or the end of input:
            # the GUI is gone. Either way the search is no longer wanted.
            if line is None or line.split()[:1] in (["ping"], ["quit"]):
                interrupted.set()
                analyst.stop()
        worker.join()
        result = out[0] if out else OutflankError("search gave no result")
        if isinstance(result, BaseException):
            if isinstance(result, OutflankError | ValueError):
                raise OutflankError(str(result))
            raise result
        if not interrupted.is_set():
            elapsed = time.perf_counter() - start
            if go:
                best = result[0]
                text = f"=== {format_move(best.move)}"
                if best.eval is not None:
                    text += f"/{_num(best.eval)}/{elapsed:.1f}"
                self.send(text)
            else:
                for a in result:
                    self.send(self._search_line(a))
        self.send(f"status {self.name} is waiting")
