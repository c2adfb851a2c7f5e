"""The Puzzles mode's API through FastAPI's test client, on a real SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from outflank.puzzles import Puzzle, PuzzleSet
from outflank.web.app import create_app


@pytest.fixture(scope="module")
def puzzles() -> PuzzleSet:
    return PuzzleSet.default()


def _solver(client: TestClient) -> str:
    made = client.post("/api/puzzles/solvers")
    assert made.status_code == 201, made.text
    data = made.json()
    assert (data["rating"], data["rd"], data["streak"], data["solved"]) == (1500, 350, 0, 0)
    return data["solver"]


def _answer(client: TestClient, puzzle_id: str, solver: str, move: Any) -> Any:
    return client.post(f"/api/puzzles/{puzzle_id}/answer", json={"solver": solver, "move": move})


def _rows(db_path: Path) -> list[tuple[Any, ...]]:
    engine = create_engine(f"sqlite:///{db_path}")
    try:
        with engine.connect() as conn:
            return list(conn.execute(text("SELECT * FROM puzzle_solvers ORDER BY secret")))
    finally:
        engine.dispose()


def _wrong(puzzle: Puzzle) -> str:
    return sorted(puzzle.refutations)[0]


def test_a_puzzle_is_served_without_its_answer(client: TestClient, puzzles: PuzzleSet) -> None:
    solver = _solver(client)
    shown = client.get("/api/puzzles/next", params={"solver": solver}).json()
    puzzle = puzzles.get(shown["id"])
    assert shown["obf"] == puzzle.board.obf() and shown["cells"] == puzzle.board.obf()[:64]
    assert shown["legal"] == [str(m) for m in puzzle.board.legal_moves]
    assert shown["rating"] == puzzle.rating and shown["goal"] == puzzle.result
    assert abs(shown["rating"] - 1500) <= 400
    for secret in ("solution", "scores", "line", "refutations"):
        assert secret not in shown
    assert client.get(f"/api/puzzles/{puzzle.id}").json() == shown


def test_solved_right_then_wrong_streak_and_rating(
    client: TestClient, puzzles: PuzzleSet, db_path: Path
) -> None:
    solver = _solver(client)
    first = puzzles.get(client.get("/api/puzzles/next", params={"solver": solver}).json()["id"])
    right = _answer(client, first.id, solver, str(first.solution)).json()
    assert right["correct"] and right["rated"] and right["change"] > 0
    assert right["score"] == right["best"] == first.score
    assert [f["move"] for f in right["line"]] == [str(m) for m in first.line]
    assert right["line"][-1]["cells"] == first.board_after(first.line).obf()[:64]
    assert right["solver"]["streak"] == 1 and right["solver"]["rating"] > 1500

    second = puzzles.get(client.get("/api/puzzles/next", params={"solver": solver}).json()["id"])
    assert second.id != first.id
    wrong = _wrong(second)
    verdict = _answer(client, second.id, solver, wrong).json()
    assert not verdict["correct"] and verdict["change"] < 0
    assert verdict["solution"] == str(second.solution)
    assert verdict["score"] == second.scores[wrong] < verdict["best"]
    played = [f["move"] for f in verdict["played"]]
    assert played == [wrong, *[str(m) for m in second.refutations[wrong]]]
    assert verdict["played"][0]["color"] == ("black" if second.board.turn.name == "BLACK"
                                             else "white")  # fmt: skip
    state = client.get(f"/api/puzzles/solvers/{solver}").json()
    assert (state["streak"], state["best_streak"], state["solved"], state["failed"]) == (0, 1, 1, 1)
    assert state == verdict["solver"]

    # a second answer to the same puzzle is judged but not rated
    again = _answer(client, second.id, solver, str(second.solution)).json()
    assert again["correct"] and not again["rated"] and again["change"] == 0
    assert again["solver"] == state
    # kept in the database: a new app on the same file knows the solver
    assert len(_rows(db_path)) == 1


def test_the_solver_survives_a_restart(db_path: Path) -> None:
    app = create_app(str(db_path), ai_delay=0.0)
    with TestClient(app) as client:
        solver = _solver(client)
        puzzle_id = client.get("/api/puzzles/next", params={"solver": solver}).json()["id"]
        puzzle = PuzzleSet.default().get(puzzle_id)
        rating = _answer(client, puzzle_id, solver, str(puzzle.solution)).json()["solver"]
    with TestClient(create_app(str(db_path), ai_delay=0.0)) as client:
        assert client.get(f"/api/puzzles/solvers/{solver}").json() == rating


def test_bad_requests_are_clear_4xx_and_change_nothing(
    client: TestClient, puzzles: PuzzleSet, db_path: Path
) -> None:
    solver = _solver(client)
    puzzle = next(iter(puzzles))
    before = _rows(db_path)
    occupied = next(
        f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}" for sq in range(64)
        if puzzle.board.piece_at(sq) is not None
    )  # fmt: skip
    cases = [
        (
            "post",
            "/api/puzzles/nope/answer",
            {"solver": solver, "move": "a1"},
            404,
            "unknown puzzle",
        ),
        (
            "post",
            f"/api/puzzles/{'x' * 300}/answer",
            {"solver": solver, "move": "a1"},
            404,
            "unknown puzzle",
        ),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": "nobody", "move": "a1"},
            404,
            "unknown solver",
        ),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": solver, "move": occupied},
            400,
            "not a legal move",
        ),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": solver, "move": "z9"},
            400,
            "not a square",
        ),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": solver, "move": "pass"},
            400,
            "not a legal move",
        ),
        ("post", f"/api/puzzles/{puzzle.id}/answer", {"solver": solver}, 422, "move"),
        ("post", f"/api/puzzles/{puzzle.id}/answer", {"solver": solver, "move": 5}, 422, "move"),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": solver, "move": "a1" * 20},
            422,
            "move",
        ),
        (
            "post",
            f"/api/puzzles/{puzzle.id}/answer",
            {"solver": solver, "move": "a1", "extra": 1},
            422,
            "extra",
        ),
        ("post", f"/api/puzzles/{puzzle.id}/answer", [1, 2], 422, "JSON object"),
        ("get", "/api/puzzles/next", None, 422, "solver"),
        ("get", "/api/puzzles/next?solver=nobody", None, 404, "unknown solver"),
        ("get", f"/api/puzzles/next?solver={'s' * 100}", None, 422, "solver"),
        ("get", "/api/puzzles/solvers/nobody", None, 404, "unknown solver"),
        ("get", "/api/puzzles/nope", None, 404, "unknown puzzle"),
    ]
    for method, path, body, status, message in cases:
        response = getattr(client, method)(path, **({} if body is None else {"json": body}))
        assert response.status_code == status, (path, body, response.text)
        assert message in response.json()["error"], (path, body, response.text)
    malformed = client.post(
        f"/api/puzzles/{puzzle.id}/answer", content=b"{oops",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert malformed.status_code == 422 and "malformed JSON" in malformed.json()["error"]
    assert _rows(db_path) == before


def test_the_pages_are_served(client: TestClient, puzzles: PuzzleSet) -> None:
    for path in ("/puzzles", f"/puzzles/{next(iter(puzzles)).id}"):
        page = client.get(path)
        assert page.status_code == 200 and "puzzles.js" in page.text
    assert client.get("/static/puzzles.js").status_code == 200
    assert "/puzzles" in client.get("/").text  # the game page links to them


def test_solvers_on_postgresql_and_two_servers(pg_url: str, puzzles: PuzzleSet) -> None:
    """On PostgreSQL: two apps on one database (two server processes) share
    the solvers; answers from both count, each once."""
    with (
        TestClient(create_app(pg_url, ai_delay=0.0)) as one,
        TestClient(create_app(pg_url, ai_delay=0.0)) as two,
    ):
        solver = _solver(one)
        first = puzzles.get(two.get("/api/puzzles/next", params={"solver": solver}).json()["id"])
        assert _answer(two, first.id, solver, str(first.solution)).json()["rated"]
        second = puzzles.get(one.get("/api/puzzles/next", params={"solver": solver}).json()["id"])
        assert second.id != first.id
        assert not _answer(one, second.id, solver, _wrong(second)).json()["correct"]
        assert not _answer(two, second.id, solver, _wrong(second)).json()["rated"]
        state = two.get(f"/api/puzzles/solvers/{solver}").json()
        assert (state["solved"], state["failed"], state["best_streak"]) == (1, 1, 1)
