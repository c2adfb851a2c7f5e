"""How many threads one search uses: the default, the checks, sharing the cores.

A search of the C core may run on several threads (Young Brothers Wait, see
docs/engine.md). By default an :class:`~outflank.engine.Engine` uses every
core this process may run on; where several searches run at once (the web
app's games, a tournament's workers) the cores are shared out between them
with :func:`share` so that the machine is not oversubscribed.
"""

from __future__ import annotations

import os
from typing import Any, Final

from outflank import _core
from outflank.errors import OutflankError

#: The most threads one search may use.
MAX_THREADS: Final[int] = _core.MAX_THREADS


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """Threads per search by default: every available core (at most MAX_THREADS)."""
    return min(available_cores(), MAX_THREADS)


def check_threads(value: Any) -> int:
    """``value`` as a number of threads; raises OutflankError unless an int in 1..MAX_THREADS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_THREADS:
        raise OutflankError(f"threads must be an int in 1..{MAX_THREADS}, not {value!r}")
    return value


def share(parallel: int, cores: int | None = None) -> int:
    """Threads for each of ``parallel`` searches running at once, so that
    together they use the cores (``available_cores()`` unless given) and no
    more: at least 1 each."""
    total = available_cores() if cores is None else cores
    return max(1, min(MAX_THREADS, total // max(1, parallel)))
