"""The ``Game`` protocol every small game implements for :mod:`outflank.games.search`.

Design choice: **mutable states with play/undo.** A game object holds one
position and a stack of what each move changed; the search walks the tree by
``play(move)`` ... ``undo()`` on that single object. Immutable states would
allocate a new object per node, and every node of a Python search counts: with
bitboards held in plain ``int`` fields a play/undo pair is a couple of integer
operations and a list append/pop. It also maps one-to-one onto
:class:`outflank.board.Board`'s ``push``/``pop`` for the Othello adapter. Use
:meth:`Game.copy` when an independent state is wanted (e.g. a UI).

Conventions:

* Two players, ``0`` moves first. ``symbols[p]`` is how player ``p`` is drawn.
* Every value (``utility``, ``heuristic``) is from the **side to move's** view
  (negamax convention): positive is good for ``turn``.
* ``utility()`` is only asked at a finished game: ``+1``/``-1``/``0`` for
  win/loss/draw games, or a signed margin (Othello: disc difference) when
  :attr:`Game.margin_utility` is true.
* ``heuristic()`` estimates an unfinished position; it must stay within
  ``+-HEURISTIC_BOUND`` so that proven wins always score above any estimate.
* ``key()`` identifies the position (including the side to move) for the
  transposition table; equal keys must mean equal positions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from typing import ClassVar

from outflank.errors import IllegalMoveError, InvalidMoveError

__all__ = ["HEURISTIC_BOUND", "Game"]

#: Largest absolute value a heuristic may return.
HEURISTIC_BOUND = 10**8


class Game(ABC):
    """A two-player, zero-sum, perfect-information game searched by negamax.

    Subclasses implement the abstract methods; moves may be any hashable
    value (an ``int`` cell or column for the built-in games, a
    :class:`outflank.board.Move` for Othello).
    """

    #: Short name, e.g. ``"tictactoe"``.
    name: ClassVar[str] = "game"
    #: True when ``utility()`` returns a margin (bigger is better) rather than +1/0/-1.
    margin_utility: ClassVar[bool] = False
    #: Symbols drawn for players 0 and 1.
    symbols: tuple[str, str] = ("X", "O")
    #: Search depth used by :func:`~outflank.games.search.recommend` (``None``: to the end).
    default_depth: int | None = None

    # -------------------------------------------------------------- state
    @property
    @abstractmethod
    def turn(self) -> int:
        """The player to move: 0 (moved first) or 1."""

    @property
    @abstractmethod
    def ply(self) -> int:
        """Number of moves played on this object (the undo stack's depth)."""

    @abstractmethod
    def legal_moves(self) -> list[Hashable]:
        """Legal moves, best-first by a cheap static order (the search tries them so).

        Empty exactly when the game is over.
        """

    @abstractmethod
    def play(self, move: Hashable) -> None:
        """Play a legal move for the side to move (not checked: use :meth:`check_move`)."""

    @abstractmethod
    def undo(self) -> None:
        """Take back the last move played."""

    @abstractmethod
    def is_over(self) -> bool:
        """True when the game has ended (a win or no move left)."""

    @abstractmethod
    def winner(self) -> int | None:
        """The winning player once the game is over; ``None`` for a draw or a game in progress."""

    @abstractmethod
    def utility(self) -> int:
        """Value of a finished game for the side to move (see the module docstring)."""

    @abstractmethod
    def heuristic(self) -> int:
        """Estimated value of an unfinished position for the side to move."""

    @abstractmethod
    def key(self) -> Hashable:
        """A transposition-table key identifying the position and the side to move."""

    def variant(self) -> Hashable:
        """What besides the position a table entry depends on (the game and
        its size or rules): a searcher forgets its table when it changes."""
        return type(self)

    @abstractmethod
    def copy(self) -> Game:
        """An independent copy of the current position (the history may be dropped)."""

    def winning_move(self) -> Hashable | None:
        """A move that wins at once for the side to move, or ``None``.

        The search asks (in win/loss games) before going deep, since an
        immediate win is the best result there is. This default tries every
        move; games override it with something faster.
        """
        for move in self.legal_moves():
            self.play(move)
            won = self.is_over() and self.winner() is not None
            self.undo()
            if won:
                return move
        return None

    # ------------------------------------------------------------ notation
    @abstractmethod
    def render(self) -> str:
        """A human-readable drawing of the position (free cells show their move numbers)."""

    @abstractmethod
    def parse_move(self, text: str) -> Hashable:
        """Parse a move typed by a person (legality is :meth:`check_move`'s job).

        Raises :class:`InvalidMoveError`, saying what is expected, for text
        that is not a move of this game.
        """

    @abstractmethod
    def format_move(self, move: Hashable) -> str:
        """The text a person types for ``move`` (``parse_move`` reads it back)."""

    # ------------------------------------------------------------- helpers
    def check_move(self, move: Hashable) -> None:
        """Raise :class:`IllegalMoveError`, with the reason, unless ``move`` is legal here."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{self.format_move(move)} is not a legal move here")

    def play_text(self, text: str) -> Hashable:
        """Parse, check and play a move given as text; returns the move played."""
        move = self.parse_move(text)
        self.check_move(move)
        self.play(move)
        return move

    def result_text(self) -> str:
        """``"X wins"``, ``"O wins"``, ``"draw"`` or ``"in progress"``."""
        if not self.is_over():
            return "in progress"
        winner = self.winner()
        return "draw" if winner is None else f"{self.symbols[winner]} wins"

    def __str__(self) -> str:
        return self.render()


def parse_int(text: str, what: str, low: int, high: int) -> int:
    """Parse a number typed by a person in ``low..high`` with clear errors."""
    stripped = text.strip()
    try:
        value = int(stripped)
    except ValueError:
        raise InvalidMoveError(
            f"not a {what}: {stripped!r} (type a number from {low} to {high})"
        ) from None
    if not low <= value <= high:
        raise InvalidMoveError(f"no {what} {value}: type a number from {low} to {high}")
    return value
