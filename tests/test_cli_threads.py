"""``--threads`` on every command that searches: accepted, used, and a bad
value is one clear line with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from outflank.threads import available_cores, share


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        input=stdin,
        timeout=120,
    )


def _suite(ffo_dir: Path, tmp_path: Path) -> Path:
    suite = tmp_path / "two.obf"
    lines = (ffo_dir / "fforum-1-19.obf").read_text().splitlines()[:2]
    suite.write_text("\n".join(lines) + "\n")
    return suite


COMMANDS = [
    ["analyze", "start"],
    ["play", "othello"],
    ["nboard"],
    ["serve", "--port", "0"],
    ["tournament", "level:1", "level:2"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("bad", ["0", "65", "two", "-3"])
def test_a_bad_thread_count_is_one_clear_line(command: list[str], bad: str, tmp_path: Path) -> None:
    proc = run(*command, "--threads", bad)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert f"threads must be an int in 1..64, not '{bad}'" in proc.stderr


def test_solve_takes_threads(ffo_dir: Path, tmp_path: Path) -> None:
    suite = _suite(ffo_dir, tmp_path)
    proc = run("solve", str(suite), "--threads", "2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("total: 2 positions, 2/2 match")
    bad = run("solve", str(suite), "--threads", "100")
    assert bad.returncode == 2 and "threads must be an int in 1..64" in bad.stderr


def test_analyze_takes_threads() -> None:
    proc = run("analyze", "f5d6c3", "--depth", "8", "--threads", "2", "--no-book")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("moves (depth 8):")


def test_play_threads_is_an_othello_option() -> None:
    proc = run("play", "tictactoe", "--threads", "2")
    assert proc.returncode == 2
    assert "--threads is an option of `outflank play othello` only" in proc.stderr


def test_nboard_takes_threads() -> None:
    proc = run("nboard", "--threads", "2", stdin="nboard 2\nset depth 6\nping 1\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "pong 1" in proc.stdout


def test_gui_refuses_a_bad_thread_count_before_opening_a_window() -> None:
    proc = run("gui", "--threads", "lots")
    assert proc.returncode == 2
    assert "bad --threads 'lots'" in proc.stderr and "Traceback" not in proc.stderr


def test_tournament_shares_the_cores_between_its_games(tmp_path: Path) -> None:
    from outflank.tournament import plan_games, run_tournament

    # the default: the cores shared out between the games played at once
    assert share(2) == max(1, available_cores() // 2)
    result = run_tournament(
        ["level:1", "level:3"], openings=1, workers=1, threads=1, out_dir=None, plot=False
    )
    assert len(result.games) == 2
    assert all(task.threads is None for task in plan_games(["a", "b"], openings=1))
    proc = run(
        "tournament", "level:1", "level:2", "--openings", "1", "--threads", "1",
        "--workers", "1", "--out", str(tmp_path / "t"), "--no-plot", "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
