"""Stopping a job of worker processes cleanly on Ctrl-C (SIGINT) or SIGTERM.

Python's default Ctrl-C raises KeyboardInterrupt wherever the main thread
happens to be. Raised inside :func:`concurrent.futures.wait` between its lock
acquisitions, it can leave a future's lock held: the pool's manager thread
then blocks for ever and the interpreter hangs at exit. So the jobs that wait
on worker processes (book builds, tournaments, the evaluator's training data,
``bench/match.py``) take signals this way instead:

* :class:`StopSignals` (a context manager, main thread) turns SIGINT and
  SIGTERM into a stop request, a plain flag and nothing else: a second
  signal arriving inside the first one's handler cannot deadlock (a
  :class:`threading.Event` did), and no library code is cut short;
* the job's loop waits for its workers in short steps
  (:meth:`WorkerPool.wait`), keeps what has finished and starts nothing new
  once a stop is requested;
* :meth:`WorkerPool.close` then terminates the workers (the work in flight
  is abandoned) and joins the pool, so nothing is left to race the
  interpreter's exit;
* after a stop the signals stay ignored while the command prints its last
  words and exits with :data:`EXIT_INTERRUPTED`.

A job run as a library call takes a :class:`Stop` (``stop=``) and looks at
``stop.requested`` between its steps; :meth:`Stop.request` stops it from
another thread.
"""

from __future__ import annotations

import concurrent.futures as futures
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any, Final

__all__ = ["EXIT_INTERRUPTED", "POLL_SECONDS", "Stop", "StopSignals", "WorkerPool"]

#: The exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT).
EXIT_INTERRUPTED: Final = 130
#: How often a waiting job looks at its stop flag.
POLL_SECONDS: Final = 0.1
#: The signals that stop a job.
SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
_NO_JOB: Final = object()  # the end of WorkerPool.completed's jobs


class Stop:
    """A request to stop a job; the job looks at :attr:`requested` between
    its steps."""

    def __init__(self) -> None:
        self.requested = False
        self.signum: int | None = None  # the signal that asked, if one did

    def request(self, signum: int | None = None) -> None:
        """Ask the job to stop. Only plain assignments: this runs as a signal
        handler, perhaps again from inside itself."""
        if signum is not None:
            self.signum = signum
        self.requested = True


class StopSignals(Stop):
    """``with StopSignals() as stop:`` SIGINT and SIGTERM only set
    ``stop.requested`` (installed from the main thread; elsewhere nothing
    changes). On the way out, after a stop, both signals stay ignored: the
    command is ending, and its last output must not be cut short by the next
    Ctrl-C of an impatient user (Python would otherwise restore the default
    handler, whose KeyboardInterrupt prints a traceback). Without a stop the
    previous handlers come back."""

    def __init__(self) -> None:
        super().__init__()
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.request(signum)

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, signal.SIG_IGN if self.requested else previous)
        self._previous.clear()


# ---------------------------------------------------------------- workers
def _watch_parent(parent: int) -> None:
    """Exit this worker when its parent is gone (killed with -9, it could
    not end us), instead of finishing a job nobody will collect."""

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _init_worker(
    parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]
) -> None:
    # Ctrl-C at a terminal reaches the whole process group: the parent
    # handles it. SIGTERM from WorkerPool.close() ends the worker. Both
    # were blocked across the fork (WorkerPool.submit), so a terminate()
    # that came before this point takes effect now.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    _watch_parent(parent)
    if initializer is not None:
        initializer(*initargs)


class WorkerPool:
    """Worker processes (:class:`concurrent.futures.ProcessPoolExecutor`)
    whose waits end soon after a stop is requested.

    ``with WorkerPool(2, stop) as pool:`` submit with :meth:`submit`, wait
    with :meth:`wait`. Leaving the block normally shuts the pool down (the
    idle workers exit); after a stop or an exception the workers are
    terminated first, the work in flight abandoned."""

    def __init__(
        self,
        workers: int,
        stop: Stop,
        *,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        self.stop = stop
        self._pool = futures.ProcessPoolExecutor(
            workers, initializer=_init_worker, initargs=(os.getpid(), initializer, initargs)
        )
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> futures.Future[Any]:
        """Start ``fn(*args)`` in a worker (the first call starts the
        workers, forked with SIGINT and SIGTERM blocked so that none can
        run the parent's handler before :func:`_init_worker`)."""
        blocked = threading.current_thread() is threading.main_thread()
        if blocked:
            previous = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            return self._pool.submit(fn, *args)
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def wait(self, pending: Iterable[futures.Future[Any]]) -> set[futures.Future[Any]]:
        """Wait until one of ``pending`` is done or a stop is requested;
        return the done ones (perhaps none, after a stop). After a stop, a
        future that failed because its worker was ended with it (a SIGTERM
        to the whole process group) is left out: abandoned, not an error."""
        pending = set(pending)
        while True:
            done, _ = futures.wait(
                pending, timeout=POLL_SECONDS, return_when=futures.FIRST_COMPLETED
            )
            if done or self.stop.requested or not pending:
                break
        if self.stop.requested:
            done = {f for f in done if not f.cancelled() and f.exception() is None}
        return done

    def completed(
        self,
        fn: Callable[..., Any],
        jobs: Iterable[Any],
        ahead: int,
        more: Callable[[], bool] | None = None,
    ) -> Iterator[tuple[Any, futures.Future[Any]]]:
        """``fn(job)`` in the workers for each job, at most ``ahead`` at a
        time; yields ``(job, future)`` as each finishes. It ends when every
        job is done, after a stop request (the jobs in flight are then the
        caller's :meth:`close` to abandon), or, once ``more()`` turns false,
        when the jobs already started are done."""
        todo = iter(jobs)
        running: dict[futures.Future[Any], Any] = {}
        while not self.stop.requested:
            while len(running) < ahead and (more is None or more()):
                job = next(todo, _NO_JOB)
                if job is _NO_JOB:
                    break
                running[self.submit(fn, job)] = job
            if not running:
                return
            for future in self.wait(running):
                yield running.pop(future), future

    def close(self, abandon: bool = True) -> None:
        """Shut the pool down and join it. ``abandon``: terminate the workers
        first (their work is lost) rather than wait for it."""
        if self._closed:
            return
        self._closed = True
        if abandon:
            processes = list((getattr(self._pool, "_processes", None) or {}).values())
            for process in processes:
                with contextlib.suppress(Exception):
                    process.terminate()
        # the manager thread sees its workers gone and ends: joined here, it
        # cannot race the interpreter's exit (which wrote to its closed
        # wake-up pipe: "Exception ignored ... Bad file descriptor")
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.close(abandon=exc_type is not None or self.stop.requested)
