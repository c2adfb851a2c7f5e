"""A game as the server keeps it in memory: its stored rows, replayed once.

:class:`LiveGame` holds what the ``games``, ``seats`` and ``moves`` rows
hold, the position before every stored ply, and the public state of the
current version, built once and encoded to JSON once however many players,
spectators and long polls ask for it. A change (a move, an undo) is made
on a copy (:meth:`LiveGame.clone`) and written through to the database as
a few small rows (:mod:`outflank.web.store`); a cached game is never
rebuilt from all its rows again.

Plies and positions are tuples of plain values, which the garbage
collector stops tracking: thousands of cached games add almost nothing to
its full passes (each of which stalls every request).
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, NamedTuple

from outflank.board import PASS, Board, Color, Move
from outflank.book.names import LONGEST, named_position
from outflank.web.ai import describe

__all__ = ["COLORS", "LiveGame", "Ply", "Seat", "color_name"]

COLORS = ("black", "white")
_NAMES = {Color.BLACK: "black", Color.WHITE: "white"}
Position = tuple[int, int, int]  # black, white, side to move (Color's value)
_START_OBF = Board().obf()  # a game set up elsewhere has no opening name


@lru_cache(maxsize=65536)
def _named(position: Position) -> str | None:
    """The opening named at this position (cached: each position of a game
    is looked up once, not once per state; replaying a game's first plies
    for every new state took a quarter of the server's CPU under load)."""
    black, white, turn = position
    return named_position(Board(black, white, Color(turn)))


def color_name(board: Board) -> str:
    """``"black"`` or ``"white"``: the side to move."""
    return _NAMES[board.turn]


_ZEROS = int.from_bytes(b"0" * 64, "big")
_CELL = bytes.maketrans(b"\x00\x01\x02", b"-XO")


def _cells(black: int, white: int) -> str:
    """The board as 64 characters, a1 first: ``X`` black, ``O`` white, ``-`` empty."""
    # each side's squares as 64 ASCII digits, square 0 first; added byte by
    # byte (black + 2 * white: 0, 1 or 2, no carry) in one integer sum
    blacks = int.from_bytes(format(black, "064b")[::-1].encode(), "big")
    whites = int.from_bytes(format(white, "064b")[::-1].encode(), "big")
    return (blacks + 2 * whites - 3 * _ZEROS).to_bytes(64, "big").translate(_CELL).decode()


@dataclass
class Seat:
    """Who plays a colour, and the secret that proves a browser holds it."""

    color: str
    secret: str
    player: dict[str, Any]


class Ply(NamedTuple):
    """One stored move: as the database keeps it, plus the squares it flipped."""

    ply: int
    move: str
    color: str
    by: str  # "human", "ai", "auto" (a forced pass) or "setup" (the start's moves)
    flips: tuple[int, ...]
    score: float | None = None
    depth: int | None = None
    seconds: float | None = None

    def public(self) -> dict[str, Any]:
        """The move as the state lists it."""
        return {
            "ply": self.ply,
            "move": self.move,
            "color": self.color,
            "by": self.by,
            "flips": list(self.flips),
            "score": self.score,
            "depth": self.depth,
            "seconds": self.seconds,
        }

    def text(self) -> str:
        """:meth:`public` as JSON."""
        return json.dumps(self.public(), separators=(",", ":"))


@dataclass
class LiveGame:
    """One game: rows and replayed positions. Change only a :meth:`clone`."""

    id: str
    rules: str
    start_obf: str
    created: datetime
    updated: datetime
    cursor: int
    version: int
    status: str
    result: str
    client: str | None
    ai_seats: int
    seats: dict[str, Seat]
    plies: list[Ply] = field(default_factory=list)
    #: the position before each ply, and after the last (len(plies) + 1 of them)
    positions: list[Position] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list, repr=False)  # each ply's JSON
    _head: dict[str, Any] | None = field(default=None, init=False, repr=False)
    _text: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.positions:
            start = Board.from_obf(self.start_obf, self.rules)
            self.positions = [(start.black, start.white, int(start.turn))]

    # ------------------------------------------------------------ building
    @classmethod
    def new(
        cls,
        game_id: str,
        root: Board,
        seats: dict[str, Seat],
        client: str | None = None,
    ) -> LiveGame:
        """A game starting at ``root`` (no moves yet; forced passes are played)."""
        now = datetime.now(UTC)
        ai_seats = sum(seat.player.get("kind") == "ai" for seat in seats.values())
        game = cls(
            id=game_id,
            rules=root.rules.value,
            start_obf=root.obf(),
            created=now,
            updated=now,
            cursor=0,
            version=1,
            status="playing",
            result="*",
            client=client,
            ai_seats=ai_seats,
            seats=seats,
        )
        game.auto_pass()
        game.finish()
        return game

    def replay(self, rows: list[tuple[int, str, str, str, Any, Any, Any]]) -> None:
        """Play the stored move rows ``(ply, move, color, by, score, depth, seconds)``."""
        for ply, move, color, by, score, depth, seconds in rows:
            board = self._tip_board()
            parsed = Move.from_str(move)
            flips = tuple(board.flips(parsed))
            board.push(parsed)
            self._append(Ply(ply, move, color, by, flips, score, depth, seconds), board)
        self._head = self._text = None

    def clone(self) -> LiveGame:
        """A copy to change (readers of this one never see half a change)."""
        return LiveGame(
            id=self.id,
            rules=self.rules,
            start_obf=self.start_obf,
            created=self.created,
            updated=self.updated,
            cursor=self.cursor,
            version=self.version,
            status=self.status,
            result=self.result,
            client=self.client,
            ai_seats=self.ai_seats,
            seats=dict(self.seats),
            plies=list(self.plies),
            positions=list(self.positions),
            _texts=list(self._texts),
        )

    # ------------------------------------------------------------ boards
    def _board(self, position: Position) -> Board:
        black, white, turn = position
        return Board(black, white, Color(turn), self.rules)

    def _tip_board(self) -> Board:
        return self._board(self.positions[-1])

    @property
    def tip(self) -> Board:
        """A board of the position after the last stored ply (the cursor's
        after :meth:`truncate`), with no moves on its stack."""
        return self._tip_board()

    def position(self, cursor: int | None = None) -> Board:
        """The board at ``cursor`` (the game's own by default), no moves on its stack."""
        return self._board(self.positions[self.cursor if cursor is None else cursor])

    def board(self, cursor: int | None = None) -> Board:
        """The board at ``cursor`` (the game's own by default), with the moves
        that led there on its stack (for a transcript or a GGF record)."""
        board = Board.from_obf(self.start_obf, self.rules)
        for ply in self.plies[: self.cursor if cursor is None else cursor]:
            board.push(ply.move)
        return board

    def turn_before(self, ply: int) -> str | None:
        """The side to move before ``ply`` (after the last ply: None if over)."""
        if ply < len(self.plies):
            return self.plies[ply].color
        board = self._tip_board()
        return None if board.is_game_over() else color_name(board)

    def seat_kind(self, color: str) -> str:
        """``"human"`` or ``"ai"``."""
        return str(self.seats[color].player.get("kind"))

    def holder(self, secret: str | None) -> str | None:
        """The colour whose seat the secret opens, or ``None``."""
        if not secret:
            return None
        for seat in self.seats.values():
            if hmac.compare_digest(seat.secret.encode(), secret.encode()):
                return seat.color
        return None

    def ai_to_move(self) -> str | None:
        """The colour of the AI seat to move, if the game is on and an AI is to move."""
        if self.status != "playing":
            return None
        color = self.turn_before(self.cursor)
        return color if color is not None and self.seat_kind(color) == "ai" else None

    # ------------------------------------------------------------ changes
    def changed(self) -> None:
        """A new version: the cached state goes."""
        self.version += 1
        self.updated = datetime.now(UTC)
        self._head = self._text = None

    def _append(self, ply: Ply, after: Board) -> None:
        self.plies.append(ply)
        self._texts.append(ply.text())
        self.positions.append((after.black, after.white, int(after.turn)))

    def truncate(self) -> int | None:
        """Forget the redoable plies beyond the cursor; the first ply dropped (or None)."""
        if len(self.plies) <= self.cursor:
            return None
        del self.plies[self.cursor :]
        del self._texts[self.cursor :]
        del self.positions[self.cursor + 1 :]
        return self.cursor

    def push(
        self,
        move: Move,
        by: str,
        score: float | None = None,
        depth: int | None = None,
        seconds: float | None = None,
    ) -> None:
        """Play ``move`` at the cursor, then the forced passes after it. Raises
        IllegalMoveError, game unchanged, for an illegal move. Call
        :meth:`truncate` first if there are redoable plies."""
        if len(self.plies) != self.cursor:
            raise RuntimeError("truncate() before push()")
        board = self._tip_board()
        color = color_name(board)
        flips = tuple(board.flips(move)) if not move.is_pass else ()
        board.push(move)  # raises IllegalMoveError, board unchanged
        self._append(Ply(self.cursor, str(move), color, by, flips, score, depth, seconds), board)
        self.cursor += 1
        self.auto_pass()
        self.finish()

    def auto_pass(self) -> None:
        """Play the forced passes at the end (nobody chooses them)."""
        while len(self.plies) == self.cursor:
            board = self._tip_board()
            if not board.must_pass():
                return
            color = color_name(board)
            board.push(PASS)
            self._append(Ply(self.cursor, "pass", color, "auto", ()), board)
            self.cursor += 1

    def finish(self) -> None:
        """Status and result of the position at the cursor."""
        board = self.position()
        self.status = "over" if board.is_game_over() else "playing"
        self.result = board.result()

    # ------------------------------------------------------------ state
    def public(self) -> dict[str, Any]:
        """The public state of this version (no secrets, no ``thinking``)."""
        return {**self._public_head(), "moves": [ply.public() for ply in self.plies]}

    def _public_head(self) -> dict[str, Any]:
        """The public state but its moves (built once per version)."""
        if self._head is not None:
            return self._head
        board = self.position()
        black, white = board.score()
        over = board.is_game_over()
        last = self.plies[self.cursor - 1].move if self.cursor else None
        outcome = board.outcome()
        self._head = {
            "id": self.id,
            "version": self.version,
            "rules": self.rules,
            "start": self.start_obf,
            "board": _cells(board.black, board.white),
            "turn": None if over else color_name(board),
            "legal": [str(m) for m in board.legal_moves if not m.is_pass],
            "counts": {"black": black, "white": white},
            "last": last,
            "cursor": self.cursor,
            "redo": len(self.plies) - self.cursor,
            "players": {
                color: {**seat.player, "name": describe(seat.player)}
                for color, seat in sorted(self.seats.items())
            },
            "status": "over" if over else "playing",
            "result": None
            if outcome is None
            else {
                "black": outcome.black,
                "white": outcome.white,
                "winner": None if outcome.winner is None else _NAMES[outcome.winner],
                "score": outcome.result(),
            },
            "transcript": "".join(p.move for p in self.plies[: self.cursor] if p.move != "pass"),
            "opening": self.opening(),
        }
        return self._head

    def opening(self) -> str | None:
        """The named opening the game is in at its cursor (as
        :func:`outflank.book.names.opening_name` of its board), or None."""
        if self.start_obf != _START_OBF:
            return None
        name = None
        for position in self.positions[1 : min(self.cursor, LONGEST) + 1]:
            name = _named(position) or name
        return name

    def state(self, thinking: str | None = None) -> dict[str, Any]:
        """The public state with the AI colour searching (a new dict)."""
        return {**self.public(), "thinking": self._thinking(thinking)}

    def _thinking(self, thinking: str | None) -> str | None:
        # a search an undo has made stale (being stopped) is nobody thinking
        return (
            thinking if thinking is not None and self._public_head()["turn"] == thinking else None
        )

    def state_json(self, thinking: str | None = None, **extra: Any) -> str:
        """:meth:`state` as JSON, the bulk of it encoded once per version (each
        ply once for good); ``extra`` keys (``you``) are added."""
        if self._text is None:
            head = json.dumps(self._public_head(), separators=(",", ":"))[:-1]
            self._text = head + ',"moves":[' + ",".join(self._texts) + "]"
        tail = {"thinking": self._thinking(thinking), **extra}
        return self._text + "," + json.dumps(tail, separators=(",", ":"))[1:]
