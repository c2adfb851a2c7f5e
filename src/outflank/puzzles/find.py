"""Finding puzzles: a position's full exact analysis, and the checks on it.

:func:`examine` turns a position into a :class:`~outflank.puzzles.Puzzle` if
it is one (every legal move solved exactly by the endgame solver, one best
move keeping a win or a draw, every other move a worse result and at least
``margin`` discs lower), with its solution line, the refutation of each
wrong move and its difficulty. :func:`verify` checks a stored puzzle again
by a new full exact analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from outflank.board import PASS, Board, Color, Move, Rules
from outflank.engine import Engine
from outflank.puzzles.puzzle import (
    DEFAULT_MARGIN,
    DEPTH_LIMIT,
    Puzzle,
    PuzzleError,
    estimated_rating,
    uniqueness_problem,
)

__all__ = [
    "Analyst",
    "exact_line",
    "exact_scores",
    "examine",
    "mistake_positions",
    "puzzles_from_review",
    "verify",
]

#: No puzzle is looked for in positions with more empties than this (an
#: exact analysis of every move grows about threefold with each empty).
MAX_EMPTIES: Final = 24
_NO_LIMIT: Final = 1e9  # seconds: an exact analysis is never cut short
#: The search depth whose view of the moves decides which wrong moves tempt.
TEMPTING_DEPTH: Final = 2


@dataclass
class Analyst:
    """The two engines a puzzle needs: ``exact``, the endgame solver, and
    ``shallow``, fixed-depth searches with the ``default`` evaluator (no
    book, no exact endgame, no probable cut-offs) that measure difficulty.
    ``threads=1`` (the default) makes the measures the same in any run."""

    exact: Engine
    shallow: Engine

    @classmethod
    def make(cls, threads: int = 1, tt_mb: int = 64) -> Analyst:
        return cls(
            exact=Engine(threads=threads, tt_mb=tt_mb, endgame=64),
            shallow=Engine("default", threads=threads, tt_mb=16, endgame=0),
        )


def exact_scores(board: Board, engine: Engine) -> dict[str, int]:
    """Every legal move's exact final disc difference (side to move's
    view), by the solver with no time limit."""
    if board.empties > MAX_EMPTIES:
        raise PuzzleError(f"{board.empties} empties: exact analyses stop at {MAX_EMPTIES}")
    analysis = engine.analyze(board, time=_NO_LIMIT)
    if not all(m.exact for m in analysis):
        raise PuzzleError("the exact analysis was cut short")
    return {str(m.move): int(m.score) for m in analysis}


def exact_line(board: Board, engine: Engine) -> list[Move]:
    """A best line from ``board`` to the end of the game, passes included,
    each move the solver's: the final margin is the position's exact score."""
    board = board.copy(stack=False)
    moves: list[Move] = []
    while not board.is_game_over():
        if board.must_pass():
            moves.append(board.push(PASS))
            continue
        result = engine.solve(board)
        # the solver's principal variation, as far as it is legal, then again
        for move in result.pv or [result.best_move]:
            if board.is_game_over() or not board.is_legal(move):
                break
            moves.append(board.push(move))
    return moves


def _point_depth(board: Board, solution: Move, engine: Engine) -> int:
    """The shallowest depth from which a search chooses ``solution`` at
    every depth up to its last (at most :data:`DEPTH_LIMIT`, and short of the
    end of the game); one beyond the last if it never settles on it."""
    last = max(1, min(DEPTH_LIMIT, board.empties - 1))
    chosen: dict[int, Move] = {}
    engine.clear()
    result = engine.search(
        board, depth=last, on_info=lambda info: chosen.__setitem__(info.depth, info.pv[0])
    )
    chosen[result.depth] = result.best_move
    point = last + 1
    for depth in sorted(chosen, reverse=True):
        if chosen[depth] != solution:
            break
        point = depth
    return point


def _tempting(board: Board, solution: Move, engine: Engine) -> int:
    """Wrong moves that a :data:`TEMPTING_DEPTH`-ply search scores no lower
    than the solution."""
    engine.clear()
    scores = {str(m.move): m.score for m in engine.analyze(board, depth=TEMPTING_DEPTH)}
    best = scores[str(solution)]
    return sum(1 for move, score in scores.items() if move != str(solution) and score >= best)


def examine(
    board: Board,
    analyst: Analyst,
    *,
    margin: int = DEFAULT_MARGIN,
    source: str = "",
) -> Puzzle | None:
    """The puzzle this position makes, or ``None`` if it makes none (the
    side to move must pass, has one move, cannot keep a win or a draw, or
    has more than one good move). Solves every legal move exactly."""
    if board.rules is not Rules.OTHELLO or board.empties > MAX_EMPTIES:
        return None
    moves = board.legal_moves
    if len(moves) < 2 or PASS in moves:
        return None
    board = board.copy(stack=False)
    if analyst.exact.solve(board, wld=True).score < 0:  # lost whatever is played
        return None
    scores = exact_scores(board, analyst.exact)
    if uniqueness_problem(scores, margin) is not None:
        return None
    solution = Move.from_str(max(scores, key=scores.__getitem__))
    line = [solution, *exact_line(_child(board, solution), analyst.exact)]
    refutations = {
        str(move): exact_line(_child(board, move), analyst.exact)
        for move in moves
        if move != solution
    }
    tempting = _tempting(board, solution, analyst.shallow)
    depth = _point_depth(board, solution, analyst.shallow)
    puzzle = Puzzle(
        board=board,
        solution=solution,
        scores=scores,
        line=line,
        refutations=refutations,
        tempting=tempting,
        depth=depth,
        rating=estimated_rating(board.empties, tempting, depth),
        source=source,
    )
    puzzle.check(margin)  # the lines end where the scores say
    return puzzle


def _child(board: Board, move: Move) -> Board:
    """The position after ``move``, without history."""
    child = board.copy(stack=False)
    child.push(move)
    return child.copy(stack=False)


def verify(puzzle: Puzzle, analyst: Analyst, margin: int = DEFAULT_MARGIN) -> None:
    """Check a puzzle by a new full exact analysis: its scores are the
    solver's, its solution is the unique best move by ``margin`` discs, and
    its lines are legal and end with those scores. Raises
    :class:`PuzzleError` naming the first problem."""
    scores = exact_scores(puzzle.board, analyst.exact)
    if scores != puzzle.scores:
        wrong = sorted(m for m in scores if scores[m] != puzzle.scores.get(m))
        raise PuzzleError(
            f"puzzle {puzzle.id}: the solver scores "
            + ", ".join(f"{m} {scores[m]:+d} (stored {puzzle.scores.get(m)})" for m in wrong)
        )
    problem = uniqueness_problem(scores, margin)
    if problem:
        raise PuzzleError(f"puzzle {puzzle.id}: {problem}")
    puzzle.check(margin)


def mistake_positions(
    review: Any,
    *,
    color: Color | None = None,
    exact_only: bool = False,
    max_empties: int = MAX_EMPTIES,
) -> list[Any]:
    """The mistakes and blunders of a game review (an
    :class:`outflank.review.GameReview`) whose positions may be puzzles: of
    ``color`` (or both sides), not forced, at most ``max_empties`` empties
    (and :data:`MAX_EMPTIES`); with ``exact_only``, only those whose values
    the review found exact (there the solver answered, so a full exact
    analysis is quick)."""
    most = min(max_empties, MAX_EMPTIES)
    return [
        m
        for m in review.mistakes
        if (color is None or m.color is color)
        and not m.forced
        and m.empties <= most
        and (not exact_only or (m.exact and m.best_exact))
    ]


def puzzles_from_review(
    review: Any,
    analyst: Analyst | None = None,
    *,
    color: Color | None = None,
    margin: int = DEFAULT_MARGIN,
    exact_only: bool = False,
    max_empties: int = MAX_EMPTIES,
    source: str = "review",
) -> list[Puzzle]:
    """The puzzles a game review's mistakes make: the position before each
    of :func:`mistake_positions` that is a puzzle by a full exact analysis,
    as :func:`examine` finds it. ``review``: an
    :class:`outflank.review.GameReview`; ``source`` starts each puzzle's
    source (then ``, move N (MOVE, a LABEL)``)."""
    analyst = analyst or Analyst.make()
    found = []
    chosen = mistake_positions(review, color=color, exact_only=exact_only, max_empties=max_empties)
    for mistake in chosen:
        where = f"{source}, move {mistake.number} ({mistake.move}, a {mistake.label.value})"
        puzzle = examine(review.board(mistake.ply), analyst, margin=margin, source=where)
        if puzzle is not None:
            found.append(puzzle)
    return found
