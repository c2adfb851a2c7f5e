"""Property: any sequence of requests leaves a game consistent with the rules."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outflank.board import SQUARE_NAMES, Board
from outflank.web.app import create_app
from outflank.web.live import _cells

ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("legal"), st.integers(0, 30), st.sampled_from(["black", "white"])),
        st.tuples(st.just("any"), st.sampled_from([*SQUARE_NAMES, "pass", "zz"]), st.booleans()),
        st.tuples(st.sampled_from(["undo", "redo"]), st.sampled_from(["black", "white"])),
    ),
    max_size=40,
)


@pytest.fixture(scope="module")
def shared_client() -> Iterator[TestClient]:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(str(Path(tmp) / "p.db"), ai_delay=0.0)
        with TestClient(app) as client:
            yield client


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=ACTIONS)
def test_random_requests_keep_the_game_consistent(
    shared_client: TestClient, actions: list[tuple]
) -> None:
    client = shared_client
    humans = {"black": {"kind": "human"}, "white": {"kind": "human"}}
    created = client.post("/api/games", json=humans).json()
    game_id, seats = created["game"]["id"], created["seats"]
    state = client.get(f"/api/games/{game_id}").json()
    for action in actions:
        before = state
        if action[0] == "legal":
            if not state["legal"]:
                continue
            square = state["legal"][action[1] % len(state["legal"])]
            body = {"seat": seats[state["turn"]], "move": square}
            response = client.post(f"/api/games/{game_id}/moves", json=body)
            assert response.status_code == 200, response.text
        elif action[0] == "any":
            color = (state["turn"] or "black") if action[2] else "white"
            body = {"seat": seats[color], "move": action[1]}
            response = client.post(f"/api/games/{game_id}/moves", json=body)
        else:
            body = {"seat": seats[action[1]]}
            response = client.post(f"/api/games/{game_id}/{action[0]}", json=body)
        assert response.status_code in (200, 400, 403, 409), response.text
        state = client.get(f"/api/games/{game_id}").json()
        if response.status_code != 200:
            assert state == before  # a refused request changes nothing
        else:
            assert state["version"] > before["version"]
        # the stored moves replay, under the rules, to the reported board
        board = Board()
        for move in state["moves"][: state["cursor"]]:
            board.push(move["move"])
        assert board.obf()[:64] == state["board"]
        assert sorted(state["legal"]) == sorted(str(m) for m in board.legal_moves if not m.is_pass)
        assert state["status"] == ("over" if board.is_game_over() else "playing")


@settings(max_examples=300, deadline=None)
@given(occupied=st.integers(0, 2**64 - 1), split=st.integers(0, 2**64 - 1))
def test_the_states_board_has_each_square_of_the_position(occupied: int, split: int) -> None:
    black, white = occupied & split, occupied & ~split
    board = Board(black, white)
    expected = "".join(
        "-" if (piece := board.piece_at(sq)) is None else piece.letter for sq in range(64)
    )
    assert _cells(black, white) == expected
