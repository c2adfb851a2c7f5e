"""GGF game records and transcripts: round trips and malformed input."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank.board import PASS, Board, Rules
from outflank.errors import InvalidBoardError
from outflank.ggf import (
    GameRecord,
    MoveRecord,
    load_game,
    parse_ggf,
    parse_ggf_games,
    read_ggf_file,
    write_ggf_file,
)

NBOARD_GAME = (
    "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]"
    "TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]"
    "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
)


def random_game(seed: int, length: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    for _ in range(length):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=12)
numbers = st.one_of(
    st.none(), st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)
)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    length=st.integers(0, 70),
    black=names,
    white=names,
    data=st.data(),
)
def test_round_trip_random_games(seed: int, length: int, black: str, white: str, data) -> None:
    board = random_game(seed, length)
    n = board.ply
    evals = data.draw(st.lists(numbers, min_size=n, max_size=n))
    times = data.draw(st.lists(numbers, min_size=n, max_size=n))
    rec = GameRecord.from_board(board, black=black, white=white, evals=evals, times=times)
    text = rec.to_ggf()
    back = parse_ggf(text)
    assert back == rec
    assert back.board() == board
    assert back.board().move_stack == board.move_stack
    assert back.to_ggf() == text
    assert [m.eval for m in back.moves] == evals


@settings(max_examples=25, deadline=None)
@given(seeds=st.lists(st.integers(0, 10**6), min_size=1, max_size=5))
def test_several_games_per_file(seeds: list[int], tmp_path_factory) -> None:
    boards = [random_game(s, 60) for s in seeds]
    records = [GameRecord.from_board(b, black=f"p{i}") for i, b in enumerate(boards)]
    path = tmp_path_factory.mktemp("ggf") / "games.ggf"
    write_ggf_file(path, records)
    back = read_ggf_file(path)
    assert [r.board() for r in back] == boards
    assert parse_ggf_games(path.read_text()) == records


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(0, 64))
def test_transcript_round_trip(seed: int, length: int) -> None:
    board = random_game(seed, length)
    while board.peek() == PASS:  # a transcript cannot hold a trailing pass
        board.pop()
    rec = GameRecord.from_board(board)
    again = load_game(rec.transcript())
    assert again.board() == board
    assert again.transcript() == board.transcript()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="(;)[]\\BWOPA*-8 f5d6GMTYRE\n", max_size=80))
def test_garbage_gives_only_clean_errors(text: str) -> None:
    try:
        parse_ggf_games(text)
    except InvalidBoardError as exc:
        assert str(exc)


def test_reads_nboard_game_and_writes_it_back() -> None:
    rec = parse_ggf(NBOARD_GAME)
    assert rec.black == "./mEdax" and rec.white == "chris" and rec.time_control == "15:00"
    assert rec.board() == Board.from_transcript("f5f6d3c5e6f7e7f4")
    assert parse_ggf(rec.to_ggf()) == rec


def test_gss_style_board_rows_and_move_fields() -> None:
    rows = " ".join(["--------"] * 3 + ["---O*---", "---*O---"] + ["--------"] * 3)
    text = f"(;GM[Othello]PC[GGS/os]TY[8]RE[+4.000:r]BO[8 {rows} *]B[f5//1.25]W[d6/-3.50/0.1];)"
    rec = parse_ggf(text)
    assert rec.moves == [
        MoveRecord(rec.moves[0].move, None, 1.25),
        MoveRecord(rec.moves[1].move, -3.5, 0.1),
    ]
    assert rec.score == 4.0
    assert "B[f5//1.25]" in rec.to_ggf()


def test_passes_written_as_pa_and_missing_passes_inserted() -> None:
    seed = next(s for s in range(10_000) if PASS in random_game(s, 80).move_stack)
    board = random_game(seed, 80)
    text = GameRecord.from_board(board).to_ggf()
    assert "[PA]" in text
    assert parse_ggf(text).board() == board
    without = text.replace("W[PA]", "").replace("B[PA]", "")
    assert parse_ggf(without).board() == board


def test_result_of_finished_game() -> None:
    board = random_game(7, 100)
    assert board.is_game_over()
    rec = GameRecord.from_board(board)
    assert rec.score == board.outcome().margin


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no game"),
        ("hello", "expected '(;' to start a game"),
        ("(;GM[Othello]", "not closed"),
        ("(;GM[Othello]PB[x;)", "not closed with ']'"),
        ("(;GM[Chess];)", "not an Othello game"),
        ("(;TY[10];)", "8x8"),
        ("(;TY[8a];)", "anti"),
        ("(;BO[8 ---- *];)", "64"),
        ("(;BO[8 " + "q" * 64 + " *];)", "unknown cell"),
        ("(;BO[8 " + "-" * 64 + " Z];)", "side to move"),
        ("(;BO[6 " + "-" * 36 + " *];)", "size"),
        ("(;B[z9];)", "not a move"),
        ("(;B[f5/x/1];)", "not a number"),
        ("(;B[f5/1/2/3];)", "move/eval/time"),
        ("(;W[f5];)", "black's turn"),
        ("(;B[a1];)", "illegal move"),
        ("(;GM[Othello] 12 ;)", "TAG[value]"),
        ("(;PB;)", "without a [value]"),
        (NBOARD_GAME + NBOARD_GAME, "2 games"),
    ],
)
def test_malformed_ggf_is_named(text: str, message: str) -> None:
    with pytest.raises(InvalidBoardError, match=re.escape(message)):
        parse_ggf(text)


def test_escaped_values_survive() -> None:
    rec = GameRecord.from_board(Board(), black="a]b\\c", white="[w]")
    assert parse_ggf(rec.to_ggf()).black == "a]b\\c"
    assert parse_ggf(rec.to_ggf()).white == "[w]"


def test_unknown_tags_are_kept() -> None:
    text = NBOARD_GAME.replace("TY[8]", "TY[8]KM[0]C[a comment]")
    rec = parse_ggf(text)
    assert rec.tags == {"KM": "0", "C": "a comment"}
    assert "KM[0]" in rec.to_ggf()


def test_reversi_games_keep_their_rules_through_ggf() -> None:
    """A Reversi game that ended because the mover could not move replays
    to its end only under Reversi rules: RU[Reversi] carries them."""
    rng = random.Random(4)
    while True:  # a Reversi game that ends early, where Othello would pass
        board = Board(rules=Rules.REVERSI)
        while not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if board.empties and not Board(board.black, board.white, board.turn).is_game_over():
            break
    text = GameRecord.from_board(board).to_ggf()
    assert "RU[Reversi]" in text
    record = parse_ggf(text)
    assert record.rules is Rules.REVERSI and record.board() == board
    assert record.board().is_game_over() and "RU[" in record.to_ggf()
    assert "RU[" not in GameRecord.from_board(Board.from_transcript("f5")).to_ggf()
    with pytest.raises(InvalidBoardError, match="unknown rules"):
        parse_ggf(text.replace("RU[Reversi]", "RU[go]"))
