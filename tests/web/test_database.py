"""The database under the web app: what cannot hold games is refused at
start, and a file that disappears under a running server stops the saving
with a clear answer instead of losing games in silence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from outflank.web.app import create_app
from outflank.web.storage import DatabaseError, Storage
from web.conftest import move, new_game

LEVEL1 = {"kind": "ai", "ai": "level", "level": 1}


@pytest.mark.parametrize("url", [":memory:", "sqlite://", "", "sqlite:///:memory:"])
def test_an_in_memory_database_is_refused(url: str) -> None:
    with pytest.raises(DatabaseError, match="in-memory"):
        Storage(url)


def test_another_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (id TEXT PRIMARY KEY, status TEXT)")
    with pytest.raises(DatabaseError, match="not an outflank database: its table 'games'"):
        Storage(str(path))


def test_a_deleted_database_file_stops_the_saving(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with TestClient(create_app(str(path), ai_delay=0.0)) as client:
        game_id, seats, _ = new_game(client)
        assert move(client, game_id, seats["black"], "f5").status_code == 200
        for name in ("games.db", "games.db-wal", "games.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        answer = move(client, game_id, seats["white"], "d6")
        assert answer.status_code == 503 and "deleted or replaced" in answer.json()["error"]
        created = client.post("/api/games", json={})
        assert created.status_code == 503


def test_serve_explains_a_foreign_database(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from outflank.cli import main

    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    assert main(["serve", "--db", str(path), "--port", "0"]) == 2
    assert "not an outflank database" in capsys.readouterr().err


def test_a_websocket_move_is_told_the_database_is_gone(tmp_path: Path) -> None:
    """The page plays over the WebSocket: it must get the 503, not a dropped
    connection it silently reconnects."""
    path = tmp_path / "games.db"
    with TestClient(create_app(str(path), ai_delay=0.0)) as client:
        game_id, seats, _ = new_game(client)
        with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}") as ws:
            ws.receive_json()
            for name in ("games.db", "games.db-wal", "games.db-shm"):
                (tmp_path / name).unlink(missing_ok=True)
            ws.send_json({"type": "move", "move": "f5"})
            error = ws.receive_json()
            assert error["status"] == 503 and "deleted or replaced" in error["error"]
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}  # the connection lives on


def test_a_refused_database_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    before = path.read_bytes()
    with pytest.raises(DatabaseError):
        Storage(str(path))
    assert path.read_bytes() == before and not (tmp_path / "other.db-wal").exists()


@pytest.mark.parametrize(
    "url", ["sqlite:///file::memory:?uri=true", "sqlite:///file:x?mode=memory&uri=true"]
)
def test_in_memory_uris_are_refused_too(url: str) -> None:
    with pytest.raises(DatabaseError, match="in-memory"):
        Storage(url)


def test_a_url_encoded_path_is_watched_as_sqlite_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "a b.db"
    storage = Storage(f"sqlite:///{str(path).replace(' ', '%20')}")
    try:
        assert storage.path == str(path) and path.exists()
        path.unlink()
        with pytest.raises(DatabaseError, match="deleted or replaced"):
            storage.check_file()
    finally:
        storage.close()


def test_an_older_outflank_database_gets_the_new_columns(tmp_path: Path) -> None:
    """A database from before the AI-game cap (no client, ai_seats) is
    brought up to date, its games intact and their AI seats counted."""
    path = tmp_path / "old.db"
    with TestClient(create_app(str(path), ai_delay=60.0)) as client:
        two_ais, _, _ = new_game(client, black={"kind": "ai", "ai": "greedy"}, white=LEVEL1)
        friends, seats, _ = new_game(client)
        move(client, friends, seats["black"], "f5")
    with sqlite3.connect(path) as connection:
        connection.execute("DROP INDEX ix_games_client")
        connection.execute("ALTER TABLE games DROP COLUMN client")
        connection.execute("ALTER TABLE games DROP COLUMN ai_seats")
    with TestClient(create_app(str(path), ai_delay=60.0)) as client:
        assert client.get(f"/api/games/{friends}").json()["transcript"] == "f5"
    with sqlite3.connect(path) as connection:
        rows = dict(connection.execute("SELECT id, ai_seats FROM games").fetchall())
        indexes = {row[1] for row in connection.execute("PRAGMA index_list(games)")}
    assert rows == {two_ais: 2, friends: 0} and "ix_games_client" in indexes
