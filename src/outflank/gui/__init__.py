"""The pygame-ce desktop game: ``outflank gui``.

Modules, one job each:

- :mod:`~outflank.gui.settings`: INI file + command-line settings.
- :mod:`~outflank.gui.ai`: the computer opponent (an :class:`outflank.engine.Engine`)
  and the worker thread it thinks in.
- :mod:`~outflank.gui.session`: the game being played (board, who is human,
  undo, passes), with no pygame in it.
- :mod:`~outflank.gui.layout`: where the board and panel go at a window size,
  and which square a pixel is on.
- :mod:`~outflank.gui.animation`: the coin-turn flip of the discs.
- :mod:`~outflank.gui.render`: drawing a :class:`~outflank.gui.render.Scene`.
- :mod:`~outflank.gui.app`: the event loop tying them together.
"""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
