"""A deliberately simple, slow Othello rules oracle, independent of the core.

Cells are a list of 64 values: 0 empty, 1 black, 2 white. It walks the eight
directions square by square, exactly as a person would, to check the bitboard
core against.
"""

from __future__ import annotations

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(cells: list[int], me: int, square: int) -> list[int]:
    """Squares flipped if `me` plays on `square` (empty list: illegal)."""
    if cells[square] != 0:
        return []
    other = 3 - me
    row, col = divmod(square, 8)
    flipped: list[int] = []
    for dr, dc in DIRECTIONS:
        run = []
        r, c = row + dr, col + dc
        while 0 <= r < 8 and 0 <= c < 8 and cells[r * 8 + c] == other:
            run.append(r * 8 + c)
            r, c = r + dr, c + dc
        if run and 0 <= r < 8 and 0 <= c < 8 and cells[r * 8 + c] == me:
            flipped.extend(run)
    return sorted(flipped)


def legal_squares(cells: list[int], me: int) -> list[int]:
    return [sq for sq in range(64) if flips(cells, me, sq)]


def play(cells: list[int], me: int, square: int) -> list[int]:
    new = list(cells)
    for sq in flips(cells, me, square):
        new[sq] = me
    new[square] = me
    return new


def cells_of(black: int, white: int) -> list[int]:
    return [1 if black >> i & 1 else 2 if white >> i & 1 else 0 for i in range(64)]


def perft(cells: list[int], me: int, depth: int) -> int:
    if depth == 0:
        return 1
    moves = legal_squares(cells, me)
    if not moves:
        if not legal_squares(cells, 3 - me):
            return 1
        return perft(cells, 3 - me, depth - 1)
    return sum(perft(play(cells, me, sq), 3 - me, depth - 1) for sq in moves)
