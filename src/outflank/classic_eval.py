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

__all__ = ["EVALUATORS", "WEIGHTS", "Evaluator", "discs", "fish", "get_evaluator", "weights"]

Evaluator = Callable[[Board, Color], float]
"""``evaluate(board, player)``: the position's value for ``player``."""

# Seed 002's positional weights, a1..h8 (row 1 first, a to h within a row).
# Corners are precious (99); the squares next to them give corners away.
WEIGHTS: Final[tuple[int, ...]] = (
    99,  -8,   8,   6,   6,   8,  -8,  99,
    -8, -24,  -4,  -3,  -3,  -4, -24,  -8,
     8,  -4,   7,   4,   4,   7,  -4,   8,
     6,  -3,   4,   0,   0,   4,  -3,   6,
     6,  -3,   4,   0,   0,   4,  -3,   6,
     8,  -4,   7,   4,   4,   7,  -4,   8,
    -8, -24,  -4,  -3,  -3,  -4, -24,  -8,
    99,  -8,   8,   6,   6,   8,  -8,  99,
)  # fmt: skip


def _discs_of(board: Board, player: Color) -> tuple[int, int]:
    """Bitboards ``(player's discs, opponent's discs)``."""
    if player is BLACK:
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
# -5 while the player does not own that corner and 3 once it does.
_CORNER_VALUE: Final = 25
_SIDE_VALUE: Final = 3
_ADJACENT_VALUE: Final = 5
_CORNERS: Final = (0, 7, 56, 63)  # a1, h1, a8, h8
# Each corner with the squares next to it (the seed's code ties the a8 and h1
# groups to the wrong corner, swapped; this follows its stated intent).
_NEXT_TO_CORNER: Final = {
    0: (1, 8, 9),  # a1: b1, a2, b2
    7: (6, 15, 14),  # h1: g1, h2, g2
    56: (48, 57, 49),  # a8: a7, b8, b7
    63: (62, 55, 54),  # h8: g8, h7, g7
}


def _is_edge(square: int) -> bool:
    row, col = divmod(square, 8)
    return row in (0, 7) or col in (0, 7)


def fish(board: Board, player: Color) -> int:
    """Seed 000's ``getScoreOfBoard2``: a hand-made square-value heuristic.

    Every disc counts its square's value, plus for ``player``'s discs and
    minus for the opponent's. A square touching a corner is worth 3 if
    ``player`` owns that corner, otherwise -5 (for either side's disc on it,
    as in the seed).

    >>> fish(Board(), BLACK)  # two discs each on ordinary squares
    0
    """
    mine, theirs = _discs_of(board, player)
    value = [1] * 64
    for corner in _CORNERS:
        value[corner] = _CORNER_VALUE
    for sq in range(64):
        if _is_edge(sq) and sq not in _CORNERS:
            value[sq] = _SIDE_VALUE
    for corner, neighbours in _NEXT_TO_CORNER.items():
        owned = bool(mine >> corner & 1)
        for sq in neighbours:
            value[sq] = _SIDE_VALUE if owned else -_ADJACENT_VALUE
    return sum(value[sq] for sq in _squares(mine)) - sum(value[sq] for sq in _squares(theirs))


EVALUATORS: Final[dict[str, Evaluator]] = {"weights": weights, "fish": fish, "discs": discs}
"""The evaluation functions by name."""


def get_evaluator(name: str) -> Evaluator:
    """The evaluation function called ``name`` (``weights``, ``fish`` or ``discs``)."""
    try:
        return EVALUATORS[name.strip().lower()]
    except KeyError:
        known = ", ".join(EVALUATORS)
        raise OutflankError(f"unknown evaluation {name!r}: choose one of {known}") from None
