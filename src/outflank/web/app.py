"""The FastAPI application: REST API, a WebSocket per game, and the static page.

``create_app(db_url)`` builds an app on a database (a SQLite path or any
SQLAlchemy URL) from the routers of :mod:`outflank.web.routes`, one a
resource. Every error a client can cause is answered with a 4xx and a JSON
body ``{"error": "<one clear sentence>"}`` (:mod:`outflank.web.errors`); the
game is left unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.staticfiles import StaticFiles

from outflank import __version__
from outflank.review import ReviewSettings
from outflank.web import errors
from outflank.web.collector import QuietCollector
from outflank.web.middleware import BodyLimit, CountPeople
from outflank.web.puzzles import PuzzleService
from outflank.web.reviews import REVIEW_TIMEOUT, Reviews
from outflank.web.routes import analysis, explorer, games, moves, puzzles, review, site, socket
from outflank.web.routes.common import errors_as_json
from outflank.web.service import GameService
from outflank.web.storage import Storage

__all__ = ["create_app"]

log = logging.getLogger("outflank.web")

#: The routers of the API, in the order they are tried (the page's come first).
ROUTERS = (
    games.router,
    moves.router,
    analysis.router,
    review.router,
    explorer.router,
    puzzles.router,
    socket.router,
)


def create_app(
    db_url: str = "outflank.db",
    *,
    ai_workers: int = 2,
    ai_delay: float = 0.4,
    time_cap: float = 10.0,
    analysts: int = 2,
    analysis_limit: int = 8,
    analysis_timeout: float = 30.0,
    ai_games_per_client: int = 3,
    threads: int | None = None,
    quiet_gc: bool = False,
    reviews: int = 1,
    review_limit: int = 4,
    review_timeout: float = REVIEW_TIMEOUT,
    review_settings: ReviewSettings | Mapping[str, Any] | None = None,
) -> FastAPI:
    """Build the web app on a database (SQLite path or SQLAlchemy URL).

    ``ai_workers`` threads search AI moves, one move at a time and people's
    games first; ``ai_delay`` spaces the moves of two AIs playing each other,
    and a client may have ``ai_games_per_client`` such games playing at once;
    ``time_cap`` bounds any single search. ``analysts`` threads answer hints,
    evaluations and Learn mode, at most ``analysis_limit`` at once (then 503)
    and each within ``analysis_timeout`` seconds (else cancelled, 503).
    ``threads`` is how many threads each search uses (default: the cores
    shared out between the ``ai_workers`` searches that may run at once).
    ``reviews`` game reviews run at once (each on every core), at most
    ``review_limit`` waiting or running (then 503), each stopped after
    ``review_timeout`` seconds; ``review_settings`` are their
    :class:`~outflank.review.ReviewSettings` (or its fields in a dict)
    (:mod:`outflank.web.reviews`).
    ``quiet_gc``: keep the garbage collector's passes short while serving
    (:class:`outflank.web.collector.QuietCollector`; it acts on the whole
    process, so ``outflank serve`` asks for it and embedders choose).
    """
    threads = _threads_per_search(ai_workers, threads)
    storage = Storage(db_url)
    service = GameService(
        storage,
        workers=ai_workers,
        analysts=analysts,
        ai_delay=ai_delay,
        time_cap=time_cap,
        analysis_limit=analysis_limit,
        analysis_timeout=analysis_timeout,
        ai_games_per_client=ai_games_per_client,
        threads=threads,
    )
    app = FastAPI(
        title="outflank",
        version=__version__,
        lifespan=_lifespan,
        exception_handlers=errors.HANDLERS,
    )
    app.state.service = service
    if isinstance(review_settings, Mapping):
        review_settings = ReviewSettings.from_dict(review_settings)
    app.state.reviews = Reviews(
        service,
        workers=reviews,
        limit=review_limit,
        timeout=review_timeout,
        settings=review_settings,
    )
    app.state.storage = storage
    app.state.puzzles = PuzzleService(storage)
    app.state.quiet_gc = quiet_gc
    app.add_middleware(BodyLimit)
    app.add_middleware(CountPeople, people=service.people)
    app.include_router(site.router)
    app.mount("/static", StaticFiles(directory=site.STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    app.openapi = _schema(app)  # type: ignore[method-assign]
    return app


def _schema(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """The app's OpenAPI document, built once, every error body as JSON."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = errors_as_json(build())
        return app.openapi_schema

    return openapi


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start the service (and resume unfinished games) before serving; close it after."""
    service: GameService = app.state.service
    service.attach(asyncio.get_running_loop())
    await run_in_threadpool(service.start)
    resumed = service.resume()
    if resumed:
        log.info("resumed %d unfinished games", resumed)
    collector = QuietCollector() if app.state.quiet_gc else None
    if collector is not None:
        collector.start()
    yield
    if collector is not None:
        collector.stop()
    await run_in_threadpool(app.state.reviews.close)
    await run_in_threadpool(service.close)
    app.state.storage.close()


def _threads_per_search(ai_workers: int, threads: int | None) -> int:
    """The threads of each search: as given (checked), else the cores shared
    out between the searches that may run at once (1 without the engine)."""
    try:
        from outflank.threads import check_threads, share
    except ImportError:  # no native core in this build: no search either
        return threads or 1
    return share(ai_workers) if threads is None else check_threads(threads)
