"""The seeds' evaluators, computed in C, against plain Python definitions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank import Board
from outflank.engine import Engine
from outflank.errors import OutflankError
from outflank.evaluation import EVALUATORS, SEED_002_WEIGHTS, make_evaluator

CORNERS = {0: (1, 8, 9), 7: (6, 14, 15), 56: (48, 49, 57), 63: (54, 55, 62)}
NEXT_TO_CORNER = {sq for group in CORNERS.values() for sq in group}
BORDER = {sq for sq in range(64) if sq // 8 in (0, 7) or sq % 8 in (0, 7)}
EDGES = BORDER - set(CORNERS) - NEXT_TO_CORNER


def squares(bits: int) -> list[int]:
    return [i for i in range(64) if bits >> i & 1]


def py_weights(p: int, o: int, w: tuple[int, ...] = SEED_002_WEIGHTS) -> int:
    return sum(w[i] for i in squares(p)) - sum(w[i] for i in squares(o))


def py_fish(p: int, o: int, corner=25, adjacent=5, edge=3, other=1) -> int:
    def value(sq: int, mine: int) -> int:
        if sq in CORNERS:
            return corner
        for c, group in CORNERS.items():
            if sq in group:
                return edge if mine >> c & 1 else -adjacent
        return edge if sq in EDGES else other

    return sum(value(sq, p) for sq in squares(p)) - sum(value(sq, o) for sq in squares(o))


def py_regions(p: int, o: int, corner=30, edge=5, x_square=-20) -> int:
    def value(sq: int) -> int:
        if sq in CORNERS:
            return 1 + corner
        if sq in NEXT_TO_CORNER:
            return 1 + x_square
        return 1 + edge if sq in EDGES else 1

    return sum(value(sq) for sq in squares(p)) - sum(value(sq) for sq in squares(o))


def position(seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    for _ in range(rng.randrange(0, 58)):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves))
    return board


def flipped(board: Board) -> Board:
    """The same discs with the other side to move."""
    return Board(board.black, board.white, turn=board.turn.other)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_seed_evaluators_match_python(seed: int) -> None:
    board = position(seed)
    p, o = board.player, board.opponent
    assert Engine("weights").evaluate(board) == py_weights(p, o)
    assert Engine("fish").evaluate(board) == py_fish(p, o)
    assert Engine("regions").evaluate(board) == py_regions(p, o)
    assert Engine("discs").evaluate(board) == p.bit_count() - o.bit_count()
    custom = tuple(range(-32, 32))
    assert Engine("weights", weights=custom).evaluate(board) == py_weights(p, o, custom)
    assert Engine("fish", corner=40, adjacent=10).evaluate(board) == py_fish(
        p, o, corner=40, adjacent=10
    )
    assert Engine("regions", corner=-50, edge=50, x_square=0).evaluate(board) == py_regions(
        p, o, -50, 50, 0
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_seed_evaluators_are_antisymmetric(seed: int) -> None:
    # (default is not: it rewards the side to move for parity)
    board = position(seed)
    for name in set(EVALUATORS) - {"default"}:
        engine = Engine(name)
        assert engine.evaluate(board) == -engine.evaluate(flipped(board)), name


def test_heuristic_terms_are_bounded_and_weighted() -> None:
    for seed in range(40):
        board = position(seed)
        value = Engine("heuristic").evaluate(board)
        assert abs(value) <= 100 * (25 + 25 + 30 + 20)
        parity_only = Engine("heuristic", parity=1, mobility=0, corners=0, stability=0)
        p, o = board.player.bit_count(), board.opponent.bit_count()
        assert parity_only.evaluate(board) == int(100 * (p - o) / (p + o))
        corners_only = Engine("heuristic", parity=0, mobility=0, corners=1, stability=0)
        cp = sum(board.player >> c & 1 for c in CORNERS)
        co = sum(board.opponent >> c & 1 for c in CORNERS)
        expected = int(100 * (cp - co) / (cp + co)) if cp + co else 0
        assert corners_only.evaluate(board) == expected


def test_weights_accept_8_rows_and_reject_bad_tables() -> None:
    rows = [list(SEED_002_WEIGHTS[r * 8 : r * 8 + 8]) for r in range(8)]
    assert make_evaluator("weights", weights=rows).weights == SEED_002_WEIGHTS
    for bad in ([1] * 63, [[1] * 8] * 7, ["a"] * 64, [10**6] * 64, "x" * 64):
        with pytest.raises(OutflankError):
            make_evaluator("weights", weights=bad)


def test_configure_changes_the_evaluation() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4f6")
    engine = Engine("regions")
    before = engine.evaluate(board)
    engine.configure(edge=50)
    assert engine.evaluator.params["edge"] == 50
    assert engine.evaluate(board) == py_regions(board.player, board.opponent, edge=50)
    assert before == py_regions(board.player, board.opponent)
