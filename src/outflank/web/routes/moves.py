"""Moves: play one for a seat, take moves back, replay them."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from outflank.web.answers import GameState
from outflank.web.routes.common import Service, answers, changing, json_text
from outflank.web.schemas import MoveRequest, SeatRequest

__all__ = ["router"]

router = APIRouter()


@router.post(
    "/api/games/{game_id}/moves",
    operation_id="play",
    responses=answers(GameState, 400, 403, 404, 409, 413),
)
async def play(game_id: str, body: MoveRequest, service: Service) -> Response:
    """Play a move for the seat whose secret is given."""
    return json_text(await changing(service, service.play, game_id, body.seat, body.move))


@router.post(
    "/api/games/{game_id}/undo",
    operation_id="undo",
    responses=answers(GameState, 403, 404, 409, 413),
)
async def undo(game_id: str, body: SeatRequest, service: Service) -> Response:
    """Take back moves until the seat holder is to move again."""
    return json_text(await changing(service, service.undo, game_id, body.seat))


@router.post(
    "/api/games/{game_id}/redo",
    operation_id="redo",
    responses=answers(GameState, 403, 404, 409, 413),
)
async def redo(game_id: str, body: SeatRequest, service: Service) -> Response:
    """Replay taken-back moves up to the seat holder's next turn."""
    return json_text(await changing(service, service.redo, game_id, body.seat))
