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
    "ExplorerAnswer",
    "ExplorerMove",
    "GameList",
    "GamePuzzles",
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
    "ReviewBody",
    "ReviewStatus",
    "ReviewedMove",
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
    upper: bool = Field(
        default=False,
        description="the score is only an upper bound: the move is worse than the best by "
        "more than the analysis window",
    )


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
    game: str | None = Field(
        default=None, description="the game whose review found it at a mistake"
    )
    source: str | None = Field(default=None, description="where in that game")


class GamePuzzles(_Answer):
    """The puzzles a game's review found at its mistakes, in the game's order."""

    game: str
    puzzles: list[PuzzleView]


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


# ---------------------------------------------------------------- reviews
Label = Literal["book", "best", "good", "inaccuracy", "mistake", "blunder"]


class LineStep(_Answer):
    """One move of a line, who plays it and the squares it flips (none for a pass)."""

    move: str
    color: Color
    flips: list[int]


class ReviewedMove(_Answer):
    """One move of the game, judged (values: discs, the mover's view)."""

    ply: int = Field(ge=0, description="the move's index in the game (passes count)")
    number: int = Field(ge=1)
    color: Color
    move: str
    empties: int
    value: float = Field(description="what the move played leads to")
    exact: bool
    best_move: str
    best_value: float
    best_exact: bool
    loss: float = Field(ge=0, description="discs lost against the best move")
    label: Label
    source: Literal["book", "exact", "search"]
    depth: int
    book: bool
    forced: bool = Field(description="the only legal move (not counted in accuracy)")
    turning_point: bool
    pv: list[str] = Field(description="the best line from the position")
    reply: list[str] = Field(description="the expected answer to the move played")
    line: list[LineStep] = Field(description="the best line with its flips, to play forward")


class ReviewSettingsAnswer(_Answer):
    depth: int
    selective: float
    move_time: float
    exact: int
    exact_time: float
    book: bool


class PlayerReview(_Answer):
    """One player's accuracy (0-100) and mean loss (null without a judged move)."""

    color: Color
    moves: int
    mean_loss: float | None
    accuracy: float | None
    counts: dict[Label, int]


class ReviewBody(_Answer):
    """A review: its moves so far; a finished one also has its settings,
    thresholds, each player's summary and the turning points."""

    start: str = Field(description="the start position (OBF)")
    game_moves: list[str] = Field(description="the moves the review covers")
    complete: bool
    moves: list[ReviewedMove]
    format: int | None = None
    rules: Literal["othello", "reversi"] | None = None
    elapsed: float | None = None
    settings: ReviewSettingsAnswer | None = None
    thresholds: dict[str, float] | None = None
    exact_from: int | None = Field(default=None, description="the first ply exact from there on")
    summary: dict[Color, PlayerReview] | None = None
    turning_points: list[int] | None = None
    puzzles: list[str] | None = Field(
        default=None, description="the puzzles found at its mistakes (their ids)"
    )


class ReviewStatus(_Answer):
    """A game's review: running (``done`` of ``total`` moves), done (stored),
    stopped or failed (with the partial results), or none."""

    status: Literal["running", "done", "stopped", "failed", "none"]
    current: bool = Field(description="it covers the game as it stands")
    reason: str | None = Field(description="why it stopped or failed")
    job: int | None = Field(default=None, description="the job (tells its events apart)")
    done: int | None = Field(default=None, ge=0, description="moves reviewed so far")
    total: int | None = Field(default=None, ge=0, description="moves to review")
    review: ReviewBody | None = None


# ---------------------------------------------------------------- explorer
class ExplorerMove(_Answer):
    """A book move: its value (the mover's view), whether it stays in the
    book, the opening it leads to and the named openings further on."""

    move: str
    value: float
    in_book: bool
    opening: str | None
    leads_to: list[str]
    flips: list[int]


class ExplorerAnswer(_Answer):
    """The opening explorer at a position: its opening, the book's value
    and moves (best first; none out of the book)."""

    position: str = Field(description="the position (OBF)")
    moves_played: list[str]
    opening: str | None
    in_book: bool
    value: float | None
    depth: int | None
    moves: list[ExplorerMove]
    board: str = Field(pattern="^[XO-]{64}$")
    turn: Color | None = Field(description="the side to move; null once the game is over")
