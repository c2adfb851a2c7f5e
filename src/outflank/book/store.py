"""The opening book: positions searched deeply once, their values backed up
by negamax, probed in microseconds.

Each position is stored once per symmetry class (see :mod:`.symmetry`),
from the side to move's view, with the depth and selectivity it was
searched to and every legal move's value in discs. A move whose resulting
position is itself in the book takes that position's (negated) value, so
the values of the whole book obey negamax: a position's value is its best
move's value.

The file format (``.book``), little-endian::

    magic  b"OFBOOK\\x00\\x01"
    u32    length of a JSON header (how the book was made), then the header
    records, sorted by (player, opponent):
      u64 player, u64 opponent     the canonical position, side to move first
      i16 value                    in 1/100 disc
      u8  depth, u8 selectivity    plies searched; probable cut-off t x 10 (0: none)
      u8  n                        number of moves, then n times:
        u8  square | 0x80 if the move leads to a book position
        i16 value                  in 1/100 disc, the mover's view

Loading reads the file once and indexes the records (tens of milliseconds
for tens of thousands of positions); :meth:`Book.probe` decodes one record.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from outflank import _core
from outflank.board import BLACK, Board, Move
from outflank.book.database import BuildDB, RawRecord
from outflank.book.symmetry import canonical, inverse, split_key, transform_square
from outflank.errors import BookError

__all__ = [
    "MAGIC",
    "Book",
    "BookEntry",
    "BookError",
    "BookMove",
    "RawRecord",
    "back_up",
    "child_key",
]

MAGIC: Final = b"OFBOOK\x00\x01"
_HEAD: Final = struct.Struct("<QQhBBB")
_MOVE: Final = struct.Struct("<Bh")
_IN_BOOK: Final = 0x80
_MASK64: Final = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class BookMove:
    """A move of a book position: its value (discs, the mover's view) and
    whether it leads to another book position (``in_book``)."""

    move: Move
    value: float
    in_book: bool


@dataclass(frozen=True, slots=True)
class BookEntry:
    """A book position: its negamax value, the search that scored it, and
    every legal move, best first."""

    value: float
    depth: int
    selectivity: float
    moves: tuple[BookMove, ...]

    @property
    def best(self) -> BookMove:
        """The best move (the first of the best if several tie)."""
        return self.moves[0]

    def within(self, tolerance: float) -> list[BookMove]:
        """The moves whose value is at most ``tolerance`` discs below the best."""
        floor = self.moves[0].value - tolerance
        return [m for m in self.moves if m.value >= floor - 1e-9]


def child_key(player: int, opponent: int, square: int) -> tuple[int | None, int]:
    """The book key of the position after ``square`` is played, and the sign
    that turns its value into the mover's: a forced pass that follows is
    skipped (key of the position after it, sign +1). ``None`` once the
    game is over."""
    flipped = _core.flips(player, opponent, square)
    p = opponent & ~flipped
    o = player | flipped | (1 << square)
    if _core.moves(p, o):
        cp, co, _ = canonical(p, o)
        return cp << 64 | co, -1
    if _core.moves(o, p):  # the opponent passes: the mover moves again
        cp, co, _ = canonical(o, p)
        return cp << 64 | co, 1
    return None, -1


def back_up(raw: Mapping[int, RawRecord]) -> dict[int, tuple[int, list[tuple[int, int, bool]]]]:
    """Negamax over the book: for every key, its value and moves
    ``(square, value, in_book)``, a move into the book taking the value of
    the position it leads to (children first: they have more discs)."""
    order = sorted(raw, key=lambda k: -((k >> 64) | (k & _MASK64)).bit_count())
    out: dict[int, tuple[int, list[tuple[int, int, bool]]]] = {}
    for key in order:
        player, opponent = split_key(key)
        moves = []
        for square, value in raw[key].moves:
            child, sign = child_key(player, opponent, square)
            if child is not None and child in out:
                moves.append((square, sign * out[child][0], True))
            else:
                moves.append((square, value, False))
        best = max((v for _, v, _ in moves), default=0)
        out[key] = (best, moves)
    return out


def _encode(raw: Mapping[int, RawRecord], header: dict[str, Any]) -> bytes:
    """The file image of a book: ``raw`` backed up, records sorted."""
    values = back_up(raw)
    head = json.dumps({**header, "positions": len(raw)}, sort_keys=True).encode()
    parts = [MAGIC, struct.pack("<I", len(head)), head]
    for key in sorted(raw):
        rec = raw[key]
        value, moves = values[key]
        moves.sort(key=lambda m: (-m[1], m[0]))
        parts.append(
            _HEAD.pack(key >> 64, key & _MASK64, value, rec.depth, rec.selectivity, len(moves))
        )
        parts.extend(_MOVE.pack(sq | (_IN_BOOK if inb else 0), v) for sq, v, inb in moves)
    return b"".join(parts)


class Book:
    """An opening book in memory: ``Book.load(path)``, ``Book.default()``,
    then :meth:`probe`. Read-only; build books with :mod:`outflank.book.build`."""

    def __init__(self, data: bytes, source: str = "<memory>") -> None:
        """A book from a file image (see the module doc)."""
        self.source = source
        if data[:8] != MAGIC:
            raise BookError(f"{source}: not an outflank book file")
        try:
            (length,) = struct.unpack_from("<I", data, 8)
            self.header: dict[str, Any] = json.loads(data[12 : 12 + length])
            offset = 12 + length
            index: dict[int, int] = {}
            size = len(data)
            while offset < size:
                p, o, _, _, _, n = _HEAD.unpack_from(data, offset)
                index[p << 64 | o] = offset
                offset += _HEAD.size + n * _MOVE.size
            if offset != size:
                raise ValueError("truncated record")
        except (ValueError, struct.error, UnicodeDecodeError) as exc:
            raise BookError(f"{source}: damaged book file ({exc})") from None
        self._data = data
        self._index = index

    # ------------------------------------------------------------ making
    @classmethod
    def load(cls, path: str | Path) -> Book:
        """Read a ``.book`` file, or a builder's database (backed up on loading)."""
        path = Path(path)
        try:
            with path.open("rb") as f:
                magic = f.read(16)
        except OSError as exc:
            raise BookError(f"cannot read book {path}: {exc.strerror or exc}") from None
        if magic.startswith(b"SQLite format 3"):
            with BuildDB.open(path, create=False) as db:
                return cls.from_database(db)
        return cls(path.read_bytes(), str(path))

    @classmethod
    def from_records(
        cls, raw: Mapping[int, RawRecord], header: dict[str, Any] | None = None
    ) -> Book:
        """A book of searched positions (canonical keys), backed up by negamax."""
        return cls(_encode(raw, header or {}), "<memory>")

    @classmethod
    def from_database(cls, db: BuildDB) -> Book:
        """The positions of a build database as a book, backed up by negamax."""
        params = db.params()
        header = {} if params is None else {"build": asdict(params)}
        book = cls.from_records(db.records(), header)
        book.source = str(db.path)
        return book

    @classmethod
    def default(cls) -> Book:
        """The book shipped with the package (loaded once, then shared)."""
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls.load(DEFAULT_PATH)
        return _DEFAULT

    def save(self, path: str | Path) -> None:
        """Write the book as a ``.book`` file."""
        Path(path).write_bytes(self._data)

    def to_bytes(self) -> bytes:
        """The file image."""
        return self._data

    # ------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, board: object) -> bool:
        return isinstance(board, Board) and self._key(board) in self._index

    @staticmethod
    def _key(board: Board) -> int:
        p, o, _ = canonical(board.player, board.opponent)
        return p << 64 | o

    def probe(self, board: Board) -> BookEntry | None:
        """The book's entry for this position (any of its 8 symmetric images),
        moves in the board's own orientation, best first; ``None`` if the
        position is not in the book."""
        p, o, t = canonical(board.player, board.opponent)
        offset = self._index.get(p << 64 | o)
        if offset is None:
            return None
        back = inverse(t)
        _, _, value, depth, sel, n = _HEAD.unpack_from(self._data, offset)
        moves = []
        offset += _HEAD.size
        for _ in range(n):
            code, v = _MOVE.unpack_from(self._data, offset)
            offset += _MOVE.size
            square = transform_square(code & 0x3F, back)
            moves.append(BookMove(Move(square), v / 100, bool(code & _IN_BOOK)))
        return BookEntry(value / 100, depth, sel / 10, tuple(moves))

    def records(self) -> Iterator[tuple[int, RawRecord, int]]:
        """Every position: ``(key, record with backed-up move values, value)``."""
        for key, offset in self._index.items():
            _, _, value, depth, sel, n = _HEAD.unpack_from(self._data, offset)
            moves = tuple(
                (code & 0x3F, v)
                for code, v in _MOVE.iter_unpack(
                    self._data[offset + _HEAD.size : offset + _HEAD.size + n * _MOVE.size]
                )
            )
            yield key, RawRecord(depth, sel, moves), value

    def raw(self) -> dict[int, RawRecord]:
        """The records (move values as backed up), to merge or rebuild from."""
        return {key: rec for key, rec, _ in self.records()}

    def boards(self) -> Iterator[Board]:
        """Every book position as a board (canonical orientation; black to move)."""
        for key in self._index:
            p, o = split_key(key)
            yield Board(p, o, BLACK)

    def line(self, board: Board, limit: int = 60) -> list[Move]:
        """The book's main line from ``board``: best moves while in the book."""
        board = board.copy(stack=False)
        out: list[Move] = []
        while len(out) < limit:
            entry = self.probe(board)
            if entry is None or not entry.moves:
                break
            move = entry.best.move
            out.append(move)
            board.push(move)
            if board.must_pass():
                board.push("pass")
        return out

    def text_lines(self) -> Iterator[str]:
        """The book as text, one position a line, sorted: OBF (the side to move
        as X), its value, depth, selectivity, and each move's value
        (``*``: it leads to a book position)."""
        for key in sorted(self._index):
            p, o = split_key(key)
            entry = self.probe(Board(p, o, BLACK))
            assert entry is not None
            moves = " ".join(
                f"{m.move}:{m.value:+.2f}{'*' if m.in_book else ''}" for m in entry.moves
            )
            yield (
                f"{Board(p, o, BLACK).obf()}; {entry.value:+.2f}; depth {entry.depth};"
                f" selectivity {entry.selectivity:g}; {moves}"
            )

    def __repr__(self) -> str:
        return f"<Book {self.source}: {len(self)} positions>"


def merge(books: Iterable[Book | Mapping[int, RawRecord]]) -> dict[int, RawRecord]:
    """The union of books' records: a position in several keeps its deepest
    search (see :meth:`RawRecord.rank`); back it up with :meth:`Book.from_records`."""
    out: dict[int, RawRecord] = {}
    for book in books:
        raw = book.raw() if isinstance(book, Book) else book
        for key, rec in raw.items():
            old = out.get(key)
            if old is None or rec.rank() > old.rank():
                out[key] = rec
    return out


DEFAULT_PATH: Final = Path(__file__).resolve().parent.parent / "data" / "book.book"
_DEFAULT: Book | None = None
