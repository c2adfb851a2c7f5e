"""A game's review: start it (or join it), read its progress or result, stop it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from outflank.web.answers import ReviewStatus
from outflank.web.routes.common import Reviews, answers, json_text

__all__ = ["router"]

router = APIRouter()


def _started(responses: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """Start's answers: 202 (a job) and 200 (the stored review), both a
    :class:`ReviewStatus`, with links to reading and stopping the review."""
    responses[200] = {"model": ReviewStatus, "description": "the stored review, at once"}
    game = {"game_id": "$request.path.game_id"}
    responses[202]["links"] = {
        op: {"operationId": op, "parameters": game} for op in ("get_review", "stop_review")
    }
    return responses


@router.post(
    "/api/games/{game_id}/review",
    status_code=202,
    operation_id="start_review",
    response_model=None,
    responses=_started(answers(ReviewStatus, 404, 409, status=202)),
)
async def start_review(game_id: str, reviews: Reviews) -> Response:
    """Review the game as it stands (its moves up to the cursor): 200 with the
    stored review if it has one of these moves, else 202 with the progress of
    the background job (started now, or already running). Progress and the
    end come as ``review`` events on the game's WebSocket. 409 for a game
    without moves; 503 with ``Retry-After`` when too many reviews run."""
    status, text = await run_in_threadpool(reviews.start, game_id)
    return json_text(text, status)


@router.get(
    "/api/games/{game_id}/review",
    operation_id="get_review",
    response_model=None,
    responses=answers(ReviewStatus, 404),
)
async def get_review(game_id: str, reviews: Reviews) -> Response:
    """The game's review: ``status`` ``running`` (``done`` of ``total`` moves so
    far), ``done`` (stored; ``current``: it covers the game as it stands),
    ``stopped`` or ``failed`` (with the ``reason`` and the partial
    results), or ``none``; ``review.moves`` holds each reviewed move."""
    return json_text(await run_in_threadpool(reviews.status, game_id))


@router.delete(
    "/api/games/{game_id}/review",
    operation_id="stop_review",
    response_model=None,
    responses=answers(ReviewStatus, 404, 409),
)
async def stop_review(game_id: str, reviews: Reviews) -> Response:
    """Stop the game's running review (409 if none runs); its partial results stay."""
    return json_text(await run_in_threadpool(reviews.cancel, game_id))
