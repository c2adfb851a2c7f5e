"""Saved games in a real database through SQLAlchemy 2.

Five tables for games: ``games`` (one row per game: rules, start position,
players, undo cursor, a version number bumped on every change), ``moves``
(one row per ply, kept beyond the cursor so that undo can be redone),
``seats`` (one row per colour, with the secret that proves a browser holds
it), ``reviews`` (a game's latest finished review: the moves it covers and
its JSON, :mod:`outflank.web.reviews`) and ``review_puzzles`` (the puzzles
found at that review's mistakes); and ``puzzle_solvers``, one row per
browser solving puzzles (its rating and streak).

Every change is committed before anyone is told about it, so a game survives
a server restart or a ``kill -9`` at any moment. SQLite is the default
(a file path); any SQLAlchemy URL works (PostgreSQL for several processes).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    inspect,
    make_url,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)
from sqlalchemy.pool import NullPool

__all__ = [
    "Base",
    "DatabaseError",
    "GameRow",
    "MoveRow",
    "PuzzleSolverRow",
    "ReviewPuzzleRow",
    "ReviewRow",
    "SeatRow",
    "Storage",
    "database_url",
    "is_shared",
    "new_game_id",
    "new_secret",
]


class DatabaseError(Exception):
    """The database cannot be used as it is: not ours, in memory, or gone."""


def _now() -> datetime:
    return datetime.now(UTC)


def new_game_id() -> str:
    """A short random identifier that is safe in a URL."""
    return secrets.token_urlsafe(8)


def new_secret() -> str:
    """A seat secret: unguessable, URL-safe."""
    return secrets.token_urlsafe(18)


class Base(DeclarativeBase):
    """Declarative base of the web app's tables."""


class GameRow(Base):
    """One game. ``cursor`` counts the moves in effect; later moves are redoable."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    rules: Mapped[str] = mapped_column(String(16))
    start_obf: Mapped[str] = mapped_column(String(80))
    cursor: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    result: Mapped[str] = mapped_column(String(8), default="*")
    # who started the game (the client's address), and how many seats an AI
    # holds: a client may run only so many games of AI against AI at once
    client: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    ai_seats: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # several processes on one database (PostgreSQL): the AI colour to move
    # (None if no AI is to move), and which process has claimed that move,
    # until when (a process killed mid-search leaves it to the others)
    ai_turn: Mapped[str | None] = mapped_column(String(8), nullable=True, index=True)
    ai_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    ai_lease: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 - stale writes raise

    moves: Mapped[list[MoveRow]] = relationship(
        back_populates="game", order_by="MoveRow.ply", cascade="all, delete-orphan"
    )
    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="game", order_by="SeatRow.color", cascade="all, delete-orphan"
    )

    def seat(self, color: str) -> SeatRow:
        """The seat of ``"black"`` or ``"white"``."""
        for seat in self.seats:
            if seat.color == color:
                return seat
        raise KeyError(color)


class MoveRow(Base):
    """One ply: the move (``"f5"`` or ``"pass"``), who played it, the AI's search figures."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(8))
    color: Mapped[str] = mapped_column(String(8))
    by: Mapped[str] = mapped_column(String(16))  # "human", "ai" or "auto" (forced pass)
    ai_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    ai_depth: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ai_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    game: Mapped[GameRow] = relationship(back_populates="moves")


class SeatRow(Base):
    """Who plays a colour: ``player`` is a JSON spec (human or an AI with settings)."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "color"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    color: Mapped[str] = mapped_column(String(8))
    secret: Mapped[str] = mapped_column(String(64), index=True)
    player: Mapped[dict[str, Any]] = mapped_column(JSON)

    game: Mapped[GameRow] = relationship(back_populates="seats")


class ReviewRow(Base):
    """A game's latest finished review: the moves it covers (``"f5 d6 pass
    ..."``) and the review as JSON text."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    moves: Mapped[str] = mapped_column(Text)
    data: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ReviewPuzzleRow(Base):
    """A puzzle found at a mistake of a game's review (its JSON, a line of a
    puzzle file): the Puzzles page serves it like the shipped ones."""

    __tablename__ = "review_puzzles"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    puzzle_id: Mapped[str] = mapped_column(String(16), primary_key=True, index=True)
    ply: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)


class PuzzleSolverRow(Base):
    """A browser's puzzle solving: its Glicko-2 rating, streaks, counts and
    the puzzles it has seen (newest last). ``secret`` is what the browser
    keeps to prove it is this solver."""

    __tablename__ = "puzzle_solvers"

    secret: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    seen: Mapped[list[str]] = mapped_column(JSON, default=list)


def database_url(path_or_url: str) -> str:
    """A SQLAlchemy URL from ``--db``: a URL is kept, anything else is a SQLite
    path. A PostgreSQL URL without a driver gets psycopg (version 3)."""
    if "://" not in path_or_url:
        return f"sqlite:///{path_or_url}"
    for plain in ("postgresql://", "postgres://"):
        if path_or_url.startswith(plain):
            return "postgresql+psycopg://" + path_or_url[len(plain) :]
    return path_or_url


def is_shared(url: str) -> bool:
    """Whether several server processes may use the database at once
    (PostgreSQL: yes; SQLite: one process only)."""
    return make_url(database_url(url)).get_backend_name() == "postgresql"


#: The key of the PostgreSQL advisory lock held while the tables are made:
#: processes starting at once must not all create them.
_SCHEMA_LOCK = 0x6F7574666C616E6B  # "outflank"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: readers do not block the writer; each commit is on disk before we
    # answer, which is what survives kill -9 of the server process.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _sqlite_path(url: str) -> str | None:
    """The file of a SQLite URL (as SQLAlchemy reads it); raises DatabaseError
    for an in-memory database."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    path = parsed.database or ""
    uri = str(parsed.query.get("uri", "")).lower() == "true"  # a file: URI in the path
    memory = uri and (":memory:" in path or parsed.query.get("mode") == "memory")
    if path in ("", ":memory:") or memory:
        raise DatabaseError(
            "an in-memory database would lose every game (and each thread would "
            "see its own): give a file path"
        )
    return None if uri else path


#: Columns added since the first release: a database from before gets them
#: (``ALTER TABLE ... ADD COLUMN``), then :func:`_fill_added` sets their values.
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("client", "ai_seats", "ai_turn", "ai_owner", "ai_lease")
}


def _check_schema(url: str, kwargs: dict[str, Any]) -> list[tuple[str, str]]:
    """Refuse a database whose tables of our names lack our columns, before
    anything is written to it (tables, the WAL journal). Returns the columns
    an older outflank database lacks, to be added."""
    probe = create_engine(url, **kwargs)
    to_add: list[tuple[str, str]] = []
    try:
        found = inspect(probe)
        existing = set(found.get_table_names())
        for table in Base.metadata.sorted_tables:
            if table.name not in existing:
                continue
            have = {column["name"] for column in found.get_columns(table.name)}
            missing = sorted(set(table.columns.keys()) - have)
            added = set(ADDED_COLUMNS.get(table.name, ()))
            if set(missing) - added:
                missing = sorted(set(missing) - added)
                raise DatabaseError(
                    f"not an outflank database: its table {table.name!r} has no "
                    f"{', '.join(missing)} column{'s' if len(missing) > 1 else ''}"
                )
            to_add += [(table.name, name) for name in missing]
    finally:
        probe.dispose()
    return to_add


def _add_columns(engine: SqlEngine, columns: list[tuple[str, str]]) -> None:
    """Bring an older outflank database up to date: add the missing columns
    and fill them in from the games' seats."""
    with engine.begin() as connection:
        for table_name, column_name in columns:
            column = Base.metadata.tables[table_name].columns[column_name]
            kind = column.type.compile(dialect=engine.dialect)
            default = column.server_default
            extra = f" NOT NULL DEFAULT {default.arg}" if default is not None else ""  # type: ignore[attr-defined]
            connection.exec_driver_sql(
                f"ALTER TABLE {table_name} ADD COLUMN {column_name} {kind}{extra}"
            )
        for table_name in {name for name, _ in columns}:
            for index in Base.metadata.tables[table_name].indexes:
                index.create(connection, checkfirst=True)
        if ("games", "ai_seats") in columns:
            seats = Base.metadata.tables["seats"]
            games = Base.metadata.tables["games"]
            count: dict[str, int] = {}
            for game_id, player in connection.execute(select(seats.c.game_id, seats.c.player)):
                ai = isinstance(player, dict) and player.get("kind") == "ai"
                count[game_id] = count.get(game_id, 0) + int(ai)
            for game_id, n in count.items():
                if n:
                    connection.execute(
                        update(games).where(games.c.id == game_id).values(ai_seats=n)
                    )


class Storage:
    """The database: an engine, a session factory and the tables created."""

    def __init__(self, url: str) -> None:
        self.url = database_url(url)
        self.path = _sqlite_path(self.url)
        kwargs: dict[str, Any] = {"future": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        # no pool_pre_ping: a round trip before every use of a connection
        # costs more than the queries; a connection the database server
        # dropped fails one request (503) and the pool is renewed
        self.shared = is_shared(self.url)
        with self._schema_lock(kwargs):
            to_add = _check_schema(self.url, kwargs)
            self.engine: SqlEngine = create_engine(self.url, **kwargs)
            if self.url.startswith("sqlite"):
                event.listen(self.engine, "connect", _sqlite_pragmas)
            if to_add:
                _add_columns(self.engine, to_add)
            Base.metadata.create_all(self.engine)
        self._file_id = self._identify()
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        sqlite = self.url.startswith("sqlite")
        self._write_lock: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if sqlite else contextlib.nullcontext()
        )

    @contextlib.contextmanager
    def _schema_lock(self, kwargs: dict[str, Any]) -> Iterator[None]:
        """PostgreSQL: hold an advisory lock while the tables are checked and
        made (servers starting together take turns). No-op elsewhere."""
        if not self.shared:
            yield
            return
        locker = create_engine(self.url, poolclass=NullPool, **kwargs)
        try:
            with locker.connect() as connection:
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _SCHEMA_LOCK})
                connection.commit()
                try:
                    yield
                finally:
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:key)"), {"key": _SCHEMA_LOCK}
                    )
                    connection.commit()
        finally:
            locker.dispose()

    def _identify(self) -> tuple[int, int] | None:
        """The SQLite file's identity (device, inode); None for other databases."""
        if self.path is None:
            return None
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def check_file(self) -> None:
        """Raise DatabaseError if the SQLite file was deleted or replaced since
        the start: SQLite would go on writing to the deleted file, and every
        game written from then on would be lost."""
        if self._file_id is not None and self._identify() != self._file_id:
            raise DatabaseError(
                f"the database file {self.path!r} was deleted or replaced while the "
                "server ran; nothing more can be saved: restart the server"
            )

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold this while a session writes. SQLite takes one writer at a time and
        makes the others sleep and retry; queueing them on a lock here is fairer
        and keeps the slowest answers short. Other databases need no lock. A
        SQLite file deleted or replaced meanwhile is refused (DatabaseError)."""
        with self._write_lock:
            self.check_file()
            yield

    def session(self) -> Session:
        """A new session; use it in a ``with`` block and commit explicitly."""
        return self.sessions()

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()
