"""The engine's level scale, importable without the native engine: its
bounds and the opponent the games start with. What each level plays is
:data:`outflank.engine.LEVELS`."""

from __future__ import annotations

from typing import Final

MIN_LEVEL: Final = 1
MAX_LEVEL: Final = 20
#: The opponent the GUI, the web app, the TUI and ``play`` start with:
#: the default evaluator one ply deep.
DEFAULT_LEVEL: Final = 6
