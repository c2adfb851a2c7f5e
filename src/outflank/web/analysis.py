"""A bounded queue of analysis jobs (hints, evaluations, Learn mode traces).

At most ``limit`` jobs are waiting or running at once; one more is refused
at once with :class:`Busy` (the API answers 503 with ``Retry-After``)
instead of piling up threads, memory and minutes of waiting. A job that
has not finished within ``timeout`` seconds of its request is cancelled:
taken off the queue if it has not started, else told to stop through its
:class:`Cancel` token (which stops a running engine search at once and
makes a pure-Python search raise :class:`Cancelled` at its next leaf).

A job nobody waits on (a game review) is started with
:meth:`AnalysisQueue.submit`: it counts against the same limit, is
cancelled after its own timeout, and its :class:`Background` handle
cancels it sooner.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Generic, TypeVar

__all__ = ["AnalysisQueue", "Background", "Busy", "Cancel", "Cancelled", "TimedOut"]

T = TypeVar("T")


class Cancelled(Exception):
    """Raised inside a job whose request gave up waiting."""


class Busy(Exception):
    """The queue is full; ``retry_after`` is a fair guess of when to ask again (s)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"busy: try again in {retry_after} s")
        self.retry_after = retry_after


class TimedOut(Exception):
    """The job did not finish in time and was cancelled."""

    def __init__(self, seconds: float, retry_after: int) -> None:
        super().__init__(f"no answer in {seconds:g} s")
        self.seconds = seconds
        self.retry_after = retry_after


class Cancel:
    """A job's cancellation token: ``check()`` raises once cancelled, and
    ``attach(stop)`` has ``stop()`` called on cancellation (an engine's stop)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._stops: list[Callable[[], Any]] = []

    @property
    def cancelled(self) -> bool:
        """True once the job has been cancelled."""
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if the job has been cancelled."""
        if self._event.is_set():
            raise Cancelled

    def attach(self, stop: Callable[[], Any]) -> Callable[[], None]:
        """Call ``stop`` on cancellation (at once if already cancelled); the
        returned function detaches it."""
        with self._lock:
            self._stops.append(stop)
            now = self._event.is_set()
        if now:
            stop()

        def detach() -> None:
            with self._lock:
                if stop in self._stops:
                    self._stops.remove(stop)

        return detach

    def cancel(self) -> None:
        """Cancel the job: stop what is attached; ``check()`` raises from now on."""
        with self._lock:
            self._event.set()
            stops = list(self._stops)
        for stop in stops:
            with contextlib.suppress(Exception):  # a stop must not hide the cancellation
                stop()


class AnalysisQueue:
    """``workers`` threads run analysis jobs; at most ``limit`` wait or run."""

    def __init__(
        self, workers: int = 2, limit: int = 8, timeout: float = 30.0, *, name: str = "analysis"
    ) -> None:
        if workers < 1 or limit < workers:
            raise ValueError("an analysis queue needs workers >= 1 and limit >= workers")
        self.workers = workers
        self.limit = limit
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=f"outflank-{name}")
        self._lock = threading.Lock()
        self._pending = 0
        self._seconds = 1.0  # a running mean of a job's duration, for Retry-After

    @property
    def pending(self) -> int:
        """Jobs waiting or running."""
        with self._lock:
            return self._pending

    def _retry_after(self) -> int:
        with self._lock:
            return self._retry_after_locked()

    def _retry_after_locked(self) -> int:
        backlog = self._pending / self.workers
        return max(1, min(60, math.ceil(backlog * self._seconds)))

    def run(self, job: Callable[[Cancel], T], timeout: float | None = None) -> T:
        """Run ``job(cancel)`` on a worker and return its result.

        Raises :class:`Busy` at once when ``limit`` jobs are already pending,
        :class:`TimedOut` (after cancelling the job) when no result came
        within ``timeout`` seconds (the queue's own by default), and whatever
        the job raised otherwise.
        """
        wait = self.timeout if timeout is None else timeout
        with self._lock:
            if self._pending >= self.limit:
                full = True
            else:
                full = False
                self._pending += 1
        if full:
            raise Busy(self._retry_after())
        cancel = Cancel()
        future: Future[T] = self._pool.submit(self._timed, job, cancel)
        try:
            return future.result(timeout=wait)
        except FutureTimeout:
            cancel.cancel()
            if future.cancel():  # never started: it leaves the queue now
                self._done()
            raise TimedOut(wait, self._retry_after()) from None

    def submit(self, job: Callable[[Cancel], T], timeout: float | None = None) -> Background[T]:
        """Start ``job(cancel)`` in the background and return at once.

        Raises :class:`Busy` when ``limit`` jobs are already pending. The job
        is cancelled (its token told, or taken off the queue if not started)
        after ``timeout`` seconds (the queue's own by default) or by
        :meth:`Background.cancel`.
        """
        wait = self.timeout if timeout is None else timeout
        with self._lock:
            if self._pending >= self.limit:
                raise Busy(self._retry_after_locked())
            self._pending += 1
        cancel = Cancel()
        future: Future[T] = self._pool.submit(self._timed, job, cancel)
        handle = Background(self, future, cancel)
        timer = threading.Timer(wait, handle.cancel)
        timer.daemon = True
        timer.start()
        future.add_done_callback(lambda _: timer.cancel())
        return handle

    def _timed(self, job: Callable[[Cancel], T], cancel: Cancel) -> T:
        started = time.monotonic()
        try:
            cancel.check()
            return job(cancel)
        finally:
            spent = time.monotonic() - started
            with self._lock:
                self._seconds = 0.8 * self._seconds + 0.2 * max(spent, 0.01)
            self._done()

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    def close(self) -> None:
        """Drop the waiting jobs and wait for the running ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class Background(Generic[T]):
    """A job started by :meth:`AnalysisQueue.submit`: its future and its
    cancellation."""

    def __init__(self, queue: AnalysisQueue, future: Future[T], cancel: Cancel) -> None:
        self._queue = queue
        self.future = future
        self.token = cancel

    def cancel(self) -> None:
        """Stop the job: a running one is told through its token, a waiting
        one leaves the queue."""
        self.token.cancel()
        if self.future.cancel():  # never started: it leaves the queue now
            self._queue._done()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (or the timeout came)."""
        return self.token.cancelled

    def done(self) -> bool:
        """True once the job has ended (or left the queue)."""
        return self.future.done()
