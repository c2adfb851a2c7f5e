"""How a move is judged: labels by the discs lost, accuracy, turning points.

Labels, by the discs a move loses (:data:`THRESHOLDS`): best (less than
1), good (1 to 3), inaccuracy (3 to 6), mistake (6 to 12), blunder (12
or more); a book move that loses less than an inaccuracy is labelled
``book``. A move's accuracy is ``100 * 2 ** (-loss / 6)``: every
:data:`ACCURACY_HALF_LOSS` discs lost halve it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from outflank.errors import OutflankError

__all__ = [
    "ACCURACY_HALF_LOSS",
    "EVEN",
    "THRESHOLDS",
    "TURNING_LOSS",
    "Label",
    "ReviewError",
    "Source",
    "Thresholds",
    "move_accuracy",
    "outcome",
]

#: Discs lost that halve a move's accuracy (see :func:`move_accuracy`).
ACCURACY_HALF_LOSS: Final = 6.0
#: A turning point loses at least this many discs (an inaccuracy's).
TURNING_LOSS: Final = 3.0
#: Values within this many discs of 0 count as even (estimates are not exact).
EVEN: Final = 1.0


class ReviewError(OutflankError):
    """A game that cannot be reviewed (no moves), or a bad review setting or record."""


class Label(enum.Enum):
    """How good a move was, from the discs it lost (see :class:`Thresholds`)."""

    BOOK = "book"
    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @property
    def severity(self) -> int:
        """0 for book and best moves, up to 4 for a blunder."""
        return _SEVERITY[self]


_SEVERITY: Final = {
    Label.BOOK: 0,
    Label.BEST: 0,
    Label.GOOD: 1,
    Label.INACCURACY: 2,
    Label.MISTAKE: 3,
    Label.BLUNDER: 4,
}


class Source(enum.Enum):
    """Where a position's values came from."""

    BOOK = "book"  # the opening book (searched offline, backed up by negamax)
    EXACT = "exact"  # the endgame solver
    SEARCH = "search"  # a midgame search of ``depth`` plies


@dataclass(frozen=True)
class Thresholds:
    """The losses (discs) from which a move is good, an inaccuracy, a mistake
    or a blunder; below ``good`` it is the best move."""

    good: float = 1.0
    inaccuracy: float = 3.0
    mistake: float = 6.0
    blunder: float = 12.0

    def label(self, loss: float) -> Label:
        """The label of a move that loses ``loss`` discs."""
        if loss >= self.blunder:
            return Label.BLUNDER
        if loss >= self.mistake:
            return Label.MISTAKE
        if loss >= self.inaccuracy:
            return Label.INACCURACY
        if loss >= self.good:
            return Label.GOOD
        return Label.BEST


#: The thresholds reviews use.
THRESHOLDS: Final = Thresholds()


def move_accuracy(loss: float) -> float:
    """A move's accuracy, 0-100: 100 for no loss, halved by every
    :data:`ACCURACY_HALF_LOSS` discs lost (2 discs: 79, 6: 50, 12: 25)."""
    return 100.0 * 0.5 ** (max(loss, 0.0) / ACCURACY_HALF_LOSS)


def outcome(value: float) -> int:
    """The result a value foresees: +1 a win, 0 even (within :data:`EVEN`
    discs of 0), -1 a loss."""
    return 0 if abs(value) < EVEN else (1 if value > 0 else -1)
