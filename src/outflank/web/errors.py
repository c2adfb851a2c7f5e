"""How the web app answers an error: a status and ``{"error": "<one clear sentence>"}``.

:data:`HANDLERS` are the app's exception handlers; the helpers here are shared
with the middleware and the WebSocket, which answer errors in the same words.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from outflank.web.service import GameError
from outflank.web.storage import DatabaseError

__all__ = ["HANDLERS", "QUOTE", "database_message", "error", "quote"]

log = logging.getLogger("outflank.web")

QUOTE = 32  # characters of a client's input an error message may quote
_UNPARSED = "There was an error parsing the body"  # FastAPI's words for a parser failure


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The answer to any error a client meets: ``{"error": message}`` with ``status``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def quote(value: Any) -> str:
    """A client's input for an error message: its repr, cut to a short prefix."""
    text = repr(value)
    return text if len(text) <= QUOTE else text[: QUOTE - 1] + "…"


def database_message(exc: Exception) -> str:
    """What a client is told when the database fails (503)."""
    if isinstance(exc, OperationalError):
        # a read-only file, a lock held too long, a full disk: the database's own words
        reason = str(exc.orig).splitlines()[0] if exc.orig else "unavailable"
        return f"the database cannot be used now ({reason}); the game is unchanged"
    return str(exc)


def describe_validation(exc: RequestValidationError) -> str:
    """One sentence for what FastAPI found wrong in a request."""
    parts = []
    for err in exc.errors():
        if tuple(err.get("loc", ())) == ("body",) and err.get("type") in (
            "model_attributes_type",
            "dict_type",
        ):
            return "the request body must be a JSON object"
        where = ".".join(
            str(p)[:QUOTE] for p in err.get("loc", ()) if p != "body"
        )  # a field name is the client's input: keep it short
        if err.get("type") == "json_invalid":
            return "malformed JSON in the request body"
        parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
    return "bad request: " + "; ".join(parts)


async def _game_error(_request: Request, exc: GameError) -> JSONResponse:
    headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return error(exc.status, exc.message, headers)


async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
    return error(422, describe_validation(exc))


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if exc.status_code == 400 and exc.detail == _UNPARSED:
        # what FastAPI says when the JSON parser itself fails (nested too deep)
        return error(422, "malformed JSON in the request body")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:  # RFC 9110: the methods the resource takes, all of them
        headers["Allow"] = ", ".join(_allowed(request))
    return error(exc.status_code, str(exc.detail), headers or None)


def _allowed(request: Request) -> list[str]:
    """The methods the resource at the request's path takes: those the API's
    schema documents for the most specific path template that matches it
    (``/api/puzzles/solvers`` rather than ``/api/puzzles/{puzzle_id}``), else
    those of any route that matches (the page). Starlette names only the
    methods of the first route that matches the path."""
    segments = request.url.path.split("/")
    best: tuple[int, list[str]] | None = None
    for template, operations in request.app.openapi().get("paths", {}).items():
        parts = template.split("/")
        if len(parts) != len(segments) or not all(
            part == segment or (part.startswith("{") and part.endswith("}"))
            for part, segment in zip(parts, segments, strict=True)
        ):
            continue
        literal = sum(not part.startswith("{") for part in parts)
        if best is None or literal > best[0]:
            best = (literal, sorted(method.upper() for method in operations))
    if best is not None:
        return best[1]
    routes = request.app.router.routes
    return [
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    ]


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


async def _database_error(_request: Request, exc: Exception) -> JSONResponse:
    log.error("database error: %s", exc)
    return error(503, database_message(exc))


async def _server_error(_request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error", exc_info=exc)
    return error(500, "internal error: the game is unchanged")


#: The app's exception handlers (``FastAPI(exception_handlers=HANDLERS)``).
HANDLERS: dict[Any, Any] = {
    GameError: _game_error,
    RequestValidationError: _validation_error,
    StarletteHTTPException: _http_error,
    DatabaseError: _database_error,
    OperationalError: _database_error,
    Exception: _server_error,
}
