"""The computer opponent: which AI (an engine level or a seed's AI by name)
and the worker thread it thinks in, so the window never freezes.

The engine itself is :class:`outflank.engine.Engine`; this module only names
the choices and runs its searches off the main thread.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from outflank.board import Board, Move
from outflank.errors import OutflankError
from outflank.levels import MAX_LEVEL, MAX_LOOKAHEAD, MIN_LEVEL, MIN_LOOKAHEAD, check_level

__all__ = [
    "LADDER",
    "PRESETS",
    "AISpec",
    "EngineLike",
    "JobResult",
    "Worker",
    "make_engine",
]

#: The seeds' AIs, by the names :meth:`outflank.engine.Engine.preset` knows.
PRESETS: dict[str, str] = {
    "greedy": "greedy (seed 000)",
    "minimax4": "minimax depth 4 (seed 000)",
    "heuristic": "heuristic (seed 003)",
    "regions": "region biases (seed 004)",
    "weights": "weights (seed 002)",
    "default": "default evaluator",
}
_NO_AI = ("none", "off", "human", "no")


#: The regions AI's knobs the keys move (seed 004), and by how much a press.
REGION_STEPS: dict[str, int] = {"corner": 10, "edge": 10, "x_square": 10, "depth": 1}


def _region_ranges() -> dict[str, tuple[int, int, int]]:
    """Each knob's (default, low, high), as the engine's regions preset has
    them: the biases from its evaluator, the look-ahead from its depth."""
    from outflank.engine import PRESETS
    from outflank.evaluation import EVALUATORS

    spec = EVALUATORS["regions"]
    ranges = {name: (value, spec.low, spec.high) for name, value in spec.defaults.items()}
    ranges["depth"] = (PRESETS["regions"]["depth"], MIN_LOOKAHEAD, MAX_LOOKAHEAD)
    return ranges


@dataclass(frozen=True, slots=True)
class AISpec:
    """An AI choice: ``level`` (1-20), a ``preset`` name, or ``none`` (two humans).

    ``tuning`` holds the regions AI's changed knobs (seed 004), as
    ``(name, value)`` pairs; see :meth:`tuned`.
    """

    kind: str  # "level" | "preset" | "none"
    level: int = 0
    preset: str = ""
    tuning: tuple[tuple[str, int], ...] = ()

    @classmethod
    def parse(cls, text: str) -> AISpec:
        """Parse ``"7"``, ``"level 7"``, ``"level:7"``, ``"greedy"``, ``"none"``...

        Raises :class:`OutflankError` with the accepted forms for anything else.
        """
        key = str(text).strip().lower()
        for prefix in ("level:", "level ", "level", "lvl"):
            if key.startswith(prefix) and key[len(prefix) :].strip().isdigit():
                key = key[len(prefix) :].strip()
                break
        if key.isdigit():
            return cls("level", level=check_level(int(key), "AI level"))
        key = key.replace("_", "").replace("-", "")  # names only: "-5" is no level
        if key in ("minimax", "minimaxdepth4"):
            key = "minimax4"
        if key in PRESETS:
            return cls("preset", preset=key)
        if key in _NO_AI:
            return cls("none")
        raise OutflankError(
            f"unknown AI {text!r}: expected a level {MIN_LEVEL}..{MAX_LEVEL}, "
            f"one of {', '.join(PRESETS)}, or none"
        )

    @property
    def enabled(self) -> bool:
        """False when both sides are played by people."""
        return self.kind != "none"

    @property
    def label(self) -> str:
        """A short description for the window: ``"level 7"``, ``"greedy (seed 000)"``."""
        if self.kind == "level":
            return f"level {self.level}"
        if self.kind == "preset":
            return PRESETS[self.preset]
        return "no AI"

    @property
    def knobs(self) -> dict[str, int]:
        """The regions AI's biases and look-ahead, defaults filled in."""
        defaults = {name: default for name, (default, _, _) in _region_ranges().items()}
        return defaults | dict(self.tuning)

    def tuned(self, name: str, delta: int) -> AISpec:
        """This regions AI with one knob moved by ``delta`` steps, kept in its range."""
        _, low, high = _region_ranges()[name]
        knobs = self.knobs
        knobs[name] = max(low, min(high, knobs[name] + delta * REGION_STEPS[name]))
        return AISpec(self.kind, self.level, self.preset, tuple(knobs.items()))

    def __str__(self) -> str:
        if self.kind == "level":
            return str(self.level)
        return self.preset if self.kind == "preset" else "none"

    def step(self, delta: int) -> AISpec:
        """The neighbour on :data:`LADDER` (``L`` / ``Shift+L``), clamped at the ends."""
        if not self.enabled:
            return self
        if self.kind == "preset" and self.preset == "default":  # off the ladder
            below, above = _DEFAULT_BETWEEN
            return AISpec("level", level=above if delta > 0 else below)
        index = LADDER.index(AISpec(self.kind, self.level, self.preset))
        return LADDER[max(0, min(len(LADDER) - 1, index + delta))]


#: The levels around the ``default`` preset's strength (1 s a move, exact
#: from 18 empties): L from it goes up to the second, Shift+L down to the first.
_DEFAULT_BETWEEN = (16, 17)

#: What ``L`` walks up: the seeds' AIs (weakest first), then engine levels 1-20.
LADDER: list[AISpec] = [
    AISpec("preset", preset=name)
    for name in ("greedy", "minimax4", "heuristic", "regions", "weights")
] + [AISpec("level", level=n) for n in range(MIN_LEVEL, MAX_LEVEL + 1)]


class EngineLike(Protocol):
    """What the GUI needs of :class:`outflank.engine.Engine`."""

    def search(
        self, board: Board, depth: Any = None, time: Any = None, on_info: Any = None
    ) -> Any: ...
    def analyze(self, board: Board, depth: Any = None, time: Any = None) -> list[Any]: ...
    def choose_move(self, board: Board) -> Move: ...
    def stop(self) -> None: ...


def make_engine(spec: AISpec, threads: int | None = None) -> EngineLike:
    """The :class:`outflank.engine.Engine` an AI choice names (also used for hints:
    ``AISpec("level", level=n)``), searching on ``threads`` threads (``None``:
    every core)."""
    try:
        from outflank.engine import Engine
    except ImportError as exc:  # pragma: no cover - only before the engine exists
        raise OutflankError(f"the search engine is not available: {exc}") from None
    if spec.kind == "level":
        return Engine.level(spec.level, threads=threads)
    if spec.kind == "preset":
        if spec.preset == "default":  # the strong default is the hints' engine too
            return Engine.for_analysis(threads=threads, **dict(spec.tuning))
        return Engine.preset(spec.preset, threads=threads, **dict(spec.tuning))
    raise OutflankError("no AI chosen: there is no engine to make")


@dataclass(frozen=True, slots=True)
class JobResult:
    """The outcome of one background job: its value, or the exception it raised."""

    job: int
    kind: str
    value: Any = None
    error: BaseException | None = None


class Worker:
    """Runs one search at a time in a daemon thread; the main loop polls it.

    ``submit`` starts a job, ``poll`` returns a finished job's result (or
    ``None``), ``cancel`` asks the running search to stop and drops its
    result, ``wait`` blocks until the current job has finished (for tests and
    shutdown).
    """

    def __init__(self) -> None:
        self._results: queue.Queue[JobResult] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop: Callable[[], None] | None = None
        self._job = 0
        self._current = 0  # job whose result is wanted; 0 = none
        self._kind = ""

    @property
    def busy(self) -> bool:
        """True while a job whose result is still wanted is running or unread."""
        return self._current != 0

    @property
    def kind(self) -> str:
        """The kind of the wanted job (``"move"``, ``"hint"``), or ``""``."""
        return self._kind if self.busy else ""

    def submit(
        self, kind: str, fn: Callable[[], Any], stop: Callable[[], None] | None = None
    ) -> int:
        """Start ``fn()`` in a new thread (after any cancelled job has ended)."""
        if self.busy:
            raise RuntimeError(f"the worker is busy with a {self._kind} job")
        self._join(5.0)
        self._job += 1
        job = self._job
        self._current, self._kind, self._stop = job, kind, stop

        def target() -> None:
            try:
                result = JobResult(job, kind, value=fn())
            except BaseException as exc:  # handed to the main thread
                result = JobResult(job, kind, error=exc)
            self._results.put(result)

        self._thread = threading.Thread(target=target, name=f"outflank-gui-{kind}", daemon=True)
        self._thread.start()
        return job

    def poll(self) -> JobResult | None:
        """The wanted job's result once it is ready, else ``None``."""
        while True:
            try:
                result = self._results.get_nowait()
            except queue.Empty:
                return None
            if result.job == self._current:
                self._current, self._kind, self._stop = 0, "", None
                return result
            # a cancelled job's late answer: drop it

    def cancel(self) -> None:
        """Ask the running job to stop and forget its result."""
        if self._current and self._stop is not None:
            with contextlib.suppress(Exception):  # best effort: the result is dropped anyway
                self._stop()
        self._current, self._kind, self._stop = 0, "", None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the running job ends; True if no job is running now."""
        return self._join(timeout)

    def _join(self, timeout: float | None) -> bool:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
        return True


def best_move_of(result: Any) -> Move:
    """The move of an engine :class:`SearchResult` (kept tolerant of a bare Move)."""
    return result if isinstance(result, Move) else result.best_move
