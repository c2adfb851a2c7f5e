"""`outflank solve` and `outflank analyze` as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import cli_env


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )


def test_solve_prints_every_position_and_a_summary(ffo_dir: Path, tmp_path: Path) -> None:
    lines = (ffo_dir / "fforum-1-19.obf").read_text().splitlines()[:4]
    suite = tmp_path / "four.obf"
    suite.write_text("\n".join(lines) + "\n")
    proc = run("solve", str(suite))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].split()[:6] == ["#", "empties", "move", "score", "listed", "ok"]
    rows = out[1:5]
    assert [r.split()[0] for r in rows] == ["1", "2", "3", "4"]
    assert all(r.split()[5] == "yes" for r in rows)
    assert rows[0].split()[1:5] == ["14", "g8", "+18", "+18"]
    assert out[-1].startswith("total: 4 positions, 4/4 match")


def test_solve_reports_a_mismatch(tmp_path: Path) -> None:
    suite = tmp_path / "wrong.obf"
    # FFO #1 with a wrong listed score: G8 is really +18.
    suite.write_text(
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+20;\n"
    )
    proc = run("solve", str(suite))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[1].split()[5] == "no"


def test_solve_bad_file_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.obf"
    bad.write_text("this is not a board\n")
    proc = run("solve", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.startswith("outflank solve: error:") and "Traceback" not in proc.stderr
    proc = run("solve", str(tmp_path / "missing.obf"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_analyze_streams_depths_then_every_move() -> None:
    proc = run("analyze", "f5d6c3", "--depth", "4")
    assert proc.returncode == 0, proc.stderr
    depth_lines = [line for line in proc.stdout.splitlines() if line.startswith("depth")]
    assert [int(line.split()[1]) for line in depth_lines] == [1, 2, 3, 4]
    assert all(" pv " in line and " nps " in line for line in depth_lines)
    moves = proc.stdout.splitlines()[-1]
    assert moves.startswith("moves:")
    assert {"f4", "d3", "f3", "g5"} <= set(moves.split())


def test_analyze_solves_an_endgame_exactly(ffo_dir: Path) -> None:
    obf = (ffo_dir / "fforum-1-19.obf").read_text().splitlines()[4].split(";")[0]
    proc = run("analyze", obf)
    assert proc.returncode == 0, proc.stderr
    assert "best g8  score +32 (exact)" in proc.stdout
    assert proc.stdout.splitlines()[-1].split()[1:3] == ["g8", "+32"]


def test_analyze_bad_input() -> None:
    for args in (["zz9"], ["start", "--depth", "0"], ["start", "--time", "-1"]):
        proc = run("analyze", *args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr
