"""A book build's SQLite database: its parameters and every position searched.

:class:`BuildDB` holds what :mod:`outflank.book.build` searched, one
:class:`RawRecord` a position, committed one at a time;
:meth:`outflank.book.Book.load` reads one as a book, backed up by negamax
(:meth:`~outflank.book.Book.from_database`). It sits below the book store
and the builder, which both use it.
"""

from __future__ import annotations

import json
import sqlite3
import struct
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from outflank.board import Board
from outflank.errors import BookError, OutflankError

__all__ = ["BuildDB", "BuildParams", "RawRecord"]


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A position as searched (canonical orientation): ``moves`` are
    ``(square, value in 1/100 disc)``, before any backing up."""

    depth: int
    selectivity: int  # t x 10
    moves: tuple[tuple[int, int], ...]

    def rank(self) -> tuple[int, int]:
        """Which of two searches of one position to keep: the deeper, then
        the less selective (0, no probable cut-offs, counts as the most
        exact)."""
        return self.depth, 1000 if self.selectivity == 0 else self.selectivity


_MOVE: Final = struct.Struct("<Bh")
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS positions (
    key BLOB PRIMARY KEY,           -- canonical player (8 bytes) then opponent, big-endian
    depth INTEGER NOT NULL,
    selectivity INTEGER NOT NULL,   -- probable cut-off t x 10, 0 for none
    moves BLOB NOT NULL,            -- (u8 square, i16 value in 1/100 disc) each
    seconds REAL NOT NULL           -- CPU time of the search
) WITHOUT ROWID;
"""


@dataclass
class BuildParams:
    """How a book is built: the search of each position (``depth`` plies,
    probable cut-offs ``selective``), which lines are kept (total loss at
    most ``window`` discs, up to ``plies`` plies) and the ``roots``:
    ``[OBF, cost in 1/100 disc already spent]``."""

    depth: int = 16
    selective: float = 1.5
    window: float = 2.0
    plies: int = 12
    roots: list[list[Any]] = field(default_factory=lambda: [[Board().obf(), 0]])

    def check(self) -> None:
        """Raise :class:`OutflankError` for a parameter out of range."""
        if isinstance(self.depth, bool) or not isinstance(self.depth, int):
            raise OutflankError(f"depth must be a whole number, not {self.depth!r}")
        if not 1 <= self.depth <= 40:
            raise OutflankError(f"depth must be in 1..40, not {self.depth}")
        if not 0 <= self.selective <= 10:
            raise OutflankError(f"selective must be in 0..10, not {self.selective}")
        if not 0 <= self.window <= 64:
            raise OutflankError(f"window must be in 0..64 discs, not {self.window}")
        if not 0 <= self.plies <= 60:
            raise OutflankError(f"plies must be in 0..60, not {self.plies}")

    @property
    def window_c(self) -> int:
        return round(self.window * 100)

    @property
    def selectivity(self) -> int:
        return round(self.selective * 10)


def _key_bytes(key: int) -> bytes:
    return key.to_bytes(16, "big")


class BuildDB:
    """A build's SQLite database: parameters and searched positions."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> BuildDB:
        """Open (or create) a build database; a file of another kind is a
        :class:`BookError`."""
        path = Path(path)
        if not create and not path.exists():
            raise BookError(f"no book database {path}")
        if path.exists() and path.is_file():
            with path.open("rb") as f:
                magic = f.read(16)
            if magic and not magic.startswith(b"SQLite format 3"):
                raise BookError(f"{path} is not a book database (an exported .book file?)")
        try:
            conn = sqlite3.connect(path, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            conn.commit()
        except sqlite3.DatabaseError as exc:
            raise BookError(f"{path}: not a usable book database ({exc})") from None
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> BuildDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- meta
    def params(self) -> BuildParams | None:
        """The stored parameters, or ``None`` for a new database."""
        row = self.conn.execute("SELECT value FROM meta WHERE name = 'params'").fetchone()
        if row is None:
            return None
        try:
            return BuildParams(**json.loads(row[0]))
        except (TypeError, ValueError) as exc:
            raise BookError(f"{self.path}: damaged parameters ({exc})") from None

    def set_params(self, params: BuildParams) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('params', ?)", (json.dumps(asdict(params)),)
        )
        self.conn.commit()

    # ---------------------------------------------------------------- positions
    def add(self, key: int, record: RawRecord, seconds: float) -> None:
        """Store one searched position and commit it."""
        blob = b"".join(_MOVE.pack(sq, v) for sq, v in record.moves)
        self.conn.execute(
            "INSERT OR REPLACE INTO positions VALUES (?, ?, ?, ?, ?)",
            (_key_bytes(key), record.depth, record.selectivity, blob, seconds),
        )
        self.conn.commit()

    def records(self) -> dict[int, RawRecord]:
        """Every searched position by key."""
        out = {}
        for key, depth, sel, blob, _ in self.conn.execute("SELECT * FROM positions"):
            moves = tuple(_MOVE.iter_unpack(blob))
            out[int.from_bytes(key, "big")] = RawRecord(depth, sel, moves)
        return out

    def seconds(self) -> float:
        """Search time spent on the stored positions."""
        return float(self.conn.execute("SELECT TOTAL(seconds) FROM positions").fetchone()[0])

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM positions").fetchone()[0])
