"""The bitboard core against a simple pure-Python oracle, over random games."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from outflank import PASS, Board, _core


def _check(board: Board) -> None:
    cells = oracle.cells_of(board.black, board.white)
    me = 1 if board.turn == 0 else 2
    legal = oracle.legal_squares(cells, me)
    assert [m.square for m in board.legal_moves if not m.is_pass] == legal
    for sq in legal:
        assert board.flips(sq_move(sq)) == oracle.flips(cells, me, sq)
    other_legal = oracle.legal_squares(cells, 3 - me)
    assert board.is_game_over() == (not legal and not other_legal)
    assert board.must_pass() == (not legal and bool(other_legal))


def sq_move(sq: int) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=1000), min_size=0, max_size=70))
def test_random_games_match_oracle(choices: list[int]) -> None:
    board = Board()
    for choice in choices:
        _check(board)
        moves = board.legal_moves
        if not moves:
            break
        move = moves[choice % len(moves)]
        board.push(move)
        if move is not PASS:
            continue
    _check(board)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_random_bitboards_match_oracle(a: int, b: int) -> None:
    black, white = a & ~b, b & ~a
    board = Board(black, white)
    _check(board)
    assert _core.moves(black, white) == sum(
        1 << sq for sq in oracle.legal_squares(oracle.cells_of(black, white), 1)
    )


def test_perft_matches_oracle_small_depths() -> None:
    board = Board()
    cells = oracle.cells_of(board.black, board.white)
    for depth in range(1, 6):
        assert board.perft(depth) == oracle.perft(cells, 1, depth)
