"""The Othello board: rules, notation and game records.

This is the one place where Python code asks what is legal; the work is done
by the native core :mod:`outflank._core` on 64-bit bitboards.

Coordinates: columns ``a``-``h`` left to right, rows ``1``-``8`` top to
bottom; square index ``row * 8 + col`` (a1 = 0, h8 = 63). Black moves first;
the start position has black on d5 and e4, white on d4 and e5.

>>> board = Board()
>>> board.play("f5")
Move.from_str('f5')
>>> sorted(str(m) for m in board.legal_moves)
['d6', 'f4', 'f6']
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from outflank import _core
from outflank.errors import (
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OutflankError,
    SearchLimitError,
)

__all__ = [
    "BLACK",
    "FILES",
    "RANKS",
    "SQUARE_NAMES",
    "WHITE",
    "Board",
    "Color",
    "Move",
    "Outcome",
    "Rules",
    "parse_position",
    "parse_square",
    "square_name",
]

FILES: Final = "abcdefgh"
RANKS: Final = "12345678"
SQUARE_NAMES: Final = [f + r for r in RANKS for f in FILES]
_FULL: Final = (1 << 64) - 1


class Color(enum.IntEnum):
    """A side: ``BLACK`` moves first."""

    BLACK = 0
    WHITE = 1

    @property
    def other(self) -> Color:
        """The opposing colour."""
        return Color(1 - self)

    @property
    def letter(self) -> str:
        """``"X"`` for black, ``"O"`` for white (OBF and seed 002 notation)."""
        return "XO"[self]

    @classmethod
    def parse(cls, text: str) -> Color:
        """Parse ``X``/``B``/``black`` or ``O``/``W``/``white`` (any case)."""
        key = text.strip().lower()
        if key in ("x", "b", "black", "*"):
            return cls.BLACK
        if key in ("o", "w", "white"):
            return cls.WHITE
        raise InvalidBoardError(f"unknown colour {text!r}: expected X/black or O/white")


BLACK: Final = Color.BLACK
WHITE: Final = Color.WHITE


class Rules(enum.Enum):
    """How a game ends when the side to move has no legal move.

    ``OTHELLO``: the player passes; the game ends when neither side can move.
    ``REVERSI``: the game ends as soon as the side to move cannot move
    (the rule of the original pygame program of seed 000).
    """

    OTHELLO = "othello"
    REVERSI = "reversi"


def square_name(square: int) -> str:
    """Name of a square index, e.g. ``square_name(19) == "d3"``."""
    if not 0 <= square < 64:
        raise InvalidMoveError(f"square index out of range: {square}")
    return SQUARE_NAMES[square]


def parse_square(text: str) -> int:
    """Square index of a name such as ``"d3"`` or ``"D3"``."""
    name = text.strip().lower()
    if len(name) != 2 or name[0] not in FILES or name[1] not in RANKS:
        raise InvalidMoveError(f"not a square: {text!r} (expected a1..h8)")
    return FILES.index(name[0]) + 8 * RANKS.index(name[1])


def _is_square(value: object) -> bool:
    """Is ``value`` a square index (an int 0..63, and not a bool)?"""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 64


@dataclass(frozen=True, slots=True)
class Move:
    """A move: a square index 0..63, or ``None`` for a pass."""

    square: int | None

    def __post_init__(self) -> None:
        if self.square is not None and not _is_square(self.square):
            raise InvalidMoveError(f"square index out of range: {self.square!r}")

    @classmethod
    def from_square(cls, square: int) -> Move:
        return cls(square)

    @classmethod
    def pass_move(cls) -> Move:
        return PASS

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Parse ``"d3"``, ``"D3"``, or a pass (``"pass"``, ``"pa"``, ``"--"``)."""
        key = text.strip().lower()
        if key in ("pass", "pa", "ps", "--", "@@"):
            return PASS
        return cls(parse_square(key))

    @property
    def is_pass(self) -> bool:
        return self.square is None

    @property
    def row(self) -> int | None:
        return None if self.square is None else self.square // 8

    @property
    def col(self) -> int | None:
        return None if self.square is None else self.square % 8

    def __str__(self) -> str:
        return "pass" if self.square is None else SQUARE_NAMES[self.square]

    def __repr__(self) -> str:
        return f"Move.from_str({str(self)!r})"


PASS: Final = Move(None)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: disc counts and the winner (``None`` for a draw)."""

    black: int
    white: int

    @property
    def winner(self) -> Color | None:
        if self.black == self.white:
            return None
        return BLACK if self.black > self.white else WHITE

    @property
    def margin(self) -> int:
        """Black's final disc difference, empty squares going to the winner."""
        empties = 64 - self.black - self.white
        diff = self.black - self.white
        if diff > 0:
            return diff + empties
        if diff < 0:
            return diff - empties
        return 0

    def result(self) -> str:
        """``"1-0"`` (black wins), ``"0-1"`` or ``"1/2-1/2"``."""
        winner = self.winner
        return "1/2-1/2" if winner is None else ("1-0" if winner is BLACK else "0-1")


def _popcount(bits: int) -> int:
    return bits.bit_count()


def _squares(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


_START_BLACK: Final = (1 << 28) | (1 << 35)  # e4, d5
_START_WHITE: Final = (1 << 27) | (1 << 36)  # d4, e5


class Board:
    """An Othello position with its move history.

    ``Board()`` is the start position. Moves are :class:`Move` values; the
    string forms ``"f5"`` and ``"pass"`` are accepted wherever a move is.
    """

    __slots__ = ("_black", "_rules", "_stack", "_turn", "_white")

    def __init__(
        self,
        black: int = _START_BLACK,
        white: int = _START_WHITE,
        turn: Color = BLACK,
        rules: Rules | str = Rules.OTHELLO,
    ) -> None:
        for name, bits in (("black", black), ("white", white)):
            if isinstance(bits, bool) or not isinstance(bits, int):
                raise InvalidBoardError(f"{name} must be a bitboard int, not {bits!r}"[:120])
        if not (0 <= black <= _FULL and 0 <= white <= _FULL):
            raise InvalidBoardError("bitboards must be in 0 .. 2**64-1")
        if black & white:
            raise InvalidBoardError("a square cannot hold both a black and a white disc")
        try:
            self._turn = Color(turn)
        except ValueError:
            raise InvalidBoardError(f"turn must be BLACK or WHITE, not {turn!r}") from None
        try:
            self._rules = Rules(rules)
        except ValueError:
            names = ", ".join(repr(r.value) for r in Rules)
            raise InvalidBoardError(f"unknown rules {rules!r} (one of {names})") from None
        self._black = black
        self._white = white
        self._stack: list[tuple[Move, int, int, Color]] = []

    # ------------------------------------------------------------------ state
    @property
    def turn(self) -> Color:
        """The side to move."""
        return self._turn

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def black(self) -> int:
        """Bitboard of black discs."""
        return self._black

    @property
    def white(self) -> int:
        """Bitboard of white discs."""
        return self._white

    @property
    def player(self) -> int:
        """Bitboard of the side to move's discs."""
        return self._black if self._turn is BLACK else self._white

    @property
    def opponent(self) -> int:
        """Bitboard of the other side's discs."""
        return self._white if self._turn is BLACK else self._black

    @property
    def empties(self) -> int:
        """Number of empty squares."""
        return 64 - _popcount(self._black | self._white)

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the board was set up, passes included."""
        return [entry[0] for entry in self._stack]

    @property
    def ply(self) -> int:
        return len(self._stack)

    def piece_at(self, square: int) -> Color | None:
        """Colour of the disc on a square, or ``None`` if it is empty."""
        if not _is_square(square):
            raise InvalidMoveError(f"square must be an int in 0..63, not {square!r}")
        bit = 1 << square
        if self._black & bit:
            return BLACK
        if self._white & bit:
            return WHITE
        return None

    def count(self, color: Color) -> int:
        """Number of discs of a colour (``BLACK``/``WHITE``, or their values 0/1)."""
        try:
            color = Color(color)
        except ValueError:
            raise OutflankError(f"no colour {color!r}: BLACK or WHITE (0 or 1)") from None
        return _popcount(self._black if color is BLACK else self._white)

    def score(self) -> tuple[int, int]:
        """Disc counts as ``(black, white)``."""
        return _popcount(self._black), _popcount(self._white)

    # ------------------------------------------------------------------ rules
    def moves_bitboard(self) -> int:
        """Bitboard of the side to move's legal squares (passes excluded)."""
        return _core.moves(self.player, self.opponent)

    def _opponent_can_move(self) -> bool:
        return _core.moves(self.opponent, self.player) != 0

    def must_pass(self) -> bool:
        """True when the side to move has no square but the game goes on."""
        return (
            self._rules is Rules.OTHELLO
            and self.moves_bitboard() == 0
            and self._opponent_can_move()
        )

    @property
    def legal_moves(self) -> list[Move]:
        """Legal moves in square order; ``[PASS]`` when forced to pass, ``[]`` at the end."""
        bits = self.moves_bitboard()
        if bits:
            return [Move(sq) for sq in _squares(bits)]
        if self.must_pass():
            return [PASS]
        return []

    def is_legal(self, move: Move | str) -> bool:
        try:
            move = self._coerce(move)
        except InvalidMoveError:
            return False
        if move.square is None:
            return self.must_pass()
        return bool(self.moves_bitboard() >> move.square & 1)

    def flips(self, move: Move | str) -> list[int]:
        """Squares whose discs a move would flip (empty for a pass or an illegal move)."""
        move = self._coerce(move)
        if move.square is None or (self._black | self._white) >> move.square & 1:
            return []
        return list(_squares(_core.flips(self.player, self.opponent, move.square)))

    def is_game_over(self) -> bool:
        """Othello: neither side can move. Reversi: the side to move cannot."""
        if self.moves_bitboard():
            return False
        return self._rules is Rules.REVERSI or not self._opponent_can_move()

    def outcome(self) -> Outcome | None:
        """The final disc counts once the game is over, else ``None``."""
        if not self.is_game_over():
            return None
        return Outcome(*self.score())

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, or ``"*"`` while the game goes on."""
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result()

    def winner(self) -> Color | None:
        outcome = self.outcome()
        return None if outcome is None else outcome.winner

    # ------------------------------------------------------------------ moves
    @staticmethod
    def _coerce(move: Move | str) -> Move:
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return Move.from_str(move)
        raise InvalidMoveError(f"not a move: {move!r}")

    def push(self, move: Move | str) -> Move:
        """Play a move (a :class:`Move` or a string such as ``"d3"``).

        Raises :class:`IllegalMoveError` and leaves the board unchanged if the
        move is not legal here.
        """
        move = self._coerce(move)
        player, opponent = self.player, self.opponent
        if move.square is None:
            if not self.must_pass():
                raise IllegalMoveError(f"{self._turn.name.lower()} cannot pass here")
            player_after, opponent_after = player, opponent
        else:
            bit = 1 << move.square
            flipped = 0 if (player | opponent) & bit else _core.flips(player, opponent, move.square)
            if not flipped:
                raise IllegalMoveError(
                    f"illegal move {move} for {self._turn.name.lower()}"
                    f" (legal: {' '.join(map(str, self.legal_moves)) or 'none'})"
                )
            player_after, opponent_after = player | flipped | bit, opponent & ~flipped
        self._stack.append((move, self._black, self._white, self._turn))
        if self._turn is BLACK:
            self._black, self._white = player_after, opponent_after
        else:
            self._white, self._black = player_after, opponent_after
        self._turn = self._turn.other
        return move

    def play(self, move: Move | str) -> Move:
        """Alias of :meth:`push`, reading well with strings: ``board.play("f5")``."""
        return self.push(move)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._stack:
            raise IndexError("pop from a board with no moves played")
        move, self._black, self._white, self._turn = self._stack.pop()
        return move

    def movers(self) -> list[tuple[Color, Move]]:
        """The moves played since :meth:`root`, each with the colour that played it."""
        return [(turn, move) for move, _, _, turn in self._stack]

    def peek(self) -> Move | None:
        """The last move played, or ``None``."""
        return self._stack[-1][0] if self._stack else None

    def root(self) -> Board:
        """A copy of the position the board was set up with (no history)."""
        if not self._stack:
            return self.copy(stack=False)
        _, black, white, turn = self._stack[0]
        return Board(black, white, turn, self._rules)

    def copy(self, *, stack: bool = True) -> Board:
        """A copy; with ``stack=False`` the move history is dropped."""
        board = Board(self._black, self._white, self._turn, self._rules)
        if stack:
            board._stack = list(self._stack)
        return board

    def perft(self, depth: int, *, count_finished: bool = True) -> int:
        """Number of leaves of the game tree ``depth`` moves ahead (Othello rules)."""
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 60:
            raise SearchLimitError(f"perft depth must be an int in 0..60, not {depth!r}")
        return _core.perft(self.player, self.opponent, depth, count_finished)

    # ------------------------------------------------------------ comparison
    def transposition_key(self) -> tuple[int, int, Color, Rules]:
        """The position as a hashable value (discs, side to move, rules): a key
        for dicts and sets. A board itself changes with every move, so it is
        not hashable, as in python-chess."""
        return (self._black, self._white, self._turn, self._rules)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.transposition_key() == other.transposition_key()

    __hash__ = None  # type: ignore[assignment]  # mutable: use transposition_key()

    def __copy__(self) -> Board:
        return self.copy()

    # ------------------------------------------------------------ notation
    def obf(self) -> str:
        """The position in OBF: 64 cells a1..h8 (``X``, ``O``, ``-``), a space, the mover."""
        cells = []
        for sq in range(64):
            piece = self.piece_at(sq)
            cells.append("-" if piece is None else piece.letter)
        return "".join(cells) + " " + self._turn.letter

    @classmethod
    def from_obf(cls, text: str, rules: Rules | str = Rules.OTHELLO) -> Board:
        """Parse an OBF line; anything after a ``;`` (listed move scores) is ignored."""
        if not isinstance(text, str):
            raise InvalidBoardError(f"an OBF line is a str, not {type(text).__name__}")
        body = text.split(";", 1)[0].strip()
        if "*" in body:  # black in GGF, an empty square in seed 002's boards: ambiguous
            raise InvalidBoardError(
                f"malformed OBF {text.strip()[:80]!r}: '*' is not an OBF cell;"
                " write X for black, O for white and - for an empty square"
            )
        match = re.fullmatch(r"([XOxo\-.]{64})\s+([XOxo])", body)
        if match is None:
            raise InvalidBoardError(
                f"malformed OBF {text.strip()[:80]!r}: expected 64 cells of X, O or -,"
                " a space and the side to move (X or O)"
            )
        cells, mover = match.groups()
        black = white = 0
        for sq, ch in enumerate(cells.upper()):
            if ch == "X":
                black |= 1 << sq
            elif ch == "O":
                white |= 1 << sq
        return cls(black, white, Color.parse(mover), rules)

    @classmethod
    def from_ascii(
        cls, text: str, turn: Color = BLACK, rules: Rules | str = Rules.OTHELLO
    ) -> Board:
        """Parse 8 rows of 8 cells (``X``/``B``/``●`` black, ``O``/``W``/``○`` white,
        ``-``/``.``/``*`` empty); coordinate labels, spaces and lines of words
        (such as the status line of ``str(board)``) are ignored."""
        rows = []
        for line in text.splitlines():
            cells = re.sub(r"^\s*[1-8]\s|\s[1-8]\s*$|\s", "", line)
            if re.fullmatch(r"[XxBb●OoWw○\-.*_]{8}", cells):
                rows.append(cells)
            elif cells and not re.search(r"[a-z]{3}", cells):  # words: labels, status
                raise InvalidBoardError(f"not a board row: {line.strip()!r}")
        if len(rows) != 8:
            raise InvalidBoardError(f"an ASCII board needs 8 rows of 8 cells, found {len(rows)}")
        black = white = 0
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                bit = 1 << (r * 8 + c)
                if ch in "XxBb●":
                    black |= bit
                elif ch in "OoWw○":
                    white |= bit
                elif ch not in "-.*_":
                    raise InvalidBoardError(f"unknown cell {ch!r} in row {r + 1}")
        return cls(black, white, turn, rules)

    def transcript(self) -> str:
        """The moves played as a compact transcript, passes omitted: ``"f5d6c3"``."""
        return "".join(str(m) for m in self.move_stack if not m.is_pass)

    @classmethod
    def from_transcript(
        cls, text: str, rules: Rules | str = Rules.OTHELLO, *, start: Board | None = None
    ) -> Board:
        """Replay a transcript such as ``"f5d6c3"`` or ``"F5 d6, c3 pass"``.

        From the start position under ``rules``, or from a copy of ``start``
        (whose own rules then apply: ``rules`` is not used). Forced passes
        may be written or left out. Raises
        :class:`InvalidBoardError` naming the first bad move.
        """
        board = start.copy() if start is not None else cls(rules=rules)
        cleaned = re.sub(r"[,;]", " ", text)
        tokens = re.findall(r"pass|pa|--|[a-h][1-8]|\S+", cleaned, flags=re.IGNORECASE)
        for index, token in enumerate(tokens, 1):
            try:
                move = Move.from_str(token)
                if not move.is_pass and board.must_pass():
                    board.push(PASS)
                board.push(move)
            except (InvalidMoveError, IllegalMoveError) as exc:
                raise InvalidBoardError(f"transcript move {index} ({token!r}): {exc}") from None
        return board

    def __str__(self) -> str:
        lines = ["  a b c d e f g h"]
        legal = self.moves_bitboard()
        for r in range(8):
            cells = []
            for c in range(8):
                sq = r * 8 + c
                piece = self.piece_at(sq)
                if piece is not None:
                    cells.append(piece.letter)
                else:
                    cells.append("*" if legal >> sq & 1 else ".")
            lines.append(f"{r + 1} {' '.join(cells)} {r + 1}")
        lines.append("  a b c d e f g h")
        black, white = self.score()
        state = self.result() if self.is_game_over() else f"{self._turn.name.lower()} to move"
        lines.append(f"black (X) {black}, white (O) {white}: {state}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        rules = "" if self._rules is Rules.OTHELLO else f", rules={self._rules.value!r}"
        return f"Board.from_obf({self.obf()!r}{rules})"

    @classmethod
    def from_moves(cls, moves: Iterable[Move | str], rules: Rules | str = Rules.OTHELLO) -> Board:
        """The board after a sequence of moves from the start position."""
        board = cls(rules=rules)
        for move in moves:
            board.push(move)
        return board


_CELLS = re.compile(r"[XOxo\-.*]{16}")  # how an OBF line begins (a transcript has no such run)
_ASCII_ROW = re.compile(
    r"^[ \t1-8]*[XxBb●OoWw○\-.*_](?:[ \t]*[XxBb●OoWw○\-.*_]){7}[ \t1-8]*$", re.M
)
_OBF_THEN_MOVES = re.compile(r"([XOxo\-.*]{64}\s+[XOxo])\s+(?=[a-h][1-8]|pass)", re.IGNORECASE)


def parse_position(text: str, rules: Rules | str = Rules.OTHELLO) -> Board:
    """A position as people write one: ``start`` (or nothing), a transcript
    from the start (``f5d6c3``), an OBF line, an OBF line followed by moves
    played from it (what a transcript export of such a game holds), or an
    ASCII board of several lines (``str(board)``; the side to move from its
    "white to move", else black). The moves are the board's history:
    ``move_stack``, from ``root()``.

    Raises :class:`InvalidBoardError` naming what is wrong; text that begins
    with board cells is read as OBF, so its errors come from the OBF parser.
    """
    stripped = text.strip().lstrip("\ufeff").strip()  # a byte-order mark from a file
    if stripped.lower() in ("", "start", "initial"):
        return Board(rules=rules)
    then_moves = _OBF_THEN_MOVES.match(stripped)
    if then_moves:
        start = Board.from_obf(then_moves[1], rules)
        return Board.from_transcript(stripped[then_moves.end() :], start=start)
    if _CELLS.match(stripped):
        return Board.from_obf(stripped, rules)
    if _ASCII_ROW.search(stripped):  # rows of an ASCII board
        mover = re.search(r"\b(black|white) to move\b", stripped, re.IGNORECASE)
        turn = WHITE if mover and mover[1].lower() == "white" else BLACK
        return Board.from_ascii(stripped, turn, rules)
    return Board.from_transcript(stripped, rules)
