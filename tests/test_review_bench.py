"""bench/review.py runs and prints its table (the timings are the benchmark's
business, not the tests')."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, cli_env


def test_the_review_benchmark_prints_a_row_a_game() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "review.py"), "--games", "2", "--depth", "2",
         "--exact", "10", "--exact-time", "0", "--threads", "1"],
        capture_output=True, text=True, env=cli_env(), timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("review settings: depth 2")
    rows = [line.split() for line in lines[3:5]]
    assert [row[:2] for row in rows] == [["1", "60"], ["2", "60"]]
    assert lines[-1].startswith("mean ")
