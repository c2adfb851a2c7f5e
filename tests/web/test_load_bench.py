"""bench/web_load.py: a tiny real load run (a server subprocess, paced
moves, the replay check) and its refusal of bad options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, cli_env

BENCH = str(ROOT / "bench" / "web_load.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, BENCH, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=cli_env(),
    )


def test_a_paced_run_sends_about_the_rate_and_replays_every_game() -> None:
    done = _run("--games", "4", "--seconds", "3", "--ramp", "0.5", "--rate", "20")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "20 human moves/s paced" in lines[0]
    row = lines[2].split()
    assert row[0] == "this"
    moves_per_s, errors, replayed = float(row[5]), int(row[-2]), row[-1]
    # paced at 20 moves/s in all: far below what the server answers unpaced
    assert 0 < moves_per_s < 40
    assert errors == 0
    checked, total = replayed.split("/")
    assert checked == total and int(total) >= 4


@pytest.mark.parametrize(
    "args",
    [("--rate", "-1"), ("--rate", "nan"), ("--ramp", "5", "--seconds", "5"), ("--ramp", "-1")],
)
def test_bad_options_are_refused(args: tuple[str, ...]) -> None:
    done = _run(*args)
    assert done.returncode == 2
    assert "must be" in done.stderr
