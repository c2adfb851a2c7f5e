"""People before AI moves: the count of people's requests, the wait for a
lull in them, the event loop's catching up, and the app's use of both."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from outflank.web.app import create_app
from outflank.web.priority import PeopleFirst
from outflank.web.scheduler import AIScheduler, Next
from outflank.web.service import GameService
from outflank.web.storage import Storage

from .conftest import move, new_game, wait_for


def _in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


def test_no_wait_while_fewer_than_room_requests_are_served() -> None:
    people = PeopleFirst(room=2, patience=30)
    people.begin()
    assert people.in_progress == 1
    assert people.wait_turn() < 1  # at once (no loop to wait for)
    people.end()
    assert people.in_progress == 0


def test_an_ai_move_waits_until_the_requests_are_answered() -> None:
    people = PeopleFirst(room=1, patience=30)
    people.begin()
    thread, out = _in_thread(people.wait_turn)
    thread.join(0.3)
    assert thread.is_alive()  # a person's request is in progress: the AI waits
    people.end()
    thread.join(5)
    assert not thread.is_alive() and out and 0.25 < out[0] < 30


def test_patience_bounds_the_wait() -> None:
    people = PeopleFirst(room=1, patience=0.2)
    with people.serving():
        thread, out = _in_thread(people.wait_turn)
        thread.join(10)  # never answered: the AI moves anyway after its patience
        assert not thread.is_alive() and out[0] >= 0.19
    assert people.in_progress == 0


def test_serving_counts_a_failed_request_as_ended() -> None:
    people = PeopleFirst()
    with pytest.raises(ValueError), people.serving():
        assert people.in_progress == 1
        raise ValueError
    assert people.in_progress == 0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="room"):
        PeopleFirst(room=0)
    with pytest.raises(ValueError, match="patience"):
        PeopleFirst(patience=float("nan"))


def test_the_async_wait_waits_for_the_room_and_no_longer_than_patience() -> None:
    people = PeopleFirst(room=1, patience=0.3)

    async def scenario() -> tuple[float, float]:
        people.begin()
        asyncio.get_running_loop().call_later(0.1, people.end)
        started = time.monotonic()
        await people.wait_turn_async()  # the request in progress ends after 0.1 s
        freed = time.monotonic() - started
        people.begin()  # this one never ends: patience
        started = time.monotonic()
        await people.wait_turn_async()
        return freed, time.monotonic() - started

    freed, patient = asyncio.run(scenario())
    assert 0.09 < freed < 0.29 and patient >= 0.29


@pytest.fixture
def running_loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def test_the_wait_lets_a_busy_event_loop_catch_up_first(
    running_loop: asyncio.AbstractEventLoop,
) -> None:
    people = PeopleFirst(patience=5)
    people.watch(running_loop)
    busy_until = time.monotonic() + 0.3
    # the loop is busy (say, with requests it has not read yet) for 0.3 s
    running_loop.call_soon_threadsafe(lambda: time.sleep(max(0.0, busy_until - time.monotonic())))
    time.sleep(0.02)
    waited = people.wait_turn()
    assert time.monotonic() >= busy_until and waited > 0.2


def test_a_stopped_loop_is_not_waited_for() -> None:
    loop = asyncio.new_event_loop()  # never running
    try:
        people = PeopleFirst(patience=5)
        people.watch(loop)
        assert people.wait_turn() < 1
    finally:
        loop.close()


def test_the_scheduler_pauses_before_each_move() -> None:
    events: list[str] = []
    done = threading.Event()

    def step(game_id: str) -> Next | None:
        events.append(f"step {game_id}")
        if len(events) == 4:
            done.set()
        return None

    scheduler = AIScheduler(1, step, pause=lambda: events.append("pause"))
    try:
        scheduler.submit("a")
        scheduler.submit("b")
        assert done.wait(10)
    finally:
        scheduler.close()
    assert events == ["pause", "step a", "pause", "step b"]


def test_an_ai_reply_waits_for_a_persons_request_in_progress(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "games.db"))
    people = PeopleFirst(room=1, patience=30)
    service = GameService(storage, ai_delay=0.0, people=people)
    try:
        from outflank.web.schemas import NewGame

        spec = NewGame.model_validate(
            {"black": {"kind": "human"}, "white": {"kind": "ai", "ai": "greedy"}}
        )
        import json

        created = json.loads(service.create(spec))
        game_id, seat = created["game"]["id"], created["seats"]["black"]
        with people.serving():  # another person's request is being answered
            service.play(game_id, seat, "f5")
            time.sleep(0.4)
            assert json.loads(service.get(game_id))["turn"] == "white"  # no reply yet
        deadline = time.monotonic() + 10
        while json.loads(service.get(game_id))["turn"] != "black":
            assert time.monotonic() < deadline, "the AI never replied"
            time.sleep(0.01)
    finally:
        service.close()
        storage.close()


def test_the_app_counts_changes_not_reads(db_path: Path) -> None:
    app = create_app(str(db_path), ai_delay=0.0)
    service = app.state.service
    seen: list[tuple[str, int]] = []
    play, get = service.play, service.cached_holder

    def counted_play(*args: object) -> str:
        seen.append(("play", service.people.in_progress))
        return play(*args)

    def counted_get(*args: object) -> tuple[str, str | None] | None:
        seen.append(("get", service.people.in_progress))
        return get(*args)  # a cached game is read on the event loop

    service.play, service.cached_holder = counted_play, counted_get
    with TestClient(app) as client:
        game_id, seats, _ = new_game(client)
        assert move(client, game_id, seats["black"], "f5").status_code == 200
        assert client.get(f"/api/games/{game_id}").status_code == 200
        assert seen == [("play", 1), ("get", 0)]  # a read is nobody's change
        with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['white']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "move": "d6"})
            wait_for(client, game_id, lambda s: s["cursor"] == 2)
        assert service.people.in_progress == 0
    # the move over the WebSocket counted too (the long polls of wait_for may
    # read while it is being answered)
    assert [count for kind, count in seen if kind == "play"] == [1, 1]


def test_a_new_game_waits_for_the_requests_in_progress(db_path: Path) -> None:
    app = create_app(str(db_path), ai_delay=0.0)
    people = app.state.service.people
    people.patience = 30
    with TestClient(app) as client:
        game_id, seats, _ = new_game(client)
        for _ in range(people.room):
            people.begin()  # as many people's requests in progress as there is room
        thread, out = _in_thread(lambda: new_game(client))
        thread.join(0.3)
        assert thread.is_alive()  # the new game waits
        assert move(client, game_id, seats["black"], "f5").status_code == 200  # a move does not
        people.end()
        thread.join(10)
        assert not thread.is_alive() and out
        for _ in range(people.room - 1):
            people.end()


def test_served_games_still_get_their_ai_moves(client: TestClient) -> None:
    game_id, seats, _ = new_game(client, white={"kind": "ai", "ai": "greedy"})
    assert move(client, game_id, seats["black"], "f5").status_code == 200
    wait_for(client, game_id, lambda s: s["turn"] == "black" and s["cursor"] == 2)
