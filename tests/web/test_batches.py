"""One process on SQLite: requests' changes on the event loop, AI moves made in
batches there with one commit (GameStore.batch), and the deadline thread
woken only when it must be."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from outflank.board import Board, Move
from outflank.web.ai import AIMove, Deadlines
from outflank.web.app import create_app
from outflank.web.live import COLORS, LiveGame, Seat
from outflank.web.routes.common import changing
from outflank.web.scheduler import AIScheduler, Next
from outflank.web.schemas import NewGame
from outflank.web.service import GameService, _Searched
from outflank.web.storage import Storage
from outflank.web.store import Conflict, GameStore
from web.conftest import new_game

LEVEL1 = {"kind": "ai", "ai": "level", "level": 1}


def _until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


# ---------------------------------------------------------------- scheduler
def test_a_batch_takes_the_waiting_peoples_games_at_once() -> None:
    gate = threading.Event()
    batches: list[list[str]] = []
    singles: list[str] = []

    def batch(game_ids: list[str]) -> dict[str, Next | None]:
        gate.wait(10)
        batches.append(game_ids)
        return {}

    def step(game_id: str) -> Next | None:
        singles.append(game_id)
        return None

    scheduler = AIScheduler(1, step, batch=batch, batch_size=3)
    try:
        scheduler.submit("p0")  # taken alone: the worker was idle
        _until(lambda: scheduler.pending() == 1 and not scheduler._people)
        for n in range(1, 6):
            scheduler.submit(f"p{n}")
        scheduler.submit("ai", background=True)
        gate.set()
        _until(lambda: scheduler.pending() == 0)
    finally:
        scheduler.close()
    # people's games in batches of at most 3, in the order they asked; the
    # game of AI against AI alone, through step, after them
    assert batches == [["p0"], ["p1", "p2", "p3"], ["p4", "p5"]]
    assert singles == ["ai"]


def test_a_batch_says_what_each_game_does_next() -> None:
    moves = {"a": 2, "b": 1}
    ran: list[list[str]] = []

    def batch(game_ids: list[str]) -> dict[str, Next | None]:
        ran.append(sorted(game_ids))
        for game_id in game_ids:
            moves[game_id] -= 1
        return {g: Next(background=False) for g in game_ids if moves[g]}  # b: left out

    scheduler = AIScheduler(1, lambda g: None, batch=batch)
    try:
        scheduler.submit("a")
        scheduler.submit("b")
        _until(lambda: moves == {"a": 0, "b": 0} and scheduler.pending() == 0)
    finally:
        scheduler.close()
    assert moves == {"a": 0, "b": 0}


def test_a_failing_batch_keeps_its_thread() -> None:
    ran: list[list[str]] = []

    def batch(game_ids: list[str]) -> dict[str, Next | None]:
        ran.append(game_ids)
        if len(ran) == 1:
            raise RuntimeError("boom")
        return {}

    scheduler = AIScheduler(1, lambda g: None, batch=batch)
    try:
        scheduler.submit("a")
        _until(lambda: len(ran) == 1 and scheduler.pending() == 0)
        scheduler.submit("b")
        _until(lambda: len(ran) == 2)
    finally:
        scheduler.close()
    assert ran == [["a"], ["b"]]


def test_a_batch_holds_at_least_one_game() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        AIScheduler(1, lambda g: None, batch=lambda ids: {}, batch_size=0)


# ---------------------------------------------------------------- store
def _game(store: GameStore, game_id: str) -> LiveGame:
    seats = {c: Seat(c, f"{game_id}-{c}", {"kind": "human"}) for c in COLORS}
    game = LiveGame.new(game_id, Board(), seats)
    store.insert(game)
    return game


def _moved(game: LiveGame) -> LiveGame:
    changed = game.clone()
    changed.push(Move.from_str(str(changed.position().legal_moves[0])), "human")
    changed.changed()
    return changed


def _stored_cursor(path: Path, game_id: str) -> int | None:
    storage = Storage(str(path))
    try:
        game = GameStore(storage).load(game_id)
        return None if game is None else game.cursor
    finally:
        storage.close()


def test_a_batch_commits_every_game_once_and_caches_them_after(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "b.db"))
    store = GameStore(storage)
    games = [_game(store, f"g{n}") for n in range(3)]
    with store.batch():
        for game in games:
            store.save(_moved(game), game.version, new_plies=1)
            # not cached, not visible to another connection, before the commit
            assert store.cached(game.id).version == game.version  # type: ignore[union-attr]
            assert _stored_cursor(tmp_path / "b.db", game.id) == 0
    for game in games:
        assert store.cached(game.id).cursor == 1  # type: ignore[union-attr]
        assert _stored_cursor(tmp_path / "b.db", game.id) == 1
    storage.close()


def test_a_conflict_in_a_batch_leaves_the_other_games(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "b.db"))
    store = GameStore(storage)
    first, second = _game(store, "a"), _game(store, "b")
    with store.batch():
        with pytest.raises(Conflict):
            store.save(_moved(first), first.version + 5, new_plies=1)  # not its version
        store.save(_moved(second), second.version, new_plies=1)
    assert _stored_cursor(tmp_path / "b.db", "a") == 0
    assert _stored_cursor(tmp_path / "b.db", "b") == 1
    storage.close()


def test_a_batch_that_raises_writes_nothing(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "b.db"))
    store = GameStore(storage)
    games = [_game(store, f"g{n}") for n in range(2)]
    with pytest.raises(RuntimeError, match="stop"), store.batch():
        for game in games:
            store.save(_moved(game), game.version, new_plies=1)
        raise RuntimeError("stop")
    for game in games:
        assert _stored_cursor(tmp_path / "b.db", game.id) == 0
        assert store.cached(game.id).cursor == 0  # type: ignore[union-attr]
    # and the store writes as before
    store.save(_moved(games[0]), games[0].version, new_plies=1)
    assert _stored_cursor(tmp_path / "b.db", games[0].id) == 1
    storage.close()


# ---------------------------------------------------------------- service
def test_work_for_the_loop_runs_on_its_thread_or_here_without_one(tmp_path: Path) -> None:
    service = GameService(Storage(str(tmp_path / "s.db")), workers=1)
    try:
        here = threading.get_ident()
        assert service._on_loop(threading.get_ident) == here  # no loop attached

        async def serve() -> tuple[int, int]:
            service.attach(asyncio.get_running_loop())
            ran = await asyncio.to_thread(service._on_loop, threading.get_ident)
            return ran, threading.get_ident()

        ran, loop_thread = asyncio.run(serve())
        assert ran == loop_thread
        # the loop has stopped: the work runs on the caller's thread
        assert service._on_loop(threading.get_ident) == here
    finally:
        service.close()


def test_a_change_runs_on_the_loop_on_sqlite_else_on_a_thread(tmp_path: Path) -> None:
    service = GameService(Storage(str(tmp_path / "s.db")), workers=1)
    try:

        async def where() -> tuple[int, int]:
            return await changing(service, threading.get_ident), threading.get_ident()

        ran, loop_thread = asyncio.run(where())
        assert service.inline and ran == loop_thread
        service.inline = False  # as on PostgreSQL
        ran, loop_thread = asyncio.run(where())
        assert ran != loop_thread
    finally:
        service.close()


def test_every_ai_move_published_is_committed(tmp_path: Path) -> None:
    """Many games answered at once (their AI moves made in batches): each
    AI state a WebSocket receives is already in the database."""
    db = tmp_path / "w.db"
    with TestClient(create_app(str(db), ai_workers=1, ai_delay=0)) as client:
        games = [new_game(client, white=LEVEL1) for _ in range(12)]
        sockets = [
            client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}")
            for game_id, seats, _ in games
        ]
        try:
            for ws in sockets:
                ws.__enter__()
                assert ws.receive_json()["type"] == "state"
            for game_id, seats, state in games:
                move = state["legal"][0]
                answer = client.post(
                    f"/api/games/{game_id}/moves", json={"seat": seats["black"], "move": move}
                )
                assert answer.status_code == 200, answer.text
            for (game_id, _, _), ws in zip(games, sockets, strict=True):
                while True:
                    event = json.loads(ws.receive_text())
                    if event["type"] == "state" and event["state"]["cursor"] == 2:
                        break
                assert event["state"]["moves"][1]["by"] == "ai"
                assert _stored_cursor(db, game_id) == 2
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)


def test_a_batch_move_for_a_game_changed_meanwhile_is_not_made(tmp_path: Path) -> None:
    """A move searched for a version the game has left (an undo, a move
    meanwhile) is thrown away, and the game's AI is asked to think again."""
    db = tmp_path / "s.db"
    service = GameService(Storage(str(db)), workers=1, ai_delay=0)
    try:
        spec = NewGame.model_validate({"black": {"kind": "human"}, "white": LEVEL1})
        created = json.loads(service.create(spec))
        game_id, seat = created["game"]["id"], created["seats"]["black"]
        service.play(game_id, seat, "f5")
        _until(lambda: service.game(game_id).cursor == 2)
        assert service._ai_search(game_id) is None  # a person is to move: no search
        game = service.game(game_id)
        legal = game.position().legal_moves[0]
        stale = _Searched(game_id, game.version - 1, AIMove(legal, 0.0, 1, 0.0), False)
        assert service._ai_make([stale]) == {game_id: Next(background=False)}
        assert service.game(game_id).version == game.version
        assert _stored_cursor(db, game_id) == 2
    finally:
        service.close()


# ---------------------------------------------------------------- deadlines
def test_a_later_deadline_does_not_wake_the_thread_and_each_is_on_time() -> None:
    deadlines = Deadlines()
    called: list[tuple[str, float]] = []
    start = time.monotonic()
    deadlines.call_at(1.0, lambda: called.append(("first", time.monotonic() - start)))
    notified: list[int] = []
    original = deadlines._cond.notify

    def counting(n: int = 1) -> None:
        notified.append(n)
        original(n)

    deadlines._cond.notify = counting  # type: ignore[method-assign]
    deadlines.call_at(1.5, lambda: called.append(("later", time.monotonic() - start)))
    assert notified == []  # later than the thread's wait: no wake-up
    deadlines.call_at(0.2, lambda: called.append(("sooner", time.monotonic() - start)))
    assert notified == [1]  # sooner: woken to wait less
    cancelled = deadlines.call_at(0.5, lambda: called.append(("cancelled", 0.0)))
    deadlines.cancel(cancelled)
    _until(lambda: len(called) == 3, timeout=10)
    assert [name for name, _ in called] == ["sooner", "first", "later"]
    for (_, at), due in zip(called, (0.2, 1.0, 1.5), strict=True):
        assert at >= due - 0.01
