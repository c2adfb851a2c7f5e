"""Opening book and opening names.

* :class:`Book`: positions searched deeply once, backed up by negamax and
  probed in microseconds (``Book.default()`` is the book shipped with the
  package); the engine asks it before it searches.
* :mod:`outflank.book.build`: the resumable, parallel builder behind
  ``outflank book build``.
* :func:`opening_name`: the named opening a game is in (Tiger, Rose, ...).
"""

from outflank.book.store import Book, BookEntry, BookError, BookMove, merge

__all__ = ["Book", "BookEntry", "BookError", "BookMove", "merge"]
