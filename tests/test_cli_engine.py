"""`outflank solve` and `outflank analyze` as a user runs them."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env, running


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


def test_a_partial_score_list_is_checked_move_by_move(tmp_path: Path) -> None:
    """FFO #1 lists G8 +18, H1 +12, H7 +6...: a line listing only H1 +12 is
    right (it used to be called a mismatch: +12 is not the value, +18), one
    listing H1 +14 is wrong; a move listed twice is refused."""
    board = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
    suite = tmp_path / "partial.obf"
    suite.write_text(f"{board}; H1:+12\n{board}; H1:+12; H7:+6\n{board}; H1:+14\n")
    proc = run("solve", str(suite))
    assert proc.returncode == 1
    assert [row.split()[5] for row in proc.stdout.splitlines()[1:4]] == ["yes", "yes", "no"]
    suite.write_text(f"{board}; G8:+18; G8:-50\n")
    proc = run("solve", str(suite))
    assert proc.returncode == 2 and "move g8 is listed twice" in proc.stderr


def test_solve_bad_file_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.obf"
    bad.write_text("this is not a board\n")
    proc = run("solve", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.startswith("outflank solve: error:") and "Traceback" not in proc.stderr
    proc = run("solve", str(tmp_path / "missing.obf"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_solve_without_memory_for_the_table_is_a_clean_error(ffo_dir: Path) -> None:
    """A table the machine cannot give (here: the process may map 3 GiB)."""

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "solve", str(ffo_dir / "fforum-1-19.obf"),
         "--tt-mb", "8192", "--no-progress"],
        capture_output=True, text=True, env=cli_env(), timeout=120, preexec_fn=cap_memory,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        "outflank solve: error: cannot allocate 8192 MiB for the transposition table:"
        " ask for less (tt_mb)\n"
    )


def test_files_may_start_with_a_byte_order_mark(ffo_dir: Path, tmp_path: Path) -> None:
    line = (ffo_dir / "fforum-1-19.obf").read_text().splitlines()[0]
    suite = tmp_path / "bom.obf"
    suite.write_text(line + "\n", encoding="utf-8-sig")
    proc = run("solve", str(suite), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1].split()[1:6] == ["14", "g8", "+18", "+18", "yes"]
    game = tmp_path / "bom.ggf"
    game.write_text("(;GM[Othello]PC[x]PB[a]PW[b]TY[8]BO[8 "
                    "---------------------------O*------*O--------------------------- *]"
                    "B[f5]W[d6];)\n", encoding="utf-8-sig")  # fmt: skip
    proc = run("replay", str(game), "--final")
    assert proc.returncode == 0, proc.stderr


def test_files_that_are_not_text_are_clean_errors(tmp_path: Path) -> None:
    binary = tmp_path / "binary.ggf"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00f5d6")
    for command in ("replay", "solve"):
        proc = run(command, str(binary))
        assert proc.returncode == 2 and "not a text file" in proc.stderr, proc.stderr
        proc = run(command, str(tmp_path))
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().endswith(f"{tmp_path}: Is a directory"), proc.stderr


def test_analyze_streams_depths_then_every_move() -> None:
    proc = run("analyze", "f5d6c3", "--depth", "4", "--no-book")  # a search, not the book
    assert proc.returncode == 0, proc.stderr
    depth_lines = [line for line in proc.stdout.splitlines() if line.startswith("depth")]
    assert [int(line.split()[1]) for line in depth_lines] == [1, 2, 3, 4]
    assert all(" pv " in line and " nps " in line for line in depth_lines)
    moves = proc.stdout.splitlines()[-1]
    assert moves.startswith("moves (depth 4):")
    assert {"f4", "d3", "f3", "g5"} <= set(moves.split())


def test_analyze_with_time_scores_the_moves_within_it_too() -> None:
    """--time once bounded only the search: scoring every move to its depth
    then ran unbounded (12.7 s for --time 3). The moves line says its depth."""
    proc = run("analyze", "f5d6c3d3c4f4", "--time", "0.3", "--no-book")
    assert proc.returncode == 0, proc.stderr
    moves = proc.stdout.splitlines()[-1]
    best = next(line for line in proc.stdout.splitlines() if line.startswith("best"))
    searched = int(best.split("depth")[1].split()[0])
    assert moves.startswith("moves (depth ") and int(moves.split()[2][:-2]) <= searched


def test_analyze_searches_as_the_hints_do_or_full_width() -> None:
    """The default evaluator analyses with the default preset's probable
    cut-offs (Engine.for_analysis); --selective 0 searches full width."""

    def nodes(*extra: str) -> int:
        args = ("f5d6c3d3c4f4f6", "--depth", "9", "--no-book", "--threads", "1", *extra)
        proc = run("analyze", *args)
        assert proc.returncode == 0, proc.stderr
        best = next(line for line in proc.stdout.splitlines() if line.startswith("best"))
        return int(best.split("nodes")[1].split()[0].replace(",", ""))

    assert 2 * nodes() < nodes("--selective", "0")


def test_analyze_bounds_the_moves_far_below_the_best_unless_told() -> None:
    """As the hints: moves more than --window discs (default 4) below the best
    are shown as an upper bound (<=); --window 0 scores every move exactly."""
    corner = "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1"  # a1 is far the best

    def moves(*extra: str) -> list[str]:
        proc = run("analyze", corner, "--depth", "6", "--no-book", "--threads", "1", *extra)
        assert proc.returncode == 0, proc.stderr
        line = proc.stdout.splitlines()[-1]
        assert line.startswith("moves (depth 6):")
        return line.split(":", 1)[1].split()

    windowed, every = moves(), moves("--window", "0")
    assert windowed[0] == every[0] == "a1" and not windowed[1].startswith("<=")
    assert sum(token.startswith("<=") for token in windowed) >= 5
    assert not any(token.startswith("<=") for token in every)
    assert set(windowed[::2]) == set(every[::2])  # the same moves


def test_analyze_solves_an_endgame_exactly(ffo_dir: Path) -> None:
    obf = (ffo_dir / "fforum-1-19.obf").read_text().splitlines()[4].split(";")[0]
    proc = run("analyze", obf)
    assert proc.returncode == 0, proc.stderr
    assert "best g8  score +32 (exact)" in proc.stdout
    assert proc.stdout.splitlines()[-1].split()[:4] == ["moves", "(exact):", "g8", "+32"]


def test_analyze_bad_input() -> None:
    for args in (
        ["zz9"],
        ["start", "--depth", "0"],
        ["start", "--time", "-1"],
        ["start", "--selective", "-1"],
        ["start", "--evaluator", "fish", "--selective", "1"],
        ["start", "--window", "-1"],
        ["start", "--window", "x"],
        ["start", "--evaluator", "fish", "--window", "2"],
    ):
        proc = run("analyze", *args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr
        assert proc.stdout == ""  # no board printed before the error


def test_analyse_is_analyze() -> None:
    proc = run("analyse", "start", "--depth", "2", "--no-book")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("moves (depth 2):")


def test_analyze_answers_a_book_position_from_the_book() -> None:
    proc = run("analyze", "f5d6c3d3c4")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "opening: Tiger" in lines
    assert not any(line.startswith("depth") for line in lines)  # no search
    best = next(line for line in lines if line.startswith("best"))
    assert "(book, searched to depth" in best and "book line" in best
    assert lines[-1].startswith("moves (book):")
    assert {"f4", "b3", "f3"} <= set(lines[-1].split())


@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_ctrl_c_ends_a_long_solve_or_analysis_at_once(
    command: str, ffo_dir: Path, tmp_path: Path
) -> None:
    """The search runs in C without the GIL: Ctrl-C used to wait for its end
    (hours for a 36-empty solve)."""
    line = (ffo_dir / "fforum-60-79.obf").read_text().splitlines()[9]
    path = tmp_path / "hard.obf"
    path.write_text(line + "\n")
    args = (
        [str(path)]
        if command == "solve"
        else [line.split(";")[0], "--endgame", "40", "--time", "600"]
    )
    with running([sys.executable, "-m", "outflank", command, *args]) as proc:
        time.sleep(2.0)  # well into the search
        assert proc.poll() is None
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
        assert time.monotonic() - asked < 5
