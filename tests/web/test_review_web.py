"""Game reviews and the opening explorer over the API: a background job on a
bounded queue, progress over the WebSocket, stored with the game, bad input
and floods answered with 4xx/503, never 500."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from outflank import Board, Engine
from outflank.book import explore
from outflank.puzzles import PuzzleSet
from outflank.review import ReviewSettings
from outflank.web.analysis import AnalysisQueue, Busy, Cancel
from outflank.web.app import create_app
from outflank.web.puzzles import PuzzleService
from web.conftest import move, new_game

#: Quick reviews: the library's own tests check the values.
FAST = ReviewSettings(depth=4, exact=12, exact_time=0.0)
#: A review that only a stop ends: a depth-40 search of the first midgame position.
ENDLESS = ReviewSettings(depth=40, selective=0, move_time=600, exact=0, exact_time=0, book=False)


def random_transcript(seed: int, plies: int = 60) -> str:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over() and len(board.move_stack) < plies:
        board.push("pass" if board.must_pass() else rng.choice(board.legal_moves))
    return " ".join(map(str, board.move_stack))


def app_client(db: Path, **kwargs: Any) -> TestClient:
    kwargs.setdefault("review_settings", FAST)
    return TestClient(create_app(str(db), ai_delay=0.0, time_cap=5.0, **kwargs))


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with app_client(db_path) as test_client:
        yield test_client


def wait_review(client: TestClient, game_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data = client.get(f"/api/games/{game_id}/review").json()
        if data["status"] != "running":
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.05)


def test_a_review_runs_in_the_background_and_is_stored(client: TestClient, db_path: Path) -> None:
    transcript = random_transcript(1)
    game_id, _, _ = new_game(client, start=transcript)
    assert client.get(f"/api/games/{game_id}/review").json()["status"] == "none"
    started = client.post(f"/api/games/{game_id}/review")
    assert started.status_code == 202
    first = started.json()
    assert first["status"] == "running" and first["current"] and first["job"]
    board = Board.from_transcript(transcript)
    judged = [i for i, m in enumerate(board.move_stack) if not m.is_pass]
    assert first["total"] == len(judged)
    done = wait_review(client, game_id)
    assert done["status"] == "done" and done["current"]
    review = done["review"]
    assert review["complete"] and [m["ply"] for m in review["moves"]] == judged
    assert review["game_moves"] == [str(m) for m in board.move_stack]
    assert set(review["summary"]) == {"black", "white"}
    # each better line comes with the squares its moves flip, as the rules say
    for m in review["moves"]:
        position = Board.from_transcript(" ".join(review["game_moves"][: m["ply"]]))
        assert [s["move"] for s in m["line"]] == m["pv"][: len(m["line"])]
        assert m["line"] and m["line"][0]["move"] == m["best_move"]
        for step in m["line"]:
            if step["move"] != "pass":
                assert step["flips"] == position.flips(step["move"])
            assert step["color"] == position.turn.name.lower()
            position.push(step["move"])
    # the exact values are the solver's (a few of them, checked independently)
    engine = Engine(threads=1)
    exact = [m for m in review["moves"] if m["best_exact"] and m["empties"] >= 8][:3]
    assert exact
    for m in exact:
        position = Board.from_transcript(" ".join(review["game_moves"][: m["ply"]]))
        assert engine.solve(position).score == m["best_value"]
    # a second click, another viewer, a server restarted: at once, from the database
    again = client.post(f"/api/games/{game_id}/review")
    assert again.status_code == 200 and again.json()["review"] == review
    with app_client(db_path) as restarted:
        stored = restarted.get(f"/api/games/{game_id}/review").json()
        assert stored["status"] == "done" and stored["review"] == review


def test_a_review_on_postgresql_is_seen_by_another_server(pg_url: str) -> None:
    settings = {"review_settings": FAST}
    with (
        TestClient(create_app(pg_url, ai_delay=0.0, **settings)) as one,
        TestClient(create_app(pg_url, ai_delay=0.0, **settings)) as two,
    ):
        game_id, _, _ = new_game(one, start=random_transcript(4))
        one.post(f"/api/games/{game_id}/review")
        review = wait_review(one, game_id)
        assert review["status"] == "done"
        there = two.get(f"/api/games/{game_id}/review").json()
        assert there["status"] == "done" and there["review"] == review["review"]
        # a second click on the other server: the stored review, no new job
        again = two.post(f"/api/games/{game_id}/review")
        assert again.status_code == 200 and again.json()["review"] == review["review"]


def test_progress_and_the_end_come_over_the_websocket(client: TestClient) -> None:
    game_id, _, _ = new_game(client, start=random_transcript(2))
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        assert ws.receive_json()["type"] == "state"
        job = client.post(f"/api/games/{game_id}/review").json()["job"]
        events = []
        while True:
            event = ws.receive_json()
            if event["type"] != "review":
                continue
            assert event["job"] == job
            events.append(event)
            if event["status"] != "running":
                break
        # nothing after the end: a ping a moment later is answered before any other event
        time.sleep(0.5)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    assert events[-1]["status"] == "done"
    moves = [e["move"] for e in events if e.get("move")]
    total = events[0]["total"]
    assert len(moves) == total and sorted(m["ply"] for m in moves) == sorted(
        {m["ply"] for m in moves}
    )
    assert [e["done"] for e in events if e.get("move")] == list(range(1, total + 1))
    assert all("line" in m and "label" in m for m in moves)


def test_a_changed_game_is_reviewed_anew(client: TestClient) -> None:
    game_id, seats, _ = new_game(client, start="f5d6c3d3c4")
    client.post(f"/api/games/{game_id}/review")
    assert wait_review(client, game_id)["current"]
    assert move(client, game_id, seats["white"], "f4").status_code == 200
    old = client.get(f"/api/games/{game_id}/review").json()
    assert old["status"] == "done" and not old["current"]  # still shown, marked as old
    again = client.post(f"/api/games/{game_id}/review")
    assert again.status_code == 202
    fresh = wait_review(client, game_id)
    assert fresh["current"] and len(fresh["review"]["moves"]) == 6


def test_a_review_is_stopped_when_asked(db_path: Path) -> None:
    with app_client(db_path, review_settings=ENDLESS) as client:
        game_id, _, _ = new_game(client, start="f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
        assert client.post(f"/api/games/{game_id}/review").status_code == 202
        # joining the running job, not starting another
        assert client.post(f"/api/games/{game_id}/review").status_code == 202
        stopped = client.delete(f"/api/games/{game_id}/review")
        assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
        assert stopped.json()["reason"] == "cancelled"
        again = client.delete(f"/api/games/{game_id}/review")
        assert again.status_code == 409 and "no review" in again.json()["error"]
        deadline = time.monotonic() + 30
        while client.app.state.reviews.queue.pending:  # the job ends soon after
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert client.get(f"/api/games/{game_id}/review").json()["status"] == "stopped"


def test_a_review_still_waiting_is_stopped_too(db_path: Path) -> None:
    # one review at a time: the second waits in the queue, and leaves it when stopped
    with app_client(db_path, review_settings=ENDLESS, reviews=1, review_limit=2) as client:
        running, waiting = (new_game(client, start="f5d6c3d3c4f4c5b3")[0] for _ in range(2))
        for game_id in (running, waiting):
            assert client.post(f"/api/games/{game_id}/review").status_code == 202
        answers: list[Any] = []
        thread = threading.Thread(
            target=lambda: answers.append(client.delete(f"/api/games/{waiting}/review"))
        )
        thread.start()
        thread.join(30)
        assert not thread.is_alive(), "stopping a review that had not begun hangs"
        assert answers[0].status_code == 200 and answers[0].json()["status"] == "stopped"
        assert client.app.state.reviews.queue.pending == 1
        assert client.delete(f"/api/games/{running}/review").status_code == 200


def test_a_review_too_slow_is_stopped(db_path: Path) -> None:
    with app_client(db_path, review_settings=ENDLESS, review_timeout=0.5) as client:
        game_id, _, _ = new_game(client, start="f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
        client.post(f"/api/games/{game_id}/review")
        data = wait_review(client, game_id)
        assert data["status"] == "stopped" and "took over 0.5 s" in data["reason"]


def test_bad_requests_change_nothing(client: TestClient) -> None:
    game_id, _, _ = new_game(client)  # no move yet
    empty = client.post(f"/api/games/{game_id}/review")
    assert empty.status_code == 409 and "no moves to review" in empty.json()["error"]
    assert client.get(f"/api/games/{game_id}/review").json()["status"] == "none"
    for path in ("/api/games/nope/review", f"/api/games/{'x' * 300}/review"):
        for method in ("get", "post", "delete"):
            answer = getattr(client, method)(path)
            assert answer.status_code == 404 and "unknown game" in answer.json()["error"]
    assert client.delete(f"/api/games/{game_id}/review").status_code == 409


def test_a_flood_of_reviews_is_refused_with_503_and_hints_still_answer(db_path: Path) -> None:
    with app_client(db_path, review_settings=ENDLESS, reviews=1, review_limit=2) as client:
        games = [new_game(client, start="f5d6c3d3c4f4c5b3")[0] for _ in range(8)]
        answers: list[Any] = []

        def ask(game_id: str) -> None:
            answers.append(client.post(f"/api/games/{game_id}/review"))

        threads = [threading.Thread(target=ask, args=(g,)) for g in games]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        codes = sorted(a.status_code for a in answers)
        assert set(codes) <= {202, 503} and codes.count(202) == 2, codes
        for busy in (a for a in answers if a.status_code == 503):
            assert int(busy.headers["Retry-After"]) >= 1
            assert "busy with 2 reviews" in busy.json()["error"]
        # the reviews have their own queue: a hint is answered meanwhile
        hint = client.get(f"/api/games/{games[0]}/hints", params={"depth": 2})
        assert hint.status_code == 200
        for game_id in games:
            client.delete(f"/api/games/{game_id}/review")


# ---------------------------------------------------------------- the explorer
def test_the_explorer(client: TestClient) -> None:
    start = client.get("/api/explorer").json()
    assert sorted(m["move"] for m in start["moves"]) == ["c4", "d3", "e6", "f5"]
    assert start["board"] == Board().obf()[:64] and start["turn"] == "black"
    tiger = client.get("/api/explorer", params={"moves": "f5d6c3d3c4"}).json()
    expected = explore(Board.from_transcript("f5d6c3d3c4")).to_dict()
    assert tiger["opening"] == "Tiger" == expected["opening"]
    assert [(m["move"], m["value"], m["leads_to"]) for m in tiger["moves"]] == [
        (m["move"], m["value"], m["leads_to"]) for m in expected["moves"]
    ]
    board = Board.from_transcript("f5d6c3d3c4")
    for m in tiger["moves"]:
        assert m["flips"] == board.flips(m["move"])
    spaced = client.get("/api/explorer", params={"moves": "f5 d6 c3 d3 c4"}).json()
    assert spaced == tiger
    other = Board.from_transcript("f5d6c3")
    started = client.get(
        "/api/explorer", params={"start": other.obf(), "moves": "d3c4"}
    ).json()  # from another start: the book knows the position, the names do not
    assert started["in_book"] and started["opening"] is None


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"moves": "f5f5"}, 400, "illegal move f5"),
        ({"moves": "f5z9"}, 400, "transcript move 2"),
        ({"start": "nonsense"}, 400, "malformed OBF"),
        ({"moves": "f5" * 300}, 422, "moves"),
        ({"start": "x" * 200}, 422, "start"),
    ],
)
def test_the_explorer_refuses_bad_lines(
    client: TestClient, params: dict[str, str], status: int, words: str
) -> None:
    answer = client.get("/api/explorer", params=params)
    assert answer.status_code == status and words in answer.json()["error"]


# ---------------------------------------------------------------- the queue
def test_background_jobs_count_against_the_queue() -> None:
    queue = AnalysisQueue(workers=1, limit=2, timeout=30)
    release = threading.Event()

    def wait(cancel: Cancel) -> str:
        while not release.wait(0.01):
            cancel.check()
        return "done"

    first = queue.submit(wait)
    second = queue.submit(wait)  # waits for the worker
    with pytest.raises(Busy):
        queue.submit(wait)
    second.cancel()  # never started: its place is free at once
    assert queue.pending == 1 and second.done()
    third = queue.submit(wait, timeout=0.2)  # cancelled by its timeout while it waits
    deadline = time.monotonic() + 10
    while not third.done():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert third.cancelled and third.future.cancelled() and queue.pending == 1
    release.set()
    assert first.future.result(5) == "done"
    while queue.pending:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    queue.close()


# ---------------------------------------------------------------- your mistakes as puzzles
def test_a_reviews_mistakes_become_puzzles_on_the_puzzles_page(db_path: Path) -> None:
    """A game that blunders where one move alone kept the result: its review
    finds the puzzle, stores it, lists it for the game, and the Puzzles API
    sets and judges it (with no shipped set at all: it comes from the database)."""
    shipped = min(PuzzleSet.default(), key=lambda p: (p.empties, p.id))
    wrong = min(shipped.refutations, key=lambda m: shipped.scores[m])
    with app_client(db_path) as client:
        client.app.state.puzzles = PuzzleService(client.app.state.storage, PuzzleSet())
        game_id, seats, state = new_game(client, start=shipped.board.obf())
        assert client.get(f"/api/games/{game_id}/puzzles").json() == {
            "game": game_id,
            "puzzles": [],
        }
        for square in [wrong, *map(str, shipped.refutations[wrong])]:
            if square == "pass":
                continue
            state = client.get(f"/api/games/{game_id}").json()
            assert move(client, game_id, seats[state["turn"]], square).status_code == 200
        client.post(f"/api/games/{game_id}/review")
        review = wait_review(client, game_id)["review"]
        assert review["moves"][0]["label"] in ("mistake", "blunder")
        assert review["puzzles"] == [shipped.id]
        listed = client.get(f"/api/games/{game_id}/puzzles").json()["puzzles"]
        assert [(p["id"], p["obf"], p["game"]) for p in listed] == [
            (shipped.id, shipped.board.obf(), game_id)
        ]
        assert (
            listed[0]["source"] == f"your game, move 1 ({wrong}, a {review['moves'][0]['label']})"
        )
        assert client.get(f"/api/puzzles/{shipped.id}").json() == listed[0]
        solver = client.post("/api/puzzles/solvers").json()["solver"]
        verdict = client.post(
            f"/api/puzzles/{shipped.id}/answer",
            json={"solver": solver, "move": str(shipped.solution)},
        ).json()
        assert verdict["correct"] and verdict["scores"] == shipped.to_dict()["scores"]
        assert client.get("/api/games/nope/puzzles").status_code == 404
        assert client.get("/api/puzzles/0000ffff").status_code == 404
    # a restarted server still has them (stored with the game)
    with app_client(db_path) as restarted:
        again = restarted.get(f"/api/games/{game_id}/puzzles").json()["puzzles"]
        assert [p["id"] for p in again] == [shipped.id]
