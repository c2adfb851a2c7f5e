"""Small, readable evaluation functions for the classic (pure-Python) search.

An evaluation function scores a position from one player's point of view:
``evaluate(board, player) -> number``, larger is better for ``player``. The
classic search always asks for the view of the player to move at the root
(the MAX player), at every leaf, whoever is to move there.

These are the teaching versions; the engine has fast native ones under the
same names (see :mod:`outflank.engine`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from outflank.board import BLACK, Board, Color
from outflank.errors import OutflankError
from outflank.evaluation import SEED_002_WEIGHTS

__all__ = ["EVALUATORS", "WEIGHTS", "Evaluator", "discs", "fish", "get_evaluator", "weights"]

Evaluator = Callable[[Board, Color], float]
"""``evaluate(board, player)``: the position's value for ``player``."""

# Seed 002's positional weights, a1..h8 (row 1 first, a to h within a row).
# Corners are precious (99); the squares next to them give corners away.
# (One table for the whole project: the native evaluator's.)
WEIGHTS: Final[tuple[int, ...]] = SEED_002_WEIGHTS


def _discs_of(board: Board, player: Color) -> tuple[int, int]:
    """Bitboards ``(player's discs, opponent's discs)``."""
    if Color(player) is BLACK:
        return board.black, board.white
    return board.white, board.black


def _squares(bits: int) -> list[int]:
    """Indices of the set bits of a bitboard (a1 = 0 ... h8 = 63)."""
    squares = []
    while bits:
        lowest = bits & -bits  # the lowest set bit alone
        squares.append(lowest.bit_length() - 1)
        bits ^= lowest
    return squares


def weights(board: Board, player: Color) -> int:
    """Seed 002: sum of the weights of ``player``'s squares minus the opponent's.

    >>> weights(Board(), BLACK)  # d5, e4 against d4, e5: all weigh 0
    0
    """
    mine, theirs = _discs_of(board, player)
    return sum(WEIGHTS[sq] for sq in _squares(mine)) - sum(WEIGHTS[sq] for sq in _squares(theirs))


def discs(board: Board, player: Color) -> int:
    """Disc difference: ``player``'s discs minus the opponent's."""
    mine, theirs = _discs_of(board, player)
    return mine.bit_count() - theirs.bit_count()


# Seed 000's heuristic (after John Fish's Othello): corners 25, other edge
# squares 3, ordinary squares 1; the three squares touching a corner are worth
# -5 to a side that does not own that corner, and 3 to a side that does.
_CORNER_VALUE: Final = 25
_SIDE_VALUE: Final = 3
_ADJACENT_VALUE: Final = 5
_CORNERS: Final = (0, 7, 56, 63)  # a1, h1, a8, h8
_NEXT_TO_CORNER: Final = {
    0: (1, 8, 9),  # a1: b1, a2, b2
    7: (6, 15, 14),  # h1: g1, h2, g2
    56: (48, 57, 49),  # a8: a7, b8, b7
    63: (62, 55, 54),  # h8: g8, h7, g7
}


def _fish_square_value(square: int) -> int:
    """A square's value before looking at who owns the corners."""
    row, col = divmod(square, 8)
    if square in _CORNERS:
        return _CORNER_VALUE
    if row in (0, 7) or col in (0, 7):
        return _SIDE_VALUE
    return 1


def _fish_side(own: int) -> int:
    """The sum of the square values of one side's discs (bitboard ``own``)."""
    value = [_fish_square_value(sq) for sq in range(64)]
    for corner, neighbours in _NEXT_TO_CORNER.items():
        owns_corner = bool(own >> corner & 1)
        for sq in neighbours:
            value[sq] = _SIDE_VALUE if owns_corner else -_ADJACENT_VALUE
    return sum(value[sq] for sq in _squares(own))


def fish(board: Board, player: Color) -> int:
    """Seed 000's ``getScoreOfBoard2``: a hand-made square-value heuristic.

    Each side scores the values of its discs' squares; the result is
    ``player``'s score minus the opponent's, so ``fish(b, X) == -fish(b, O)``.

    Two differences from the seed's code, both following its stated intent
    (and the engine's native ``fish``): the squares around a8 and h1 are tied
    to their own corner (the seed's code swaps those two corners), and the
    opponent's discs are valued by the opponent's corners (the seed's code
    uses the player's corners for both sides).

    >>> fish(Board(), BLACK)  # two discs each on ordinary squares
    0
    """
    mine, theirs = _discs_of(board, player)
    return _fish_side(mine) - _fish_side(theirs)


EVALUATORS: Final[dict[str, Evaluator]] = {"weights": weights, "fish": fish, "discs": discs}
"""The evaluation functions by name."""


def get_evaluator(name: str) -> Evaluator:
    """The evaluation function called ``name`` (``weights``, ``fish`` or ``discs``)."""
    try:
        return EVALUATORS[name.strip().lower()]
    except KeyError:
        known = ", ".join(EVALUATORS)
        raise OutflankError(f"unknown evaluation {name!r}: choose one of {known}") from None
