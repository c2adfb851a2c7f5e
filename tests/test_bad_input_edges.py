"""Edge cases of bad input found by fuzzing: each is a clean OutflankError (or
a usage answer), never a stray exception, a hang or a silently wrong search."""

from __future__ import annotations

import io
import re
import threading

import pytest

from outflank.assignment import parse_task
from outflank.board import Board
from outflank.engine import Engine, check_limits
from outflank.errors import InvalidBoardError, InvalidMoveError, OutflankError, SearchLimitError
from outflank.ggf import GameRecord, parse_ggf
from outflank.nboard import NBoardServer
from outflank.obf import parse_obf_line

# black must pass here; white's moves are a1 and b1
MUST_PASS = "--XXXXOXXXXXXOOXXOXOOOOXXOXOOOOXXOOOXOOXXOXOOXOXXOOOOOXXXOOXXXXX X"


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"nodes": 2**64}, "nodes must be an int in 1..1e+18, not an int of 65 bits"),
        ({"time": 10**400}, "time must be a positive, finite number of seconds"),
        ({"time": -(10**5000)}, "not an int of 16610 bits"),
        ({"depth": 10**5000}, "depth must be in 1..60, not an int of 16610 bits"),
    ],
    ids=["nodes-2**64", "time-10**400", "time--10**5000", "depth-10**5000"],
)
def test_huge_limits_are_refused(limits: dict[str, int], message: str) -> None:
    with pytest.raises(SearchLimitError, match=re.escape(message)):
        check_limits(**limits)
    with pytest.raises(SearchLimitError):
        Engine(endgame=0).search(Board(), **limits)  # 2**64 nodes once meant "no limit"


def test_squares_and_perft_depths_out_of_range() -> None:
    for square in (-1, 64, 10**30):
        with pytest.raises(InvalidMoveError, match=r"square must be an int in 0\.\.63"):
            Board().piece_at(square)
    for depth in (-1, 61, 2**31):
        with pytest.raises(SearchLimitError, match="perft depth"):
            Board().perft(depth)


def test_obf_scores_that_cannot_be_are_refused() -> None:
    """A listed score beyond 64 discs or for an occupied square is a broken
    file, not a wrong engine (solve used to blame the engine)."""
    start = Board().obf()
    assert parse_obf_line(start + "; d3:-64; c4:+0").scores  # the extremes are fine
    for fields, message in (
        ("d3:+99", "out of range"),
        ("a1:+2", "not legal"),
        ("d4:0", "not legal"),
    ):
        with pytest.raises(InvalidBoardError, match=message):
            parse_obf_line(f"{start}; {fields}")


def test_numbers_too_long_to_read() -> None:
    with pytest.raises(InvalidBoardError, match="move score out of range"):
        parse_obf_line(Board().obf() + "; d3:" + "9" * 5000)
    with pytest.raises(OutflankError, match="the depth is too large"):
        parse_task("X\n" + "9" * 5000 + "\n" + "********\n" * 8)


def test_ggf_tags_are_written_as_the_reader_reads_them() -> None:
    record = GameRecord.from_board(Board(), tags={"km": "6"})
    assert parse_ggf(record.to_ggf()).tags["KM"] == "6"
    for bad in ("", "COM1", "TOO_LONG_NAME"):
        with pytest.raises(InvalidBoardError, match="GGF tag name"):
            GameRecord.from_board(Board(), tags={bad: "x"}).to_ggf()


def _server(data: bytes = b"") -> tuple[NBoardServer, io.StringIO]:
    out = io.StringIO()
    return NBoardServer(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"), out), out


def test_nboard_survives_bytes_it_cannot_decode() -> None:
    server, out = _server(b"nboard 2\n\xff\xfe bad\nping 1\nquit\n")
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()  # it once waited forever
    lines = out.getvalue().splitlines()
    assert lines[0] == "set myname outflank" and lines[-1] == "pong 1"
    assert lines[1].startswith("status error: unknown command")


def test_nboard_illegal_move_after_an_implied_pass_changes_nothing() -> None:
    server, out = _server()
    board = Board.from_obf(MUST_PASS)
    server.handle("set game " + GameRecord.from_board(board).to_ggf())
    before = server.board.copy()
    server.handle("move h8")
    assert out.getvalue().splitlines()[-1].startswith("status error: illegal move h8")
    assert server.board == before and server.board.ply == before.ply
    server.handle("move a1")  # black's pass is implied, white plays a1
    assert server.board.ply == before.ply + 2


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("nboard ²", id="superscript-version"),
        pytest.param("set depth ¹²", id="superscript-depth"),
        pytest.param("set depth " + "9" * 5000, id="5000-digit-depth"),
    ],
)
def test_nboard_odd_digits_get_a_usage_answer(line: str) -> None:
    server, out = _server()
    server.handle(line)
    answer = out.getvalue().strip()
    assert answer.startswith("status error: usage:"), answer


def test_a_board_with_a_cell_too_many_or_few_is_called_a_bad_obf() -> None:
    """It used to fall through to the transcript parser ("black cannot pass")."""
    from outflank.commands.common import parse_position

    for text in ("-" * 63 + " X", "-" * 65 + " X", "-" * 27 + "OX------XO" + "-" * 27):
        with pytest.raises(InvalidBoardError, match="malformed OBF"):
            parse_position(text)


def test_a_star_cell_is_refused_not_read_as_empty() -> None:
    """'*' is black in GGF and an empty square in seed 002's boards; an OBF
    line holding it read as 32 empty squares, a different position."""
    from outflank.board import parse_position

    for text in ("X" * 32 + "*" * 32 + " O", "-" * 27 + "O*------*O" + "-" * 27 + " X"):
        for parse in (Board.from_obf, parse_position):
            with pytest.raises(InvalidBoardError, match="'\\*' is not an OBF cell"):
                parse(text)


def test_wrong_types_for_a_board_are_outflank_errors() -> None:
    """They raised TypeError or AttributeError, or were taken as bitboards."""
    for make in (
        lambda: Board(1.5, 0),
        lambda: Board("x"),
        lambda: Board(True, False),
        lambda: Board.from_obf(None),  # type: ignore[arg-type]
        lambda: Board().count(5),  # type: ignore[arg-type]
    ):
        with pytest.raises(OutflankError):
            make()
