"""Fixtures of the web tests: an app on a real SQLite file, clients, helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from outflank.web.app import create_app


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    app = create_app(str(db_path), ai_delay=0.0, time_cap=5.0)
    with TestClient(app) as test_client:
        yield test_client


def new_game(client: TestClient, **body: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Create a game; returns (id, seats, state). Two humans unless told otherwise."""
    body.setdefault("black", {"kind": "human"})
    body.setdefault("white", {"kind": "human"})
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    return data["game"]["id"], data["seats"], data["game"]


def move(client: TestClient, game_id: str, seat: str, square: str) -> Any:
    return client.post(f"/api/games/{game_id}/moves", json={"seat": seat, "move": square})


def wait_for(client: TestClient, game_id: str, predicate: Any, timeout: float = 20.0) -> dict:
    """Long-poll the game until ``predicate(state)`` holds."""
    import time

    deadline = time.monotonic() + timeout
    state = client.get(f"/api/games/{game_id}").json()
    while not predicate(state):
        left = deadline - time.monotonic()
        assert left > 0, f"timed out waiting; last state: {state}"
        state = client.get(
            f"/api/games/{game_id}", params={"since": state["version"], "wait": min(left, 5)}
        ).json()
    return state
