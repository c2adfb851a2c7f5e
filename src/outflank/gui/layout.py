"""Where things go in a window of any size, and which square a pixel is on.

Wide windows get the board on the left and an information panel on the
right; narrow ones get the panel under the board. The board is as large as
the space allows (capped by the ``SQUARESIZE`` setting when it is not 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

__all__ = ["Layout", "compute_layout"]

_FRAME = 0.5  # width of the frame with the coordinates, in squares
_MIN_SQUARE = 4


@dataclass(frozen=True, slots=True)
class Layout:
    """Pixel geometry for one window size."""

    size: tuple[int, int]
    square: int  # side of one square in pixels
    board: pygame.Rect  # the 8x8 squares
    frame: pygame.Rect  # board plus the coordinate frame
    panel: pygame.Rect  # score, status, help
    wide: bool  # panel on the right (True) or below (False)

    def square_at(self, pos: tuple[int, int]) -> int | None:
        """The square index (a1 = 0) under a pixel, or ``None`` off the board."""
        x, y = pos
        if not self.board.collidepoint(x, y):
            return None
        col = (x - self.board.left) // self.square
        row = (y - self.board.top) // self.square
        if 0 <= col < 8 and 0 <= row < 8:
            return int(row * 8 + col)
        return None

    def square_rect(self, square: int) -> pygame.Rect:
        """The pixel rectangle of a square."""
        row, col = divmod(square, 8)
        return pygame.Rect(
            self.board.left + col * self.square,
            self.board.top + row * self.square,
            self.square,
            self.square,
        )

    def square_center(self, square: int) -> tuple[int, int]:
        """The pixel at the centre of a square."""
        return self.square_rect(square).center


def compute_layout(size: tuple[int, int], max_square: int = 0) -> Layout:
    """The layout for a window of ``size`` pixels; ``max_square`` caps the
    square size (0: no cap)."""
    width, height = max(1, size[0]), max(1, size[1])
    wide = width >= height * 1.15
    if wide:
        panel_w = int(min(max(width * 0.3, 200), 440, width * 0.45))
        panel = pygame.Rect(width - panel_w, 0, panel_w, height)
        area = pygame.Rect(0, 0, width - panel_w, height)
    else:
        panel_h = int(min(max(height * 0.17, 64), 150, height * 0.35))
        panel = pygame.Rect(0, height - panel_h, width, panel_h)
        area = pygame.Rect(0, 0, width, height - panel_h)
    pad = max(4, min(area.w, area.h) // 30)
    usable = min(area.w, area.h) - 2 * pad
    square = int(usable / (8 + 2 * _FRAME))
    if max_square:
        square = min(square, max_square)
    square = max(_MIN_SQUARE, square)
    board = pygame.Rect(0, 0, 8 * square, 8 * square)
    board.center = area.center
    margin = max(2, round(square * _FRAME))
    frame = board.inflate(2 * margin, 2 * margin)
    return Layout((width, height), square, board, frame, panel, wide)
