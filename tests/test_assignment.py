"""Seed 002's input.txt -> output.txt task, through the library and a real subprocess."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, cli_env, data_path
from outflank.assignment import format_value, parse_task, run_task, solve
from outflank.board import BLACK, WHITE, Board
from outflank.errors import OutflankError


def reference_cases() -> list[tuple[str, str]]:
    """(folder, order) for every case in tests/data/alphabeta/orders.txt; a
    missing list gives one case that fails on its missing data."""
    listing = DATA / "alphabeta" / "orders.txt"
    if not listing.exists():
        return [("orders.txt", "update-first")]
    return [tuple(line.split()) for line in listing.read_text().splitlines() if line.strip()]


CASES = reference_cases()

SEED_INPUT = """X
2
********
********
********
***OX***
***XO***
********
********
********
"""


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(("case", "order"), CASES, ids=[case for case, _ in CASES])
def test_reference_examples_byte_for_byte(case: str, order: str, tmp_path: Path) -> None:
    """Every published case in the order its README names, and the seed's
    example (update-first) also by default."""
    output = tmp_path / "output.txt"
    run_task(data_path("alphabeta", case, "input.txt"), output, order=order)  # type: ignore[arg-type]
    assert output.read_bytes() == data_path("alphabeta", case, "expected_output.txt").read_bytes()
    if order == "update-first":
        default = run_task(data_path("alphabeta", case, "input.txt"), None)
        assert default.encode() == output.read_bytes()


def test_official_case_through_the_cli_with_test_first(tmp_path: Path) -> None:
    case = data_path("alphabeta", "official-spring2017-3")
    (tmp_path / "input.txt").write_bytes((case / "input.txt").read_bytes())
    done = run_cli("alphabeta", "--order", "test-first", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "output.txt").read_bytes() == (case / "expected_output.txt").read_bytes()
    # The default order logs the same search with the updated window at cut-offs.
    done = run_cli("alphabeta", "input.txt", "-", cwd=tmp_path)
    expected = (case / "expected_output.txt").read_text().splitlines()
    ours = done.stdout.splitlines()
    differ = [(a, b) for a, b in zip(ours, expected, strict=True) if a != b]
    assert differ and all(a.split(",")[:3] == b.split(",")[:3] for a, b in differ)


def test_order_with_another_algorithm_is_refused(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    done = run_cli("alphabeta", "--minimax", "--order", "test-first", cwd=tmp_path)
    assert done.returncode == 2
    assert "the log order applies to alpha-beta only, not to minimax" in done.stderr
    done = run_cli("alphabeta", "--order", "sideways", cwd=tmp_path)
    assert done.returncode == 2 and "invalid choice: 'sideways'" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt"]
    with pytest.raises(OutflankError, match="unknown log order"):
        run_task(tmp_path / "input.txt", None, order="sideways")  # type: ignore[arg-type]


def test_last_line_break_follows_the_input(tmp_path: Path) -> None:
    """The official samples end both files without a line break, the seed's
    example both with one: the output's last line ends as the input's does."""
    (tmp_path / "with.txt").write_text(SEED_INPUT)
    (tmp_path / "without.txt").write_text(SEED_INPUT.rstrip("\n"))
    (tmp_path / "crlf.txt").write_bytes(SEED_INPUT.replace("\n", "\r\n").encode())
    with_break = run_task(tmp_path / "with.txt", None)
    assert with_break.endswith("root,0,-3,-3,Infinity\n")
    assert run_task(tmp_path / "without.txt", None) == with_break[:-1]
    assert run_task(tmp_path / "crlf.txt", None) == with_break
    board_only = run_task(tmp_path / "without.txt", None, "greedy")
    assert board_only.count("\n") == 7 and not board_only.endswith("\n")


def test_every_reference_case_has_an_order() -> None:
    folders = sorted(p.parent.name for p in data_path("alphabeta").glob("*/input.txt"))
    assert folders and folders == sorted(case for case, _ in CASES)
    assert {order for _, order in CASES} == {"update-first", "test-first"}


def test_seed_example_embedded_byte_for_byte(tmp_path: Path) -> None:
    """The seed's example, also written out here, next to its traverse log."""
    from test_classic import SEED_LOG

    (tmp_path / "input.txt").write_text(SEED_INPUT)
    run_task(tmp_path / "input.txt", tmp_path / "output.txt")
    expected = "********\n********\n***X****\n***XX***\n***XO***\n" + "********\n" * 3 + SEED_LOG
    assert (tmp_path / "output.txt").read_bytes() == expected.encode()


def test_cli_defaults_to_input_and_output_in_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    done = run_cli("alphabeta", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "output.txt").read_bytes().decode()
    assert text.startswith("********\n********\n***X****\n***XX***\n***XO***\n")
    assert text.endswith("e6,1,-3,-3,-3\nroot,0,-3,-3,Infinity\n")
    assert "\r" not in text
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_crlf_trailing_spaces_lower_case_player(tmp_path: Path) -> None:
    messy = "x  \r\n 2 \r\n" + "".join(row + "   \r\n" for row in SEED_INPUT.splitlines()[2:])
    (tmp_path / "in.txt").write_bytes(messy.encode())
    done = run_cli("alphabeta", "in.txt", "out.txt", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    clean = run_task_text(SEED_INPUT, tmp_path)
    assert (tmp_path / "out.txt").read_text() == clean


def run_task_text(text: str, folder: Path) -> str:
    path = folder / "clean-input.txt"
    path.write_text(text)
    return run_task(path, None)


def test_blank_lines_as_in_the_seed_readme_are_ignored(tmp_path: Path) -> None:
    spaced = "X \n\n2\n\n" + SEED_INPUT.split("\n", 2)[2] + "\n\n"
    assert run_task_text(spaced, tmp_path) == run_task_text(SEED_INPUT, tmp_path)


BAD_INPUTS = [
    ("Z\n2\n" + "********\n" * 8, "line 1: the player must be X or O, not 'Z'"),
    ("X\ntwo\n" + "********\n" * 8, "line 2: the depth must be a whole number, not 'two'"),
    ("X\n2.5\n" + "********\n" * 8, "line 2: the depth must be a whole number"),
    ("X\n-1\n" + "********\n" * 8, "line 2: the depth must be 0 or more, not -1"),
    ("X\n2\n" + "********\n" * 7, "the input ends after line 9: board row 8 of 8 is missing"),
    ("X\n2\n" + "********\n" * 3 + "*******\n" + "********\n" * 4, "line 6: board row 4"),
    ("X\n2\n" + "********\n" * 4 + "***A****\n" + "********\n" * 3, "line 7: board row 5"),
    ("X\n2\n" + "********\n" * 8 + "extra\n", "line 11: unexpected text after the board"),
    ("", "the input ends at the start: the player (X or O) is missing"),
    ("O\n", "the input ends after line 1: the depth is missing"),
]


@pytest.mark.parametrize(("text", "message"), BAD_INPUTS)
def test_bad_input_names_the_line(text: str, message: str) -> None:
    with pytest.raises(OutflankError) as info:
        parse_task(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"), [BAD_INPUTS[0], BAD_INPUTS[1], BAD_INPUTS[3], BAD_INPUTS[4]]
)
def test_cli_bad_input_exit_2_and_no_output(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "input.txt").write_text(text)
    done = run_cli("alphabeta", cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt"]


def test_cli_bad_input_keeps_an_old_output(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text("Q\n")
    (tmp_path / "output.txt").write_text("old answer\n")
    done = run_cli("alphabeta", cwd=tmp_path)
    assert done.returncode == 2
    assert (tmp_path / "output.txt").read_text() == "old answer\n"


def test_cli_missing_input_file(tmp_path: Path) -> None:
    done = run_cli("alphabeta", "nowhere.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot read nowhere.txt" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_binary_input_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "input.txt"
    path.write_bytes(b"\xff\xfe\x00X")
    with pytest.raises(OutflankError, match="not a text file"):
        run_task(path, tmp_path / "output.txt")
    assert not (tmp_path / "output.txt").exists()


def test_greedy_log_only_is_refused_and_keeps_an_old_output(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    (tmp_path / "output.txt").write_text("old answer\n")
    done = run_cli("alphabeta", "--greedy", "--log-only", cwd=tmp_path)
    assert done.returncode == 2 and "greedy has no traverse log" in done.stderr
    assert (tmp_path / "output.txt").read_text() == "old answer\n"


def test_output_keeps_its_permissions_or_gets_the_umask(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    old = tmp_path / "old.txt"
    old.write_text("old answer\n")
    old.chmod(0o640)
    run_task(tmp_path / "input.txt", old)
    assert stat.S_IMODE(old.stat().st_mode) == 0o640 and old.read_text() != "old answer\n"
    umask = os.umask(0o022)
    try:
        run_task(tmp_path / "input.txt", tmp_path / "new.txt")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_output_in_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    with pytest.raises(OutflankError, match=r"cannot write .*: no folder .*nowhere"):
        run_task(tmp_path / "input.txt", tmp_path / "nowhere" / "output.txt")
    (tmp_path / "out").mkdir()  # the error named the temporary file it tried to rename
    with pytest.raises(OutflankError, match=r"cannot write .*out: it is a folder"):
        run_task(tmp_path / "input.txt", tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt", "out"]  # no temp left


def test_variants_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text(SEED_INPUT)
    board_rows = "********\n********\n***X****\n***XX***\n***XO***\n********\n********\n********\n"

    done = run_cli("alphabeta", "--greedy", "input.txt", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == board_rows  # greedy: d3 scores 4, first

    done = run_cli("alphabeta", "--minimax", "input.txt", "-", cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert lines[8:11] == ["Node,Depth,Value", "root,0,-Infinity", "d3,1,Infinity"]
    assert lines[-1] == "root,0,-3" and len(lines) == 8 + 1 + 33
    # Minimax never prunes: c4's replies e3 and c5 now appear.
    assert lines[18:24] == ["c4,1,Infinity", "c3,2,-3", "c4,1,-3", "e3,2,0", "c4,1,-3", "c5,2,0"]

    done = run_cli("alphabeta", "--log-only", "input.txt", "-", cwd=tmp_path)
    assert done.stdout.startswith("Node,Depth,Value,Alpha,Beta\nroot,0,-Infinity")
    assert not (tmp_path / "output.txt").exists()


def test_depth_zero_and_pass_keep_the_board(tmp_path: Path) -> None:
    task = parse_task(SEED_INPUT.replace("2\n", "0\n", 1))
    after, trace = solve(task)
    assert after == Board() and trace.best_move is None
    # O cannot move at all: both pass, the board is written unchanged.
    lonely = "O\n3\nX*******\n" + "********\n" * 7
    after, trace = solve(parse_task(lonely))
    assert str(trace.best_move) == "pass" and after.black == 1 and after.white == 0


def test_parse_task_fields() -> None:
    task = parse_task(SEED_INPUT)
    assert task.player is BLACK and task.depth == 2 and task.board == Board()
    assert parse_task("o\n+3\n" + SEED_INPUT.split("\n", 2)[2]).player is WHITE


def test_format_value() -> None:
    assert format_value(float("inf")) == "Infinity"
    assert format_value(float("-inf")) == "-Infinity"
    assert format_value(-3.0) == "-3" and format_value(0) == "0"
