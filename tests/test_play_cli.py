"""``outflank play`` through a real subprocess fed on stdin."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import cli_env


def play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )


def test_full_tictactoe_game_against_the_ai() -> None:
    # Try every cell in order: taken cells are refused and the next line is read,
    # so the game always reaches its end.
    proc = play("tictactoe", "--first", "human", stdin="\n".join("513246789") + "\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("Recommendation: ") >= 3
    assert "Recommendation: 5  [draw; depth 9" in out  # solved from the empty board
    assert "AI (O) plays" in out
    last = out.strip().splitlines()[-1]
    assert last in ("Result: draw.", "Result: O (AI) wins.")  # perfect play never loses
    board = out.strip().splitlines()[-4:-1]
    assert all(line.startswith("| ") and line.endswith(" |") for line in board)
    if last == "Result: draw.":  # a drawn game fills the board
        assert not any(ch.isdigit() for line in board for ch in line)


def test_ai_first_and_illegal_input_is_asked_again() -> None:
    proc = play("tictactoe", "--first", "ai", stdin="0\nabc\n5\n1\nq\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.index("AI (X) plays") < out.index("Recommendation:")
    assert "Not played: no cell 0: type a number from 1 to 9. Try again." in out
    assert "Not played: not a cell: 'abc' (type a number from 1 to 9). Try again." in out
    assert "Not played: cell 5 is already taken by X. Try again." in out
    assert out.strip().endswith("Game abandoned.")


def test_connect4_end_of_input_ends_cleanly() -> None:
    proc = play("connect4", "--depth", "4", "--first", "human", stdin="4\n8\n4\n")
    assert proc.returncode == 0, proc.stderr
    assert "Not played: no column 8: type a number from 1 to 7. Try again." in proc.stdout
    assert "  1 2 3 4 5 6 7" in proc.stdout
    assert proc.stdout.strip().endswith("Input ended: game abandoned.")
    assert proc.stderr == ""


def test_mnk_undo() -> None:
    proc = play(
        "mnk",
        "--rows",
        "4",
        "--cols",
        "4",
        "--k",
        "3",
        "--depth",
        "2",
        stdin="undo\n6\nundo\n6\nq\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to take back yet." in proc.stdout
    assert proc.stdout.count("Recommendation:") == 4
    assert "| 13 | 14 | 15 | 16 |" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tictactoe", "--rows", "4"], "use `mnk` for other sizes"),
        (["mnk", "--k", "4"], "cannot fit"),
        (["connect4", "--cols", "0"], "--cols must be in 1..20"),
        (["connect4", "--depth", "0"], "--depth must be in"),
        (["connect4", "--time", "-1"], "--time must be a positive"),
        (["connect4", "--white", "human"], "--white is an option of `outflank play othello`"),
        (["othello", "--first", "ai"], "--first is an option of"),
    ],
)
def test_bad_options_give_one_line_errors(args: list[str], message: str) -> None:
    proc = play(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_othello_is_handed_to_the_terminal_game() -> None:
    proc = play("othello", "--white", "random", "--no-color", stdin="f5\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "a b c d e f g h" in proc.stdout
