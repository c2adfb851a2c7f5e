"""Connect Four (gravity, k in a row) on column-height bitboards.

The classic layout: column ``c`` holds bits ``c*(H+1) .. c*(H+1)+H-1`` from
the bottom row up, plus one always-empty *sentinel* bit on top. Because every
line of stones that leaves the board would have to cross a sentinel (or fall
off the ends of the integer), runs can be found for all four directions at
once by shifting a whole bitboard by ``1`` (vertical), ``H+1`` (horizontal),
``H`` and ``H+2`` (the diagonals).

Columns are numbered ``1 .. cols`` for people, ``0 .. cols-1`` as moves.

Heuristic (side to move's view): *threats* (empty cells that would complete
k in a row) count 16 each, plus a bonus for stones in the centre columns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

from outflank.errors import IllegalMoveError, OutflankError
from outflank.games.base import Game, parse_int

__all__ = ["ConnectFour"]

THREAT_WEIGHT = 16


class ConnectFour(Game):
    """Connect Four on a ``cols x rows`` grid with gravity; ``k`` in a row wins."""

    name = "connect4"
    default_depth = 8

    def __init__(self, cols: int = 7, rows: int = 6, k: int = 4) -> None:
        for what, value in (("cols", cols), ("rows", rows), ("k", k)):
            if not isinstance(value, int) or value < 1:
                raise OutflankError(f"{what} must be a positive integer, not {value!r}")
        if k > max(rows, cols):
            raise OutflankError(
                f"k={k} in a row cannot fit on a {cols}x{rows} board (k <= {max(rows, cols)})"
            )
        self.cols, self.rows, self.k = cols, rows, k
        h1 = rows + 1
        self._h1 = h1
        self._bottom = [c * h1 for c in range(cols)]  # bit index of each column's bottom cell
        self._top = [1 << (c * h1 + rows - 1) for c in range(cols)]  # each column's top cell
        column_mask = (1 << rows) - 1
        self._board_mask = sum(column_mask << (c * h1) for c in range(cols))
        self._bottom_row = sum(1 << (c * h1) for c in range(cols))
        self._directions = (1, h1, h1 - 1, h1 + 1)
        self._direction_pairs = tuple((d, 2 * d) for d in self._directions)
        # Runs of k by doubling: each step ANDs the board with itself shifted by `step` cells.
        steps = []
        covered = 1
        while covered < k:
            step = min(covered, k - covered)
            steps.append(step)
            covered += step
        self._win_shifts = tuple(tuple(s * d for s in steps) for d in self._directions)
        # Threats: cell x completes a run if the k-1 other cells of some window are ours.
        threat_shifts = []
        for d in self._directions:
            for j in range(k):
                threat_shifts.append(tuple((i - j) * d for i in range(k) if i != j))
        self._threat_shifts = tuple(threat_shifts)
        centre = (cols - 1) / 2
        self._centre = tuple(
            (column_mask << (c * h1), weight)
            for c in range(cols)
            if (weight := cols // 2 - math.ceil(abs(c - centre))) > 0
        )
        self._order = sorted(range(cols), key=lambda c: (abs(c - centre), c))
        self._bits = [0, 0]
        self._mask = 0
        self._heights = list(self._bottom)  # next free bit index per column
        self._turn = 0
        self._winner: int | None = None
        self._stack: list[tuple[int, int | None]] = []

    # -------------------------------------------------------------- state
    @property
    def turn(self) -> int:
        return self._turn

    @property
    def ply(self) -> int:
        return len(self._stack)

    @property
    def bitboards(self) -> tuple[int, int]:
        """The two players' bitboards (column-height layout)."""
        return self._bits[0], self._bits[1]

    def cell(self, col: int, row: int) -> int | None:
        """The player on ``(col, row)`` (row 0 at the bottom), or ``None``."""
        bit = 1 << (col * self._h1 + row)
        for player in (0, 1):
            if self._bits[player] & bit:
                return player
        return None

    def height(self, col: int) -> int:
        """Number of stones in column ``col``."""
        return self._heights[col] - self._bottom[col]

    def _has_run(self, bits: int) -> bool:
        for shifts in self._win_shifts:
            m = bits
            for s in shifts:
                m &= m >> s
            if m:
                return True
        return False

    def legal_moves(self) -> list[int]:
        if self._winner is not None:
            return []
        mask = self._mask
        top = self._top
        return [c for c in self._order if not mask & top[c]]

    def play(self, move: int) -> None:
        player = self._turn
        bit = 1 << self._heights[move]
        self._heights[move] += 1
        self._mask |= bit
        bits = self._bits[player] | bit
        self._bits[player] = bits
        self._stack.append((move, self._winner))
        if self._has_run(bits):
            self._winner = player
        self._turn = 1 - player

    def undo(self) -> None:
        move, self._winner = self._stack.pop()
        self._turn = player = 1 - self._turn
        self._heights[move] -= 1
        bit = 1 << self._heights[move]
        self._mask ^= bit
        self._bits[player] ^= bit

    def is_over(self) -> bool:
        return self._winner is not None or self._mask == self._board_mask

    def winner(self) -> int | None:
        return self._winner

    def utility(self) -> int:
        if self._winner is None:
            return 0
        return 1 if self._winner == self._turn else -1

    def threats(self, player: int) -> int:
        """Bitboard of empty cells where ``player`` would complete k in a row."""
        bits = self._bits[player]
        if self.k != 4:
            return self._threats_any_k(bits)
        found = 0
        for d, d2 in self._direction_pairs:  # the other three cells of a window, 4 placements
            up = bits << d
            down = bits >> d
            found |= (up & (up << d) & ((up << d2) | down)) | (
                down & (down >> d) & ((down >> d2) | up)
            )
        return found & self._board_mask & ~self._mask

    def _threats_any_k(self, bits: int) -> int:
        found = 0
        for shifts in self._threat_shifts:
            m = -1
            for s in shifts:
                m &= bits >> s if s > 0 else bits << -s
            found |= m
        return found & self._board_mask & ~self._mask

    def winning_move(self) -> int | None:
        free = (self._mask + self._bottom_row) & self._board_mask  # lowest empty cell per column
        wins = self.threats(self._turn) & free
        if self._winner is not None or not wins:
            return None
        return ((wins & -wins).bit_length() - 1) // self._h1

    def heuristic(self) -> int:
        me = self._turn
        mine, theirs = self._bits[me], self._bits[1 - me]
        score = THREAT_WEIGHT * (self.threats(me).bit_count() - self.threats(1 - me).bit_count())
        for mask, weight in self._centre:
            score += weight * ((mine & mask).bit_count() - (theirs & mask).bit_count())
        return score

    def key(self) -> int:
        return self._bits[0] | self._bits[1] << (self.cols * self._h1)

    def variant(self) -> Hashable:
        return (type(self), self.cols, self.rows, self.k)

    def copy(self) -> ConnectFour:
        other = ConnectFour.__new__(ConnectFour)
        other.__dict__.update(self.__dict__)
        other._bits = list(self._bits)
        other._heights = list(self._heights)
        other._stack = list(self._stack)
        return other

    # ------------------------------------------------------------ notation
    def render(self) -> str:
        width = len(str(self.cols))
        lines = []
        for row in range(self.rows - 1, -1, -1):
            cells = []
            for col in range(self.cols):
                owner = self.cell(col, row)
                cells.append(f"{'.' if owner is None else self.symbols[owner]:>{width}}")
            lines.append("| " + " ".join(cells) + " |")
        lines.append("+" + "-" * (self.cols * (width + 1) + 1) + "+")
        lines.append("  " + " ".join(f"{c + 1:>{width}}" for c in range(self.cols)))
        return "\n".join(lines)

    def parse_move(self, text: str) -> int:
        return parse_int(text, "column", 1, self.cols) - 1

    def format_move(self, move: int) -> str:
        return str(move + 1)

    def check_move(self, move: int) -> None:
        if not (isinstance(move, int) and 0 <= move < self.cols):
            raise IllegalMoveError(f"no column {move!r} on this board")
        if self.is_over():
            raise IllegalMoveError(f"the game is over ({self.result_text()})")
        if self._mask & self._top[move]:
            raise IllegalMoveError(f"column {move + 1} is full")

    def __repr__(self) -> str:
        return f"ConnectFour({self.cols}, {self.rows}, {self.k})"
