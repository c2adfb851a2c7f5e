"""Puzzles ("find the move"): positions with exactly one move that keeps
the best exact result, checked by the endgame solver.

::

    from outflank.puzzles import PuzzleSet

    puzzles = PuzzleSet.default()            # the set shipped with the package
    puzzle = puzzles.near(1500)              # one rated near 1500
    print(puzzle.board, puzzle.solution, puzzle.score, puzzle.grade_name)

See docs/puzzles.md: what makes a puzzle, its grade, the generator and the
rating of players.
"""

from outflank.puzzles.find import (
    Analyst,
    exact_line,
    exact_scores,
    examine,
    mistake_positions,
    puzzles_from_review,
    verify,
)
from outflank.puzzles.puzzle import (
    DEFAULT_MARGIN,
    GRADES,
    Puzzle,
    PuzzleError,
    PuzzleSet,
    estimated_rating,
    grade_of,
    uniqueness_problem,
)

__all__ = [
    "DEFAULT_MARGIN",
    "GRADES",
    "Analyst",
    "Puzzle",
    "PuzzleError",
    "PuzzleSet",
    "estimated_rating",
    "exact_line",
    "exact_scores",
    "examine",
    "grade_of",
    "mistake_positions",
    "puzzles_from_review",
    "uniqueness_problem",
    "verify",
]
