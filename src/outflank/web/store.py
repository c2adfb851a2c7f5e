"""Games in memory, written through to the database a few small rows at a time.

:class:`GameStore` keeps the games in play as :class:`LiveGame` objects (an
LRU cache of ``size`` games) and loads one from the database with three
primary-key queries when it is not cached. A change is made on a *copy* of
the cached game (readers never see half a change), written in one
transaction (the new ``moves`` rows, a ``seats`` row if the settings
changed, and the ``games`` row, whose ``UPDATE ... WHERE version = old``
fails if anyone else changed the game first), and only then put in the
cache. Nothing is lost if the server dies at any point: the database
holds every committed change, and a restarted server loads from it.

Several changes (AI moves of several games) may be saved in one transaction
(:meth:`GameStore.batch`): one commit for them all, and the changed games
cached once it is done.

When several processes share the database (``verify=True``), every use of
a cached game first reads its version (one indexed query); a game changed
by another process is loaded again.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, insert, or_, select, update

from outflank.web.live import LiveGame, Ply, Seat
from outflank.web.storage import GameRow, MoveRow, SeatRow, Storage

__all__ = ["Conflict", "GameStore"]

GAMES = GameRow.__table__
MOVES = MoveRow.__table__
SEATS = SeatRow.__table__


class Conflict(Exception):
    """The game changed in the database since it was read (another process)."""


def _utc(moment: datetime) -> datetime:
    """A stored time in UTC (SQLite keeps no zone, so a naive one is UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _move_row(game_id: str, ply: Ply) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "ply": ply.ply,
        "move": ply.move,
        "color": ply.color,
        "by": ply.by,
        "ai_score": ply.score,
        "ai_depth": ply.depth,
        "ai_seconds": ply.seconds,
        "created": datetime.now(UTC),
    }


class _Statements:
    """The hot statements (a move's rows) as the driver's own SQL, run on a
    raw pooled connection: no statement is built or compiled per move."""

    def __init__(self, storage: Storage) -> None:
        dialect = storage.engine.dialect
        mark = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(dialect.paramstyle)
        self.usable = mark is not None
        mark = mark or "?"
        kind = GAMES.c.updated.type.dialect_impl(dialect)
        self.time = kind.bind_processor(dialect) or (lambda value: value)
        self.update = (
            f"UPDATE games SET cursor = {mark}, version = {mark}, status = {mark}, "
            f"result = {mark}, updated = {mark}, ai_turn = {mark}, ai_owner = NULL, "
            f"ai_lease = NULL WHERE id = {mark} AND version = {mark}"
        )
        self.delete = f"DELETE FROM moves WHERE game_id = {mark} AND ply >= {mark}"
        columns = "game_id, ply, move, color, by, ai_score, ai_depth, ai_seconds, created"
        self.insert = f"INSERT INTO moves ({columns}) VALUES ({', '.join([mark] * 9)})"
        if dialect.name == "postgresql":  # "by" is a keyword there
            self.insert = self.insert.replace(", by,", ', "by",')
        self.new_game = (
            "INSERT INTO games (id, created, updated, rules, start_obf, cursor, version, "
            "status, result, client, ai_seats, ai_turn) "
            f"VALUES ({', '.join([mark] * 12)})"
        )
        self.new_seat = (
            f"INSERT INTO seats (game_id, color, secret, player) VALUES ({', '.join([mark] * 4)})"
        )
        player = SEATS.c.player.type.dialect_impl(dialect)
        self.player = player.bind_processor(dialect) or (lambda value: value)
        self.version = f"SELECT version FROM games WHERE id = {mark}"
        self.claim = (
            f"UPDATE games SET ai_owner = {mark}, ai_lease = {mark} WHERE id = {mark} AND "
            f"version = {mark} AND (ai_owner IS NULL OR ai_owner = {mark} OR ai_lease < {mark})"
        )
        # psycopg: one statement on its own needs no transaction (autocommit:
        # no BEGIN, no COMMIT or ROLLBACK round trip)
        self.autocommit = storage.engine.driver == "psycopg"


class GameStore:
    """Load, cache and save games; see the module's docstring."""

    def __init__(self, storage: Storage, *, size: int = 4096, verify: bool = False) -> None:
        self.storage = storage
        self.size = size
        self.verify = verify
        self._cache: OrderedDict[str, LiveGame] = OrderedDict()
        self._lock = threading.Lock()
        self._sql = _Statements(storage)
        self._local = threading.local()  # this thread's batch, if any

    # ------------------------------------------------------------ reading
    def _single(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, int]:
        """Run one statement on its own on a pooled connection: (its first
        row's first value or None, the rows it changed)."""
        raw = self.storage.engine.raw_connection()
        try:
            driver = raw.driver_connection
            if self._sql.autocommit:
                driver.autocommit = True  # type: ignore[union-attr]
            try:
                cursor = raw.cursor()
                cursor.execute(sql, params)
                row = cursor.fetchone() if cursor.description else None
                changed = cursor.rowcount
                cursor.close()
                if not self._sql.autocommit:
                    raw.commit()
            finally:
                if self._sql.autocommit:
                    driver.autocommit = False  # type: ignore[union-attr]
        except BaseException:
            with contextlib.suppress(Exception):
                raw.rollback()
            raise
        finally:
            raw.close()
        return (row[0] if row else None), changed

    def get(self, game_id: str) -> LiveGame | None:
        """The game (cached, or loaded), or None if there is no such game."""
        with self._lock:
            game = self._cache.get(game_id)
            if game is not None:
                self._cache.move_to_end(game_id)
        if game is not None and self.verify:
            version = (
                self._single(self._sql.version, (game_id,))[0]
                if self._sql.usable
                else self._version(game_id)
            )
            if version is None:
                self.forget(game_id)
                return None
            if version != game.version:
                game = self.load(game_id, since=game)
                if game is not None:
                    self.keep(game)
                return game
        if game is None:
            game = self.load(game_id)
            if game is not None:
                self.keep(game)
        return game

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these games (a game not stored is left out)."""
        found: dict[str, int] = {}
        with self.storage.engine.connect() as connection:
            for start in range(0, len(game_ids), 500):
                chunk = game_ids[start : start + 500]
                rows = connection.execute(
                    select(GAMES.c.id, GAMES.c.version).where(GAMES.c.id.in_(chunk))
                )
                found.update((game_id, version) for game_id, version in rows)
        return found

    def _version(self, game_id: str) -> int | None:
        with self.storage.engine.connect() as connection:
            return connection.execute(select(GAMES.c.version).where(GAMES.c.id == game_id)).scalar()

    def load(self, game_id: str, since: LiveGame | None = None) -> LiveGame | None:
        """The game as the database holds it now (not cached), or None.

        With ``since`` (an older copy of the game) and a stored game one
        change ahead of it, only the plies from ``since``'s cursor on are
        read: one change (a move at the cursor, an undo, a redo, new
        settings) leaves every ply before the cursor as it was. Several
        processes: the rows are read in one snapshot (repeatable read)."""
        connection = self.storage.engine.connect()
        if self.storage.shared:
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection:
            return self._read(connection, game_id, since)

    def _read(
        self, connection: Connection, game_id: str, since: LiveGame | None
    ) -> LiveGame | None:
        row = connection.execute(select(GAMES).where(GAMES.c.id == game_id)).first()
        if row is None:
            return None
        if since is not None and row.version != since.version + 1:
            since = None  # more than one change: read it all
        seats = {
            color: Seat(color, secret, dict(player))
            for color, secret, player in connection.execute(
                select(SEATS.c.color, SEATS.c.secret, SEATS.c.player).where(
                    SEATS.c.game_id == game_id
                )
            )
        }
        first = 0 if since is None else since.cursor
        moves = connection.execute(
            select(
                MOVES.c.ply,
                MOVES.c.move,
                MOVES.c.color,
                MOVES.c.by,
                MOVES.c.ai_score,
                MOVES.c.ai_depth,
                MOVES.c.ai_seconds,
            )
            .where(MOVES.c.game_id == game_id, MOVES.c.ply >= first)
            .order_by(MOVES.c.ply)
        ).all()
        if since is None:
            game = LiveGame(
                id=row.id,
                rules=row.rules,
                start_obf=row.start_obf,
                created=_utc(row.created),
                updated=_utc(row.updated),
                cursor=row.cursor,
                version=row.version,
                status=row.status,
                result=row.result,
                client=row.client,
                ai_seats=row.ai_seats or 0,
                seats=seats,
            )
        else:
            game = since.clone()
            game.truncate()  # the plies from its cursor on are read again
            game.updated = _utc(row.updated)
            game.cursor = row.cursor
            game.version = row.version
            game.status = row.status
            game.result = row.result
            game.ai_seats = row.ai_seats or 0
            game.seats = seats
        game.replay([tuple(m) for m in moves])
        return game

    def keep(self, game: LiveGame) -> None:
        """Cache ``game`` (the newest version wins)."""
        with self._lock:
            cached = self._cache.get(game.id)
            if cached is None or cached.version <= game.version:
                self._cache[game.id] = game
            self._cache.move_to_end(game.id)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (it is loaded again when next used)."""
        with self._lock:
            self._cache.pop(game_id, None)

    def cached(self, game_id: str) -> LiveGame | None:
        """The cached game, without asking the database."""
        with self._lock:
            return self._cache.get(game_id)

    # ------------------------------------------------------------ writing
    def insert(self, game: LiveGame) -> None:
        """Store a new game (its rows), then cache it."""
        if self._sql.usable:
            self._insert_raw(game)
            self.keep(game)
            return
        with self.storage.writing(), self.storage.engine.begin() as connection:
            connection.execute(
                insert(GAMES).values(
                    id=game.id,
                    created=game.created,
                    updated=game.updated,
                    rules=game.rules,
                    start_obf=game.start_obf,
                    cursor=game.cursor,
                    version=game.version,
                    status=game.status,
                    result=game.result,
                    client=game.client,
                    ai_seats=game.ai_seats,
                    ai_turn=game.ai_to_move(),
                )
            )
            connection.execute(
                insert(SEATS),
                [
                    {"game_id": game.id, "color": s.color, "secret": s.secret, "player": s.player}
                    for s in game.seats.values()
                ],
            )
            if game.plies:
                connection.execute(insert(MOVES), [_move_row(game.id, p) for p in game.plies])
        self.keep(game)

    def save(
        self,
        game: LiveGame,
        old_version: int,
        *,
        dropped_from: int | None = None,
        new_plies: int = 0,
        seat: str | None = None,
    ) -> None:
        """Write a changed copy of a game: the plies from ``dropped_from`` on
        are deleted, the last ``new_plies`` inserted, the ``seat`` colour's
        settings updated, and the game row moved from ``old_version`` to
        ``game.version``. Raises :class:`Conflict` (nothing written) if the
        stored game is no longer at ``old_version``; then caches ``game``."""
        if seat is None and self._sql.usable:
            self._save_raw(game, old_version, dropped_from, new_plies)
            batch = getattr(self._local, "batch", None)
            if batch is None:
                self.keep(game)
            else:
                batch.append(game)  # cached once the batch is committed
            return
        if getattr(self._local, "batch", None) is not None:
            raise RuntimeError("a batch saves moves only (no new seat settings)")
        with self.storage.writing(), self.storage.engine.begin() as connection:
            done = connection.execute(
                update(GAMES)
                .where(GAMES.c.id == game.id, GAMES.c.version == old_version)
                .values(
                    cursor=game.cursor,
                    version=game.version,
                    status=game.status,
                    result=game.result,
                    updated=game.updated,
                    ai_turn=game.ai_to_move(),  # a new version: any claim is void
                    ai_owner=None,
                    ai_lease=None,
                )
            )
            if done.rowcount != 1:
                raise Conflict(game.id)
            if dropped_from is not None:
                connection.execute(
                    delete(MOVES).where(MOVES.c.game_id == game.id, MOVES.c.ply >= dropped_from)
                )
            if new_plies:
                rows = [_move_row(game.id, p) for p in game.plies[-new_plies:]]
                connection.execute(insert(MOVES), rows)
            if seat is not None:
                connection.execute(
                    update(SEATS)
                    .where(SEATS.c.game_id == game.id, SEATS.c.color == seat)
                    .values(player=game.seats[seat].player)
                )
        self.keep(game)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Save this thread's changes in the block (:meth:`save`: moves, undos,
        not seats) in one transaction, committed at the end of the block and
        only then cached; if the block or the commit raises, nothing of it is
        written (the cache keeps the games as they were). A
        :class:`Conflict` inside the block writes nothing for that game and
        leaves the others' changes in the batch."""
        if not self._sql.usable or getattr(self._local, "batch", None) is not None:
            yield  # no raw statements here (or already in a batch): save one by one
            return
        saved: list[LiveGame] = []
        with self._raw_transaction() as cursor:
            self._local.cursor, self._local.batch = cursor, saved
            try:
                yield
            finally:
                self._local.cursor = self._local.batch = None
        for game in saved:
            self.keep(game)

    @contextlib.contextmanager
    def _raw_transaction(self) -> Iterator[Any]:
        """A driver cursor in one transaction on a pooled connection, under
        the storage's write lock: committed at the end of the block, rolled
        back if it raises. In a :meth:`batch`, the batch's cursor (its
        transaction is committed by the batch)."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is not None:
            yield cursor
            return
        with self.storage.writing():
            raw = self.storage.engine.raw_connection()
            try:
                cursor = raw.cursor()
                yield cursor
                cursor.close()
                raw.commit()
            except BaseException:
                raw.rollback()
                raise
            finally:
                raw.close()

    def _move_rows(self, game: LiveGame, plies: list[Ply]) -> list[tuple[Any, ...]]:
        now = self._sql.time(datetime.now(UTC))
        return [
            (game.id, p.ply, p.move, p.color, p.by, p.score, p.depth, p.seconds, now) for p in plies
        ]

    def _insert_raw(self, game: LiveGame) -> None:
        sql = self._sql
        with self._raw_transaction() as cursor:
            cursor.execute(
                sql.new_game,
                (
                    game.id,
                    sql.time(game.created),
                    sql.time(game.updated),
                    game.rules,
                    game.start_obf,
                    game.cursor,
                    game.version,
                    game.status,
                    game.result,
                    game.client,
                    game.ai_seats,
                    game.ai_to_move(),
                ),
            )
            cursor.executemany(
                sql.new_seat,
                [(game.id, s.color, s.secret, sql.player(s.player)) for s in game.seats.values()],
            )
            if game.plies:
                cursor.executemany(sql.insert, self._move_rows(game, game.plies))

    def _save_raw(
        self, game: LiveGame, old_version: int, dropped_from: int | None, new_plies: int
    ) -> None:
        sql = self._sql
        with self._raw_transaction() as cursor:
            cursor.execute(
                sql.update,
                (
                    game.cursor,
                    game.version,
                    game.status,
                    game.result,
                    sql.time(game.updated),
                    game.ai_to_move(),
                    game.id,
                    old_version,
                ),
            )
            if cursor.rowcount != 1:
                raise Conflict(game.id)
            if dropped_from is not None:
                cursor.execute(sql.delete, (game.id, dropped_from))
            if new_plies:
                cursor.executemany(sql.insert, self._move_rows(game, game.plies[-new_plies:]))

    # ------------------------------------------------------------ AI claims
    def claim(self, game_id: str, version: int, owner: str, lease: float) -> bool:
        """Claim the AI move of the game at ``version`` for ``owner`` (a server
        process) for ``lease`` seconds: True if this process may search it,
        False if the game has changed or another process holds a claim that
        has not expired. Any change of the game voids the claim."""
        now = datetime.now(UTC)
        if self._sql.usable:
            until, at = self._sql.time(now + timedelta(seconds=lease)), self._sql.time(now)
            params = (owner, until, game_id, version, owner, at)
            return self._single(self._sql.claim, params)[1] == 1
        with self.storage.engine.begin() as connection:
            done = connection.execute(
                update(GAMES)
                .where(
                    GAMES.c.id == game_id,
                    GAMES.c.version == version,
                    or_(
                        GAMES.c.ai_owner.is_(None),
                        GAMES.c.ai_owner == owner,
                        GAMES.c.ai_lease < now,
                    ),
                )
                .values(ai_owner=owner, ai_lease=now + timedelta(seconds=lease))
            )
            return done.rowcount == 1

    def owed(self, grace: float, limit: int = 100) -> list[tuple[str, int]]:
        """``(id, ai_seats)`` of games whose AI move nobody is making: no claim
        (and unchanged for ``grace`` seconds, time for the process that
        changed it to claim it) or a claim expired (its process died)."""
        now = datetime.now(UTC)
        with self.storage.engine.connect() as connection:
            rows = connection.execute(
                select(GAMES.c.id, GAMES.c.ai_seats)
                .where(
                    GAMES.c.ai_turn.is_not(None),
                    GAMES.c.status == "playing",
                    or_(
                        GAMES.c.ai_lease < now,
                        and_(
                            GAMES.c.ai_owner.is_(None),
                            GAMES.c.updated < now - timedelta(seconds=grace),
                        ),
                    ),
                )
                .order_by(GAMES.c.updated)
                .limit(limit)
            ).all()
        return [(game_id, ai_seats or 0) for game_id, ai_seats in rows]

    # ------------------------------------------------------------ lists
    def recent(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """The most recently changed games' rows, newest first, with their players."""
        with self.storage.engine.connect() as connection:
            rows = connection.execute(
                select(
                    GAMES.c.id,
                    GAMES.c.rules,
                    GAMES.c.status,
                    GAMES.c.result,
                    GAMES.c.cursor,
                    GAMES.c.updated,
                )
                .order_by(GAMES.c.updated.desc(), GAMES.c.id)
                .offset(offset)
                .limit(limit)
            ).all()
            players: dict[tuple[str, str], dict[str, Any]] = {}
            if rows:
                found = connection.execute(
                    select(SEATS.c.game_id, SEATS.c.color, SEATS.c.player).where(
                        SEATS.c.game_id.in_([row.id for row in rows])
                    )
                )
                players = {(game_id, color): player for game_id, color, player in found}
        return [
            {
                "id": row.id,
                "rules": row.rules,
                "status": row.status,
                "result": row.result,
                "plies": row.cursor,
                "updated": _utc(row.updated),
                "black": players.get((row.id, "black"), {}),
                "white": players.get((row.id, "white"), {}),
            }
            for row in rows
        ]

    def playing(self) -> list[tuple[str, int]]:
        """``(id, ai_seats)`` of every unfinished game."""
        with self.storage.engine.connect() as connection:
            return [
                (game_id, ai_seats or 0)
                for game_id, ai_seats in connection.execute(
                    select(GAMES.c.id, GAMES.c.ai_seats).where(GAMES.c.status == "playing")
                )
            ]

    def ai_games_of(self, client: str) -> int:
        """How many games of AI against AI ``client`` has playing."""
        from sqlalchemy import func

        with self.storage.engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(GAMES)
                    .where(
                        GAMES.c.client == client,
                        GAMES.c.ai_seats == 2,
                        GAMES.c.status == "playing",
                    )
                ).scalar()
                or 0
            )
