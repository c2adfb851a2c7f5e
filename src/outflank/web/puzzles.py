"""The web app's Puzzles mode: solvers kept in the database, puzzles served
without their answers, answers judged and the solver's rating updated.

A browser becomes a solver by asking for one (:meth:`PuzzleService.new_solver`)
and keeps the secret it gets; every later request names it. Only a
solver's first answer to a puzzle counts for its rating and streak (a second
one is judged, and said to be unrated). Errors are :class:`GameError`\\ s
with their HTTP status (404 unknown puzzle or solver, 400 an illegal
move), raised before anything is written.

Besides the shipped set, the puzzles that games' reviews found at their
mistakes (``review_puzzles``, :mod:`outflank.web.reviews`) are served by
their ids, and listed by game (:meth:`PuzzleService.game_puzzles`).
"""

from __future__ import annotations

import json
import random
import re
import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from outflank.board import BLACK, Board, Move
from outflank.errors import OutflankError
from outflank.puzzles import Puzzle, PuzzleSet
from outflank.puzzles.rating import Rating
from outflank.puzzles.trainer import Solver, answer, next_puzzle
from outflank.web.service import GameError
from outflank.web.storage import PuzzleSolverRow, ReviewPuzzleRow, Storage

__all__ = ["PuzzleService"]

QUOTE = 40  # characters of a client's input an error message may quote
_PUZZLE_ID = re.compile("[0-9a-f]{1,16}")


def _cells(board: Board) -> str:
    return board.obf().split()[0]


def _color(board: Board) -> str:
    return "black" if board.turn is BLACK else "white"


def frames(start: Board, moves: list[Move]) -> list[dict[str, str]]:
    """Each move of a line with who plays it and the cells after it."""
    board = start.copy(stack=False)
    out = []
    for move in moves:
        color = _color(board)
        board.push(move)
        out.append({"move": str(move), "color": color, "cells": _cells(board)})
    return out


def _solver_view(solver: Solver) -> dict[str, Any]:
    return {
        "rating": round(solver.rating.rating),
        "rd": round(solver.rating.rd),
        "streak": solver.streak,
        "best_streak": solver.best_streak,
        "solved": solver.solved,
        "failed": solver.failed,
    }


def _to_solver(row: PuzzleSolverRow) -> Solver:
    return Solver(
        rating=Rating(row.rating, row.rd, row.volatility),
        streak=row.streak,
        best_streak=row.best_streak,
        solved=row.solved,
        failed=row.failed,
        seen=tuple(row.seen or ()),
    )


def _store(row: PuzzleSolverRow, solver: Solver) -> None:
    row.rating, row.rd = solver.rating.rating, solver.rating.rd
    row.volatility = solver.rating.volatility
    row.streak, row.best_streak = solver.streak, solver.best_streak
    row.solved, row.failed = solver.solved, solver.failed
    row.seen = list(solver.seen)
    row.updated = datetime.now(UTC)


class PuzzleService:
    """Puzzles for browsers: ``storage`` keeps the solvers, ``puzzles`` is
    the set served (the shipped one by default, read at its first use)."""

    def __init__(self, storage: Storage, puzzles: PuzzleSet | None = None) -> None:
        self.storage = storage
        self._puzzles = puzzles
        self._rng = random.Random()

    @property
    def puzzles(self) -> PuzzleSet:
        if self._puzzles is None:
            self._puzzles = PuzzleSet.default()
        return self._puzzles

    # ------------------------------------------------------------ lookups
    def _puzzle(self, puzzle_id: str) -> tuple[Puzzle, str | None]:
        """A puzzle by id, and the game whose review found it (``None``: shipped)."""
        if puzzle_id in self.puzzles:
            return self.puzzles.get(puzzle_id), None
        row = None
        if _PUZZLE_ID.fullmatch(puzzle_id):
            with self.storage.session() as session:
                row = session.execute(
                    select(ReviewPuzzleRow.game_id, ReviewPuzzleRow.data)
                    .where(ReviewPuzzleRow.puzzle_id == puzzle_id)
                    .limit(1)
                ).first()
        if row is None:
            raise GameError(404, f"unknown puzzle {puzzle_id[:QUOTE]!r}")
        return Puzzle.from_dict(json.loads(row.data)), row.game_id

    def _row(self, session: Any, secret: str, lock: bool = False) -> PuzzleSolverRow:
        query = select(PuzzleSolverRow).where(PuzzleSolverRow.secret == secret[:64])
        if lock:
            query = query.with_for_update()
        row = session.execute(query).scalar_one_or_none() if len(secret) <= 64 else None
        if row is None:
            raise GameError(404, "unknown solver: ask for a new one (POST /api/puzzles/solvers)")
        return row

    # ------------------------------------------------------------ views
    def view(self, puzzle: Puzzle, game: str | None = None) -> dict[str, Any]:
        """A puzzle as a browser sees it before answering: no solution (a
        game's puzzle with that ``game`` and where in it it was found)."""
        board = puzzle.board
        found = {"game": game, "source": puzzle.source} if game is not None else {}
        return {
            "id": puzzle.id,
            "obf": board.obf(),
            "cells": _cells(board),
            "turn": _color(board),
            "legal": [str(m) for m in board.legal_moves],
            "rating": puzzle.rating,
            "grade": puzzle.grade,
            "grade_name": puzzle.grade_name,
            "goal": puzzle.result,
            "empties": puzzle.empties,
            **found,
        }

    # ------------------------------------------------------------ requests
    def new_solver(self) -> dict[str, Any]:
        """A new solver (1500, RD 350): its secret and state."""
        secret = secrets.token_urlsafe(18)
        solver = Solver()
        with self.storage.writing(), self.storage.session() as session:
            row = PuzzleSolverRow(secret=secret)
            _store(row, solver)
            session.add(row)
            session.commit()
        return {"solver": secret, **_solver_view(solver)}

    def solver(self, secret: str) -> dict[str, Any]:
        """A solver's rating, streak and counts."""
        with self.storage.session() as session:
            return _solver_view(_to_solver(self._row(session, secret)))

    def puzzle(self, puzzle_id: str) -> dict[str, Any]:
        """One puzzle by id, without its solution."""
        return self.view(*self._puzzle(puzzle_id))

    def game_puzzles(self, game_id: str) -> dict[str, Any]:
        """The puzzles that the game's review found at its mistakes, in the
        order of the game (none before a review). The caller checks that the
        game exists."""
        with self.storage.session() as session:
            rows = session.execute(
                select(ReviewPuzzleRow.data)
                .where(ReviewPuzzleRow.game_id == game_id)
                .order_by(ReviewPuzzleRow.ply)
            ).all()
        found = [Puzzle.from_dict(json.loads(row.data)) for row in rows]
        return {"game": game_id, "puzzles": [self.view(p, game_id) for p in found]}

    def next(self, secret: str) -> dict[str, Any]:
        """A puzzle near the solver's rating that it has not seen."""
        with self.storage.session() as session:
            solver = _to_solver(self._row(session, secret))
        return self.view(next_puzzle(self.puzzles, solver, self._rng))

    def answer(self, puzzle_id: str, secret: str, move: str) -> dict[str, Any]:
        """Judge ``move`` for the solver: right or wrong, the move's exact
        score and the solution's, the refutation of a wrong move and the
        solution line (each move with the cells after it), the solver's new
        state. Only the first answer to a puzzle is rated."""
        puzzle, _ = self._puzzle(puzzle_id)
        with self.storage.writing(), self.storage.session() as session:
            row = self._row(session, secret, lock=True)
            before = _to_solver(row)
            try:
                after, verdict = answer(before, puzzle, move)
            except OutflankError as exc:
                raise GameError(400, f"{exc}"[:200]) from None
            rated = puzzle.id not in before.seen
            if rated:
                _store(row, after)
                session.commit()
            else:
                after = before
        start = puzzle.board
        played = [verdict.move, *verdict.refutation] if not verdict.correct else verdict.line
        return {
            "id": puzzle.id,
            "move": str(verdict.move),
            "correct": verdict.correct,
            "rated": rated,
            "score": verdict.score,
            "best": verdict.best,
            "solution": str(puzzle.solution),
            "scores": puzzle.to_dict()["scores"],
            "played": frames(start, played),
            "line": frames(start, verdict.line),
            "change": round(verdict.change) if rated else 0,
            "solver": _solver_view(after),
        }
