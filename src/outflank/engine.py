"""The engine: native alpha-beta search behind one small class.

::

    from outflank import Board
    from outflank.engine import Engine

    engine = Engine()                       # strongest evaluator, 1 s per move
    result = engine.search(Board(), depth=8)
    print(result.best_move, result.score, " ".join(map(str, result.pv)))

Scores are from the side to move's view: final disc differences when
``exact`` is true (a solved endgame), otherwise the evaluator's estimate in
its unit (discs for ``default``). A depth-limited search that sees a
finished game reports that game's disc difference. See docs/engine.md.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from outflank import _core
from outflank._core import MODE_EXACT, MODE_MID, MODE_PROBABLE_WLD, MODE_WLD
from outflank.board import PASS, Board, Move, Rules
from outflank.book.store import Book, BookEntry, BookMove
from outflank.errors import GameOverError, OutflankError, SearchLimitError
from outflank.evaluation import Evaluator, make_evaluator
from outflank.threads import check_threads, default_threads

__all__ = ["LEVELS", "PRESETS", "Engine", "MoveScore", "SearchInfo", "SearchResult"]

#: An exact solve that runs out of time answers with its pre-search's move if
#: that midgame search got this deep, else with a search of this depth.
_FALLBACK_DEPTH: Final = 6
MAX_DEPTH: Final = 60
MAX_NODES: Final = 10**18  # the core counts nodes in 64 bits
DEFAULT_TIME: Final = 1.0


@dataclass(frozen=True)
class SearchInfo:
    """Progress of a search: one report per completed depth."""

    depth: int
    score: float
    nodes: int
    nps: float
    pv: list[Move]
    elapsed: float


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search, from the side to move's view."""

    best_move: Move
    score: float
    pv: list[Move]
    depth: int
    nodes: int
    elapsed: float
    nps: float
    exact: bool
    book: bool = False  # from the opening book, not searched now
    #: the engine's win/draw/loss solve (``wld``) found the move; ``score``
    #: is then +1 (a win) or 0 (a draw): proven, unless ``probable``
    wld: bool = False
    #: with ``wld``: the verdict of the solver's pass with probable cut-offs
    #: (1 standard deviation), not a proof
    probable: bool = False


@dataclass(frozen=True)
class MoveScore:
    """One legal move's score (see :meth:`Engine.analyze`) and the depth in
    plies it was searched to (the empties, for an exact score); ``book``:
    the score is the opening book's (searched offline to ``depth``);
    ``upper``: the score is only an upper bound, the move is worse than the
    best by more than the engine's ``analysis_window`` (or, asked for the
    ``multipv`` best, not among them)."""

    move: Move
    score: float
    exact: bool
    depth: int = 0
    book: bool = False
    upper: bool = False


#: Engine.level(n): evaluator, depth, time (s), exact endgame from, random-move
#: chance, probable cut-offs, and from level 6 on the opening book with the
#: tolerance (discs below the best) within which its moves are picked at
#: random, wider at the lower levels (see Engine).
LEVELS: Final[dict[int, dict[str, Any]]] = {
    1: {"evaluator": "discs", "depth": 1, "random": 0.5},
    2: {"evaluator": "fish", "depth": 1, "random": 0.6},
    3: {"evaluator": "fish", "depth": 1, "random": 0.3},
    4: {"evaluator": "weights", "depth": 2, "random": 0.15},
    5: {"evaluator": "heuristic", "depth": 3, "random": 0.05},
    6: {"evaluator": "default", "depth": 1, "book": True, "book_tolerance": 6.0},
    7: {"evaluator": "default", "depth": 2, "random": 0.06, "book": True, "book_tolerance": 6.0},
    8: {"evaluator": "default", "depth": 2, "endgame": 6, "book": True, "book_tolerance": 5.0},
    9: {"evaluator": "default", "depth": 3, "endgame": 8, "book": True, "book_tolerance": 5.0},
    10: {"evaluator": "default", "depth": 4, "endgame": 10, "book": True, "book_tolerance": 4.0},
    11: {"evaluator": "default", "depth": 5, "endgame": 12, "book": True, "book_tolerance": 4.0},
    12: {"evaluator": "default", "depth": 6, "endgame": 14, "book": True, "book_tolerance": 3.0},
    13: {"evaluator": "default", "depth": 7, "endgame": 14, "book": True, "book_tolerance": 3.0},
    14: {"evaluator": "default", "depth": 8, "endgame": 16, "book": True, "book_tolerance": 2.0},
    15: {"evaluator": "default", "depth": 9, "endgame": 16, "book": True, "book_tolerance": 2.0},
    16: {"evaluator": "default", "depth": 10, "endgame": 18, "book": True, "book_tolerance": 1.5},
    17: {"evaluator": "default", "depth": 11, "endgame": 20, "time": 2.0, "book": True,
         "book_tolerance": 1.5},
    18: {"evaluator": "default", "depth": 14, "endgame": 20, "time": 4.0, "selective": 1.5,
         "book": True, "book_tolerance": 1.0},
    19: {"evaluator": "default", "depth": 16, "endgame": 22, "time": 6.0, "selective": 1.5,
         "book": True, "book_tolerance": 1.0},
    20: {"evaluator": "default", "depth": 20, "endgame": 24, "time": 12.0, "selective": 1.5,
         "book": True, "book_tolerance": 0.5},
}  # fmt: skip

#: Engine.preset(name): the players of the seeds and the strong default.
PRESETS: Final[dict[str, dict[str, Any]]] = {
    "greedy": {"evaluator": "fish", "depth": 1},
    "minimax4": {"evaluator": "fish", "depth": 4},
    "heuristic": {"evaluator": "heuristic", "depth": 4},
    "regions": {"evaluator": "regions", "depth": 4},
    "weights": {"evaluator": "weights", "depth": 4},
    "default": {
        "evaluator": "default",
        "time": 1.0,
        "endgame": 18,
        "selective": 0.8,
        "solve_time": 3.25,
        "wld": 22,
    },
}

_ENGINE_KEYS: Final = (
    "depth", "time", "nodes", "endgame", "random", "selective", "seed", "book", "book_tolerance",
    "threads", "solve_time", "wld", "analysis_window",
)  # fmt: skip

#: Engine.for_analysis()'s analysis_window (discs): hints and analysis panels
#: score exactly the moves within this much of the best (docs/engine.md,
#: "Hints and analysis").
ANALYSIS_WINDOW: Final = 4.0


def _move(square: int) -> Move:
    return PASS if square == _core.MOVE_PASS else Move(square)


def _shown(value: Any) -> str:
    """A limit for an error message (a huge int by its size, not its digits)."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an int of {value.bit_length()} bits"
    return repr(value)


def _check_depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise SearchLimitError(f"depth must be an int, not {_shown(depth)}")
    if not 1 <= depth <= MAX_DEPTH:
        raise SearchLimitError(f"depth must be in 1..{MAX_DEPTH}, not {_shown(depth)}")
    return depth


def _check_time(time: Any) -> float:
    if isinstance(time, bool) or not isinstance(time, int | float):
        raise SearchLimitError(f"time must be a number of seconds, not {_shown(time)}")
    try:
        seconds = float(time)
    except OverflowError:  # an int beyond any float
        seconds = math.inf
    if not (math.isfinite(seconds) and seconds > 0):
        shown = _shown(time)
        raise SearchLimitError(f"time must be a positive, finite number of seconds, not {shown}")
    return seconds


def _check_nodes(nodes: Any) -> int:
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
        raise SearchLimitError(f"nodes must be an int in 1..{MAX_NODES:.0e}, not {_shown(nodes)}")
    return nodes


def check_limits(
    depth: Any = None, time: Any = None, nodes: Any = None
) -> tuple[int | None, float | None, int | None]:
    """Search limits checked as :meth:`Engine.search` checks them (``None``:
    no such limit); raises :class:`SearchLimitError` for an impossible one."""
    return (
        None if depth is None else _check_depth(depth),
        None if time is None else _check_time(time),
        None if nodes is None else _check_nodes(nodes),
    )


class Engine:
    """A native alpha-beta engine with its own evaluator, limits and table.

    ``Engine(evaluator="regions", depth=3, corner=40)`` looks 3 moves ahead
    with seed 004's regions. Limits: ``depth`` (plies), ``time`` (seconds
    per move), ``nodes``; with none of them the engine thinks 1 s per move.
    ``endgame=N`` solves positions with at most N empty squares exactly,
    even below a depth limit that stops short of the end (the levels' "depth
    d, exact from N empties"); left unset it is 20 for the ``default``
    evaluator (0 for the others) and then only applies where the depth
    reaches the end; a ``depth`` passed to a call is always honoured;
    ``random=p`` plays a random legal move with probability p in
    :meth:`choose_move` (weak levels). ``selective=t`` (``default``
    evaluator, midgame searches) cuts a node at once where a search of
    about half its depth clears the window by t standard deviations of
    that prediction's error (probable cut-offs); 0, the default, searches
    every node to full depth. ``solve_time=k`` lets an exact solve take
    up to k times the engine's own ``time`` (1, the default: the same
    time); the ``default`` preset gives it 3.25, for an exact endgame decides
    more than any midgame move (docs/engine.md, "Limits"). ``wld=N``
    (0, the default: off) first decides win, draw or loss where the
    position has more than ``endgame`` and at most N empties, within that
    same solve budget, when the engine searches on its own time: a proof
    where the budget is ample for one (:data:`WLD_PROOF_MARGIN` times
    :func:`wld_cost`), further out a probable verdict (the solver's pass
    with probable cut-offs) where the budget covers that. A win or draw
    plays its move (``SearchResult.wld``, and ``probable`` for a verdict
    that is not proven); a loss or a solve cut short leaves the move to
    the midgame search.

    :meth:`analyze` scores every legal move exactly (for its depth); with
    ``analysis_window=W`` (discs; the evaluator's unit for the other
    evaluators' midgame) an analysis scores exactly only the moves within
    W of the best, and each move further below by an upper bound
    (``MoveScore.upper``): it is known to be worse by more than W, which
    costs a fraction of its exact score (``Engine.for_analysis`` uses 4).

    ``threads=N`` (default: every core the process may use) is the number
    of threads each search runs on (the C core splits the tree between
    them, see docs/engine.md), at most the cores the process may use;
    ``threads=1`` searches exactly as a single thread does, node for node.
    With more, an exact solve gives the same score (perhaps another move of
    that score), and a search's nodes and time limits hold for all its
    threads together.

    ``book=True`` consults the opening book shipped with the package
    (``book=PATH`` a book file or build database, or a
    :class:`~outflank.book.Book`): a position in it is answered at once from
    the book (``SearchResult.book``, ``MoveScore.book``) and
    :meth:`choose_move` picks at random among the book moves at most
    ``book_tolerance`` discs worse than the best (0: always the best); out
    of the book the engine searches.

    One search at a time per engine (a lock guards it); separate engines
    may search in parallel threads, the GIL is released while they think.
    """

    def __init__(
        self,
        evaluator: str | Evaluator = "default",
        tt_mb: int = 64,
        *,
        depth: int | None = None,
        time: float | None = None,
        nodes: int | None = None,
        endgame: int | None = None,
        random: float = 0.0,
        selective: float = 0.0,
        seed: int | None = None,
        book: Any = None,
        book_tolerance: float = 0.0,
        threads: int | None = None,
        solve_time: float = 1.0,
        wld: int = 0,
        analysis_window: float | None = None,
        **evaluator_params: Any,
    ) -> None:
        if isinstance(tt_mb, bool) or not isinstance(tt_mb, int) or not 1 <= tt_mb <= 65536:
            raise OutflankError(f"tt_mb must be an int in 1..65536, not {tt_mb!r}")
        threads = default_threads() if threads is None else check_threads(threads)
        self._lock = threading.Lock()
        self._owner: int | None = None  # the thread holding the lock
        try:
            self._searcher = _core.Searcher(tt_mb, threads=threads)
        except MemoryError:
            raise OutflankError(
                f"cannot allocate {tt_mb} MiB for the transposition table: ask for less (tt_mb)"
            ) from None
        self._evaluator = make_evaluator(evaluator, **evaluator_params)
        self._reversi = False
        self._evaluator.configure(self._searcher)
        self.depth: int | None = None
        self.time: float | None = None
        self.nodes: int | None = None
        self.endgame = _default_endgame(self._evaluator)
        self._endgame_set = False  # given explicitly (argument, level, preset, configure)
        self.random = 0.0
        self.selective = 0.0
        self.solve_time = 1.0
        self.wld = 0
        self.analysis_window: float | None = None
        self.book: Book | None = None
        self.book_tolerance = 0.0
        self._stopped = False
        settings = self._checked_settings(
            depth=depth, time=time, nodes=nodes, endgame=endgame, random=random,
            selective=selective, seed=seed, book=book, book_tolerance=book_tolerance,
            solve_time=solve_time, wld=wld, analysis_window=analysis_window,
        )  # fmt: skip
        self._rng = _rng(None)
        self._apply_settings(settings)

    # ---------------------------------------------------------- construction
    @classmethod
    def level(cls, n: int, **kwargs: Any) -> Engine:
        """An engine playing at level n (1 = beginner .. 20 = full strength); see LEVELS."""
        if isinstance(n, bool) or not isinstance(n, int) or n not in LEVELS:
            raise OutflankError(f"level must be an int in 1..{len(LEVELS)}, not {n!r}")
        return cls(**{**LEVELS[n], **kwargs})

    @classmethod
    def preset(cls, name: str, **kwargs: Any) -> Engine:
        """A named engine: greedy, minimax4, heuristic, regions, weights or default."""
        settings = PRESETS.get(str(name).lower())
        if settings is None:
            raise OutflankError(f"unknown preset {name!r} (choose from {', '.join(PRESETS)})")
        return cls(**{**settings, **kwargs})

    @classmethod
    def for_analysis(cls, **kwargs: Any) -> Engine:
        """The engine behind hints and analysis panels (desktop, terminal and
        web): the ``default`` preset with the opening book, so :meth:`analyze`
        scores the moves with the probable cut-offs the strongest play uses,
        exactly within :data:`ANALYSIS_WINDOW` discs of the best and by an
        upper bound further below. Measured by the moves it recommends, it
        beats a full-width analysis and one that scores every move exactly
        at equal time (docs/engine.md, "Hints and analysis"); ``kwargs``
        override its settings as in :meth:`preset`."""
        return cls.preset("default", **{"book": True, "analysis_window": ANALYSIS_WINDOW, **kwargs})

    @property
    def threads(self) -> int:
        """Threads each search may use (``configure(threads=N)`` changes it;
        a search runs at most as many as the process has cores)."""
        return int(self._searcher.threads)

    @property
    def evaluator(self) -> Evaluator:
        """The current evaluator (name and parameters)."""
        return self._evaluator

    def configure(self, evaluator: str | Evaluator | None = None, **params: Any) -> None:
        """Change the evaluator, its parameters or the limits between moves.

        ``engine.configure(corner=-10, depth=6)``; ``evaluator=`` switches to
        another evaluator (its parameters start from their defaults).
        """
        limits = {k: params.pop(k) for k in list(params) if k in _ENGINE_KEYS}
        with self._locked():
            # everything is checked before anything changes: bad input changes nothing
            if evaluator is not None:
                new = make_evaluator(evaluator, **params)
            elif params:
                new = self._evaluator.with_params(**params)
            else:
                new = self._evaluator
            settings = self._checked_settings(**limits)
            if new is not self._evaluator:
                new.configure(self._searcher, self._reversi)
                self._evaluator = new
                if not self._endgame_set:  # the default follows the evaluator
                    self.endgame = _default_endgame(new)
            self._apply_settings(settings)

    @staticmethod
    def _checked_settings(**given: Any) -> dict[str, Any]:
        """The engine's own settings from ``given``, checked (attribute -> value);
        raises for a bad one. ``endgame=None`` leaves the endgame unset."""
        out: dict[str, Any] = {}
        if "depth" in given:
            d = given["depth"]
            out["depth"] = None if d is None else _check_depth(d)
        if "time" in given:
            t = given["time"]
            out["time"] = None if t is None else _check_time(t)
        if "nodes" in given:
            n = given["nodes"]
            out["nodes"] = None if n is None else _check_nodes(n)
        if given.get("endgame") is not None:
            e = given["endgame"]
            if isinstance(e, bool) or not isinstance(e, int) or not 0 <= e <= 64:
                raise OutflankError(f"endgame must be an int in 0..64, not {e!r}")
            out["endgame"] = e
            out["_endgame_set"] = True
        if "random" in given:
            p = given["random"]
            if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
                raise OutflankError(f"random must be a probability in 0..1, not {p!r}")
            out["random"] = float(p)
        if "selective" in given:
            t = given["selective"]
            if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= 10:
                raise OutflankError(f"selective must be a number in 0..10, not {t!r}")
            out["selective"] = float(t)
        if "solve_time" in given:
            k = given["solve_time"]
            if isinstance(k, bool) or not isinstance(k, int | float) or not 1 <= k <= 100:
                raise OutflankError(f"solve_time must be a factor in 1..100, not {k!r}")
            out["solve_time"] = float(k)
        if "wld" in given:
            w = given["wld"]
            if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= 64:
                raise OutflankError(f"wld must be a number of empties in 0..64, not {w!r}")
            out["wld"] = w
        if "analysis_window" in given:
            w = given["analysis_window"]
            if w is not None and (
                isinstance(w, bool) or not isinstance(w, int | float) or not 0 < w <= 64
            ):
                raise OutflankError(
                    f"analysis_window must be None or a number of discs in (0, 64], not {w!r}"
                )
            out["analysis_window"] = None if w is None else float(w)
        if given.get("seed") is not None:
            s = given["seed"]
            if isinstance(s, bool) or not isinstance(s, int):
                raise OutflankError(f"seed must be an int or None, not {s!r}")
            out["_rng"] = _rng(s)
        if given.get("threads") is not None:
            out["_threads"] = check_threads(given["threads"])
        if "book" in given:
            out["book"] = _book(given["book"])
        if "book_tolerance" in given:
            t = given["book_tolerance"]
            if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= 64:
                raise OutflankError(f"book_tolerance must be a number of discs in 0..64, not {t!r}")
            out["book_tolerance"] = float(t)
        return out

    def _apply_settings(self, settings: dict[str, Any]) -> None:
        for name, value in settings.items():
            if name == "_threads":
                self._searcher.set_threads(value)
            else:
                setattr(self, name, value)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One call at a time; a call from inside this engine's own search (an
        ``on_info`` callback runs in the searching thread) is an error, not a
        deadlock."""
        if self._owner == threading.get_ident():
            raise OutflankError(
                "the engine is searching: an on_info callback cannot call it (only stop())"
            )
        with self._lock:
            self._owner = threading.get_ident()
            try:
                yield
            finally:
                self._owner = None

    # -------------------------------------------------------------- searching
    def stop(self) -> None:
        """Ask the running search (in another thread) to return its best move soon.

        A call that has already begun (holding the engine, its search not yet
        started) counts as running; a stop() while no call runs is forgotten
        when the next one begins."""
        self._stopped = True
        self._searcher.stop()

    def clear(self) -> None:
        """Forget the transposition table (e.g. between games)."""
        with self._locked():
            self._searcher.clear()

    def _prepare(self, board: Board) -> None:
        if not isinstance(board, Board):
            raise OutflankError(f"expected a Board, not {type(board).__name__}")
        if board.is_game_over():
            raise GameOverError("the game is over: there is no move to search")
        reversi = board.rules is Rules.REVERSI
        if reversi != self._reversi:
            self._reversi = reversi
            self._evaluator.configure(self._searcher, reversi)
        self._stopped = False
        self._searcher.reset_stop()  # from here on, a stop() ends this call's search

    def _limits(
        self, depth: Any, time: Any, nodes: Any
    ) -> tuple[int | None, float | None, int | None, bool]:
        """(depth, time, nodes, own): the call's limits, checked, or with none
        given the engine's own (``own`` true; with none either, 1 second)."""
        own = depth is None and time is None and nodes is None
        if own:
            depth, time, nodes = self.depth, self.time, self.nodes
            if depth is None and time is None and nodes is None:
                time = DEFAULT_TIME
        return (*check_limits(depth, time, nodes), own)

    def _solve_limit(self, time: float | None, own_limits: bool) -> float | None:
        """The time an exact solve may take: ``solve_time`` times the engine's
        own time; a limit passed to the call is kept as it is."""
        return time * self.solve_time if own_limits and time else time

    def _solves(self, board: Board, depth: int | None, depth_in_call: bool) -> bool:
        """Solve exactly? Within ``endgame`` empties, if the depth reaches the
        end, or the engine's own depth is short of it but ``endgame`` was
        set explicitly (a level's "midgame depth d, exact from e empties");
        a depth passed to the call itself is always honoured. (A Reversi
        board is solved by a midgame search to the end: :meth:`_reversi_end`.)"""
        if board.empties > self.endgame:
            return False
        if depth is None or depth >= board.empties:
            return True
        return self._endgame_set and not depth_in_call

    def _wld_plan(
        self, board: Board, time: float | None, own_limits: bool
    ) -> tuple[int, float] | None:
        """The win/draw/loss solve before the midgame search, as (the core's
        mode, its time), or None for none: only on the engine's own time,
        for an Othello board of more than ``endgame`` and at most ``wld``
        empties. A proven solve where the budget is :data:`WLD_PROOF_MARGIN`
        times its expected time (:func:`wld_cost`), else a probable one
        where the budget covers that (:data:`PROBABLE_WLD_SHARE`)."""
        if not (own_limits and time and self.endgame < board.empties <= self.wld):
            return None
        budget = self._solve_limit(time, own_limits)
        if board.rules is not Rules.OTHELLO or budget is None:
            return None
        cost = wld_cost(board.empties)
        if budget >= WLD_PROOF_MARGIN * cost:
            return MODE_WLD, budget
        if budget >= PROBABLE_WLD_SHARE * cost:
            return MODE_PROBABLE_WLD, budget
        return None

    def _score(self, value: int, exact: bool, discs: bool = False) -> float:
        if exact or discs:
            return float(value)
        return _core.search_discs(value, self._evaluator.scale)

    def _result(
        self,
        raw: dict[str, Any],
        exact: bool,
        discs: bool = False,
        wld: bool = False,
        probable: bool = False,
    ) -> SearchResult:
        """A SearchResult from the core's dict; ``discs``: the score is in
        discs even if not exact (an interrupted endgame solve's estimate);
        ``wld``: a win (+1) or draw (0), ``probable`` or proven."""
        elapsed = raw["elapsed"]
        nodes = raw["nodes"]
        pv = [_move(sq) for sq in raw["pv"]] or [_move(raw["move"])]
        return SearchResult(
            best_move=_move(raw["move"]),
            score=self._score(raw["score"], exact, discs),
            pv=pv,
            depth=raw["depth"],
            nodes=nodes,
            elapsed=elapsed,
            nps=nodes / elapsed if elapsed > 0 else float(nodes),
            exact=exact,
            wld=wld,
            probable=probable,
        )

    def _callback(
        self, on_info: Callable[[SearchInfo], Any] | None
    ) -> Callable[[int, int, int, float, list[int]], None] | None:
        if on_info is None:
            return None

        def report(depth: int, score: int, nodes: int, elapsed: float, pv: list[int]) -> None:
            nps = nodes / elapsed if elapsed > 0 else float(nodes)
            on_info(
                SearchInfo(depth, self._score(score, False), nodes, nps,
                           [_move(sq) for sq in pv], elapsed)
            )  # fmt: skip

        return report

    def _mid(self, board: Board, depth: int | None, time: float | None, nodes: int | None,
             on_info: Any = None, analyze: bool = False, exact: bool = False,
             multipv: int | None = None) -> dict[str, Any]:  # fmt: skip
        """A midgame search; ``exact``: no probable cut-offs (a Reversi solve)
        and, in analyze mode, every move's exact score."""
        selective = 0 if exact else round(self.selective * 100)
        bounds = {}
        if analyze and not exact:
            bounds = self._analysis_bounds(multipv, self._evaluator.scale)
        return self._searcher.search(
            board.player, board.opponent, mode=MODE_MID, depth=depth or MAX_DEPTH,
            time=time or 0.0, nodes=nodes or 0, callback=self._callback(on_info),
            analyze=analyze, selective=selective, **bounds,
        )  # fmt: skip

    def search(
        self,
        board: Board,
        depth: int | None = None,
        time: float | None = None,
        nodes: int | None = None,
        on_info: Callable[[SearchInfo], Any] | None = None,
    ) -> SearchResult:
        """Search the position; no limit given -> the engine's own limits.

        Positions with at most ``endgame`` empties are solved exactly when
        the depth allows. ``on_info`` gets a :class:`SearchInfo` per
        completed depth, from the searching thread.
        """
        depth_in_call = depth is not None
        depth, time, nodes, own_limits = self._limits(depth, time, nodes)
        with self._locked():
            self._prepare(board)
            entry = self._probe(board)
            if entry is not None:
                return SearchResult(
                    best_move=entry.best.move, score=entry.best.value,
                    pv=self._book_line(board), depth=entry.depth, nodes=0, elapsed=0.0,
                    nps=0.0, exact=False, book=True,
                )  # fmt: skip
            if self._solves(board, depth, depth_in_call):
                time = self._solve_limit(time, own_limits)
                if board.rules is Rules.REVERSI:
                    raw, exact = self._reversi_end(board, time, nodes, on_info)
                    return self._result(raw, exact=exact)
                raw = self._searcher.search(
                    board.player, board.opponent, mode=MODE_EXACT, time=time or 0.0,
                    nodes=nodes or 0,
                )  # fmt: skip
                if not raw["aborted"]:
                    result = self._result(raw, exact=True)
                    if on_info is not None:
                        on_info(SearchInfo(result.depth, result.score, result.nodes,
                                           result.nps, result.pv, result.elapsed))  # fmt: skip
                    return result
                if self._stopped or raw["depth"] >= _FALLBACK_DEPTH:
                    # the solve's pre-search (and any later pass) ordered the moves:
                    # its best move and estimate, in discs
                    return self._result(raw, exact=False, discs=True)
                # out of time before the pre-search got far: a quick shallow answer
                return self._result(
                    self._mid(board, min(depth or _FALLBACK_DEPTH, _FALLBACK_DEPTH), None, None,
                              on_info),
                    exact=False,
                )  # fmt: skip
            tried = None
            plan = self._wld_plan(board, time, own_limits)
            if plan is not None:
                mode, budget = plan
                tried = self._searcher.search(
                    board.player, board.opponent, mode=mode, time=budget, nodes=nodes or 0
                )
                if not tried["aborted"] and tried["score"] >= 0:  # a win or draw
                    tried["score"] = int(tried["score"] > 0)
                    return self._result(tried, exact=False, discs=True, wld=True,
                                        probable=mode == MODE_PROBABLE_WLD)  # fmt: skip
                if self._stopped:  # its pre-search's move, as a stopped solve's
                    return self._result(tried, exact=False, discs=True)
            # a loss, or out of time: the midgame search chooses
            raw = self._mid(board, depth, time, nodes, on_info)
            if tried is not None:  # the call's work is both searches'
                raw["nodes"] += tried["nodes"]
                raw["elapsed"] += tried["elapsed"]
            return self._result(raw, exact=False)

    def analyze(
        self,
        board: Board,
        depth: int | None = None,
        time: float | None = None,
        *,
        multipv: int | None = None,
    ) -> list[MoveScore]:
        """Every legal move's score, best first (exact in a solvable endgame).

        Scores are exact for their depth, except that a move more than the
        engine's ``analysis_window`` below the best gets only an upper bound
        (``MoveScore.upper``). ``multipv=k`` instead scores exactly the k
        best moves and bounds the others (as engines answer a request for k
        hints): far cheaper than every move's score."""
        if multipv is not None and (
            isinstance(multipv, bool) or not isinstance(multipv, int) or not 1 <= multipv <= 64
        ):
            raise OutflankError(f"multipv must be an int in 1..64, not {multipv!r}")
        depth_in_call = depth is not None
        depth, time, nodes, own_limits = self._limits(depth, time, None)
        with self._locked():
            self._prepare(board)
            entry = self._probe(board)
            if entry is not None:
                return [
                    MoveScore(m.move, m.value, False, entry.depth, book=True) for m in entry.moves
                ]
            if self._solves(board, depth, depth_in_call):
                time = self._solve_limit(time, own_limits)
                if board.rules is Rules.REVERSI:
                    raw, exact = self._reversi_end(board, time, nodes, analyze=True)
                    if not exact:  # a limit came first: its deepest analysis
                        return self._mid_scores(raw)
                else:
                    raw = self._searcher.search(
                        board.player, board.opponent, mode=MODE_EXACT, time=time or 0.0,
                        nodes=nodes or 0, analyze=True, **self._analysis_bounds(multipv, 1.0),
                    )  # fmt: skip
                if not raw["aborted"]:
                    return [
                        MoveScore(_move(sq), float(v), True, board.empties, upper=upper)
                        for sq, v, _, upper in raw["moves"]
                    ]
                # stopped, or out of time: a quick shallow analysis, not a second budget
                depth, time = min(depth or _FALLBACK_DEPTH, _FALLBACK_DEPTH), None
                self._searcher.reset_stop()
            raw = self._mid(board, depth, time, nodes, analyze=True, multipv=multipv)
            return self._mid_scores(raw)

    def _analysis_bounds(self, multipv: int | None, scale: float) -> dict[str, int]:
        """The core's arguments for the moves an analysis scores exactly: the
        ``multipv`` best, or those within the engine's ``analysis_window``
        (discs, times ``scale`` for the core's unit), or (none) every move."""
        if multipv is not None:
            return {"multipv": multipv}
        if self.analysis_window is None:
            return {}
        return {"window": max(1, math.ceil(scale * self.analysis_window))}

    def _mid_scores(self, raw: dict[str, Any]) -> list[MoveScore]:
        """The searched moves of a midgame analysis, in the evaluator's unit."""
        return [
            MoveScore(_move(sq), self._score(v, False), False, raw["depth"], upper=upper)
            for sq, v, searched, upper in raw["moves"]
            if searched
        ]

    def _reversi_end(
        self, board: Board, time: float | None, nodes: int | None,
        on_info: Any = None, analyze: bool = False,
    ) -> tuple[dict[str, Any], bool]:  # fmt: skip
        """A Reversi board searched through to the end of the game, without
        probable cut-offs (the exact solver assumes Othello's passes):
        ``(raw, exact)``; when exact, the scores are final disc differences,
        else a limit came first and ``raw`` is the deepest search done."""
        raw = self._mid(board, MAX_DEPTH, time, nodes, on_info, analyze=analyze, exact=True)
        if raw["aborted"] or raw["depth"] < board.empties:
            return raw, False
        raw["score"] = _core.finished_discs(raw["score"])
        raw["moves"] = [(sq, _core.finished_discs(v), s, u) for sq, v, s, u in raw["moves"]]
        return raw, True

    def solve(
        self,
        board: Board,
        *,
        wld: bool = False,
        time: float | None = None,
        nodes: int | None = None,
    ) -> SearchResult:
        """The exact endgame result: best move, final disc difference, PV.

        ``wld=True`` only decides win/draw/loss (faster): the score is then
        +1, 0 or -1. No limit by default: a solve takes as long as the
        position needs (seconds at 20-26 empties, far longer at 30+).
        ``time`` (seconds) or ``nodes`` bound it; if a limit or :meth:`stop`
        ends it first, ``exact`` is false and the score is the best
        estimate so far: discs, or for a Reversi board (solved by a midgame
        search to the end) the evaluator's unit, as in :meth:`search`.
        """
        _, time, nodes = check_limits(None, time, nodes)
        with self._locked():
            self._prepare(board)
            if board.rules is Rules.REVERSI:  # a midgame search through to the end
                raw, exact = self._reversi_end(board, time, nodes)
                if not exact:  # a limit came first
                    return self._result(raw, exact=False)
            else:
                raw = self._searcher.search(
                    board.player, board.opponent, mode=MODE_WLD if wld else MODE_EXACT,
                    time=time or 0.0, nodes=nodes or 0,
                )  # fmt: skip
                if raw["aborted"] and raw["depth"] < _FALLBACK_DEPTH:
                    # cut short before its pre-search got far: a quick shallow estimate
                    return self._result(self._disc_estimate(board, raw), exact=False, discs=True)
            if wld and not raw["aborted"]:
                raw["score"] = (raw["score"] > 0) - (raw["score"] < 0)
            return self._result(raw, exact=not raw["aborted"], discs=True)

    def _disc_estimate(self, board: Board, cut: dict[str, Any]) -> dict[str, Any]:
        """A depth-6 search with the ``default`` evaluator, scored in discs as a
        solve's estimate is, whatever the engine's own evaluator; its nodes and
        time include those of the solve ``cut`` short before it."""
        self._searcher.reset_stop()
        _DISC_EVALUATOR.configure(self._searcher, self._reversi)
        try:
            raw = self._mid(board, min(_FALLBACK_DEPTH, board.empties), None, None)
        finally:
            self._evaluator.configure(self._searcher, self._reversi)
        value = raw["score"]  # a game end seen is its disc difference
        raw["score"] = _core.search_discs(value)
        raw["nodes"] += cut["nodes"]
        raw["elapsed"] += cut["elapsed"]
        return raw

    # ------------------------------------------------------------------ book
    def _probe(self, board: Board) -> BookEntry | None:
        """The book's entry for an Othello position, if the engine has a book."""
        if self.book is None or board.rules is not Rules.OTHELLO:
            return None
        entry = self.book.probe(board)
        return entry if entry is not None and entry.moves else None

    def _book_line(self, board: Board) -> list[Move]:
        assert self.book is not None
        return self.book.line(board) or [self._probe(board).best.move]  # type: ignore[union-attr]

    def book_move(self, board: Board) -> BookMove | None:
        """A book move for the position, picked at random among those at
        most ``book_tolerance`` discs below the best; ``None`` out of the
        book (or without one)."""
        if not isinstance(board, Board):
            raise OutflankError(f"expected a Board, not {type(board).__name__}")
        entry = self._probe(board)
        if entry is None:
            return None
        return self._rng.choice(entry.within(self.book_tolerance))

    def choose_move(self, board: Board) -> Move:
        """The move to play with the engine's own limits (and randomness, if
        any): in the book, a book move (see :meth:`book_move`), else a search."""
        if self.random and self._rng.random() < self.random:
            moves = board.legal_moves
            if not moves:
                raise GameOverError("the game is over: there is no move to choose")
            return self._rng.choice(moves)
        picked = self.book_move(board)
        if picked is not None:
            return picked.move
        return self.search(board).best_move

    def evaluate(self, board: Board) -> float:
        """The evaluator's static score of the position (side to move's view)."""
        if not isinstance(board, Board):
            raise OutflankError(f"expected a Board, not {type(board).__name__}")
        with self._locked():
            value = self._searcher.evaluate(board.player, board.opponent)
        return value / self._evaluator.scale

    def __repr__(self) -> str:
        limits = ", ".join(
            f"{k}={getattr(self, k)}" for k in ("depth", "time", "nodes") if getattr(self, k)
        )
        return f"Engine({self._evaluator.describe()}{', ' + limits if limits else ''})"


_DISC_EVALUATOR: Final = make_evaluator("default")
"""Scores in 1/100 disc: the unit of a solve cut short before its pre-search."""


def _book(value: Any) -> Book | None:
    """An engine's book from its ``book`` setting: ``True`` the shipped book,
    ``False``/``None``/0 none, a path or a :class:`Book`."""
    if value is None or value is False or (isinstance(value, int) and value == 0):
        return None
    if value is True or (isinstance(value, int) and value == 1):
        return Book.default()
    if isinstance(value, Book):
        return value
    if isinstance(value, str | os.PathLike):
        return Book.load(value)
    raise OutflankError(f"book must be True, False, a path or a Book, not {value!r}")


def _rng(seed: int | None) -> random.Random:
    return random.Random(seed)


#: The expected time (seconds) of a proven win/draw/loss solve at 20
#: empties in a game (one thread, the table warm from the earlier moves);
#: each empty more multiplies it by :data:`WLD_COST_GROWTH`.
WLD_COST_20: Final = 0.015
WLD_COST_GROWTH: Final = 2.5
#: :meth:`Engine.search` proves win, draw or loss only where the solve's
#: budget is this many times its expected time: with the ``default``
#: preset's 4 times the move's time, up to 20 empties at 0.03 s a move,
#: 22 at 0.1 s, 23 at 0.27 s, 24 at 1 s.
WLD_PROOF_MARGIN: Final = 4.0
#: A probable win/draw/loss solve's expected time, as a share of a proven
#: one's (0.38-0.52 at 21-24 empties); further out the engine tries one
#: where its budget covers that: up to 23 empties at 0.03 s a move, 24 at
#: 0.1 s, 25 at 0.27 s, 26 at 1 s (as far as ``wld`` reaches).
PROBABLE_WLD_SHARE: Final = 0.45


def wld_cost(empties: int) -> float:
    """The expected time of a win/draw/loss solve (see :data:`WLD_COST_20`)."""
    return WLD_COST_20 * WLD_COST_GROWTH ** (empties - 20)


def _default_endgame(evaluator: Evaluator) -> int:
    """Exact from 20 empties with ``default``; the seeds' evaluators only
    where their depth reaches the end."""
    return 20 if evaluator.name == "default" else 0
