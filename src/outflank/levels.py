"""The engine's level scale, importable without the native engine: its
bounds and the opponent the games start with. What each level plays is
:data:`outflank.engine.LEVELS`."""

from __future__ import annotations

from typing import Final

from outflank.errors import OutflankError

MIN_LEVEL: Final = 1
MAX_LEVEL: Final = 20
#: The opponent the GUI, the web app, the TUI and ``play`` start with:
#: the default evaluator one ply deep.
DEFAULT_LEVEL: Final = 6
#: Seed 004's look-ahead of the regions AI, in plies (web slider, terminal
#: ``set lookahead``, the desktop window's [ and ] keys).
MIN_LOOKAHEAD: Final = 2
MAX_LOOKAHEAD: Final = 10


def check_level(level: int, what: str = "level") -> int:
    """``level`` if it is on the scale, else an :class:`OutflankError` naming
    ``what`` (the option or setting it came from)."""
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise OutflankError(f"{what} must be in {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level
