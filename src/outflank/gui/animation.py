"""The coin-turn flip of seed 000: each captured disc turns over like a coin
(its width shrinks to an edge, then grows back in the new colour), rippling
out from the disc just placed. Time is passed in, so tests control it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from outflank.board import Color

__all__ = ["FlipAnimation"]


def _distance(a: int, b: int) -> int:
    return max(abs(a // 8 - b // 8), abs(a % 8 - b % 8))


class FlipAnimation:
    """The turning of ``flips`` from ``before`` to ``before.other`` after a disc
    was placed on ``placed``, starting at time ``start`` (seconds).

    ``duration`` is how long one disc takes to turn; each ring further from
    the placed disc starts ``stagger`` seconds later (default: a quarter of
    ``duration``). The placed disc itself grows in during the first part.
    """

    def __init__(
        self,
        placed: int,
        flips: Sequence[int],
        before: Color,
        start: float,
        duration: float,
        stagger: float | None = None,
    ) -> None:
        if duration <= 0:
            raise ValueError("an animation needs a positive duration")
        self.placed = placed
        self.before = before
        self.after = before.other
        self.start = start
        self.duration = duration
        self.stagger = duration / 4 if stagger is None else stagger
        self._delays = {sq: (_distance(sq, placed) - 1) * self.stagger for sq in flips}
        self.end = start + max(self._delays.values(), default=0.0) + duration
        self._finished = False

    def finish(self) -> None:
        """Jump to the end (a click during the animation)."""
        self._finished = True

    def done(self, now: float) -> bool:
        """True once every disc has turned."""
        return self._finished or now >= self.end

    def progress(self, square: int, now: float) -> float | None:
        """How far a flipping disc has turned, 0..1 (``None`` if it is not flipping)."""
        delay = self._delays.get(square)
        if delay is None:
            return None
        if self._finished:
            return 1.0
        return min(1.0, max(0.0, (now - self.start - delay) / self.duration))

    def disc(self, square: int, now: float) -> tuple[Color, float] | None:
        """How to draw a flipping disc now: its visible colour and its width as a
        fraction of a full disc (``None`` if the square is not flipping, or done)."""
        t = self.progress(square, now)
        if t is None or t >= 1.0:
            return None
        width = abs(math.cos(math.pi * t))
        return (self.before if t < 0.5 else self.after), width

    def placed_scale(self, now: float) -> float:
        """Size of the placed disc as a fraction of a full disc (grows in)."""
        if self._finished:
            return 1.0
        grow = self.duration * 0.5
        t = (now - self.start) / grow if grow > 0 else 1.0
        return min(1.0, max(0.35, 0.35 + 0.65 * t))
