"""outflank.interrupt: signals that only set a flag, a worker pool a stop
ends at once. The commands built on it are stopped by real signals in
test_book.py, test_tournament.py, test_evaldata.py and test_match.py."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from outflank.interrupt import Stop, StopSignals, WorkerPool


@pytest.fixture
def handlers() -> Iterator[None]:
    """Put this process's SIGINT and SIGTERM handlers back after the test."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _fail(message: str) -> None:
    raise ValueError(message)


def test_a_signal_only_sets_the_flag(handlers: None) -> None:
    """No exception is raised where the main thread happens to be (inside
    concurrent.futures, holding a future's lock, it hung the exit); the
    handler run again from inside itself is harmless (a threading.Event as
    the flag deadlocked)."""
    with StopSignals() as stop:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):  # Python runs the handler at its next check
            if stop.requested:
                break
            time.sleep(0.001)
        assert stop.requested and stop.signum in (signal.SIGINT, signal.SIGTERM)
        stop._handle(signal.SIGINT, None)
        stop._handle(signal.SIGINT, None)
        assert stop.signum == signal.SIGINT
    # the command is ending: a late Ctrl-C must not cut its last output short
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_without_a_stop_the_previous_handlers_come_back(handlers: None) -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with StopSignals() as stop:
        assert signal.getsignal(signal.SIGINT) == stop._handle
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_outside_the_main_thread_the_handlers_stay(handlers: None) -> None:
    """Signal handlers belong to the main thread: elsewhere only request()."""
    box: list[object] = []

    def job() -> None:
        with StopSignals() as stop:
            box.append(signal.getsignal(signal.SIGINT))
            stop.request()
        box.append(stop.requested)

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=job)
    thread.start()
    thread.join()
    assert box == [before, True] and signal.getsignal(signal.SIGINT) == before


def test_the_pool_gives_results_and_errors_back() -> None:
    with WorkerPool(2, Stop()) as pool:
        pending = {pool.submit(pow, 2, 10), pool.submit(_fail, "bad")}
        done: set = set()
        while pending:
            finished = pool.wait(pending)
            assert finished
            pending -= finished
            done |= finished
    results = {f.exception() is None: f for f in done}
    assert results[True].result() == 1024
    with pytest.raises(ValueError, match="bad"):
        results[False].result()


def test_workers_leave_ctrl_c_to_the_parent_and_die_on_sigterm() -> None:
    """A terminal's Ctrl-C reaches the workers too: they ignore it;
    WorkerPool.close() ends them with SIGTERM."""
    with WorkerPool(1, Stop()) as pool:
        future = pool.submit(signal.getsignal, signal.SIGINT)
        assert pool.wait({future}) == {future}
        assert future.result() == signal.SIG_IGN
        future = pool.submit(signal.getsignal, signal.SIGTERM)
        assert pool.wait({future}) == {future}
        assert future.result() == signal.SIG_DFL


def test_a_stop_ends_the_wait_and_the_work_in_flight() -> None:
    """The wait returns soon after the request (nothing done); close()
    terminates the worker in the middle of its job rather than waiting."""
    stop = Stop()
    pool = WorkerPool(1, stop)
    future = pool.submit(time.sleep, 30)
    processes = list(pool._pool._processes.values())
    timer = threading.Timer(0.2, stop.request)
    timer.start()
    assert pool.wait({future}) == set()
    pool.close()
    timer.join()
    assert [p.exitcode for p in processes] == [-signal.SIGTERM]
    assert future.done()


def test_completed_runs_each_job_once_and_starts_none_once_told_not_to() -> None:
    with WorkerPool(2, Stop()) as pool:
        done = {job: fut.result() for job, fut in pool.completed(abs, [-3, -1, 2, -4, 5], 2)}
    assert done == {-3: 3, -1: 1, 2: 2, -4: 4, 5: 5}
    answers = iter([True, True, True])  # then false: three jobs start, no more
    with WorkerPool(2, Stop()) as pool:
        jobs = [job for job, _ in pool.completed(abs, range(10), 2, lambda: next(answers, False))]
    assert sorted(jobs) == [0, 1, 2]


def test_completed_ends_at_a_stop_request() -> None:
    stop = Stop()
    finished = []
    with WorkerPool(1, stop) as pool:
        for job, _fut in pool.completed(time.sleep, [0.0, 30.0, 30.0], 2):
            finished.append(job)
            stop.request()  # after the first: the 30 s sleep in flight is abandoned
    assert finished == [0.0]
