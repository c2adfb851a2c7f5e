"""What the routers share: the game service of the app, and JSON already encoded."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.responses import Response
from starlette.requests import HTTPConnection

from outflank.web.reviews import Reviews as ReviewJobs
from outflank.web.service import GameService

__all__ = ["Reviews", "Service", "game_reviews", "game_service", "json_text"]


async def game_service(connection: HTTPConnection) -> GameService:
    """The app's game service (``app.state.service``), for a request or a WebSocket."""
    return connection.app.state.service


#: An endpoint's parameter annotated ``Service`` receives the app's game service.
Service = Annotated[GameService, Depends(game_service)]


async def game_reviews(connection: HTTPConnection) -> ReviewJobs:
    """The app's reviews (``app.state.reviews``)."""
    return connection.app.state.reviews


#: An endpoint's parameter annotated ``Reviews`` receives the app's reviews.
Reviews = Annotated[ReviewJobs, Depends(game_reviews)]


def json_text(text: str, status: int = 200) -> Response:
    """A JSON answer already encoded (the service encodes a state once per version)."""
    return Response(text, status_code=status, media_type="application/json")
