"""Opening book and opening names.

* :class:`Book`: positions searched deeply once, backed up by negamax and
  probed in microseconds (``Book.default()`` is the book shipped with the
  package); the engine asks it before it searches.
* :mod:`outflank.book.build`: the resumable, parallel builder behind
  ``outflank book build``.
* :func:`opening_name`: the named opening a game is in (Tiger, Rose, ...);
  :func:`opening_line` the name with its moves, :data:`OPENINGS` the table
  (:mod:`outflank.book.names`).
"""

from outflank.book.names import OPENINGS, opening_line, opening_name
from outflank.book.store import Book, BookEntry, BookError, BookMove, merge

__all__ = [
    "OPENINGS",
    "Book",
    "BookEntry",
    "BookError",
    "BookMove",
    "merge",
    "opening_line",
    "opening_name",
]
