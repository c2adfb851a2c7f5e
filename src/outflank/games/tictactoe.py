"""Tic-Tac-Toe and the m,n,k-games (gravity-free k in a row), on bitboards.

Cells are numbered as in seed 001: ``1`` is the top-left corner, numbers run
left to right, then top to bottom. Cell ``i`` (0-based) is bit ``i`` of a
player's bitboard, a Python ``int`` of ``rows * cols`` bits.

The heuristic is seed 001's: every *window* (k cells in a row, column or
diagonal) that holds stones of only one player is still open for that
player, and counts ``10 ** (stones - 1)`` for them: fuller windows weigh ten
times more per stone.
"""

from __future__ import annotations

from collections.abc import Hashable

from outflank.errors import IllegalMoveError, OutflankError
from outflank.games.base import HEURISTIC_BOUND, Game, parse_int

__all__ = ["MNK", "TicTacToe"]

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _windows(rows: int, cols: int, k: int) -> list[int]:
    """Bitmasks of every run of ``k`` cells in a line on a ``rows x cols`` board."""
    masks = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in _DIRECTIONS:
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    mask = 0
                    for i in range(k):
                        mask |= 1 << ((r + dr * i) * cols + c + dc * i)
                    masks.append(mask)
    return masks


class MNK(Game):
    """The m,n,k-game: ``rows x cols`` board, ``k`` in a row wins, no gravity.

    ``MNK(3, 3, 3)`` is Tic-Tac-Toe; seed 001 also plays ``MNK(7, 6, 4)``.
    Moves are cell indices ``0 .. rows*cols-1``; people type ``index + 1``.
    """

    name = "mnk"

    def __init__(self, rows: int = 3, cols: int = 3, k: int = 3) -> None:
        for what, value in (("rows", rows), ("cols", cols), ("k", k)):
            if not isinstance(value, int) or value < 1:
                raise OutflankError(f"{what} must be a positive integer, not {value!r}")
        if k > max(rows, cols):
            raise OutflankError(
                f"k={k} in a row cannot fit on a {rows}x{cols} board (k <= {max(rows, cols)})"
            )
        self.rows, self.cols, self.k = rows, cols, k
        self.cells = rows * cols
        self._full = (1 << self.cells) - 1
        self._window_list = _windows(rows, cols, k)
        self._windows_at: list[tuple[int, ...]] = [
            tuple(w for w in self._window_list if w >> cell & 1) for cell in range(self.cells)
        ]
        centre_r, centre_c = (rows - 1) / 2, (cols - 1) / 2
        self._order = sorted(
            range(self.cells),
            key=lambda i: (abs(i // cols - centre_r) + abs(i % cols - centre_c), i),
        )
        self._weights = [0] + [10 ** (n - 1) for n in range(1, k + 1)]
        self._bits = [0, 0]
        self._turn = 0
        self._winner: int | None = None
        self._stack: list[tuple[int, int | None]] = []
        self.default_depth = None if self.cells <= 9 else 6 if self.cells <= 16 else 4

    # -------------------------------------------------------------- state
    @property
    def turn(self) -> int:
        return self._turn

    @property
    def ply(self) -> int:
        return len(self._stack)

    def cell(self, index: int) -> int | None:
        """The player on cell ``index`` (0-based), or ``None`` if it is free."""
        for player in (0, 1):
            if self._bits[player] >> index & 1:
                return player
        return None

    def legal_moves(self) -> list[int]:
        if self._winner is not None:
            return []
        taken = self._bits[0] | self._bits[1]
        return [i for i in self._order if not taken >> i & 1]

    def play(self, move: int) -> None:
        player = self._turn
        bits = self._bits[player] | 1 << move
        self._bits[player] = bits
        self._stack.append((move, self._winner))
        for window in self._windows_at[move]:
            if bits & window == window:
                self._winner = player
                break
        self._turn = 1 - player

    def undo(self) -> None:
        move, self._winner = self._stack.pop()
        self._turn = player = 1 - self._turn
        self._bits[player] &= ~(1 << move)

    def is_over(self) -> bool:
        return self._winner is not None or (self._bits[0] | self._bits[1]) == self._full

    def winner(self) -> int | None:
        return self._winner

    def utility(self) -> int:
        if self._winner is None:
            return 0
        return 1 if self._winner == self._turn else -1

    def winning_move(self) -> int | None:
        if self._winner is not None:
            return None
        mine = self._bits[self._turn]
        theirs = self._bits[1 - self._turn]
        need = self.k - 1
        for window in self._window_list:  # k-1 own stones and the last cell free
            if not theirs & window and (mine & window).bit_count() == need:
                return (window & ~mine).bit_length() - 1
        return None

    def heuristic(self) -> int:
        mine = self._bits[self._turn]
        theirs = self._bits[1 - self._turn]
        weights = self._weights
        score = 0
        for window in self._window_list:
            own = mine & window
            other = theirs & window
            if own:
                if not other:
                    score += weights[own.bit_count()]
            elif other:
                score -= weights[other.bit_count()]
        return max(-HEURISTIC_BOUND, min(HEURISTIC_BOUND, score))

    def key(self) -> int:
        return self._bits[0] | self._bits[1] << self.cells

    def variant(self) -> Hashable:
        return (MNK, self.rows, self.cols, self.k)

    def copy(self) -> MNK:
        other = MNK.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._bits = list(self._bits)
        other._stack = list(self._stack)
        return other

    # ------------------------------------------------------------ notation
    def render(self) -> str:
        width = len(str(self.cells))
        lines = []
        for r in range(self.rows):
            cells = []
            for c in range(self.cols):
                index = r * self.cols + c
                owner = self.cell(index)
                label = str(index + 1) if owner is None else self.symbols[owner]
                cells.append(f"{label:>{width}}")
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def parse_move(self, text: str) -> int:
        return parse_int(text, "cell", 1, self.cells) - 1

    def format_move(self, move: int) -> str:
        return str(move + 1)

    def check_move(self, move: int) -> None:
        if not (isinstance(move, int) and 0 <= move < self.cells):
            raise IllegalMoveError(f"no cell {move!r} on this board")
        if self.is_over():
            raise IllegalMoveError(f"the game is over ({self.result_text()})")
        owner = self.cell(move)
        if owner is not None:
            raise IllegalMoveError(f"cell {move + 1} is already taken by {self.symbols[owner]}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rows}, {self.cols}, {self.k})"


class TicTacToe(MNK):
    """Tic-Tac-Toe: ``MNK(3, 3, 3)``; small enough to solve from the empty board."""

    name = "tictactoe"

    def __init__(self) -> None:
        super().__init__(3, 3, 3)

    def __repr__(self) -> str:
        return "TicTacToe()"
