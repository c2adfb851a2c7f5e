"""The per-game WebSocket: states pushed to players and spectators, actions, errors."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from web.conftest import move, new_game


def test_players_and_spectators_receive_moves(client: TestClient) -> None:
    game_id, seats, _ = new_game(client)
    with (
        client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}") as black,
        client.websocket_connect(f"/ws/games/{game_id}") as spectator,
    ):
        hello = black.receive_json()
        assert hello["type"] == "state" and hello["you"] == "black"
        assert spectator.receive_json()["you"] is None
        black.send_json({"type": "move", "move": "f5"})
        for ws in (black, spectator):
            event = ws.receive_json()
            assert event["type"] == "state" and event["state"]["last"] == "f5"
        # a REST move reaches the sockets too
        move(client, game_id, seats["white"], "d6")
        assert spectator.receive_json()["state"]["transcript"] == "f5d6"
        assert black.receive_json()["state"]["turn"] == "black"


def test_socket_errors_keep_the_connection(client: TestClient) -> None:
    game_id, seats, _ = new_game(client)
    with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['white']}") as white:
        white.receive_json()
        white.send_text("{not json")
        assert white.receive_json() == {
            "type": "error",
            "status": 422,
            "error": "malformed JSON message",
        }
        white.send_json({"type": "move", "move": "d3"})
        error = white.receive_json()
        assert error["status"] == 409 and "not your turn" in error["error"]
        white.send_json({"type": "dance"})
        assert white.receive_json()["status"] == 400
        white.send_json({"type": "move"})
        assert "needs 'move'" in white.receive_json()["error"]
        for move in (5, "x" * 60_000):  # REST answers 422 to these bodies too
            white.send_json({"type": "move", "move": move})
            error = white.receive_json()
            assert error["status"] == 422 and len(error["error"]) < 100
        white.send_text("[" * 30_000 + "]" * 30_000)  # deeper than the JSON parser goes
        assert white.receive_json()["error"] == "malformed JSON message"
        white.send_bytes(b"\xff\xfe")
        assert white.receive_json()["error"] == "malformed JSON message"
        white.send_bytes(b'{"type": "ping"}')
        assert white.receive_json() == {"type": "pong"}
        white.send_json({"type": "ping"})
        assert white.receive_json() == {"type": "pong"}
    with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
        spectator.receive_json()
        spectator.send_json({"type": "move", "move": "d3"})
        assert spectator.receive_json()["status"] == 403
    assert client.get(f"/api/games/{game_id}").json()["moves"] == []


def test_errors_quote_only_a_short_prefix_of_the_input(client: TestClient) -> None:
    """An unknown message type used to be echoed back whole."""
    game_id, seats, _ = new_game(client)
    with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}") as ws:
        ws.receive_json()
        for kind in ("y" * 50_000, ["z"] * 10_000, {"a": "b" * 20_000}):
            ws.send_json({"type": kind})
            error = ws.receive_json()
            assert error["status"] == 400 and len(error["error"]) < 120
            assert "unknown message type" in error["error"]


def test_a_message_over_64_kib_closes_the_socket(client: TestClient) -> None:
    """REST refuses a body over 64 KiB; the WebSocket used to take 16 MiB."""
    game_id, seats, _ = new_game(client)
    for frame in ("text", "bytes"):
        with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}") as ws:
            ws.receive_json()
            big = json.dumps({"type": "move", "move": "d3", "pad": "x" * 70_000})
            ws.send_text(big) if frame == "text" else ws.send_bytes(big.encode())
            error = ws.receive_json()
            assert error["status"] == 413 and "65536 bytes" in error["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1009
    assert client.get(f"/api/games/{game_id}").json()["moves"] == []


def test_unknown_game_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/missing") as ws:
        event = ws.receive_json()
        assert event["type"] == "error" and event["status"] == 404
