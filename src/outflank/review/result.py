"""The results of a review: the settings it ran with, each move's review,
each player's summary, and the whole game's, with a JSON form to store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

from outflank.board import BLACK, Board, Color, Move
from outflank.review.judging import (
    THRESHOLDS,
    TURNING_LOSS,
    Label,
    ReviewError,
    Source,
    move_accuracy,
    outcome,
)

__all__ = ["FORMAT", "GameReview", "MoveReview", "PlayerSummary", "ReviewSettings"]

#: The version of :meth:`GameReview.to_dict`'s layout.
FORMAT: Final = 1


# ---------------------------------------------------------------- settings
@dataclass(frozen=True)
class ReviewSettings:
    """How hard a review looks.

    ``depth``: plies of the midgame searches, with probable cut-offs of
    ``selective`` standard deviations (0: none); ``move_time``: at most this
    many seconds per searched position (the search then reports the depth
    it reached). ``exact``: positions with at most this many empties are
    always solved exactly; ``exact_time``: seconds more the solver may
    spend going back from there, one position at a time, until a solve
    does not finish in what is left. ``book``: use the opening book.

    The defaults review a 60-move game in 3-6 s on 2 cores
    (docs/benchmarks.md).
    """

    depth: int = 14
    selective: float = 1.5
    move_time: float = 3.0
    exact: int = 20
    exact_time: float = 4.0
    book: bool = True

    def __post_init__(self) -> None:
        def number(name: str, low: float, high: float, integer: bool = False) -> None:
            value = getattr(self, name)
            kinds = (int,) if integer else (int, float)
            if isinstance(value, bool) or not isinstance(value, kinds):
                kind = "an int" if integer else "a number"
                raise ReviewError(f"{name} must be {kind}, not {value!r}")
            if not (low <= value <= high):
                raise ReviewError(f"{name} must be in {low:g}..{high:g}, not {value!r}")

        number("depth", 1, 40, integer=True)
        number("selective", 0, 10)
        number("move_time", 0.01, 3600)
        number("exact", 0, 30, integer=True)
        number("exact_time", 0, 3600)
        if not isinstance(self.book, bool):
            raise ReviewError(f"book must be True or False, not {self.book!r}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready values."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReviewSettings:
        """Settings from :meth:`to_dict` (unknown keys are an error)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ReviewError(f"unknown review setting(s): {', '.join(unknown)}")
        return cls(**dict(data))


@dataclass(frozen=True)
class MoveReview:
    """One move of the game, judged.

    Values are in discs from the mover's view: the final disc difference
    the move leads to (``exact``), or the search's estimate of it.
    ``best_move`` is the move played whenever nothing better was found
    (``loss`` 0); ``pv`` is the best line from the position (it starts with
    ``best_move``) and ``reply`` the expected continuation after the move
    played (empty where the game ends or nothing was searched there).
    ``depth``: plies searched (the empties for an exact value, the book's
    search depth for a book value).
    """

    ply: int  # index of the move in the game's move list (passes count), 0 = first
    color: Color
    move: Move
    empties: int  # empty squares before the move
    value: float
    exact: bool
    best_move: Move
    best_value: float
    best_exact: bool
    loss: float
    label: Label
    source: Source
    depth: int
    book: bool = False  # the move is a book move: it leads to another book position
    forced: bool = False  # the only legal move
    pv: tuple[Move, ...] = ()
    reply: tuple[Move, ...] = ()

    @property
    def number(self) -> int:
        """The move's number as people count it: 1 for the first move."""
        return self.ply + 1

    @property
    def black_value(self) -> float:
        """The played move's value from black's view (for a graph of the game)."""
        return self.value if self.color is BLACK else -self.value

    @property
    def better(self) -> Move | None:
        """The better move, if the one played lost anything."""
        return self.best_move if self.loss > 0 and self.best_move != self.move else None

    @property
    def accuracy(self) -> float:
        """This move's accuracy, 0-100 (:func:`move_accuracy`)."""
        return move_accuracy(self.loss)

    @property
    def is_mistake(self) -> bool:
        """A mistake or a blunder."""
        return self.label in (Label.MISTAKE, Label.BLUNDER)

    @property
    def turning_point(self) -> bool:
        """Did this move change the result the values foresee (a win no longer a
        win, a draw now a loss), losing at least :data:`TURNING_LOSS` discs?"""
        if self.loss < TURNING_LOSS:
            return False
        return outcome(self.value) < outcome(self.best_value)

    def to_dict(self) -> dict[str, Any]:
        """The review of the move as JSON-ready values."""
        return {
            "ply": self.ply,
            "number": self.number,
            "color": self.color.name.lower(),
            "move": str(self.move),
            "empties": self.empties,
            "value": self.value,
            "exact": self.exact,
            "best_move": str(self.best_move),
            "best_value": self.best_value,
            "best_exact": self.best_exact,
            "loss": self.loss,
            "label": self.label.value,
            "source": self.source.value,
            "depth": self.depth,
            "book": self.book,
            "forced": self.forced,
            "turning_point": self.turning_point,
            "pv": [str(m) for m in self.pv],
            "reply": [str(m) for m in self.reply],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MoveReview:
        """A move review from :meth:`to_dict`."""
        try:
            return cls(
                ply=int(data["ply"]),
                color=Color.parse(str(data["color"])),
                move=Move.from_str(str(data["move"])),
                empties=int(data["empties"]),
                value=float(data["value"]),
                exact=bool(data["exact"]),
                best_move=Move.from_str(str(data["best_move"])),
                best_value=float(data["best_value"]),
                best_exact=bool(data["best_exact"]),
                loss=float(data["loss"]),
                label=Label(data["label"]),
                source=Source(data["source"]),
                depth=int(data["depth"]),
                book=bool(data.get("book", False)),
                forced=bool(data.get("forced", False)),
                pv=tuple(Move.from_str(str(m)) for m in data.get("pv", ())),
                reply=tuple(Move.from_str(str(m)) for m in data.get("reply", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReviewError(f"not a move review: {exc}") from None


@dataclass(frozen=True)
class PlayerSummary:
    """One player's moves in a review: ``moves`` judged (forced moves are
    left out), their mean loss in discs and accuracy 0-100 (``None``
    without any), and how many moves got each label."""

    color: Color
    moves: int
    mean_loss: float | None
    accuracy: float | None
    counts: dict[Label, int]

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready values."""
        return {
            "color": self.color.name.lower(),
            "moves": self.moves,
            "mean_loss": self.mean_loss,
            "accuracy": self.accuracy,
            "counts": {label.value: n for label, n in self.counts.items()},
        }


@dataclass(frozen=True)
class GameReview:
    """A reviewed game: its start position and moves, and one
    :class:`MoveReview` per move played (passes are not judged), in order.
    ``complete`` is false when the review was stopped before the end: then
    some moves have no review yet."""

    start: Board
    game_moves: tuple[Move, ...]
    moves: tuple[MoveReview, ...]
    settings: ReviewSettings = field(default_factory=ReviewSettings)
    elapsed: float = 0.0
    complete: bool = True

    def board(self, ply: int) -> Board:
        """The position before move ``ply`` (0: the start), with its history."""
        if not 0 <= ply <= len(self.game_moves):
            raise ReviewError(f"ply must be in 0..{len(self.game_moves)}, not {ply}")
        board = self.start.copy(stack=False)
        for move in self.game_moves[:ply]:
            board.push(move)
        return board

    def move(self, ply: int) -> MoveReview | None:
        """The review of move ``ply``, if it has one (passes have none)."""
        for m in self.moves:
            if m.ply == ply:
                return m
        return None

    def summary(self, color: Color) -> PlayerSummary:
        """The accuracy and mean loss of one player (see the module doc)."""
        judged = [m for m in self.moves if m.color is color and not m.forced]
        counts = {label: 0 for label in Label}
        for m in self.moves:
            if m.color is color:
                counts[m.label] += 1
        if not judged:
            return PlayerSummary(color, 0, None, None, counts)
        mean_loss = sum(m.loss for m in judged) / len(judged)
        accuracy = sum(m.accuracy for m in judged) / len(judged)
        return PlayerSummary(color, len(judged), round(mean_loss, 2), round(accuracy, 1), counts)

    @property
    def turning_points(self) -> list[MoveReview]:
        """The moves that changed the foreseen result (see :attr:`MoveReview.turning_point`)."""
        return [m for m in self.moves if m.turning_point]

    @property
    def mistakes(self) -> list[MoveReview]:
        """The mistakes and blunders, in order."""
        return [m for m in self.moves if m.is_mistake]

    @property
    def exact_from(self) -> int | None:
        """The first ply from which every reviewed move's values are exact."""
        first = None
        for m in reversed(self.moves):
            if not (m.exact and m.best_exact):
                break
            first = m.ply
        return first

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-ready values (:meth:`from_dict` reads it back);
        ``summary`` and ``turning_points`` are included for readers."""
        return {
            "format": FORMAT,
            "start": self.start.obf(),
            "rules": self.start.rules.value,
            "game_moves": [str(m) for m in self.game_moves],
            "complete": self.complete,
            "elapsed": round(self.elapsed, 3),
            "settings": self.settings.to_dict(),
            "thresholds": asdict(THRESHOLDS),
            "exact_from": self.exact_from,
            "summary": {c.name.lower(): self.summary(c).to_dict() for c in Color},
            "turning_points": [m.ply for m in self.turning_points],
            "moves": [m.to_dict() for m in self.moves],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameReview:
        """A review from :meth:`to_dict`'s values; raises :class:`ReviewError`
        for anything else."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ReviewError(f"not a game review of format {FORMAT}")
        try:
            start = Board.from_obf(str(data["start"]), rules=str(data.get("rules", "othello")))
            game_moves = tuple(Move.from_str(str(m)) for m in data["game_moves"])
            moves = tuple(MoveReview.from_dict(m) for m in data["moves"])
            settings = ReviewSettings.from_dict(data.get("settings", {}))
            return cls(
                start=start,
                game_moves=game_moves,
                moves=moves,
                settings=settings,
                elapsed=float(data.get("elapsed", 0.0)),
                complete=bool(data.get("complete", True)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ReviewError):
                raise
            raise ReviewError(f"not a game review: {exc}") from None
