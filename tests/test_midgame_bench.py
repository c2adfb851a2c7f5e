"""bench/midgame.py: its timed mode (the one the threads' polling was measured with)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, cli_env

SCRIPT = str(ROOT / "bench" / "midgame.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, *args], capture_output=True, text=True, env=cli_env(), timeout=120
    )


def test_timed_searches_print_a_row_per_setting() -> None:
    done = _run("--timed", "0.01", "--count", "3", "--threads", "1,2", "--spin", "0,100")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert [(r[0], r[1]) for r in rows] == [("1", "100"), ("2", "0"), ("2", "100")]
    for row in rows:  # positions, nodes a second, depth, ms, ratio
        assert row[2] == "3" and int(row[3].replace(",", "")) > 0 and float(row[4]) >= 1
    assert rows[0][-1] == "1.00"


def test_bad_timed_settings_are_refused_clearly() -> None:
    bad = (
        (["--timed", "0"], "--timed"),
        (["--timed", "0.01", "--spin", "x"], "--spin"),
        (["--spin", "0,100"], "--spin goes with --timed"),
    )
    for args, message in bad:
        done = _run(*args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
