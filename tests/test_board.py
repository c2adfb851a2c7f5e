"""The Board API: rules, notation, history and bad input."""

from __future__ import annotations

import copy

import pytest

from outflank import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    Move,
    OutflankError,
    Rules,
)


def test_start_position() -> None:
    board = Board()
    assert board.turn is BLACK
    assert board.score() == (2, 2)
    assert [str(m) for m in board.legal_moves] == ["d3", "c4", "f5", "e6"]
    assert board.obf() == "-" * 27 + "OX------XO" + "-" * 27 + " X"


def test_play_flips_and_pop_restores() -> None:
    board = Board()
    before = board.copy()
    assert board.flips("f5") == [36]
    board.play("f5")
    assert board.turn is WHITE
    assert board.score() == (4, 1)
    assert board.peek() == Move.from_str("F5")
    assert board.pop() == Move.from_str("f5")
    assert board == before


def test_illegal_move_leaves_board_unchanged() -> None:
    board = Board()
    snapshot = board.copy()
    with pytest.raises(IllegalMoveError):
        board.push("a1")
    with pytest.raises(IllegalMoveError):
        board.push(PASS)
    with pytest.raises(IllegalMoveError):
        board.push("d4")  # occupied
    assert board == snapshot and board.move_stack == []


@pytest.mark.parametrize("text", ["z9", "a0", "i1", "", "d33", "pas"])
def test_unparsable_moves(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_str(text)
    assert issubclass(InvalidMoveError, OutflankError)
    assert issubclass(OutflankError, ValueError)


def test_move_notation() -> None:
    assert str(Move.from_str("D3")) == "d3"
    assert Move.from_str("d3").square == 19
    assert str(Move.from_str("PASS")) == "pass"
    with pytest.raises(InvalidMoveError):
        Move(64)


def test_transcript_round_trip() -> None:
    moves = "f5d6c3d3c4f4f6f3e6e7"
    board = Board.from_transcript(moves)
    assert board.transcript() == moves
    assert Board.from_transcript("F5 d6, C3 d3") == Board.from_transcript("f5d6c3d3")


def test_bad_transcript_names_the_move() -> None:
    with pytest.raises(InvalidBoardError, match="move 3"):
        Board.from_transcript("f5d6a1")
    with pytest.raises(InvalidBoardError):
        Board.from_transcript("f5 xx")


@pytest.mark.parametrize(
    "text",
    ["", "X" * 63 + " X", "X" * 64 + " Z", "Q" * 64 + " X", "X" * 64],
)
def test_bad_obf(text: str) -> None:
    with pytest.raises(InvalidBoardError):
        Board.from_obf(text)


def test_obf_round_trip_and_ascii() -> None:
    board = Board.from_transcript("f5d6c3d3c4")
    assert Board.from_obf(board.obf()) == board.copy(stack=False)
    assert Board.from_ascii(str(board), board.turn) == board.copy(stack=False)
    text = str(board)
    assert text.splitlines()[0].split() == list("abcdefgh")


def test_forced_pass_and_game_over() -> None:
    # Black owns everything but h8 and one white disc on g8: white must pass,
    # then black plays h8... construct a position where white has no move.
    board = Board.from_obf("X" * 62 + "O-" + " O")
    assert board.legal_moves == [PASS]
    assert board.must_pass()
    board.push(PASS)
    assert [str(m) for m in board.legal_moves] == ["h8"]
    board.play("h8")
    assert board.is_game_over()
    assert board.result() == "1-0"
    assert board.outcome() is not None and board.outcome().margin == 64


def test_reversi_rule_ends_when_mover_cannot_move() -> None:
    board = Board.from_obf("X" * 62 + "O-" + " O", rules=Rules.REVERSI)
    assert board.legal_moves == []
    assert board.is_game_over()
    assert board.result() == "1-0"


def test_draw_and_margin() -> None:
    board = Board.from_obf("X" * 32 + "O" * 32 + " X")
    assert board.is_game_over()
    assert board.result() == "1/2-1/2"
    assert board.winner() is None


def test_equality_and_transposition_keys() -> None:
    a = Board.from_transcript("f5d6")
    b = Board.from_transcript("f5d6")
    assert a == b and a.transposition_key() == b.transposition_key()
    assert a != Board()
    assert len({a.transposition_key(), b.transposition_key(), Board().transposition_key()}) == 2
    with pytest.raises(TypeError):  # a board changes with its moves: no hash, as in python-chess
        hash(a)


def test_copy_module_copies_the_history_too() -> None:
    a = Board.from_transcript("f5")
    c = copy.copy(a)
    c.push("d6")
    assert a.move_stack == [Move.from_str("f5")] and a.pop() == Move.from_str("f5")


def test_repr_reads_back_with_its_rules() -> None:
    for board in (Board.from_transcript("f5d6"), Board(rules="reversi")):
        assert eval(repr(board), {"Board": Board}) == board


def test_colours_may_be_given_by_value() -> None:
    board = Board.from_transcript("f5")
    assert board.count(0) == board.count(BLACK) == 4 and board.count(1) == 1


def test_pop_empty_raises() -> None:
    with pytest.raises(IndexError):
        Board().pop()


def test_overlapping_bitboards_rejected() -> None:
    with pytest.raises(InvalidBoardError):
        Board(black=1, white=1)


def test_bad_turn_or_rules_rejected() -> None:
    with pytest.raises(InvalidBoardError, match="turn must be BLACK or WHITE, not 5"):
        Board(0, 0, 5)  # type: ignore[arg-type]
    with pytest.raises(InvalidBoardError, match="unknown rules 'foo'"):
        Board(rules="foo")
    assert Board(rules="reversi").rules is Rules.REVERSI


def test_a_bool_is_not_a_square() -> None:
    with pytest.raises(InvalidMoveError):
        Move(True)  # type: ignore[arg-type]


def test_parse_position_reads_every_notation_the_readme_names() -> None:
    """Start, transcript, OBF, OBF then moves, and ASCII (str(board), with its
    side to move); a leading byte-order mark is ignored."""
    import random

    from outflank.board import parse_position

    rng = random.Random(3)
    for _ in range(40):
        board = Board()
        for _ in range(rng.randrange(0, 50)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        position = board.copy(stack=False)
        assert parse_position(str(board)) == position
        assert parse_position(board.obf()) == position
        assert parse_position("\ufeff" + board.transcript()) == position
        assert parse_position(board.root().obf() + " " + board.transcript()) == position
    assert parse_position("start") == Board()
