"""The opening explorer: a position's book moves, their values and the
named openings they lead to.

>>> from outflank import Board
>>> here = explore(Board.from_transcript("f5d6c3d3c4"))
>>> here.opening, here.in_book
('Tiger', True)
>>> for m in here.moves:  # doctest: +SKIP
...     print(m.move, m.value, m.opening, m.leads_to[:3])
f4 -0.3 Tiger ('Spencer', 'Brightwell', "Leader's Tiger")
b3 -3.68 Aubrey ()

Values are the book's (discs, from the side to move's view, best first);
``opening`` names the opening the game is in after a move (by the game's
moves from the start, as :func:`~outflank.book.names.opening_name` does)
and ``leads_to`` the named openings whose lines go on through the position
the move reaches (:func:`~outflank.book.names.openings_through`; the
move's own ``opening`` left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from outflank.board import PASS, Board, Move
from outflank.book.names import opening_name, openings_through
from outflank.book.store import Book
from outflank.errors import OutflankError

__all__ = ["ExplorerMove", "ExplorerPosition", "explore"]


@dataclass(frozen=True)
class ExplorerMove:
    """A book move: its value (discs, the mover's view), whether it leads to
    another book position, the opening the game is in after it, and the
    named openings that go on from there (shortest line first)."""

    move: Move
    value: float
    in_book: bool
    opening: str | None
    leads_to: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The move as JSON-ready values."""
        return {
            "move": str(self.move),
            "value": self.value,
            "in_book": self.in_book,
            "opening": self.opening,
            "leads_to": list(self.leads_to),
        }


@dataclass(frozen=True)
class ExplorerPosition:
    """A position in the explorer: the opening the game is in, and the book's
    value, search depth and moves (best first; none out of the book)."""

    board: Board
    opening: str | None
    in_book: bool
    value: float | None
    depth: int | None
    moves: tuple[ExplorerMove, ...]

    def to_dict(self) -> dict[str, Any]:
        """The position as JSON-ready values."""
        return {
            "position": self.board.obf(),
            "moves_played": [str(m) for m in self.board.move_stack],
            "opening": self.opening,
            "in_book": self.in_book,
            "value": self.value,
            "depth": self.depth,
            "moves": [m.to_dict() for m in self.moves],
        }


def explore(board: Board, book: Book | None = None) -> ExplorerPosition:
    """The explorer's view of ``board`` (with its moves from the start, for
    the opening names) in ``book`` (default: the shipped book)."""
    if not isinstance(board, Board):
        raise OutflankError(f"expected a Board, not {type(board).__name__}")
    book = book or Book.default()
    entry = book.probe(board)
    if entry is None:
        return ExplorerPosition(board.copy(), opening_name(board), False, None, None, ())
    moves = []
    for m in entry.moves:
        after = board.copy()
        after.push(m.move)
        if after.must_pass():
            after.push(PASS)
        name = opening_name(after)
        leads_to = tuple(n for n in openings_through(after) if n != name)
        moves.append(ExplorerMove(m.move, m.value, m.in_book, name, leads_to))
    return ExplorerPosition(
        board.copy(), opening_name(board), True, entry.value, entry.depth, tuple(moves)
    )
