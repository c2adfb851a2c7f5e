"""Exceptions raised by outflank.

Every error caused by bad input is a subclass of :class:`OutflankError`, which
is itself a :class:`ValueError`, so ``except ValueError`` catches them all.
"""

from __future__ import annotations


class OutflankError(ValueError):
    """Base class of every bad-input error in outflank."""


class InvalidMoveError(OutflankError):
    """A move string cannot be parsed (for example ``"z9"``)."""


class IllegalMoveError(OutflankError):
    """A well-formed move is not legal in the position."""


class InvalidBoardError(OutflankError):
    """A board description (OBF, ASCII, transcript, bitboards) is malformed."""


class SearchLimitError(OutflankError):
    """A search was asked for an impossible limit (depth 0, negative time...)."""


class GameOverError(OutflankError):
    """A search was asked for a move in a finished game."""


class PlayerError(OutflankError):
    """A player could not produce a move (a dead or misbehaving engine...)."""


class BookError(OutflankError):
    """A book file that cannot be read or written (missing, damaged, wrong kind)."""
