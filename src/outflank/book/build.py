"""Building an opening book: expand, search, back up; resumable.

The build's state is a SQLite database: its parameters and every position
searched so far (canonical, with each move's value), committed one position
at a time, so an interrupted or killed build loses at most the searches in
flight and goes on where it stopped when run again.

Which positions belong to the book follows from the searches alone: from
each root, a line is followed while the moves' losses (the best move's
value minus the move's, in the position's own search) add up to at most
``window`` discs, up to ``plies`` plies from the start (the deepest book
positions are searched but not expanded). A position reached along several
lines counts its cheapest one. Each position is searched in its canonical
orientation on a cleared transposition table, so its values do not depend
on which worker searched it or in what order: a resumed or parallel build
ends with the same book as one uninterrupted run.
"""

from __future__ import annotations

import concurrent.futures as futures
import heapq
import inspect
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from outflank.board import Board
from outflank.book.database import BuildDB, BuildParams, RawRecord
from outflank.book.store import child_key
from outflank.book.symmetry import canonical, split_key
from outflank.cluster import ray_cancel, ray_session, ray_wait
from outflank.errors import BookError, OutflankError
from outflank.interrupt import Stop, WorkerPool

__all__ = ["BuildDB", "BuildParams", "BuildStatus", "Builder", "evaluate_position"]

# ---------------------------------------------------------------- searching
_ENGINE: Any = None
_ENGINE_KEY: tuple[int, int, int] | None = None


def _engine(selectivity: int, tt_mb: int) -> Any:
    """This process's engine for book searches (made once per settings)."""
    global _ENGINE, _ENGINE_KEY
    from outflank.engine import Engine

    if _ENGINE is None or (selectivity, tt_mb, os.getpid()) != _ENGINE_KEY:
        kwargs: dict[str, Any] = {"tt_mb": tt_mb, "selective": selectivity / 10}
        if "threads" in inspect.signature(Engine).parameters:
            kwargs["threads"] = 1  # the workers are the parallelism
        _ENGINE = Engine(**kwargs)
        _ENGINE_KEY = (selectivity, tt_mb, os.getpid())
    return _ENGINE


def evaluate_position(job: tuple[int, int, int, int]) -> tuple[int, RawRecord, float]:
    """Search one canonical position: ``(key, depth, selectivity, tt_mb)`` ->
    ``(key, record, CPU seconds)``. Every move is scored by a full-window search
    of ``depth`` plies on a cleared table (the same answer in any process)."""
    key, depth, selectivity, tt_mb = job
    engine = _engine(selectivity, tt_mb)
    player, opponent = split_key(key)
    board = Board(player, opponent)
    start = time.process_time()  # this process's CPU time: the search runs on one thread
    engine.clear()
    scores = engine.analyze(board, depth=depth)
    seconds = time.process_time() - start
    moves = tuple(
        sorted((m.move.square, max(-6400, min(6400, round(m.score * 100)))) for m in scores)
    )
    exact = bool(scores) and scores[0].exact
    record = RawRecord(board.empties if exact else depth, 0 if exact else selectivity, moves)
    return key, record, seconds


class _Backend:
    """Where searches run: submit jobs, wait for any to finish."""

    capacity = 1

    def submit(self, job: tuple[int, int, int, int]) -> Any:
        raise NotImplementedError

    def wait(self, handles: set[Any]) -> list[tuple[Any, tuple[int, RawRecord, float]]]:
        """The searches finished among ``handles`` (handle, result), at
        least one unless a stop was requested."""
        raise NotImplementedError

    def close(self, pending: set[Any]) -> None:
        """Stop; the ``pending`` searches are abandoned."""


class _Local(_Backend):
    """Worker processes on this machine (one worker: still a process of its
    own, so that a stop does not wait for the search in flight)."""

    def __init__(self, workers: int, stop: Stop) -> None:
        self.capacity = 2 * workers
        self._pool = WorkerPool(workers, stop)

    def submit(self, job: tuple[int, int, int, int]) -> Any:
        return self._pool.submit(evaluate_position, job)

    def wait(self, handles: set[Any]) -> list[tuple[Any, tuple[int, RawRecord, float]]]:
        try:
            return [(f, f.result()) for f in self._pool.wait(handles)]
        except futures.process.BrokenProcessPool:
            raise OutflankError("a book worker process died (killed, or out of memory)") from None

    def close(self, pending: set[Any]) -> None:
        self._pool.close(abandon=bool(pending) or self._pool.stop.requested)


class _Ray(_Backend):
    """Searches as Ray tasks, on a Ray cluster (or a local one)."""

    def __init__(self, workers: int, stop: Stop) -> None:
        ray = ray_session()
        self._ray = ray
        self._stop = stop
        self._remote = ray.remote(num_cpus=1)(evaluate_position)
        cpus = int(ray.cluster_resources().get("CPU", workers))
        self.capacity = 2 * max(cpus, 1)

    def submit(self, job: tuple[int, int, int, int]) -> Any:
        return self._remote.remote(job)

    def wait(self, handles: set[Any]) -> list[tuple[Any, tuple[int, RawRecord, float]]]:
        ready, _ = ray_wait(self._ray, handles, self._stop)
        return [(ref, self._ray.get(ref)) for ref in ready]

    def close(self, pending: set[Any]) -> None:
        ray_cancel(self._ray, pending)


# ---------------------------------------------------------------- the builder
@dataclass
class BuildStatus:
    """Progress of a build (what a progress bar shows)."""

    done: int  # positions stored, all runs
    searched: int  # positions searched in this run
    queued: int  # positions waiting (the queue grows as lines open up)
    running: int
    elapsed: float  # seconds of this run
    complete: bool = False
    interrupted: bool = False  # ended early by a stop request (Ctrl-C): run again to go on

    @property
    def rate(self) -> float:
        """Positions per second in this run."""
        return self.searched / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds until the queue known now is done, at this run's rate."""
        rate = self.rate
        return (self.queued + self.running) / rate if rate > 0 else None


def _ply(key: int) -> int:
    p, o = split_key(key)
    return (p | o).bit_count() - 4


def line_positions(transcript: str) -> list[Board]:
    """The positions along a transcript from the start, after each move."""
    board = Board.from_transcript(transcript)
    moves = board.move_stack
    board = Board()
    out = []
    for move in moves:
        board.push(move)
        out.append(board.copy(stack=False))
    return out


def root_entry(board: Board, cost: int) -> list[Any]:
    """A root as stored in the parameters."""
    return [board.obf(), cost]


class Builder:
    """Runs a build: ``Builder(db, params, workers=2).run()``."""

    def __init__(
        self,
        db: BuildDB,
        *,
        workers: int = 1,
        backend: str = "local",
        tt_mb: int = 16,
        on_progress: Callable[[BuildStatus], None] | None = None,
    ) -> None:
        params = db.params()
        if params is None:
            raise BookError(f"{db.path}: no build parameters (start it with `book build`)")
        params.check()
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise OutflankError(f"workers must be at least 1, not {workers!r}")
        if backend not in ("local", "ray"):
            raise OutflankError(f"unknown backend {backend!r} (local or ray)")
        self.db = db
        self.params = params
        self.workers = workers
        self.backend = backend
        self.tt_mb = tt_mb
        self.on_progress = on_progress
        self.records = db.records()
        self.cost: dict[int, int] = {}
        # the queue: roots first (a build stopped early still has every line
        # asked for), then the cheapest lines, then the shallowest positions
        self._heap: list[tuple[bool, int, int, int]] = []
        self._running: set[int] = set()
        self._roots: set[int] = set()
        roots = []
        for obf, spent in params.roots:
            board = Board.from_obf(obf)
            if board.must_pass():
                board.push("pass")
            if board.is_game_over():
                continue
            p, o, _ = canonical(board.player, board.opponent)
            self._roots.add(p << 64 | o)
            roots.append((p << 64 | o, int(spent)))
        self._relax(roots)

    # -------------------------------------------------------------- the tree
    def _relax(self, work: list[tuple[int, int]]) -> None:
        """Lower the cost of positions (and, for searched ones, of the lines
        they open); unsearched positions within the limits are queued."""
        window, plies = self.params.window_c, self.params.plies
        while work:
            key, cost = work.pop()
            if cost > window or cost >= self.cost.get(key, window + 1):
                continue
            self.cost[key] = cost
            record = self.records.get(key)
            if record is None:
                if key not in self._running:
                    heapq.heappush(self._heap, self._entry(key, cost))
                continue
            work.extend(self._children(key, record, cost, window, plies))

    @staticmethod
    def _children(
        key: int, record: RawRecord, cost: int, window: int, plies: int
    ) -> Iterator[tuple[int, int]]:
        if _ply(key) >= plies or not record.moves:
            return
        player, opponent = split_key(key)
        best = max(v for _, v in record.moves)
        for square, value in record.moves:
            spent = cost + best - value
            if spent <= window:
                child, _ = child_key(player, opponent, square)
                if child is not None:
                    yield child, spent

    def _entry(self, key: int, cost: int) -> tuple[bool, int, int, int]:
        return key not in self._roots, cost, _ply(key), key

    def queued(self) -> int:
        """Positions waiting to be searched."""
        return len({e[-1] for e in self._heap if e[-1] not in self.records} - self._running)

    def _next(self) -> int | None:
        while self._heap:
            _, cost, _, key = heapq.heappop(self._heap)
            if key in self.records or key in self._running or cost > self.cost.get(key, cost):
                continue
            return key
        return None

    # -------------------------------------------------------------- running
    def run(
        self,
        *,
        max_time: float | None = None,
        max_positions: int | None = None,
        stop: Stop | None = None,
    ) -> BuildStatus:
        """Search until the book is complete, or until ``max_time`` seconds or
        ``max_positions`` searches (then the searches in flight finish and are
        stored). A ``stop`` request (:class:`outflank.interrupt.StopSignals`:
        Ctrl-C) ends the run at once: the positions searched are stored, the
        searches in flight are lost, and the status says ``interrupted``."""
        start = time.perf_counter()
        stop = stop if stop is not None else Stop()
        searched = 0
        backend: _Backend = (
            _Ray(self.workers, stop) if self.backend == "ray" else _Local(self.workers, stop)
        )
        handles: dict[Any, int] = {}
        params = self.params

        def status(complete: bool = False) -> BuildStatus:
            return BuildStatus(
                len(self.records), searched, self.queued(), len(handles),
                time.perf_counter() - start, complete, stop.requested and not complete,
            )  # fmt: skip

        try:
            while not stop.requested:
                stopping = (max_time is not None and time.perf_counter() - start >= max_time) or (
                    max_positions is not None and searched + len(handles) >= max_positions
                )
                while not stopping and len(handles) < backend.capacity:
                    key = self._next()
                    if key is None:
                        break
                    self._running.add(key)
                    job = (key, params.depth, params.selectivity, self.tt_mb)
                    handles[backend.submit(job)] = key
                    if max_positions is not None and searched + len(handles) >= max_positions:
                        break
                if not handles:
                    break
                if self.on_progress is not None:
                    self.on_progress(status())
                for handle, (key, record, seconds) in backend.wait(set(handles)):
                    del handles[handle]
                    self.db.add(key, record, seconds)
                    self.records[key] = record
                    self._running.discard(key)
                    searched += 1
                    cost = self.cost.get(key)
                    if cost is not None:
                        work = list(
                            self._children(key, record, cost, params.window_c, params.plies)
                        )
                        self._relax(work)
        finally:
            backend.close(set(handles))
        for key in handles.values():  # abandoned: back in the queue
            self._running.discard(key)
            heapq.heappush(self._heap, self._entry(key, self.cost.get(key, 0)))
        handles.clear()
        final = status(complete=not self._next_exists())
        if self.on_progress is not None:
            self.on_progress(final)
        return final

    def _next_exists(self) -> bool:
        key = self._next()
        if key is None:
            return False
        heapq.heappush(self._heap, self._entry(key, self.cost[key]))
        return True


def start_build(
    path: str | Path,
    given: dict[str, Any],
    *,
    extend: bool = False,
    roots: Iterable[list[Any]] = (),
) -> BuildDB:
    """Open a build database for ``book build`` (a new build with the
    ``given`` parameters, or one resumed: then any parameter given must be
    the stored one) or for ``book extend`` (a new window, plies or more
    roots; the depth and selectivity stay as they were)."""
    db = BuildDB.open(path, create=not extend)
    roots = list(roots)
    try:
        stored = db.params()
        if stored is None:
            if extend:
                raise BookError(f"{path}: no build to extend (start one with `book build`)")
            params = BuildParams(**given)
            if roots:
                params.roots = []
        else:
            fixed = ("depth", "selective") if extend else ("depth", "selective", "window", "plies")
            for name in fixed:
                if name in given and given[name] != getattr(stored, name):
                    hint = (
                        " (`outflank book extend` changes window and plies)" if not extend else ""
                    )
                    raise BookError(
                        f"{path} was started with {name} {getattr(stored, name)}, not"
                        f" {given[name]}{hint}"
                    )
            if roots and not extend and any(r not in stored.roots for r in roots):
                raise BookError(f"{path}: new roots need `outflank book extend`")
            params = stored
            if extend:
                params = replace(
                    stored, **{k: v for k, v in given.items() if k in ("window", "plies")}
                )
        for root in roots:
            if root not in params.roots:
                params.roots.append(root)
        params.check()
        db.set_params(params)
    except BaseException:
        db.close()
        raise
    return db
