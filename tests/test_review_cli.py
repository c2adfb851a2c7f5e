"""`outflank review` as a user runs it: tables, JSON, files of several games,
a progress bar on a terminal, Ctrl-C, and clear errors for bad input."""

from __future__ import annotations

import json
import os
import pty
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_clean_interrupt, cli_env, interrupt_command
from outflank import Board
from outflank.ggf import GameRecord, write_ggf_file

#: Small searches, an exact endgame from 14 empties: the tests check the
#: command, test_review.py the values.
FAST = ["--depth", "4", "--exact", "14", "--exact-time", "0"]


def random_game(seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over():
        board.push("pass" if board.must_pass() else rng.choice(board.legal_moves))
    return board


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", "review", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )


@pytest.fixture(scope="module")
def two_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review") / "two.ggf"
    write_ggf_file(
        path,
        [
            GameRecord.from_board(random_game(1), black="alice", white="bob"),
            GameRecord.from_board(random_game(2), black="carol", white="dave"),
        ],
    )
    return path


def test_a_file_of_two_games_prints_two_tables(two_games: Path) -> None:
    proc = run(str(two_games), *FAST)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "game 1/2: alice (black) vs bob (white)" in out
    assert "game 2/2: carol (black) vs dave (white)" in out
    for heading in ("move", "value", "best", "loss", "label", "better line"):
        assert heading in out
    assert out.count("black (alice): accuracy") == 1 and "white (dave): accuracy" in out
    assert "exact from move" in out and "labels by loss" in out
    # one row per move played: the numbers of game 1 run up to its last move
    moves = [m for m in random_game(1).move_stack]
    last = max(i + 1 for i, m in enumerate(moves) if not m.is_pass)
    assert f"\n{last:>2} │" in out or f"\n{last} │" in out
    # without a terminal: a line per game on stderr, no progress bar
    assert "game 1/2: reviewing" in proc.stderr and "game 2/2: reviewing" in proc.stderr


def test_json_of_one_game_of_the_file(two_games: Path) -> None:
    proc = run(str(two_games), "--game", "2", "--json", *FAST)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (game,) = data["games"]
    assert (game["number"], game["black"], game["white"]) == (2, "carol", "dave")
    review = game["review"]
    board = random_game(2)
    assert review["game_moves"] == [str(m) for m in board.move_stack]
    assert [m["ply"] for m in review["moves"]] == [
        i for i, m in enumerate(board.move_stack) if not m.is_pass
    ]
    assert review["complete"] and review["settings"]["depth"] == 4
    labels = {m["label"] for m in review["moves"]}
    assert labels <= {"book", "best", "good", "inaccuracy", "mistake", "blunder"}
    assert set(review["summary"]) == {"black", "white"}


def test_a_transcript_on_the_command_line() -> None:
    proc = run("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1", "--json", *FAST)
    assert proc.returncode == 0, proc.stderr
    (game,) = json.loads(proc.stdout)["games"]
    moves = game["review"]["moves"]
    assert len(moves) == 18 and moves[0]["source"] == "book"
    assert "black" not in game  # no record, no player names


def test_a_file_of_transcripts(tmp_path: Path) -> None:
    path = tmp_path / "games.txt"
    path.write_text(random_game(3).transcript() + "\n# a comment\nf5d6c3\n")
    proc = run(str(path), "--json", *FAST)
    assert proc.returncode == 0, proc.stderr
    games = json.loads(proc.stdout)["games"]
    assert [len(g["review"]["moves"]) for g in games][1] == 3


def test_progress_bar_on_a_terminal() -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "outflank", "review", random_game(4).transcript(), *FAST],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**cli_env(), "COLUMNS": "100", "TERM": "xterm"},
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the command closed its end
            break
        if not chunk:
            break
        shown += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(leader)
    assert proc.returncode == 0
    assert b"game 1/1" in shown and b"\xe2\x94\x81" in shown  # the bar's line drawing
    assert b"reviewing" not in shown  # the bar instead of the plain line
    assert b"accuracy" in out


def test_ctrl_c_stops_a_review() -> None:
    deep = ["--depth", "40", "--move-time", "600", "--exact", "0", "--exact-time", "0"]
    result = interrupt_command(
        [
            sys.executable,
            "-m",
            "outflank",
            "review",
            "--no-book",
            "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1",
            *deep,
        ],
        lambda err: "reviewing" in err,
        signal.SIGINT,
        group=True,
    )
    assert_clean_interrupt(result)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["f5f5"], "illegal move f5"),
        (["f5z9"], "transcript move 2"),
        (["start"], "no moves to review"),
        ([""], "no moves to review"),
        (["missing.ggf"], "no such file: missing.ggf"),
        (["f5d6", "--game", "2"], "--game picks a game of a file"),
        (["f5d6", "--depth", "0"], "depth must be in 1..40"),
        (["f5d6", "--exact", "64"], "exact must be in 0..30"),
        (["f5d6", "--exact-time", "-1"], "exact_time must be in"),
        (["f5d6", "--threads", "0"], "threads must be an int"),
    ],
)
def test_bad_input_is_one_clear_line(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(;GM[Othello]B[f5]W[d6]", "not closed"),
        ("(;GM[Othello]B[f5];)(;GM[Othello]B[a1];)", "game 2, move 1"),
        ("(;GM[Othello]PB[x];)", "no moves to review"),
        ("", "no game found"),
    ],
)
def test_a_broken_file_is_refused_before_any_review(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.ggf"
    path.write_text(text)
    proc = run(str(path), *FAST)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert proc.stdout == ""  # nothing reviewed, nothing printed
    assert path.read_text() == text


def test_game_number_out_of_range(two_games: Path) -> None:
    proc = run(str(two_games), "--game", "3")
    assert proc.returncode == 2 and "--game must be in 1..2" in proc.stderr
