"""Game records: GGF (as GGS and NBoard write them) and plain transcripts.

A GGF game is one bracketed list of ``TAG[value]`` fields::

    (;GM[Othello]PC[outflank]DT[2026-11-22 23:10:00 GMT]PB[alice]PW[bob]
      RB[1500]RW[1500]TI[5:00]TY[8]RE[+12.000]
      BO[8 ---------------------------O*------*O--------------------------- *]
      B[f5]W[d6/-1.5/0.8]B[c3]...;)

``BO`` holds the board size, the 64 cells row by row from a1 (``*`` black,
``O`` white, ``-`` empty, rows may be separated by spaces) and the side to
move. Each ``B``/``W`` field is a move, optionally followed by ``/eval/time``;
a pass is ``PA``. ``RE`` is black's final disc difference (``?`` while the
game goes on; a ``:t`` or ``:r`` suffix marks a loss on time or a
resignation / forfeit). A file may hold several games one after another.
GGF knows only Othello's rules; a Reversi game (over as soon as the side to
move cannot move) is marked ``RU[Reversi]``, outflank's own tag (named after
SGF's rule-set tag), which other programs ignore.

>>> board = Board.from_transcript("f5d6c3")
>>> rec = GameRecord.from_board(board, black="alice", white="bob")
>>> parse_ggf(rec.to_ggf()).board() == board
True
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from outflank.board import BLACK, PASS, Board, Color, Move, Rules
from outflank.errors import IllegalMoveError, InvalidBoardError, InvalidMoveError
from outflank.textfile import read_text_file

__all__ = [
    "GameRecord",
    "MoveRecord",
    "load_game",
    "parse_ggf",
    "parse_ggf_games",
    "read_ggf_file",
    "write_ggf_file",
]

#: header tags written first, in this order; others follow in insertion order
_HEADER_ORDER = ("GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TY", "RE")
_TAG = re.compile(r"[A-Z]{1,8}")


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One move of a record, with the optional evaluation and thinking time
    (seconds) that GGF stores as ``B[d3/eval/time]``."""

    move: Move
    eval: float | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        for name in ("eval", "time"):
            value = getattr(self, name)
            if value is not None and not math.isfinite(value):
                raise InvalidBoardError(f"move {name} must be a finite number, not {value!r}")

    def ggf_value(self) -> str:
        """The field value: ``d3``, ``PA``, ``d3/1.5`` or ``d3/1.5/0.2``."""
        text = "PA" if self.move.is_pass else str(self.move)
        if self.time is not None:
            text += "/" + ("" if self.eval is None else _num(self.eval)) + "/" + _num(self.time)
        elif self.eval is not None:
            text += "/" + _num(self.eval)
        return text


def _num(value: float) -> str:
    """Shortest text that reads back as the same float (``12`` for ``12.0``)."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _board_field(board: Board) -> str:
    cells = []
    for row in range(8):
        line = []
        for col in range(8):
            piece = board.piece_at(row * 8 + col)
            line.append("-" if piece is None else ("*" if piece is BLACK else "O"))
        cells.append("".join(line))
    mover = "*" if board.turn is BLACK else "O"
    return "8 " + "".join(cells) + " " + mover


def _parse_board_field(value: str) -> Board:
    tokens = value.split()
    if not tokens or tokens[0] != "8":
        size = tokens[0] if tokens else "nothing"
        raise InvalidBoardError(f"BO[{value[:40]}]: board size must be 8, found {size!r}")
    if len(tokens) < 3:
        raise InvalidBoardError(f"BO[{value[:40]}]: expected the size, 64 cells and the mover")
    cells = "".join(tokens[1:-1])
    mover = tokens[-1]
    if len(cells) != 64:
        raise InvalidBoardError(f"BO field has {len(cells)} cells, expected 64")
    black = white = 0
    for sq, ch in enumerate(cells):
        if ch in "*Xx#":
            black |= 1 << sq
        elif ch in "Oo":
            white |= 1 << sq
        elif ch not in "-._":
            raise InvalidBoardError(f"BO field: unknown cell {ch!r} at square {sq}")
    if mover in ("*", "X", "x", "B", "b"):
        turn = Color.BLACK
    elif mover in ("O", "o", "W", "w"):
        turn = Color.WHITE
    else:
        raise InvalidBoardError(f"BO field: unknown side to move {mover!r} (expected * or O)")
    return Board(black, white, turn)


def _parse_move_field(color: str, value: str, index: int, game: int = 1) -> MoveRecord:
    where = f"game {game}, move {index}"
    parts = value.strip().split("/")
    if len(parts) > 3:
        raise InvalidBoardError(f"{where} {color}[{value}]: expected move/eval/time")
    try:
        move = Move.from_str(parts[0])
    except InvalidMoveError:
        raise InvalidBoardError(f"{where} {color}[{value}]: not a move") from None
    numbers: list[float | None] = []
    for part in parts[1:]:
        part = part.strip()
        if not part:
            numbers.append(None)
            continue
        try:
            number = float(part)
        except ValueError:
            raise InvalidBoardError(f"{where} {color}[{value}]: {part!r} is not a number") from None
        if not math.isfinite(number):
            raise InvalidBoardError(f"{where} {color}[{value}]: {part!r} is not finite")
        numbers.append(number)
    numbers += [None] * (2 - len(numbers))
    return MoveRecord(move, numbers[0], numbers[1])


def format_result(board: Board) -> str:
    """GGF ``RE`` value of a board: black's final disc difference, or ``?``."""
    outcome = board.outcome()
    if outcome is None:
        return "?"
    return f"{outcome.margin:+.3f}" if outcome.margin else "0.000"


@dataclass
class GameRecord:
    """A game: players, start position, moves (with evals/times) and result.

    ``tags`` keeps every header field not given its own attribute (``KM``,
    ``C``...), so reading and writing a record loses nothing. ``rules`` is
    written as ``RU[Reversi]`` for Reversi and read back from it.
    """

    black: str = "?"
    white: str = "?"
    place: str = "outflank"
    date: str = ""
    result: str = "?"
    time_control: str = ""
    black_rating: str = ""
    white_rating: str = ""
    game_type: str = "8"
    start: Board = field(default_factory=Board)
    moves: list[MoveRecord] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    rules: Rules = Rules.OTHELLO

    # ------------------------------------------------------------ building
    @classmethod
    def from_board(
        cls,
        board: Board,
        black: str = "?",
        white: str = "?",
        place: str = "outflank",
        *,
        date: str | None = None,
        result: str | None = None,
        time_control: str = "",
        evals: Sequence[float | None] | None = None,
        times: Sequence[float | None] | None = None,
        tags: dict[str, str] | None = None,
    ) -> GameRecord:
        """Record a board's game: its root position and every move played.

        ``evals``/``times`` (one per move, ``None`` where unknown) become the
        ``/eval/time`` parts; ``result`` defaults to the board's outcome.
        """
        moves = board.move_stack
        evals = list(evals) if evals is not None else []
        times = list(times) if times is not None else []
        records = [
            MoveRecord(
                m,
                evals[i] if i < len(evals) else None,
                times[i] if i < len(times) else None,
            )
            for i, m in enumerate(moves)
        ]
        return cls(
            black=black,
            white=white,
            place=place,
            date=date if date is not None else now_string(),
            result=result if result is not None else format_result(board),
            time_control=time_control,
            start=board.root(),
            moves=records,
            tags=dict(tags or {}),
            rules=board.rules,
        )

    @classmethod
    def from_transcript(cls, text: str, **kwargs: str) -> GameRecord:
        """A record of a plain transcript such as ``"f5d6c3"`` from the start."""
        return cls.from_board(Board.from_transcript(text), **kwargs)

    # ------------------------------------------------------------ reading
    def board(self, rules: Rules | str | None = None) -> Board:
        """The position after every move, replayed from ``start`` under
        ``rules`` (the record's own by default).

        A missing forced pass is inserted; an illegal move raises
        :class:`InvalidBoardError` naming it.
        """
        rules = self.rules if rules is None else rules
        board = Board(self.start.black, self.start.white, self.start.turn, rules)
        for index, rec in enumerate(self.moves, 1):
            try:
                if not rec.move.is_pass and board.must_pass():
                    board.push(PASS)
                board.push(rec.move)
            except IllegalMoveError as exc:
                raise InvalidBoardError(f"move {index} ({rec.move}): {exc}") from None
        return board

    def transcript(self) -> str:
        """The moves as a compact transcript (passes left out): ``f5d6c3``."""
        return "".join(str(r.move) for r in self.moves if not r.move.is_pass)

    @property
    def score(self) -> float | None:
        """Black's disc difference from ``RE`` (``None`` if unknown)."""
        match = re.match(r"\s*([+-]?\d+(?:\.\d*)?)", self.result)
        return float(match.group(1)) if match else None

    # ------------------------------------------------------------ writing
    def header(self) -> dict[str, str]:
        """All header fields in GGF order (empty ones left out)."""
        fields = {
            "GM": "Othello",
            "PC": self.place,
            "DT": self.date,
            "PB": self.black,
            "PW": self.white,
            "RB": self.black_rating,
            "RW": self.white_rating,
            "TI": self.time_control,
            "TY": self.game_type,
            "RU": "Reversi" if self.rules is Rules.REVERSI else "",
            "RE": self.result,
        }
        out = {k: v for k, v in fields.items() if v != "" or k in ("PB", "PW", "RE")}
        for key, value in self.tags.items():
            name = str(key).upper()
            if not _TAG.fullmatch(name):
                raise InvalidBoardError(f"a GGF tag name is 1-8 letters A-Z, not {key!r}")
            if name not in out and name not in ("BO", "B", "W"):
                out[name] = value
        return out

    def to_ggf(self) -> str:
        """The record as one GGF game ``(;GM[Othello]...;)`` on one line."""
        parts = ["(;"]
        for key, value in self.header().items():
            parts.append(f"{key}[{_escape(value)}]")
        parts.append(f"BO[{_board_field(self.start)}]")
        turn = self.start.turn
        for rec in self.moves:
            parts.append(f"{'B' if turn is BLACK else 'W'}[{rec.ggf_value()}]")
            turn = turn.other
        parts.append(";)")
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_ggf()


def now_string() -> str:
    """The current UTC time as NBoard writes ``DT``: ``2026-11-22 23:10:00 GMT``."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S GMT")


# ---------------------------------------------------------------- parsing
class _Scanner:
    """Splits GGF text into games, each a list of (tag, value) pairs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _where(self) -> str:
        line = self.text.count("\n", 0, self.pos) + 1
        return f"line {line}, offset {self.pos}"

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def games(self) -> list[list[tuple[str, str]]]:
        games = []
        while True:
            self._skip_space()
            if self.pos >= len(self.text):
                return games
            if not self.text.startswith("(;", self.pos):
                found = self.text[self.pos : self.pos + 20]
                raise InvalidBoardError(
                    f"GGF: expected '(;' to start a game at {self._where()}, found {found!r}"
                )
            self.pos += 2
            games.append(self._fields())

    def _fields(self) -> list[tuple[str, str]]:
        fields: list[tuple[str, str]] = []
        while True:
            self._skip_space()
            if self.text.startswith(";)", self.pos):
                self.pos += 2
                return fields
            match = _TAG.match(self.text, self.pos)
            if match is None:
                if self.pos >= len(self.text):
                    raise InvalidBoardError("GGF: game not closed with ';)' before end of text")
                found = self.text[self.pos : self.pos + 20]
                raise InvalidBoardError(
                    f"GGF: expected a TAG[value] field or ';)' at {self._where()}, found {found!r}"
                )
            tag = match.group()
            self.pos = match.end()
            self._skip_space()
            if not self.text.startswith("[", self.pos):
                raise InvalidBoardError(f"GGF: tag {tag} without a [value] at {self._where()}")
            self.pos += 1
            value = []
            while True:
                if self.pos >= len(self.text):
                    raise InvalidBoardError(f"GGF: value of {tag} not closed with ']'")
                ch = self.text[self.pos]
                if ch == "\\" and self.pos + 1 < len(self.text):
                    value.append(self.text[self.pos + 1])
                    self.pos += 2
                    continue
                self.pos += 1
                if ch == "]":
                    break
                value.append(ch)
            fields.append((tag, "".join(value)))


def _record_from_fields(fields: list[tuple[str, str]], number: int) -> GameRecord:
    header: dict[str, str] = {}
    raw_moves: list[tuple[str, str]] = []
    start: Board | None = None
    for tag, value in fields:
        if tag in ("B", "W"):
            raw_moves.append((tag, value))
        elif tag == "BO":
            start = _parse_board_field(value)
        else:
            header[tag] = value
    game = header.pop("GM", "Othello")
    if game.strip().lower() != "othello":
        raise InvalidBoardError(f"game {number}: not an Othello game (GM[{game}])")
    game_type = header.pop("TY", "8")
    size = re.search(r"\d+", game_type)
    if size is not None and size.group() != "8":
        raise InvalidBoardError(f"game {number}: only 8x8 boards are supported (TY[{game_type}])")
    if "a" in re.sub(r"\d", "", game_type).lower():
        raise InvalidBoardError(f"game {number}: anti-Othello is not supported (TY[{game_type}])")
    rule_set = header.pop("RU", "Othello").strip().lower() or "othello"
    if rule_set not in ("othello", "reversi"):
        raise InvalidBoardError(f"game {number}: unknown rules RU[{rule_set}] (Othello, Reversi)")
    record = GameRecord(
        black=header.pop("PB", "?"),
        white=header.pop("PW", "?"),
        place=header.pop("PC", ""),
        date=header.pop("DT", ""),
        result=header.pop("RE", "?"),
        time_control=header.pop("TI", ""),
        black_rating=header.pop("RB", ""),
        white_rating=header.pop("RW", ""),
        game_type=game_type,
        start=start if start is not None else Board(),
        tags=header,
        rules=Rules(rule_set),
    )
    board = record.start.copy(stack=False)
    for index, (color, value) in enumerate(raw_moves, 1):
        rec = _parse_move_field(color, value, index, number)
        expected = "B" if board.turn is BLACK else "W"
        if color != expected:
            if not rec.move.is_pass and board.must_pass():
                board.push(PASS)  # a pass the writer left out
                record.moves.append(MoveRecord(PASS))
            else:
                raise InvalidBoardError(
                    f"game {number}, move {index} {color}[{value}]: it is"
                    f" {'black' if expected == 'B' else 'white'}'s turn"
                )
        try:
            board.push(rec.move)
        except IllegalMoveError as exc:
            raise InvalidBoardError(
                f"game {number}, move {index} {color}[{value}]: {exc}"
            ) from None
        record.moves.append(rec)
    return record


def parse_ggf_games(text: str) -> list[GameRecord]:
    """Every game of a GGF text (a file may hold many, one after another).

    Raises :class:`InvalidBoardError` naming the first problem: bad syntax,
    a board that is not 8x8, an unknown cell, an illegal move...
    """
    games = _Scanner(text).games()
    return [_record_from_fields(fields, i) for i, fields in enumerate(games, 1)]


def parse_ggf(text: str) -> GameRecord:
    """The one game of a GGF text (use :func:`parse_ggf_games` for several)."""
    games = parse_ggf_games(text)
    if not games:
        raise InvalidBoardError("GGF: no game found (a game starts with '(;')")
    if len(games) > 1:
        raise InvalidBoardError(
            f"GGF: found {len(games)} games where one was expected (use parse_ggf_games)"
        )
    return games[0]


def load_game(text: str) -> GameRecord:
    """A record from GGF text or a plain transcript (``f5d6c3...``)."""
    if text.lstrip().startswith("("):
        return parse_ggf(text)
    return GameRecord.from_transcript(text.strip(), date="")


def read_ggf_file(path: str | Path) -> list[GameRecord]:
    """All games of a GGF file; a file of transcripts (one a line) works too."""
    text = read_text_file(path)
    if text.lstrip().startswith("("):
        try:
            return parse_ggf_games(text)
        except InvalidBoardError as exc:
            raise InvalidBoardError(f"{path}: {exc}") from None
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith(("#", "%")):
            try:
                records.append(GameRecord.from_transcript(line.strip(), date=""))
            except InvalidBoardError as exc:
                raise InvalidBoardError(f"{path}:{number}: {exc}") from None
    if not records:
        raise InvalidBoardError(f"{path}: no game found")
    return records


def write_ggf_file(path: str | Path, records: Iterable[GameRecord]) -> None:
    """Write games to a GGF file, one game a line."""
    Path(path).write_text("".join(r.to_ggf() + "\n" for r in records), encoding="utf-8")
