"""Analysis of a game's positions: hints, evaluations and Learn mode's trace."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from outflank.web.answers import Evaluations, Hints, LearnTrace
from outflank.web.routes.common import Service, answers

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/api/games/{game_id}/hints",
    operation_id="hints",
    response_model=None,
    responses=answers(Hints, 400, 404, 409),
)
def hints(
    game_id: str,
    service: Service,
    ply: int | None = Query(None, ge=0),
    depth: int | None = Query(None, ge=1, le=30),
) -> dict[str, Any]:
    """Every legal move's score (side-to-move view, discs), best first."""
    return service.hints(game_id, ply, depth)


@router.get(
    "/api/games/{game_id}/evaluations",
    operation_id="evaluations",
    response_model=None,
    responses=answers(Evaluations, 404),
)
def evaluations(game_id: str, service: Service) -> dict[str, Any]:
    """A score from black's view (discs) for each position of the game."""
    return service.evaluations(game_id)


@router.get(
    "/api/games/{game_id}/learn",
    operation_id="learn",
    responses=answers(LearnTrace, 400, 404, 409),
)
def learn(
    game_id: str,
    service: Service,
    depth: int = Query(2, ge=1, le=4),
    ply: int | None = Query(None, ge=0),
    order: str = Query("update-first", max_length=40),
) -> Response:
    """The teaching alpha-beta trace of the position: tree, log, cut-offs.

    ``order``: the log order, ``update-first`` (seed 002) or ``test-first`` (AIMA 5.7).
    """
    return JSONResponse(service.learn(game_id, depth, ply, order))  # big: no re-encoding
