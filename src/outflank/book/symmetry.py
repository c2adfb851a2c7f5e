"""The 8 symmetries of the board (rotations and reflections) on bitboards.

A position and its images under these symmetries play the same, so the book
stores each once, under its *canonical* form: the least ``(player,
opponent)`` pair of the 8 images. Symmetry ``t`` (0..7) transposes the board
(a1-h8 diagonal) if ``t & 4``, then mirrors it left-right if ``t & 1``, then
flips it top-bottom if ``t & 2``. Bit ``i`` is square ``row * 8 + col``
(a1 = 0).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "SYMMETRIES",
    "canonical",
    "inverse",
    "key_of",
    "split_key",
    "transform",
    "transform_square",
]

SYMMETRIES: Final = range(8)

#: Each byte's bits reversed: a row mirrored left-right.
_REVERSED: Final = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
_K1: Final = 0x5500550055005500
_K2: Final = 0x3333000033330000
_K4: Final = 0x0F0F0F0F00000000


def _transpose(x: int) -> int:
    """Reflect in the a1-h8 diagonal: square (row, col) goes to (col, row)."""
    t = _K4 & (x ^ (x << 28))
    x ^= t ^ (t >> 28)
    t = _K2 & (x ^ (x << 14))
    x ^= t ^ (t >> 14)
    t = _K1 & (x ^ (x << 7))
    x ^= t ^ (t >> 7)
    return x


def _images(x: int) -> tuple[int, int, int, int, int, int, int, int]:
    """``x`` under the 8 symmetries, in the order of ``t``."""
    out = []
    for base in (x, _transpose(x)):
        raw = base.to_bytes(8, "little")
        mirrored = raw.translate(_REVERSED)
        out += [
            base,
            int.from_bytes(mirrored, "little"),
            int.from_bytes(raw, "big"),
            int.from_bytes(mirrored, "big"),
        ]
    return tuple(out)  # type: ignore[return-value]


def transform(bits: int, t: int) -> int:
    """The bitboard ``bits`` under symmetry ``t``."""
    return _images(bits)[t]


#: _SQUARES[t][sq]: where symmetry t takes square sq.
_SQUARES: Final = tuple(
    tuple(transform(1 << sq, t).bit_length() - 1 for sq in range(64)) for t in range(8)
)
#: _INVERSE[t]: the symmetry undoing t.
_INVERSE: Final = tuple(
    next(u for u in range(8) if all(_SQUARES[u][_SQUARES[t][sq]] == sq for sq in range(64)))
    for t in range(8)
)


def transform_square(square: int, t: int) -> int:
    """Where symmetry ``t`` takes ``square`` (0..63)."""
    return _SQUARES[t][square]


def inverse(t: int) -> int:
    """The symmetry that undoes ``t``."""
    return _INVERSE[t]


def canonical(player: int, opponent: int) -> tuple[int, int, int]:
    """``(player', opponent', t)``: the least image of the position under the 8
    symmetries and the symmetry ``t`` that takes the position there."""
    best_p, best_o, best_t = player, opponent, 0
    for t, (p, o) in enumerate(zip(_images(player), _images(opponent), strict=True)):
        if p < best_p or (p == best_p and o < best_o):
            best_p, best_o, best_t = p, o, t
    return best_p, best_o, best_t


def key_of(player: int, opponent: int) -> int:
    """One int naming the position's symmetry class (its canonical pair)."""
    p, o, _ = canonical(player, opponent)
    return p << 64 | o


def split_key(key: int) -> tuple[int, int]:
    """The canonical ``(player, opponent)`` of a key."""
    return key >> 64, key & 0xFFFFFFFFFFFFFFFF
