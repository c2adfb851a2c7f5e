"""AI opponents and analysis for the web app, built on :mod:`outflank.engine`.

The web app holds no search of its own: every AI move, hint and evaluation
comes from :class:`outflank.engine.Engine`. Engines are cached per worker
thread (an engine is not shared between threads) and every search is bounded
in time: the engine's own limits, plus a hard cap enforced with
:meth:`Engine.stop` from a timer.
"""

from __future__ import annotations

import contextlib
import heapq
import importlib
import itertools
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from outflank.board import Board, Move
from outflank.errors import OutflankError
from outflank.levels import DEFAULT_LEVEL
from outflank.web.analysis import Cancel

__all__ = [
    "AIMove",
    "EngineUnavailableError",
    "Thinker",
    "describe",
    "engine_available",
]

OPPONENTS: dict[str, str] = {
    "level": "Engine level {level}",
    "greedy": "Greedy (seed 000)",
    "minimax4": "Minimax depth 4 (seed 000)",
    "heuristic": "Heuristic (seed 003)",
    "regions": "Regions (seed 004)",
}


class EngineUnavailableError(OutflankError):
    """The engine module is missing from this build, so no AI can play."""


def _engine_module() -> Any:
    try:
        return importlib.import_module("outflank.engine")
    except ImportError as exc:
        raise EngineUnavailableError(
            "AI opponents and analysis need outflank.engine, which this build lacks"
        ) from exc


def engine_available() -> bool:
    """True when :mod:`outflank.engine` can be imported."""
    try:
        _engine_module()
    except EngineUnavailableError:
        return False
    return True


def describe(player: dict[str, Any]) -> str:
    """A display name for a seat's player spec."""
    if player.get("kind") != "ai":
        return player.get("name") or "Human"
    text = OPPONENTS.get(player.get("ai") or "", "AI").format(level=player.get("level"))
    if player.get("ai") == "regions":
        text = f"Regions · look-ahead {player.get('lookahead')}"
    return text


class Deadlines:
    """One thread that calls functions at their deadlines (stops searches at
    the time cap): no thread is started per search."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Callable[[], Any]]] = []
        self._seq = itertools.count()
        self._cancelled: set[int] = set()
        self._thread: threading.Thread | None = None

    def call_at(self, delay: float, fn: Callable[[], Any]) -> int:
        """Call ``fn`` in ``delay`` seconds; returns a handle for :meth:`cancel`."""
        with self._cond:
            handle = next(self._seq)
            entry = (time.monotonic() + delay, handle, fn)
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="outflank-deadlines", daemon=True
                )
                self._thread.start()
            if self._heap[0] is entry:  # sooner than the thread waits for: wake it
                self._cond.notify()
            return handle

    def cancel(self, handle: int) -> None:
        """Do not call the function of ``handle`` (if not called yet)."""
        with self._cond:
            self._cancelled.add(handle)
            if len(self._cancelled) > 4 * len(self._heap) + 64:  # forget the called ones
                self._cancelled &= {h for _, h, _ in self._heap}

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._heap and self._heap[0][1] in self._cancelled:
                        _, handle, _ = heapq.heappop(self._heap)
                        self._cancelled.discard(handle)
                        continue
                    wait = self._heap[0][0] - time.monotonic() if self._heap else None
                    if wait is not None and wait <= 0:
                        _, handle, fn = heapq.heappop(self._heap)
                        break
                    self._cond.wait(wait)
            with contextlib.suppress(Exception):  # a failing stop must not end the thread
                fn()


DEADLINES = Deadlines()


@dataclass(frozen=True)
class AIMove:
    """The outcome of one AI search."""

    move: Move
    score: float | None
    depth: int | None
    seconds: float


class Thinker:
    """Runs engine searches for AI seats, hints and evaluations.

    ``time_cap`` bounds every search in seconds on top of the engine's own
    limits; ``cache_size`` is how many engines each thread keeps; ``threads``
    is how many threads each search uses (``None``: every core).
    """

    def __init__(
        self,
        time_cap: float = 10.0,
        cache_size: int = 4,
        tt_mb: int = 16,
        threads: int | None = None,
    ) -> None:
        self.time_cap = time_cap
        self.cache_size = cache_size
        self.tt_mb = tt_mb
        self.threads = threads
        self._local = threading.local()
        self._rng = random.Random()

    # ------------------------------------------------------------ engines
    def _cache(self) -> OrderedDict[str, Any]:
        cache = getattr(self._local, "engines", None)
        if cache is None:
            cache = self._local.engines = OrderedDict()
        return cache

    def _engine(self, key: str, factory: Callable[[Any], Any]) -> Any:
        cache = self._cache()
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        engine = factory(_engine_module().Engine)
        cache[key] = engine
        while len(cache) > self.cache_size:
            cache.popitem(last=False)
        return engine

    def engine_for(self, player: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The engine for an AI spec and the search limits to pass it."""
        kind = player.get("ai")
        tt, threads = self.tt_mb, self.threads
        if kind == "level":
            level = int(player.get("level") or DEFAULT_LEVEL)
            return self._engine(
                f"level:{level}", lambda E: E.level(level, tt_mb=tt, threads=threads)
            ), {}
        if kind == "regions":
            engine = self._engine(
                "regions", lambda E: E.preset("regions", tt_mb=tt, threads=threads)
            )
            engine.configure(
                corner=int(player["corner"]),
                edge=int(player["edge"]),
                x_square=int(player["x_square"]),
            )
            return engine, {"depth": int(player["lookahead"]), "time": self.time_cap}
        if kind in ("greedy", "minimax4", "heuristic"):
            return self._engine(kind, lambda E: E.preset(kind, tt_mb=tt, threads=threads)), {}
        raise OutflankError(f"unknown AI {kind!r}")

    def _analysis_engine(self) -> Any:
        """Hints: every move scored as the strongest play searches (with the book)."""
        return self._engine(
            "analysis", lambda E: E.for_analysis(tt_mb=self.tt_mb, threads=self.threads)
        )

    def _graph_engine(self) -> Any:
        """The evaluation graph: full-width searches of a fixed depth, so that
        every position's score comes from the same search."""
        return self._engine(
            "graph", lambda E: E(evaluator="default", tt_mb=self.tt_mb, threads=self.threads)
        )

    # ------------------------------------------------------------ searches
    def _bounded(self, engine: Any, call: Callable[[], Any], cancel: Cancel | None = None) -> Any:
        """Run ``call`` (a search of ``engine``), stopped after ``time_cap``
        seconds or as soon as ``cancel`` is cancelled."""
        timer = DEADLINES.call_at(self.time_cap, engine.stop)
        detach = cancel.attach(engine.stop) if cancel is not None else None
        try:
            result = call()
        finally:
            DEADLINES.cancel(timer)
            if detach is not None:
                detach()
        if cancel is not None:
            cancel.check()  # a search cut short by the cancellation is no answer
        return result

    def choose(
        self,
        board: Board,
        player: dict[str, Any],
        on_info: Callable[[dict[str, Any]], None] | None = None,
        register: Callable[[Any], None] | None = None,
    ) -> AIMove:
        """Search the position for an AI seat and return its move.

        ``on_info`` receives a dict per finished depth (depth, score, nodes,
        nps, pv, elapsed); ``register`` receives the engine so that the caller
        can :meth:`stop` it (when the game is changed under it).
        """
        engine, limits = self.engine_for(player)
        if register is not None:
            register(engine)

        def info(item: Any) -> None:
            if on_info is not None:
                on_info(
                    {
                        "depth": item.depth,
                        "score": _num(item.score),
                        "nodes": item.nodes,
                        "nps": _num(item.nps),
                        "pv": [str(m) for m in item.pv],
                        "elapsed": _num(item.elapsed),
                    }
                )

        book_move = getattr(engine, "book_move", None)
        picked = book_move(board) if callable(book_move) else None
        if picked is not None:  # the opening book, varied within the level's tolerance
            entry = engine.book.probe(board)
            return AIMove(picked.move, _num(picked.value), entry.depth, 0.0)
        result = self._bounded(engine, lambda: engine.search(board, on_info=info, **limits))
        chance = float(getattr(engine, "random", 0.0) or 0.0)
        if chance and self._rng.random() < chance:
            # weak levels play a random legal move now and then (Engine.choose_move's rule)
            move = self._rng.choice(board.legal_moves)
            return AIMove(move, None, None, float(result.elapsed))
        return AIMove(result.best_move, _num(result.score), result.depth, float(result.elapsed))

    def analyze(
        self, board: Board, depth: int | None, time: float, cancel: Cancel | None = None
    ) -> list[dict[str, Any]]:
        """Every legal move's score, best first (side-to-move view; ``upper``:
        only a bound, see :meth:`Engine.analyze`); ``cancel`` stops the
        search (and raises :class:`Cancelled`). In the opening book (Othello
        rules) the book's moves, at once."""
        engine = self._analysis_engine()
        limits: dict[str, Any] = {"time": min(time, self.time_cap)}  # engine-side bound
        if depth is not None:
            limits["depth"] = depth
        scores = self._bounded(engine, lambda: engine.analyze(board, **limits), cancel)
        return [
            {
                "move": str(item.move),
                "score": _num(item.score),
                "exact": bool(item.exact),
                "book": bool(item.book),
                "upper": bool(item.upper),
            }
            for item in scores
        ]

    def evaluate(self, board: Board, depth: int, cancel: Cancel | None = None) -> float:
        """A quick score of a position from black's view (discs)."""
        outcome = board.outcome()
        if outcome is not None:  # the final margin, as the engine and the GGF record count it
            return float(outcome.margin)
        engine = self._graph_engine()
        result = self._bounded(engine, lambda: engine.search(board, depth=depth), cancel)
        score = _num(result.score) or 0.0
        return score if board.turn.name == "BLACK" else -score


def _num(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return round(number, 3)
