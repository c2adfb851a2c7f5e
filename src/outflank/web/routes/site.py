"""The page (``/`` and ``/game/{id}``, one HTML file) and ``/api/info``.

The page's static files are mounted at ``/static`` by
:func:`outflank.web.app.create_app` (see :data:`STATIC`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from outflank import __version__
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from outflank.web.ai import OPPONENTS, engine_available
from outflank.web.answers import Info
from outflank.web.routes.common import Service, answers

__all__ = ["STATIC", "router"]

STATIC = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()
_PAGE: dict[str, Any] = {"methods": ["GET", "HEAD"], "include_in_schema": False}


@router.api_route("/", **_PAGE)
def index() -> FileResponse:
    """The single page of the front end."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


@router.api_route("/game/{game_id}", **_PAGE)
def game_page(game_id: str) -> FileResponse:
    """A game's own address: the same page, which reads the game id from it."""
    return index()


@router.get("/api/info", operation_id="info", response_model=None, responses=answers(Info))
def info(service: Service) -> dict[str, Any]:
    """Server version, the opponents it offers and the engine's level scale."""
    return {
        "version": __version__,
        "engine": engine_available(),
        "opponents": [{"ai": key, "name": name} for key, name in OPPONENTS.items()],
        "levels": {"min": MIN_LEVEL, "max": MAX_LEVEL, "default": DEFAULT_LEVEL},
        "threads": {"per_search": service.thinker.threads, "searches": service.scheduler.workers},
    }
