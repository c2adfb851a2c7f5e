"""Request bodies of the web API (pydantic), validated before any game is touched."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MAX_LOOKAHEAD, MIN_LEVEL, MIN_LOOKAHEAD

__all__ = [
    "AI_KINDS",
    "MoveRequest",
    "NewGame",
    "PlayerSpec",
    "PlayerUpdate",
    "SeatRequest",
]

AI_KINDS = ("level", "greedy", "minimax4", "heuristic", "regions")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # "5" and true are not levels


class PlayerSpec(_Strict):
    """Who sits in a seat: a human, or an AI with its settings.

    ``ai`` names the AI: ``level`` (1-20), ``greedy`` and ``minimax4`` (seed 000),
    ``heuristic`` (seed 003) or ``regions`` (seed 004, with biases for corners,
    edges and X-squares in -50..+50 and a look-ahead of 2-10 plies).
    """

    kind: Literal["human", "ai"] = "human"
    ai: Literal["level", "greedy", "minimax4", "heuristic", "regions"] | None = None
    level: int | None = Field(default=None, ge=MIN_LEVEL, le=MAX_LEVEL)
    corner: int = Field(default=30, ge=-50, le=50)
    edge: int = Field(default=5, ge=-50, le=50)
    x_square: int = Field(default=-20, ge=-50, le=50)
    lookahead: int = Field(default=4, ge=MIN_LOOKAHEAD, le=MAX_LOOKAHEAD)

    @model_validator(mode="after")
    def _check(self) -> PlayerSpec:
        if self.kind == "human":
            settings = sorted(self.model_fields_set - {"kind"})
            if settings:
                raise ValueError(f"a human player takes no AI settings ({', '.join(settings)})")
            return self
        if self.ai is None:
            raise ValueError("an AI player needs 'ai': one of " + ", ".join(AI_KINDS))
        if self.ai == "level" and self.level is None:
            self.level = DEFAULT_LEVEL
        return self


class NewGame(_Strict):
    """``POST /api/games``: the two players, the rules and an optional start position."""

    black: PlayerSpec = Field(default_factory=PlayerSpec)
    white: PlayerSpec = Field(
        default_factory=lambda: PlayerSpec(kind="ai", ai="level", level=DEFAULT_LEVEL)
    )
    rules: Literal["othello", "reversi"] = "othello"
    start: str | None = Field(
        default=None,
        max_length=400,
        description="start position: an OBF line or a transcript from the initial position",
    )


class SeatRequest(_Strict):
    """A request that needs the secret of a seat (undo, redo)."""

    seat: str = Field(min_length=1, max_length=100)


class MoveRequest(SeatRequest):
    """``POST /api/games/{id}/moves``: a move (``"d3"``, ``"pass"``) for the held seat."""

    move: str = Field(min_length=1, max_length=16)


class PlayerUpdate(SeatRequest):
    """``PATCH /api/games/{id}/players/{color}``: new settings for an AI seat mid-game."""

    player: PlayerSpec
