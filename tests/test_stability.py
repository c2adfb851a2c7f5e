"""Stable discs, which the endgame solver's stability cut-off trusts.

`_core.stable_discs` is checked against the rules themselves: from a
position with few empty squares, every continuation of the game is played
out with the pure-Python oracle, and no disc called stable may ever change
colour.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import cells_of, legal_squares, play
from outflank import _core
from outflank.board import parse_square

FULL = (1 << 64) - 1


def _bits(*names: str) -> int:
    return sum(1 << parse_square(name) for name in set(names))


def _flipped_ever(cells: list[int], me: int) -> set[int]:
    """Squares whose disc changes colour in some continuation of the game."""
    changed: set[int] = set()
    seen: set[tuple[tuple[int, ...], int]] = set()
    stack = [(cells, me)]
    while stack:
        board, mover = stack.pop()
        key = (tuple(board), mover)
        if key in seen:
            continue
        seen.add(key)
        moves = legal_squares(board, mover)
        if not moves and legal_squares(board, 3 - mover):
            stack.append((board, 3 - mover))
        for sq in moves:
            after = play(board, mover, sq)
            changed.update(i for i in range(64) if board[i] and board[i] != after[i])
            stack.append((after, 3 - mover))
    return changed


def _random_position(seed: int, empties: int) -> tuple[int, int]:
    rng = random.Random(seed)
    holes = rng.sample(range(64), empties)
    black = white = 0
    for sq in range(64):
        if sq in holes:
            continue
        if rng.random() < 0.5:
            black |= 1 << sq
        else:
            white |= 1 << sq
    return black, white


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), empties=st.integers(1, 7))
def test_stable_discs_never_change_colour(seed: int, empties: int) -> None:
    black, white = _random_position(seed, empties)
    changed = _flipped_ever(cells_of(black, white), 1)
    for own, other in ((black, white), (white, black)):
        stable = _core.stable_discs(own, other)
        assert stable & ~own == 0
        wrongly_stable = [sq for sq in changed if stable >> sq & 1]
        assert not wrongly_stable, (hex(own), hex(other), wrongly_stable)


def test_edge_discs_between_opponent_discs_are_stable() -> None:
    # c1-f1 sit between the opponent's b1 and g1: nothing on the edge can
    # ever bracket them, though no corner anchors them and the row is open.
    own = _bits("c1", "d1", "e1", "f1", "d4")
    other = _bits("b1", "g1", "e5")
    stable = _core.stable_discs(own, other)
    assert stable == _bits("c1", "d1", "e1", "f1")


def test_corner_anchored_chains_and_full_board() -> None:
    own = _bits("a1", "b1", "c1", "a2", "d4")
    other = _bits("e4", "e5")
    assert _core.stable_discs(own, other) == _bits("a1", "b1", "c1", "a2")
    assert _core.stable_discs(FULL, 0) == FULL
    assert _core.stable_discs(0, FULL) == 0
