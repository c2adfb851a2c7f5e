"""The bodies of the web API's answers, as its OpenAPI schema documents them.

The endpoints send JSON the service has already encoded (a game's state is
encoded once per version), so these models are not applied to the answers at
run time: they describe them, and the schema-driven tests
(``tests/web/test_api_fuzz.py``) check every answer against them. Each model
forbids keys it does not name, so an answer that grows a field must say so
here. :class:`ErrorBody` is the body of every error.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ErrorBody",
    "Evaluations",
    "GameList",
    "GameState",
    "GameSummary",
    "Hint",
    "Hints",
    "Info",
    "LearnTrace",
    "NewGameAnswer",
    "PlyAnswer",
    "PuzzleFrame",
    "PuzzleSolver",
    "PuzzleVerdict",
    "PuzzleView",
    "SeatPlayer",
]

Color = Literal["black", "white"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(_Answer):
    """The body of every error answer (4xx, 503)."""

    error: str = Field(description="one sentence: what was wrong; nothing was changed")


class SeatPlayer(_Answer):
    """Who plays a colour: the player as it was given, and a name to show."""

    kind: Literal["human", "ai"]
    name: str
    ai: Literal["level", "greedy", "minimax4", "heuristic", "regions"] | None = None
    level: int | None = None
    corner: int | None = None
    edge: int | None = None
    x_square: int | None = None
    lookahead: int | None = None


class PlyAnswer(_Answer):
    """One move of a game, with the squares it flipped (0 = a1 ... 63 = h8)."""

    ply: int = Field(ge=0)
    move: str = Field(description="a square such as d3, or pass")
    color: Color
    by: Literal["human", "ai", "auto", "setup"] = Field(
        description="auto: a forced pass; setup: a move of the start position"
    )
    flips: list[int]
    score: float | None = Field(description="the AI's score of its move (discs)")
    depth: int | None
    seconds: float | None


class Result(_Answer):
    """The final score of a game that is over."""

    black: int
    white: int
    winner: Color | None
    score: str


class Counts(_Answer):
    black: int
    white: int


class GameState(_Answer):
    """A game as every listener sees it (no secrets)."""

    id: str
    version: int = Field(description="grows with every change")
    rules: Literal["othello", "reversi"]
    start: str = Field(description="the start position (OBF)")
    board: str = Field(
        pattern="^[XO-]{64}$", description="64 cells a1..h8: X black, O white, - empty"
    )
    turn: Color | None = Field(description="the side to move; null once the game is over")
    legal: list[str]
    counts: Counts
    last: str | None
    cursor: int = Field(ge=0, description="plies played (the undo cursor)")
    redo: int = Field(ge=0, description="plies taken back that redo would replay")
    players: dict[Color, SeatPlayer]
    status: Literal["playing", "over"]
    result: Result | None
    transcript: str
    opening: str | None = Field(description="the named opening the game is in")
    moves: list[PlyAnswer]
    thinking: Color | None = Field(description="the AI colour searching now")
    you: Color | None = Field(
        default=None, description="the colour the given seat secret holds (GET only)"
    )


class NewGameAnswer(_Answer):
    """A new game and its seats' secrets (keep them: they are the right to play)."""

    game: GameState
    seats: dict[Color, str]


class GameSummary(_Answer):
    """A game in the list of recent games."""

    id: str
    rules: Literal["othello", "reversi"]
    status: Literal["playing", "over"]
    result: str
    plies: int
    updated: str = Field(description="when it last changed (ISO 8601)")
    black: str
    white: str


class GameList(_Answer):
    games: list[GameSummary]


class Hint(_Answer):
    """One legal move and its score from the mover's view (discs)."""

    move: str
    score: float | None
    exact: bool = False
    book: bool = False


class Hints(_Answer):
    turn: Color
    moves: list[Hint] = Field(description="best first")


class Evaluations(_Answer):
    depth: int
    values: list[float] = Field(description="a score per position, black's view (discs)")


class LearnTrace(_Answer):
    """The teaching alpha-beta search of a position (:mod:`outflank.classic`)."""

    algorithm: str
    depth: int
    player: Literal["X", "O"]
    value: float | str = Field(description="a number, or 'Infinity' / '-Infinity'")
    best_move: str | None
    nodes: int
    cutoffs: int
    order: str | None
    tree: dict[str, Any] = Field(description="the nested tree of nodes searched and pruned")
    log_entries: int


class Opponent(_Answer):
    ai: str
    name: str


class Levels(_Answer):
    min: int
    max: int
    default: int


class Threads(_Answer):
    per_search: int
    searches: int


class Info(_Answer):
    """What the server offers."""

    version: str
    engine: bool
    opponents: list[Opponent]
    levels: Levels
    threads: Threads


# ---------------------------------------------------------------- puzzles
class PuzzleSolver(_Answer):
    """A browser's puzzle solving: its Glicko-2 rating and deviation, streaks
    and counts; ``solver`` (the secret to keep) in the answer that makes one."""

    solver: str | None = Field(default=None, description="the new solver's secret: keep it")
    rating: int
    rd: int = Field(description="the rating's deviation (350 for a new solver)")
    streak: int = Field(description="puzzles solved in a row, up to now")
    best_streak: int
    solved: int
    failed: int


class PuzzleView(_Answer):
    """A puzzle as it is set: the position and what to find, not the answer."""

    id: str
    obf: str
    cells: str = Field(description="64 cells a1..h8: X black, O white, - empty")
    turn: Color
    legal: list[str]
    rating: int
    grade: int = Field(ge=1, le=5)
    grade_name: str
    goal: Literal["win", "draw"] = Field(description="what the one right move keeps")
    empties: int


class PuzzleFrame(_Answer):
    """One move of a line: who plays it and the cells after it."""

    move: str
    color: Color
    cells: str


class PuzzleVerdict(_Answer):
    """The judgement of an answer: right or wrong, the exact scores (final
    disc differences, the mover's view), what follows the move played (a
    wrong move's refutation), the solution line, the solver after it."""

    id: str
    move: str
    correct: bool
    rated: bool = Field(description="false for a second answer to the same puzzle")
    score: int
    best: int
    solution: str
    scores: dict[str, int]
    played: list[PuzzleFrame]
    line: list[PuzzleFrame]
    change: int = Field(description="rating points won or lost")
    solver: PuzzleSolver
