"""The opening explorer: a position's book moves, values and opening names."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from outflank.board import Board, Rules
from outflank.book.explorer import explore
from outflank.errors import OutflankError
from outflank.web.answers import ExplorerAnswer
from outflank.web.live import color_name
from outflank.web.routes.common import answers
from outflank.web.service import GameError

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/api/explorer",
    operation_id="explorer",
    response_model=None,
    responses=answers(ExplorerAnswer, 400),
)
def explorer(
    moves: str = Query("", max_length=400, description="a transcript such as f5d6c3"),
    start: str | None = Query(None, max_length=100, description="the start position (OBF)"),
) -> dict[str, Any]:
    """The explorer at the position after ``moves`` (a transcript, passes
    allowed) from ``start`` (an OBF line; default the start position): the
    opening the line is in, the book's value and moves (best first), each
    with its value, whether it leads to another book position, the opening
    after it, the named openings it leads to and the squares it flips; and
    the position (``board``: 64 cells, ``turn``). 400 for an illegal line."""
    try:
        root = Board.from_obf(start, Rules.OTHELLO) if start else Board()
        board = Board.from_transcript(moves, start=root)
    except OutflankError as exc:
        raise GameError(400, str(exc)) from None
    data = explore(board).to_dict()
    flips = {str(m): board.flips(m) for m in board.legal_moves if not m.is_pass}
    for entry in data["moves"]:
        entry["flips"] = flips.get(entry["move"], [])
    over = board.is_game_over()
    data["board"] = "".join(
        "-" if (piece := board.piece_at(sq)) is None else piece.letter for sq in range(64)
    )
    data["turn"] = None if over else color_name(board)
    return data
