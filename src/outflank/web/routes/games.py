"""Games: make one, list them, read one (or wait for its next version), set up
an AI seat, and export a game as a transcript or a GGF record."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import PlainTextResponse, Response

from outflank.web.answers import GameList, GameState, NewGameAnswer
from outflank.web.routes.common import Service, answers, changing, json_text
from outflank.web.schemas import NewGame, PlayerUpdate
from outflank.web.service import GameService

__all__ = ["router"]

router = APIRouter()


def _with_links(responses: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """The new game's answer, with OpenAPI links to what can be done with the
    game next (a schema-driven tester follows them: make a game, then play,
    undo, ask for hints... on it)."""
    game = {"game_id": "$response.body#/game/id"}
    seat = {"seat": "$response.body#/seats/black"}
    links: dict[str, Any] = {
        "get_game": {"operationId": "get_game", "parameters": {**game, **seat}},
        "transcript": {"operationId": "transcript", "parameters": game},
        "ggf": {"operationId": "ggf", "parameters": game},
        "hints": {"operationId": "hints", "parameters": game},
        "evaluations": {"operationId": "evaluations", "parameters": game},
        "learn": {"operationId": "learn", "parameters": game},
        "start_review": {"operationId": "start_review", "parameters": game},
        "get_review": {"operationId": "get_review", "parameters": game},
        "game_puzzles": {"operationId": "game_puzzles", "parameters": game},
    }
    for operation in ("play", "undo", "redo", "update_player"):
        links[operation] = {"operationId": operation, "parameters": game, "requestBody": seat}
    responses[201]["links"] = links
    return responses


@router.post(
    "/api/games",
    status_code=201,
    operation_id="create_game",
    responses=_with_links(answers(NewGameAnswer, 400, 413, 429, status=201)),
)
async def create_game(spec: NewGame, request: Request, service: Service) -> Response:
    """Start a game. The answer holds the seats' secrets: keep them, share one."""
    client = request.client.host if request.client else None
    return json_text(await changing(service, service.create, spec, client), 201)


@router.get(
    "/api/games", operation_id="list_games", response_model=None, responses=answers(GameList)
)
def list_games(
    service: Service,
    limit: int = Query(20, ge=1, le=200),
    offset: int = Query(0, ge=0, le=10**9),
) -> dict[str, Any]:
    """Recently played games, newest first; ``offset`` pages back."""
    return {"games": service.list_games(limit, offset)}


@router.get("/api/games/{game_id}", operation_id="get_game", responses=answers(GameState, 404))
async def get_game(
    game_id: str,
    service: Service,
    seat: str | None = None,
    since: int | None = Query(None, ge=0),
    wait: float = Query(0, ge=0, le=60),
) -> Response:
    """A game's state; with ``since`` and ``wait``, waits for a newer version (REST
    fallback of the WebSocket: long polling)."""
    if since is not None and wait > 0:
        await _wait_for_version(service, game_id, since, wait)
    held = service.cached_holder(game_id, seat)  # no thread for a cached game
    return json_text(held[0] if held else await run_in_threadpool(service.get, game_id, seat))


async def _wait_for_version(service: GameService, game_id: str, since: int, wait: float) -> None:
    """Return once the game is past version ``since``, or after ``wait`` seconds."""
    sub = service.hub.subscribe(game_id)
    try:
        version = await run_in_threadpool(service.version, game_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while version <= since:
            left = deadline - loop.time()
            if left <= 0:
                break
            try:
                event = await asyncio.wait_for(sub.queue.get(), left)
            except TimeoutError:
                break
            if event.kind == "state" and event.version is not None:
                version = event.version
    finally:
        service.hub.unsubscribe(sub)


@router.patch(
    "/api/games/{game_id}/players/{color}",
    operation_id="update_player",
    responses=answers(GameState, 403, 404, 409, 413),
)
async def update_player(game_id: str, color: str, body: PlayerUpdate, service: Service) -> Response:
    """New settings for an AI seat (level, region biases, look-ahead) mid-game."""
    change = service.update_player
    return json_text(await changing(service, change, game_id, body.seat, color, body.player))


@router.get(
    "/api/games/{game_id}/transcript",
    operation_id="transcript",
    response_class=PlainTextResponse,
    responses=answers(None, 404),
)
def transcript(game_id: str, service: Service) -> Response:
    """The game's moves as a transcript (``f5d6c3...``)."""
    return _inline(service.transcript(game_id), f"{game_id}.txt")


@router.get(
    "/api/games/{game_id}/ggf",
    operation_id="ggf",
    response_class=PlainTextResponse,
    responses=answers(None, 404),
)
def ggf(game_id: str, service: Service) -> Response:
    """The game as a GGF record."""
    return _inline(service.ggf(game_id), f"{game_id}.ggf")


def _inline(text: str, filename: str) -> PlainTextResponse:
    """Plain text that a browser shows, and saves under ``filename``."""
    return PlainTextResponse(
        text, headers={"Content-Disposition": f'inline; filename="{filename}"'}
    )
