"""Shared fixtures: the test data under tests/data and the CLI environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def data_path(*parts: str) -> Path:
    """A file or folder under tests/data; the test fails (never skips) when
    it is missing, so a clone without its data cannot pass quietly."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"test data not found: {path}")
    return path


@pytest.fixture
def ffo_dir() -> Path:
    return data_path("ffo")


def _import_this_tree_in_subprocesses() -> None:
    """Every process a test starts imports this checkout's ``src``, whatever
    copy of outflank is installed (engines for NBoard and tournaments are
    started as ``python -m outflank ...`` without cli_env)."""
    src = str(ROOT / "src")
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if src not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, *paths]))


_import_this_tree_in_subprocesses()


def cli_env() -> dict[str, str]:
    """Environment for running ``python -m outflank`` from the source tree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _default_ctrl_c() -> None:
    """In the child: Ctrl-C as a terminal delivers it. A test run started in
    the background (``nohup pytest &``) ignores SIGINT, and Python keeps an
    inherited ignore, so the tests that press Ctrl-C would wait in vain."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def running(args: list[str]) -> Iterator[subprocess.Popen[str]]:
    """A command started with its output piped (text), cli_env() and the
    default Ctrl-C; killed and reaped on the way out if still running."""
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        preexec_fn=_default_ctrl_c,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


T = TypeVar("T")


def stop_during(
    engine: Any, work: Callable[[], T], after: float, wait: float = 5.0
) -> tuple[T, float]:
    """Run ``work`` (a search of ``engine``) in a thread, call
    ``engine.stop()`` after ``after`` seconds (the search must still run)
    and wait at most ``wait`` seconds for it to end; return its result and
    the seconds from stop() to the end of the search."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["result"] = work()
        box["end"] = time.perf_counter()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(after)
    assert thread.is_alive()
    asked = time.perf_counter()
    engine.stop()
    thread.join(wait)
    assert not thread.is_alive()
    return box["result"], box["end"] - asked
