"""A solver's puzzle session: rating, streak, what was seen; one answer at a time.

The terminal (``outflank puzzle``) and the web app's Puzzles mode share it:
:func:`next_puzzle` picks a puzzle near the solver's rating that the solver
has not seen, :func:`answer` judges a move and returns the solver's new
state with the verdict. Nothing changes on a bad answer (a move that is
not legal in the puzzle raises).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from outflank.board import Move
from outflank.errors import IllegalMoveError, InvalidMoveError
from outflank.puzzles.puzzle import Puzzle, PuzzleError, PuzzleSet
from outflank.puzzles.rating import Rating, after_puzzle

__all__ = ["Solver", "Verdict", "answer", "load_solver", "next_puzzle", "save_solver", "skip"]

#: How many recently seen puzzle ids a solver's state keeps (not offered again).
SEEN_LIMIT: Final = 2000


@dataclass(frozen=True)
class Solver:
    """A solver's state: Glicko-2 rating, current and best streak of puzzles
    solved in a row, puzzles solved and failed, ids seen (newest last)."""

    rating: Rating = field(default_factory=Rating)
    streak: int = 0
    best_streak: int = 0
    solved: int = 0
    failed: int = 0
    seen: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "rating": self.rating.rating,
            "rd": self.rating.rd,
            "volatility": self.rating.volatility,
            "streak": self.streak,
            "best_streak": self.best_streak,
            "solved": self.solved,
            "failed": self.failed,
            "seen": list(self.seen),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Solver:
        return cls(
            rating=Rating(float(data["rating"]), float(data["rd"]), float(data["volatility"])),
            streak=int(data["streak"]),
            best_streak=int(data["best_streak"]),
            solved=int(data["solved"]),
            failed=int(data["failed"]),
            seen=tuple(str(s) for s in data.get("seen", ())),
        )


@dataclass(frozen=True)
class Verdict:
    """The judgement of one answer: ``correct``; the move's exact score and
    the solution's; ``refutation``, the line after a wrong move (the
    opponent's answer first, empty when correct); ``line``, the solution
    line; the rating before and after."""

    puzzle: Puzzle
    move: Move
    correct: bool
    score: int
    best: int
    refutation: list[Move]
    line: list[Move]
    before: Rating
    after: Rating

    @property
    def change(self) -> float:
        """Rating points won (or lost, negative)."""
        return self.after.rating - self.before.rating


def next_puzzle(puzzles: PuzzleSet, solver: Solver, rng: random.Random | None = None) -> Puzzle:
    """A puzzle near the solver's rating, not seen before while others remain."""
    return puzzles.near(solver.rating.rating, exclude=solver.seen, rng=rng)


def answer(solver: Solver, puzzle: Puzzle, move: Move | str) -> tuple[Solver, Verdict]:
    """Judge ``move`` as the answer to ``puzzle``: the solver's new state and
    the verdict. A move that is malformed or not legal in the puzzle raises
    (:class:`~outflank.errors.InvalidMoveError`,
    :class:`~outflank.errors.IllegalMoveError`) and nothing changes."""
    if isinstance(move, str):
        move = Move.from_str(move.strip().lower())
    elif not isinstance(move, Move):
        raise InvalidMoveError(f"not a move: {move!r}"[:80])
    if not puzzle.board.is_legal(move) or move.is_pass:
        legal = " ".join(str(m) for m in puzzle.board.legal_moves)
        raise IllegalMoveError(f"{move} is not a legal move here (legal: {legal})")
    correct = puzzle.is_solution(move)
    rating = after_puzzle(solver.rating, puzzle.rating, correct)
    streak = solver.streak + 1 if correct else 0
    state = replace(
        solver,
        rating=rating,
        streak=streak,
        best_streak=max(solver.best_streak, streak),
        solved=solver.solved + correct,
        failed=solver.failed + (not correct),
        seen=_seen(solver, puzzle),
    )
    verdict = Verdict(
        puzzle=puzzle,
        move=move,
        correct=correct,
        score=puzzle.scores[str(move)],
        best=puzzle.score,
        refutation=[] if correct else puzzle.refutation(move),
        line=list(puzzle.line),
        before=solver.rating,
        after=rating,
    )
    return state, verdict


def skip(solver: Solver, puzzle: Puzzle) -> Solver:
    """The solver's state after passing a puzzle by: seen, nothing else changes."""
    return replace(solver, seen=_seen(solver, puzzle))


def _seen(solver: Solver, puzzle: Puzzle) -> tuple[str, ...]:
    """The seen ids with ``puzzle``'s last, at most :data:`SEEN_LIMIT` of them."""
    kept = tuple(s for s in solver.seen if s != puzzle.id)
    return (*kept[-(SEEN_LIMIT - 1) :], puzzle.id)


def load_solver(path: str | Path) -> Solver:
    """A solver saved by :func:`save_solver`; :class:`PuzzleError` if the
    file is not one (OS errors, such as a missing file, propagate)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        solver = Solver.from_dict(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise PuzzleError(f"{path}: not a puzzle profile (a solver saved as JSON)") from None
    if (
        not (0 < solver.rating.rd <= 350 and 0 < solver.rating.volatility < 1)
        or min(solver.streak, solver.best_streak, solver.solved, solver.failed) < 0
    ):
        raise PuzzleError(f"{path}: not a puzzle profile (impossible values)")
    return solver


def save_solver(solver: Solver, path: str | Path) -> None:
    """Write a solver as JSON (written whole, then renamed into place)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(solver.to_dict()) + "\n", encoding="utf-8")
    tmp.replace(path)
