"""Ray, for the jobs that can spread over a cluster (`--backend ray` of
tournaments, the opening-book builder and the evaluation data pipeline)."""

from __future__ import annotations

from types import ModuleType

from outflank.errors import OutflankError

__all__ = ["ray_session"]


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
