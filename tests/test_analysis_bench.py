"""bench/analysis.py: a row per mode, the plain search's time the unit."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, cli_env

SCRIPT = str(ROOT / "bench" / "analysis.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, *args], capture_output=True, text=True, env=cli_env(), timeout=120
    )


def _rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines()[2:]:
        label, rest = line[:12].strip(), line[12:].split()
        rows[label] = rest
    return rows


def test_every_mode_prints_a_row_and_bounds_cost_less_than_every_score() -> None:
    done = _run("--depth", "7", "--count", "3", "--windows", "0,4", "--multipv", "2")
    assert done.returncode == 0, done.stderr
    rows = _rows(done.stdout)
    assert list(rows) == ["search", "every move", "window 4", "2 best"]
    nodes = {label: int(row[0].replace(",", "")) for label, row in rows.items()}
    assert nodes["search"] < nodes["window 4"] < nodes["every move"]
    assert nodes["2 best"] < nodes["every move"]
    assert rows["search"][2] == "1.00" and rows["every move"][3] == "0"  # "0 %" bounded
    assert all(row[-1] == "3/3" for label, row in rows.items() if label != "search")


def test_solved_positions_and_bad_settings() -> None:
    done = _run("--empties", "10", "--count", "2", "--windows", "0,4", "--multipv", "0")
    assert done.returncode == 0, done.stderr
    assert list(_rows(done.stdout)) == ["search", "every move", "window 4"]
    assert "10 empties, solved" in done.stdout
    for args, message in (
        (["--windows", "4"], "--windows"),
        (["--windows", "x"], "--windows"),
        (["--depth", "0"], "--depth"),
        (["--empties", "30"], "--empties"),
        (["--threads", "0"], "threads"),
    ):
        done = _run(*args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
