"""Opening book and opening names.

* :class:`Book`: positions searched deeply once, backed up by negamax and
  probed in microseconds (``Book.default()`` is the book shipped with the
  package); the engine asks it before it searches.
* :mod:`outflank.book.build`: the resumable, parallel builder behind
  ``outflank book build``.
* :func:`opening_name`: the named opening a game is in (Tiger, Rose, ...);
  :func:`opening_line` the name with its moves, :data:`OPENINGS` the table
  (:mod:`outflank.book.names`).
* :func:`explore`: the opening explorer, a position's book moves with their
  values and the openings they lead to (:mod:`outflank.book.explorer`).
"""

from outflank.book.explorer import ExplorerMove, ExplorerPosition, explore
from outflank.book.names import OPENINGS, opening_line, opening_name, openings_through
from outflank.book.store import Book, BookEntry, BookError, BookMove, merge

__all__ = [
    "OPENINGS",
    "Book",
    "BookEntry",
    "BookError",
    "BookMove",
    "ExplorerMove",
    "ExplorerPosition",
    "explore",
    "merge",
    "opening_line",
    "opening_name",
    "openings_through",
]
