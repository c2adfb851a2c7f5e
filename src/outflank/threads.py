"""How many threads one search uses: the default, the checks, sharing the cores.

A search of the C core may run on several threads (Young Brothers Wait, see
docs/engine.md). By default an :class:`~outflank.engine.Engine` uses every
core this process may run on; where several searches run at once (the web
app's games, a tournament's workers) the cores are shared out between them
with :func:`share` so that the machine is not oversubscribed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any, Final

from outflank import _core
from outflank.errors import OutflankError

#: The most threads one search may use.
MAX_THREADS: Final[int] = _core.MAX_THREADS

_default: int | None = None  # set_default_threads


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """Threads per search of an engine made without ``threads=``: the count
    given to :func:`set_default_threads`, else every available core (at most
    MAX_THREADS)."""
    return _default if _default is not None else min(available_cores(), MAX_THREADS)


def set_default_threads(threads: int | None) -> None:
    """Make ``threads`` the default of every engine made from now on in this
    process without ``threads=`` (a command's ``--threads``); ``None``: back
    to every available core."""
    global _default
    _default = None if threads is None else check_threads(threads)


def check_threads(value: Any) -> int:
    """``value`` as a number of threads; raises OutflankError unless an int in 1..MAX_THREADS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_THREADS:
        raise OutflankError(f"threads must be an int in 1..{MAX_THREADS}, not {value!r}")
    return value


def thread_counts(text: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]``: thread counts to compare (the benchmarks'
    ``--threads``); raises OutflankError unless each is in 1..MAX_THREADS."""
    try:
        counts = [check_threads(int(part)) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts:
        raise OutflankError(f"thread counts are 1..{MAX_THREADS} like 1,2, not {text!r}")
    return counts


@contextlib.contextmanager
def threads_by_default(threads: int | None) -> Iterator[None]:
    """:func:`set_default_threads` for a block only (``None``: no change)."""
    global _default
    old = _default
    if threads is not None:
        set_default_threads(threads)
    try:
        yield
    finally:
        _default = old


def share(parallel: int, cores: int | None = None) -> int:
    """Threads for each of ``parallel`` searches running at once, so that
    together they use the cores (``available_cores()`` unless given) and no
    more: at least 1 each."""
    total = available_cores() if cores is None else cores
    return max(1, min(MAX_THREADS, total // max(1, parallel)))
