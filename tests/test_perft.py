"""Perft counts from the start position (known reference numbers)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import cli_env, running
from outflank import Board, _core

KNOWN = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284]


@pytest.mark.parametrize("depth", range(1, 11))
def test_perft_start(depth: int) -> None:
    assert Board().perft(depth) == KNOWN[depth - 1]


def test_perft_finished_games_count_zero() -> None:
    assert Board().perft(10, count_finished=False) == 24571056


def test_core_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        _core.moves(1, 1)
    with pytest.raises(ValueError):
        _core.moves(-1, 0)
    with pytest.raises(TypeError):
        _core.moves("x", 0)
    with pytest.raises(ValueError):
        _core.flips(0, 0, 64)
    with pytest.raises(ValueError):
        _core.perft(0, 0, -1)
    # every binding checks bitboards the same way
    for function in (_core.eval_default, _core.stable_discs):
        with pytest.raises(ValueError):
            function(-1, 0)
        with pytest.raises(ValueError):
            function(1, 1)
        with pytest.raises(TypeError):
            function("x", 0)


def test_perft_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "outflank", "perft", "6"],
        capture_output=True,
        text=True,
        env=cli_env(),
        check=True,
    ).stdout
    assert "8,200" in out


def test_perft_cli_bad_input_exit_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "perft", "3", "--position", "f5z9"],
        capture_output=True,
        text=True,
        env=cli_env(),
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2


def test_ctrl_c_stops_a_long_perft_at_once() -> None:
    """The count runs in C without the GIL; Ctrl-C used to wait for the end of
    the depth (depth 13 takes about half a minute)."""
    import signal
    import time

    with running([sys.executable, "-m", "outflank", "perft", "16"]) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:  # depth 12 is counted: depth 13 has begun
            if line.split()[:1] == ["12"]:
                break
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "interrupted" in err
        assert time.monotonic() - asked < 5
