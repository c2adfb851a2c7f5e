"""The web app on a real PostgreSQL server (tests/postgres.py): the same
games as on SQLite, and two apps on one database seeing each other's moves,
claiming each AI move once, and taking over a move whose claimer died."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update

from outflank.web.app import create_app
from outflank.web.storage import GameRow, SeatRow, Storage, database_url, is_shared
from outflank.web.store import GameStore
from web.conftest import move, new_game, wait_for

LEVEL1 = {"kind": "ai", "ai": "level", "level": 1}


def test_a_plain_postgresql_url_gets_psycopg() -> None:
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert is_shared("postgresql://u@h/db") and not is_shared("games.db")


def test_games_are_played_and_kept_on_postgresql(pg_url: str) -> None:
    with TestClient(create_app(pg_url, ai_delay=0.0, time_cap=5.0)) as client:
        game_id, seats, _ = new_game(client, white=LEVEL1)
        assert move(client, game_id, seats["black"], "f5").status_code == 200
        state = wait_for(client, game_id, lambda s: s["cursor"] == 2)
        undone = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["black"]})
        assert undone.status_code == 200 and undone.json()["cursor"] == 0
        redone = client.post(f"/api/games/{game_id}/redo", json={"seat": seats["black"]})
        assert redone.json()["cursor"] == 2
    # a new server on the same database finds the game as it was
    with TestClient(create_app(pg_url.replace("+psycopg", ""), ai_delay=0.0)) as client:
        again = client.get(f"/api/games/{game_id}").json()
        assert again["board"] == state["board"] and again["cursor"] == 2
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [game_id]


def test_two_servers_see_each_others_moves(pg_url: str) -> None:
    """A move made through one app reaches the other's WebSocket and long
    poll, and the other's cache answers with the new state."""
    one = create_app(pg_url, ai_delay=0.0)
    two = create_app(pg_url, ai_delay=0.0)
    with TestClient(one) as first, TestClient(two) as second:
        game_id, seats, _ = new_game(first)
        assert second.get(f"/api/games/{game_id}").json()["cursor"] == 0  # cached there now
        with second.websocket_connect(f"/ws/games/{game_id}") as spectator:
            seen = spectator.receive_json()["state"]["version"]

            def next_state() -> dict:
                # the next newer state (the game's creation may be told twice)
                while True:
                    event = spectator.receive_json()
                    if event["type"] == "state" and event["state"]["version"] > seen:
                        return event["state"]

            assert move(first, game_id, seats["black"], "f5").status_code == 200
            state = next_state()
            assert state["last"] == "f5"
            seen = state["version"]
            # and a move through the other app reaches the socket too
            assert move(second, game_id, seats["white"], "d6").status_code == 200
            assert next_state()["transcript"] == "f5d6"
        assert first.get(f"/api/games/{game_id}").json()["transcript"] == "f5d6"
        polled = first.get(f"/api/games/{game_id}", params={"since": 2, "wait": 10})
        # a long poll on one app wakes on the other's move
        assert polled.json()["version"] >= 2
        version = first.get(f"/api/games/{game_id}").json()["version"]
        started = time.monotonic()
        with first.websocket_connect(f"/ws/games/{game_id}"):
            pass
        move(second, game_id, seats["black"], "c3")
        state = wait_for(first, game_id, lambda s: s["version"] > version, timeout=10)
        assert state["transcript"] == "f5d6c3" and time.monotonic() - started < 10


def test_an_ai_move_is_claimed_by_one_process(pg_url: str) -> None:
    storage = Storage(pg_url)
    try:
        with TestClient(create_app(pg_url, ai_delay=0.0)) as client:
            game_id, seats, _ = new_game(client, white=LEVEL1)
            move(client, game_id, seats["black"], "f5")
            wait_for(client, game_id, lambda s: s["cursor"] == 2)
            client.post(f"/api/games/{game_id}/undo", json={"seat": seats["black"]})
            state = client.get(f"/api/games/{game_id}").json()
        store = GameStore(storage)
        version = state["version"]
        # no AI is to move after the undo; make the stored game owe one
        with storage.engine.begin() as connection:
            connection.execute(
                update(GameRow.__table__).where(GameRow.id == game_id).values(ai_turn="white")
            )
        assert store.claim(game_id, version, "a", lease=30)
        assert not store.claim(game_id, version, "b", lease=30)  # a's, for 30 s
        assert store.claim(game_id, version, "a", lease=30)  # a may renew its own
        assert not store.claim(game_id, version + 1, "a", lease=30)  # another version
        assert store.owed(grace=0) == []  # claimed: owed to nobody
        expired = datetime.now(UTC) - timedelta(seconds=1)
        with storage.engine.begin() as connection:
            connection.execute(
                update(GameRow.__table__).where(GameRow.id == game_id).values(ai_lease=expired)
            )
        assert store.owed(grace=0) == [(game_id, 1)]  # a died: the move is owed
        assert store.claim(game_id, version, "b", lease=30)  # and b may take it
        # any change of the game voids the claim
        game = store.get(game_id)
        assert game is not None
        changed = game.clone()
        changed.changed()
        store.save(changed, version)
        with storage.engine.connect() as connection:
            row = connection.execute(GameRow.__table__.select().where(GameRow.id == game_id)).one()
        assert row.ai_owner is None and row.ai_lease is None and row.ai_turn is None
    finally:
        storage.close()


def test_a_move_owed_by_a_dead_process_is_made_by_another(pg_url: str) -> None:
    """A game whose AI move was claimed by a process that is gone is left
    alone until the claim's lease runs out, then found by another process's
    sweep and played, once."""
    storage = Storage(pg_url)
    store = GameStore(storage)
    try:
        with TestClient(create_app(pg_url, ai_delay=0.0)) as client:
            game_id, _, _ = new_game(client, start="f5")
        # white becomes an AI whose move a dead process claimed, for 2 more seconds
        games, seats = GameRow.__table__, SeatRow.__table__
        with storage.engine.begin() as connection:
            connection.execute(
                update(seats)
                .where(seats.c.game_id == game_id, seats.c.color == "white")
                .values(player=LEVEL1)
            )
            connection.execute(
                update(games)
                .where(games.c.id == game_id)
                .values(
                    ai_seats=1,
                    ai_turn="white",
                    ai_owner="dead",
                    ai_lease=datetime.now(UTC) + timedelta(seconds=2),
                )
            )
        started = time.monotonic()
        with TestClient(create_app(pg_url, ai_delay=0.0)) as client:
            done = wait_for(client, game_id, lambda s: s["cursor"] == 2, timeout=20)
        assert time.monotonic() - started > 1.5  # not before the lease ran out
        game = store.load(game_id)
        assert game is not None and [p.by for p in game.plies] == ["setup", "ai"]
        assert done["players"]["white"]["kind"] == "ai"
    finally:
        storage.close()


def test_a_cache_follows_the_changes_of_another_process(pg_url: str) -> None:
    """Each change made through one app (moves, undo, redo, a move after an
    undo that drops the redoable plies) is seen by the other app's cache,
    which reads only the new plies, as a fresh read of the database has it."""
    one = create_app(pg_url, ai_delay=0.0)
    two = create_app(pg_url, ai_delay=0.0)
    with TestClient(one) as first, TestClient(two) as second:
        game_id, seats, _ = new_game(first)
        black, white = seats["black"], seats["white"]
        steps = [
            ("move", black, "f5"),
            ("move", white, "d6"),
            ("move", black, "c3"),
            ("undo", black, None),
            ("redo", black, None),
            ("undo", black, None),
            ("move", black, "c5"),  # drops the redoable c3
            ("move", white, "f4"),
            ("undo", white, None),
            ("undo", black, None),
            ("move", black, "c4"),
        ]
        store = two.state.service.store
        second.get(f"/api/games/{game_id}")  # cached in the second app
        for kind, seat, square in steps:
            if kind == "move":
                answer = move(first, game_id, seat, square)
            else:
                answer = first.post(f"/api/games/{game_id}/{kind}", json={"seat": seat})
            assert answer.status_code == 200, answer.text
            seen = second.get(f"/api/games/{game_id}").json()
            seen.pop("you", None)
            fresh = store.load(game_id)  # all of it, from the database
            assert fresh is not None and seen == fresh.state()
            said = answer.json()
            said.pop("you", None)
            assert seen == said
        assert seen["transcript"] == "f5d6c4"


def test_the_relay_carries_events_between_processes(pg_url: str) -> None:
    """Each relay hands the other's events on, not its own; a state goes as
    its game and version; a malformed notification or an event too big for
    one is dropped, and the events after it still arrive."""
    import queue

    import psycopg

    from outflank.web.relay import CHANNEL, PgRelay

    got: dict[str, queue.Queue] = {"a": queue.Queue(), "b": queue.Queue()}
    relays = {name: PgRelay(pg_url, name, got[name].put) for name in ("a", "b")}
    try:
        for relay in relays.values():
            relay.start()
        relays["a"].send("g1", "info", None, '{"type":"info","depth":3}')
        relays["a"].send("g1", "state", 7, '{"type":"state","state":{"big":"' + "x" * 9000 + '"}}')
        assert got["b"].get(timeout=10) == ("g1", "info", None, '{"type":"info","depth":3}')
        assert got["b"].get(timeout=10) == ("g1", "state", 7, None)
        relays["b"].send("g2", "info", None, '{"type":"info","pv":"' + "x" * 9000 + '"}')
        with psycopg.connect(relays["b"].conninfo, autocommit=True) as connection:
            connection.execute(f"NOTIFY {CHANNEL}, 'not json'")
        relays["b"].send("g2", "thinking", None, '{"type":"thinking","color":"white"}')
        assert got["a"].get(timeout=10) == (
            "g2",
            "thinking",
            None,
            '{"type":"thinking","color":"white"}',
        )
        assert got["a"].empty() and got["b"].empty()  # nobody hears itself
    finally:
        for relay in relays.values():
            relay.close()
