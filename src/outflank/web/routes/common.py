"""What the routers share: the game service of the app, JSON already encoded,
and how an endpoint documents its answers in the OpenAPI schema.

Every endpoint states what it answers with :func:`answers`: its success body
(a model of :mod:`outflank.web.answers`) and each error status it can give,
whose body is :class:`~outflank.web.answers.ErrorBody` (``{"error": "..."}``)
and whose meaning is :data:`ERRORS`'. 422 and 503 are documented on every
endpoint. The schema-driven tests hold every answer to what is documented.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.requests import HTTPConnection

from outflank.web.answers import ErrorBody
from outflank.web.reviews import Reviews as ReviewJobs
from outflank.web.service import GameService

__all__ = [
    "ERRORS",
    "Reviews",
    "Service",
    "answers",
    "changing",
    "errors_as_json",
    "game_reviews",
    "game_service",
    "json_text",
]


async def game_service(connection: HTTPConnection) -> GameService:
    """The app's game service (``app.state.service``), for a request or a WebSocket."""
    return connection.app.state.service


#: An endpoint's parameter annotated ``Service`` receives the app's game service.
Service = Annotated[GameService, Depends(game_service)]

#: What each error status means, the same on every endpoint that can give it.
ERRORS: dict[int, str] = {
    400: "Well formed but refused: an illegal move or pass, a start position that "
    "cannot be read, a ply outside the game, an unknown log order, a Learn tree too "
    "big to show, an answer to a puzzle that is no move, an explorer line that is not "
    "legal.",
    403: "The seat secret holds no seat in this game: spectators watch, they do not play.",
    404: "What the path names does not exist: a game, a seat colour, a puzzle, a solver.",
    409: "Not now: not your turn, the game is over, nothing to undo or redo, a move "
    "of the other player, the game changed meanwhile, a review of a game without "
    "moves, or no review running to stop.",
    413: "The request body is over 64 KiB.",
    422: "The request does not match this schema: a missing, unknown or wrong field or "
    "parameter, or a body that is not a JSON object.",
    429: "Too many games of AI against AI playing for this client at once.",
    503: "The database cannot be used now, the server is too busy with analyses or reviews "
    "(Retry-After: seconds to wait), or this build lacks a part (the engine).",
}

#: The statuses every endpoint can give.
_ALWAYS = (422, 503)


def answers(
    model: type[BaseModel] | None, *errors: int, status: int = 200
) -> dict[int | str, dict[str, Any]]:
    """An endpoint's ``responses`` for its OpenAPI schema: the body ``model``
    of its ``status`` answer (``None``: as the route's response class says)
    and its error statuses (keys of :data:`ERRORS`; 422 and 503 are added)."""
    documented: dict[int | str, dict[str, Any]] = {}
    if model is not None:
        documented[status] = {"model": model}
    for code in sorted({*errors, *_ALWAYS}):
        documented[code] = {"model": ErrorBody, "description": ERRORS[code]}
    documented[503]["headers"] = {
        "Retry-After": {
            "description": "seconds to wait before trying again (a busy server)",
            "schema": {"type": "integer"},
        }
    }
    return documented


def errors_as_json(document: dict[str, Any]) -> dict[str, Any]:
    """Document every error of an OpenAPI ``document`` as JSON, whatever the
    media type of its endpoint's success (FastAPI writes a plain-text
    endpoint's error bodies as text/plain). Changes ``document``; returns it."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for status, answer in operation.get("responses", {}).items():
                content = answer.get("content")
                if status[:1] in ("4", "5") and content:
                    body = next(iter(content.values())).get("schema", {})
                    answer["content"] = {"application/json": {"schema": body}}
    return document


async def game_reviews(connection: HTTPConnection) -> ReviewJobs:
    """The app's reviews (``app.state.reviews``)."""
    return connection.app.state.reviews


#: An endpoint's parameter annotated ``Reviews`` receives the app's reviews.
Reviews = Annotated[ReviewJobs, Depends(game_reviews)]


T = TypeVar("T")


async def changing(service: GameService, change: Callable[..., T], *args: Any) -> T:
    """Run ``change(*args)`` (a move, an undo, a new game...) for a request:
    on the event loop itself when this process alone writes the database
    (SQLite: the change and its commit take a fraction of a millisecond,
    less than handing it to a thread and back), else on a worker thread
    (PostgreSQL: each change waits for the database server)."""
    if service.inline:
        return change(*args)
    return await run_in_threadpool(change, *args)


def json_text(text: str, status: int = 200) -> Response:
    """A JSON answer already encoded (the service encodes a state once per version)."""
    return Response(text, status_code=status, media_type="application/json")
