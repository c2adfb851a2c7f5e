"""Opening names: known lines, their symmetric images, transpositions, the
longest match, and the table itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from outflank import Board
from outflank.book.names import OPENINGS, opening_line, opening_name
from outflank.book.symmetry import transform_square
from outflank.errors import InvalidBoardError


def _image(transcript: str, t: int) -> str:
    """The transcript under symmetry t (which must keep the start position)."""
    squares = [transcript[i : i + 2] for i in range(0, len(transcript), 2)]
    out = []
    for name in squares:
        sq = "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)
        image = transform_square(sq, t)
        out.append("abcdefgh"[image % 8] + str(image // 8 + 1))
    return "".join(out)


#: The symmetries that keep the start position (and so map games to games).
START_SYMMETRIES = [
    t
    for t in range(8)
    if {transform_square(sq, t) for sq in (27, 36)} == {27, 36}
    and {transform_square(sq, t) for sq in (28, 35)} == {28, 35}
]


def test_four_symmetries_keep_the_start_position() -> None:
    assert len(START_SYMMETRIES) == 4
    firsts = {_image("f5", t) for t in START_SYMMETRIES}
    assert firsts == {"f5", "e6", "c4", "d3"}  # the 4 first moves are one


@pytest.mark.parametrize(
    ("moves", "name"),
    [
        ("f5d6", "Perpendicular"),
        ("f5f6", "Diagonal"),
        ("f5f4", "Parallel"),
        ("f5d6c3d3c4", "Tiger"),
        ("f5d6c3d3c4f4c5b3c2", "Rose-Bill"),
        ("f5d6c5f4e3c6d3f6e6d7", "Rose"),
        ("f5f6e6d6c3", "Buffalo"),
        ("f5f6e6d6e7", "Heath"),
        ("f5f6e6d6c5", "Cow"),
        ("f5f6e6d6c5f4", "Chimney"),
        ("f5f6e6d6f7", "Snake"),
        ("f5d6c3d3c4f4f6", "Stephenson"),
        ("f5d6c3d3c4b3", "Aubrey"),
        ("f5f6e6d6c5e3e7", "Bat"),
    ],
)
def test_known_lines_under_every_symmetry(moves: str, name: str) -> None:
    assert opening_name(moves) == name
    for t in START_SYMMETRIES:
        assert opening_name(_image(moves, t)) == name, _image(moves, t)


def test_the_longest_match_wins_and_moves_beyond_it_keep_it() -> None:
    assert opening_name("f5d6c3d3c4f4") == "Tiger"  # past the Tiger, not yet a longer line
    assert opening_name("f5d6c3d3c4f4f6") == "Stephenson"
    assert opening_name("f5d6c3d3c4f4f6f3e6e7") == "Scorpion"
    assert opening_name("f5d6c3d3c4f4f6f3e6e7d7") == "Scorpion (new)"
    assert opening_name("f5d6c3d3c4f4f6f3e6e7d7g6") == "Scorpion (new)"
    assert opening_name("f5d6c3") == "Perpendicular"


def test_a_transposition_reaches_the_same_name() -> None:
    # the Tiger's position by another order of the same moves
    direct = Board.from_transcript("f5d6c3d3c4")
    other = Board.from_transcript("f5d6c4d3c3")
    assert other == direct and opening_name(other) == "Tiger"
    assert opening_name("f5d6c5f6e6f4d3c6e3d7") == "Rose"  # the Rose, moves reordered
    # the Heath written from f4 rather than d6: the same position reflected
    assert opening_name("f5f6e6f4g5") == "Heath"


def test_no_name() -> None:
    assert opening_name("") is None
    assert opening_name("f5") is None  # the first move alone is not named
    assert opening_name(Board()) is None
    # a game set up from another position has no opening
    start = Board.from_transcript("f5d6c3d3c4").copy(stack=False)
    start.push("f4")
    assert opening_name(start) is None


def test_names_and_lines() -> None:
    assert opening_line("f5f6e6d6e7") == ("Heath, Tobidashi", "f5f6e6d6e7")
    assert opening_name("f5f6e6d6e7") == "Heath"
    with pytest.raises(InvalidBoardError):
        opening_name("f5f5")


def test_the_table_is_legal_and_distinct() -> None:
    assert 80 <= len(OPENINGS) <= 100
    names = [n for n, _ in OPENINGS]
    assert len(set(names)) == len(names)
    for name, moves in OPENINGS:
        board = Board.from_transcript(moves)  # legal
        assert opening_line(board) == (name, moves), name  # each names its own line


def test_replay_names_the_opening_as_the_game_goes(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text("d3c5f6f5e6f3\n")  # the Tiger reflected, then one move more
    out = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(game)],
        env=cli_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    named = [(i, line) for i, line in enumerate(lines) if line.startswith("opening:")]
    assert [line for _, line in named] == ["opening: Perpendicular", "opening: Tiger"]
    # each name follows the move that entered the line
    assert lines[named[0][0] - 1] == "2. white c5"
    assert lines[named[1][0] - 1] == "5. black e6"
    final = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(game), "--final"],
        env=cli_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "opening: Tiger" in final.stdout.splitlines()
