"""The opening explorer: book moves with their values and the openings they
lead to, in Python and from ``outflank book show``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import cli_env
from outflank import Board, Move
from outflank.book import OPENINGS, Book, explore, opening_name, openings_through
from outflank.book.symmetry import transform, transform_square
from outflank.errors import OutflankError

#: The symmetries that keep the start position: games begun d3, c4 or e6.
START_SYMMETRIES = [
    t
    for t in range(8)
    if transform(Board().black, t) == Board().black and transform(Board().white, t) == Board().white
]


def image(transcript: str, t: int) -> str:
    """A transcript under symmetry ``t``."""
    moves = Board.from_transcript(transcript).move_stack
    return "".join(str(Move(transform_square(m.square, t))) for m in moves if not m.is_pass)


def test_the_start_position() -> None:
    here = explore(Board())
    book = Book.default()
    entry = book.probe(Board())
    assert here.in_book and here.opening is None
    assert here.value == entry.value and here.depth == entry.depth
    assert [(m.move, m.value, m.in_book) for m in here.moves] == [
        (m.move, m.value, m.in_book) for m in entry.moves
    ]
    assert sorted(str(m.move) for m in here.moves) == ["c4", "d3", "e6", "f5"]
    for m in here.moves:
        assert "Perpendicular" in m.leads_to and "Tiger" in m.leads_to


def test_names_along_the_tiger() -> None:
    here = explore(Board.from_transcript("f5d6c3d3c4"))
    assert here.opening == "Tiger"
    by_move = {str(m.move): m for m in here.moves}
    assert by_move["b3"].opening == "Aubrey"  # f5d6c3d3c4b3 ends the Aubrey line
    assert "Aubrey" not in by_move["b3"].leads_to  # its own name is not repeated
    assert by_move["f4"].opening == "Tiger"
    assert {"Rose-Bill", "Stephenson", "Mainline Tiger"} <= set(by_move["f4"].leads_to)
    # shortest lines first
    lengths = {name: len(moves) for names, moves in OPENINGS for name in names.split(", ")}
    leads = [lengths[n] for n in by_move["f4"].leads_to]
    assert leads == sorted(leads)
    # values best first, as in the book
    values = [m.value for m in here.moves]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("t", START_SYMMETRIES)
def test_a_reflected_game_explores_alike(t: int) -> None:
    line = "f5d6c3d3c4"
    here = explore(Board.from_transcript(line))
    there = explore(Board.from_transcript(image(line, t)))
    assert there.opening == "Tiger" and there.value == here.value
    assert [(m.value, m.opening, m.leads_to) for m in there.moves] == [
        (m.value, m.opening, m.leads_to) for m in here.moves
    ]
    assert [m.move for m in there.moves] == [
        Move(transform_square(m.move.square, t)) for m in here.moves
    ]


def test_every_named_line_is_found_where_it_ends() -> None:
    for names, moves in OPENINGS:
        first = names.split(", ")[0]
        for t in START_SYMMETRIES:
            board = Board.from_transcript(image(moves, t))
            assert first in openings_through(board)
            assert opening_name(board) is not None


def out_of_book() -> Board:
    """A position the book does not hold: a move it does not follow."""
    board = Board.from_transcript("f5d6c3d3c4")
    board.push(next(m.move for m in Book.default().probe(board).moves if not m.in_book))
    assert Book.default().probe(board) is None
    return board


def test_out_of_the_book() -> None:
    board = out_of_book()
    here = explore(board)
    assert not here.in_book and here.moves == () and here.value is None
    assert here.opening == opening_name(board)


def test_json() -> None:
    here = explore(Board.from_transcript("f5d6"))
    data = json.loads(json.dumps(here.to_dict()))
    assert data["moves_played"] == ["f5", "d6"] and data["opening"] == "Perpendicular"
    assert data["moves"][0]["move"] == str(here.moves[0].move)
    assert set(data["moves"][0]) == {"move", "value", "in_book", "opening", "leads_to"}


def test_a_bad_board_is_refused() -> None:
    with pytest.raises(OutflankError):
        explore("f5d6")  # type: ignore[arg-type]


# ---------------------------------------------------------------- outflank book show
def book_show(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", "book", "show", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )


def test_book_show_explores_the_shipped_book() -> None:
    proc = book_show("f5d6c3d3c4")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "opening: Tiger"
    assert lines[1].startswith("value ") and "book line" in lines[1]
    rows = {line.split()[0]: line for line in lines[2:]}
    here = explore(Board.from_transcript("f5d6c3d3c4"))
    assert list(rows) == [str(m.move) for m in here.moves]
    assert "Aubrey" in rows["b3"] and "Tiger -> " in rows["f4"]
    assert f"{here.moves[0].value:+6.2f}" in rows[str(here.moves[0].move)]


def test_book_show_the_start_and_the_summary() -> None:
    start = book_show("start")
    assert start.returncode == 0 and "Perpendicular" in start.stdout
    summary = book_show()
    assert summary.returncode == 0 and "positions by ply" in summary.stdout


def test_book_show_out_of_the_book_and_bad_input(tmp_path) -> None:
    out = book_show(out_of_book().transcript())
    assert out.returncode == 1 and "not in the book" in out.stdout
    bad = book_show("f5f5")
    assert bad.returncode == 2 and "illegal move f5" in bad.stderr
    missing = book_show(str(tmp_path / "none.book"))
    assert missing.returncode == 2 and "no book" in missing.stderr
