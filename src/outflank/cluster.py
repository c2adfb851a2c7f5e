"""Ray, for the jobs that can spread over a cluster (`--backend ray` of
tournaments, the opening-book builder and the evaluation data pipeline)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from outflank.errors import OutflankError
from outflank.interrupt import POLL_SECONDS, Stop

__all__ = ["ray_cancel", "ray_session", "ray_wait"]


def ray_session() -> ModuleType:
    """The ``ray`` module, connected to a cluster (``RAY_ADDRESS``) or a
    local one started for this process if none is connected yet.

    Raises :class:`OutflankError` with the install command when Ray is not
    installed (it is the optional ``cluster`` extra)."""
    try:
        import ray  # type: ignore[import-not-found]
    except ImportError:
        raise OutflankError(
            "the ray backend needs Ray: pip install 'outflank[cluster]' (or use --backend local)"
        ) from None
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, log_to_driver=False)
    return ray


def ray_wait(ray: ModuleType, refs: Iterable[Any], stop: Stop) -> tuple[list[Any], list[Any]]:
    """``ray.wait`` for one of ``refs``, looking at ``stop`` every
    :data:`~outflank.interrupt.POLL_SECONDS`: ``(ready, rest)``, ``ready``
    empty only when a stop was requested (or there was nothing to wait for)."""
    rest = list(refs)
    while rest:
        ready, rest = ray.wait(rest, num_returns=1, timeout=POLL_SECONDS)
        if ready or stop.requested:
            return ready, rest
    return [], rest


def ray_cancel(ray: ModuleType, refs: Iterable[Any]) -> None:
    """Cancel Ray tasks whose work is abandoned (their workers are ended);
    one that has finished meanwhile is left as it is."""
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=True)
