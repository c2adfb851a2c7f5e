"""Shared fixtures: the test data under tests/data and the CLI environment."""

from __future__ import annotations

import importlib.util
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

import outflank
from outflank import Board, _core

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def random_position(seed: int, empties: int) -> Board:
    """A position reached by random play with the given number of empties
    (a retry with the next seed if the game ends first)."""
    rng = random.Random(seed)
    while True:
        board = Board()
        while board.empties > empties and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            return board
        rng.seed(rng.random())


def resident_kib() -> int:
    """This process's resident memory in KiB (Linux ``/proc``; 0 elsewhere)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bench_module(name: str) -> Any:
    """``bench/NAME.py`` imported as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


@pytest.fixture
def search_settings() -> Iterator[dict[str, int]]:
    """The core's search settings (``_core.tune``) as the core starts,
    restored after the test that changes them."""
    before = _core.tune()
    yield before
    for name, value in before.items():
        _core.tune(name, value)


def _import_this_tree_in_subprocesses() -> None:
    """Every process a test starts imports this checkout's ``src``, whatever
    copy of outflank is installed (engines for NBoard and tournaments are
    started as ``python -m outflank ...`` without cli_env)."""
    src = str(ROOT / "src")
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if src not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, *paths]))


_import_this_tree_in_subprocesses()


def run_child(script: str, stdin: str | None = None, **env: str) -> str:
    """Run script in a new interpreter importing this same outflank (with
    env added to the environment, stdin as its input); its output, stripped."""
    package_root = str(Path(outflank.__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=path, **env),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


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


@dataclass
class Interrupted:
    """How a command ended after :func:`interrupt_command` signalled it."""

    returncode: int
    stdout: str
    stderr: str
    leftovers: bool  # processes of its group still alive after it exited


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def interrupt_command(
    args: list[str],
    ready: Callable[[str], bool],
    sig: int,
    repeats: int = 1,
    *,
    group: bool = False,
    start_timeout: float = 60.0,
    exit_timeout: float = 30.0,
) -> Interrupted:
    """Run a command (cli_env, default Ctrl-C, a session of its own), wait
    until ``ready(stderr so far)`` says it has finished some work, then send
    ``sig`` ``repeats`` times 2 ms apart: to the whole process group with
    ``group`` (a terminal's Ctrl-C reaches the workers too), else to the
    command only (``kill PID``). Fails if it ends before it is ready or does
    not exit within ``exit_timeout`` seconds of the first signal (a hang)."""
    with tempfile.TemporaryDirectory() as tmp:
        out_path, err_path = Path(tmp, "out"), Path(tmp, "err")
        with out_path.open("w") as out, err_path.open("w") as err:
            proc = subprocess.Popen(
                args, stdout=out, stderr=err, env=cli_env(), preexec_fn=_default_ctrl_c,
                start_new_session=True,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + start_timeout
            while not ready(err_path.read_text()):
                assert proc.poll() is None, f"ended before the signal: {err_path.read_text()}"
                assert time.monotonic() < deadline, "no work finished in time"
                time.sleep(0.02)
            for _ in range(repeats):  # an impatient user: signals during the clean-up
                if group:
                    os.killpg(proc.pid, sig)
                else:
                    proc.send_signal(sig)
                time.sleep(0.002)
            try:
                proc.wait(timeout=exit_timeout)
            except subprocess.TimeoutExpired:
                pytest.fail(f"running {exit_timeout} s after the signal: {err_path.read_text()}")
            deadline = time.monotonic() + 2.0  # zombies of exited workers being reaped
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            left = _group_alive(proc.pid)
            return Interrupted(proc.returncode, out_path.read_text(), err_path.read_text(), left)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if _group_alive(proc.pid):
                os.killpg(proc.pid, signal.SIGKILL)


def assert_clean_interrupt(result: Interrupted) -> None:
    """Exit 130, no traceback or ignored exception, no process left behind,
    and the last line on stderr says it was interrupted."""
    err = result.stderr
    assert result.returncode == 130, (result.returncode, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert not result.leftovers, "worker processes outlived the command"
    assert "interrupted" in err.strip().splitlines()[-1], err


#: (signal, to the whole process group, how many): a terminal's Ctrl-C
#: reaches the command and its workers; ``kill PID`` the command only; an
#: impatient user sends ten, into the clean-up.
INTERRUPTIONS = [
    pytest.param(signal.SIGINT, True, 1, id="ctrl-c"),
    pytest.param(signal.SIGINT, True, 10, id="ctrl-c-x10"),
    pytest.param(signal.SIGTERM, False, 1, id="sigterm"),
    pytest.param(signal.SIGTERM, False, 10, id="sigterm-x10"),
]
