"""The evaluator's training helpers in the core: solver, self-play labels."""

from __future__ import annotations

import random
import sys

import pytest

from outflank import _core
from outflank.board import Board


def _negamax(p: int, o: int, passed: bool = False) -> int:
    moves = _core.moves(p, o)
    if not moves:
        if passed:
            a, b = bin(p).count("1"), bin(o).count("1")
            e = 64 - a - b
            return a - b + (e if a > b else -e if a < b else 0)
        return -_negamax(o, p, True)
    best = -65
    while moves:
        sq = (moves & -moves).bit_length() - 1
        moves &= moves - 1
        f = _core.flips(p, o, sq)
        best = max(best, -_negamax(o & ~f, p | f | (1 << sq)))
    return best


def test_train_solve_matches_brute_force() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 15:
        board = Board()
        target = rng.choice([5, 6, 7])
        while board.empties > target and not board.is_game_over():
            board.play(rng.choice(board.legal_moves))
        if board.is_game_over() or board.must_pass():
            continue
        score, nodes = _core.train_solve(board.player, board.opponent)
        assert score == _negamax(board.player, board.opponent)
        assert nodes > 0
        checked += 1


def test_train_game_labels_are_exact_in_the_endgame() -> None:
    p, o, labels, black, _nodes = _core.train_game(12345, 10, 2, 10)
    ps = memoryview(p).cast("Q")
    os_ = memoryview(o).cast("Q")
    ls = memoryview(labels).cast("i")
    assert len(ps) == len(os_) == len(ls) > 20
    assert -64 <= black <= 64
    assert ls[0] == black  # black moves first
    late = 0
    for pi, oi, label in zip(ps, os_, ls, strict=True):
        assert pi & oi == 0
        if 64 - bin(pi | oi).count("1") <= 10:
            assert label == _core.train_solve(pi, oi)[0]
            late += 1
    assert late >= 5
    # Deterministic for a seed.
    assert _core.train_game(12345, 10, 2, 10)[:3] == (p, o, labels)


def test_train_search_and_hand_eval() -> None:
    board = Board()
    p, o = board.player, board.opponent
    assert _core.train_search(p, o, 0)[0] == _core.eval_default(p, o)
    assert _core.train_search(p, o, 0, True)[0] == _core.eval_default_hand(p, o)
    with pytest.raises(ValueError):
        _core.train_search(p, o, 13)


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        _core.eval_default(1, 1)
    with pytest.raises(ValueError):
        _core.eval_features((1).to_bytes(8, sys.byteorder), (1).to_bytes(8, sys.byteorder))
    with pytest.raises(ValueError):
        _core.eval_features(b"1234", b"1234")
    with pytest.raises(ValueError):
        _core.train_game(1, 4, 0, 10)
    with pytest.raises(ValueError):
        _core.train_solve(0, 0)  # 64 empties: too many for the small solver
