"""Puzzles: the Puzzles page, solvers (one a browser), puzzles and answers.

The puzzles a game's review found at its mistakes are listed by
``GET /api/games/{id}/puzzles`` and answered like the shipped ones.

A browser asks once for a solver (``POST /api/puzzles/solvers``) and keeps
its secret; ``GET /api/puzzles/next?solver=...`` gives a puzzle near its
rating, ``POST /api/puzzles/{id}/answer`` judges a move and updates the
solver's rating and streak in the database
(:class:`~outflank.web.puzzles.PuzzleService`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from outflank.web.answers import GamePuzzles, PuzzleSolver, PuzzleVerdict, PuzzleView
from outflank.web.puzzles import PuzzleService
from outflank.web.routes.common import Service, answers
from outflank.web.routes.site import STATIC

__all__ = ["AnswerRequest", "router"]

router = APIRouter()
_PAGE: dict[str, Any] = {"methods": ["GET", "HEAD"], "include_in_schema": False}


async def puzzle_service(connection: HTTPConnection) -> PuzzleService:
    """The app's puzzle service (``app.state.puzzles``)."""
    return connection.app.state.puzzles


Puzzles = Annotated[PuzzleService, Depends(puzzle_service)]
SolverSecret = Annotated[str, Query(min_length=1, max_length=64, description="the solver's secret")]


class AnswerRequest(BaseModel):
    """A solver's answer to a puzzle: its secret and a move such as ``d3``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    solver: str = Field(min_length=1, max_length=64)
    move: str = Field(min_length=1, max_length=16)


@router.api_route("/puzzles", **_PAGE)
def puzzles_page() -> FileResponse:
    """The Puzzles page."""
    return FileResponse(STATIC / "puzzles.html", headers={"Cache-Control": "no-cache"})


@router.api_route("/puzzles/{puzzle_id}", **_PAGE)
def puzzle_page(puzzle_id: str) -> FileResponse:
    """A puzzle's own address: the Puzzles page, which reads the id from it."""
    return puzzles_page()


def _with_links(responses: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """A new solver's answer, with OpenAPI links to what it can do next (a
    schema-driven tester follows them)."""
    solver = "$response.body#/solver"
    responses[201]["links"] = {
        "get_puzzle_solver": {"operationId": "get_puzzle_solver",
                              "parameters": {"solver": solver}},
        "next_puzzle": {"operationId": "next_puzzle", "parameters": {"solver": solver}},
        "answer_puzzle": {"operationId": "answer_puzzle", "requestBody": {"solver": solver}},
    }  # fmt: skip
    return responses


@router.post(
    "/api/puzzles/solvers",
    status_code=201,
    operation_id="new_puzzle_solver",
    response_model=None,
    responses=_with_links(answers(PuzzleSolver, status=201)),
)
def new_solver(puzzles: Puzzles) -> dict[str, Any]:
    """A new solver for this browser (rating 1500): keep its secret."""
    return puzzles.new_solver()


@router.get(
    "/api/puzzles/solvers/{solver}",
    operation_id="get_puzzle_solver",
    response_model=None,
    responses=answers(PuzzleSolver, 404),
)
def solver(solver: str, puzzles: Puzzles) -> dict[str, Any]:
    """A solver's Glicko-2 rating, streak and counts."""
    return puzzles.solver(solver)


@router.get(
    "/api/puzzles/next",
    operation_id="next_puzzle",
    response_model=None,
    responses=answers(PuzzleView, 404),
)
def next_puzzle(solver: SolverSecret, puzzles: Puzzles) -> dict[str, Any]:
    """A puzzle near the solver's rating that it has not seen (no solution in it)."""
    return puzzles.next(solver)


@router.get(
    "/api/games/{game_id}/puzzles",
    operation_id="game_puzzles",
    response_model=None,
    responses=answers(GamePuzzles, 404),
)
def game_puzzles(game_id: str, service: Service, puzzles: Puzzles) -> dict[str, Any]:
    """The puzzles that the game's review found at its mistakes and blunders
    (positions where one move alone kept the best result), in the game's
    order; none before a finished review. Each is answered like any other."""
    service.game(game_id)  # 404 for an unknown game
    return puzzles.game_puzzles(game_id)


@router.get(
    "/api/puzzles/{puzzle_id}",
    operation_id="get_puzzle",
    response_model=None,
    responses=answers(PuzzleView, 404),
)
def puzzle(puzzle_id: str, puzzles: Puzzles) -> dict[str, Any]:
    """One puzzle by id (no solution in it)."""
    return puzzles.puzzle(puzzle_id)


@router.post(
    "/api/puzzles/{puzzle_id}/answer",
    operation_id="answer_puzzle",
    response_model=None,
    responses=answers(PuzzleVerdict, 400, 404, 413),
)
def answer(puzzle_id: str, body: AnswerRequest, puzzles: Puzzles) -> dict[str, Any]:
    """Judge a move: right or wrong, the refutation, the solution line and
    the solver's new rating (only its first answer to a puzzle is rated)."""
    return puzzles.answer(puzzle_id, body.solver, body.move)
