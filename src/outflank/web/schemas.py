"""Request bodies of the web API (pydantic), validated before any game is touched."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

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

    @model_validator(mode="before")
    @classmethod
    def _integral(cls, data: object) -> object:
        """A number with no fraction (30.0) is the integer it is, as JSON Schema
        counts it; the strict check still refuses "30", true and 30.5."""
        if not isinstance(data, dict):
            return data
        return {
            key: int(value) if isinstance(value, float) and value.is_integer() else value
            for key, value in data.items()
        }

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The schema of what :meth:`_check` accepts: a human (``kind`` alone,
        or nothing), or an AI (``kind`` "ai" and ``ai``, with its settings)."""
        schema = handler.resolve_ref_schema(handler(core_schema))
        settings = {k: v for k, v in schema.pop("properties").items() if k not in ("kind", "ai")}
        human = {
            "title": "Human",
            "type": "object",
            "properties": {"kind": {"const": "human", "default": "human"}},
            "additionalProperties": False,
        }
        ai = {
            "title": "AI",
            "type": "object",
            "properties": {"kind": {"const": "ai"}, "ai": {"enum": list(AI_KINDS)}, **settings},
            "required": ["kind", "ai"],
            "additionalProperties": False,
        }
        for key in ("type", "additionalProperties", "required"):
            schema.pop(key, None)
        schema["oneOf"] = [human, ai]
        return schema

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
