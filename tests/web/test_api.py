"""The REST API through FastAPI's test client, on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from outflank.board import Board
from outflank.errors import OutflankError
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from outflank.threads import share
from outflank.web.app import create_app
from web.conftest import move, new_game

START_LEGAL = ["d3", "c4", "f5", "e6"]


def test_new_game_state(client: TestClient) -> None:
    game_id, seats, state = new_game(client)
    assert set(seats) == {"black", "white"} and seats["black"] != seats["white"]
    assert state["board"] == Board().obf()[:64]
    assert state["turn"] == "black" and state["status"] == "playing"
    assert sorted(state["legal"]) == sorted(START_LEGAL)
    assert state["counts"] == {"black": 2, "white": 2}
    assert "secret" not in str(state) and seats["black"] not in str(state)
    got = client.get(f"/api/games/{game_id}", params={"seat": seats["white"]}).json()
    assert got["you"] == "white"
    assert client.get(f"/api/games/{game_id}").json()["you"] is None


def test_moves_flip_and_alternate(client: TestClient) -> None:
    game_id, seats, state = new_game(client)
    after = move(client, game_id, seats["black"], "f5").json()
    assert after["turn"] == "white" and after["last"] == "f5"
    assert after["counts"] == {"black": 4, "white": 1}
    assert after["moves"][0]["flips"] == [36]  # e5
    assert after["version"] > state["version"]
    after = move(client, game_id, seats["white"], "d6").json()
    assert after["transcript"] == "f5d6"
    assert after["board"] == Board.from_transcript("f5d6").obf()[:64]


def _unchanged(client: TestClient, game_id: str, before: dict) -> None:
    now = client.get(f"/api/games/{game_id}").json()
    assert now["version"] == before["version"]
    assert now["board"] == before["board"] and now["moves"] == before["moves"]


@pytest.mark.parametrize(
    ("who", "square", "status", "words"),
    [
        ("black", "a1", 400, "illegal move a1"),
        ("black", "z9", 400, "not a square"),
        ("black", "pass", 400, "cannot pass"),
        ("white", "d3", 409, "not your turn"),
        ("nobody", "d3", 403, "holds no seat"),
        ("", "d3", 422, "seat"),
    ],
)
def test_bad_moves_leave_the_game_unchanged(
    client: TestClient, who: str, square: str, status: int, words: str
) -> None:
    game_id, seats, before = new_game(client)
    seat = seats.get(who, "not-a-secret" if who else "")
    response = move(client, game_id, seat, square)
    assert response.status_code == status
    assert words in response.json()["error"]
    _unchanged(client, game_id, before)


def test_malformed_requests(client: TestClient) -> None:
    game_id, seats, before = new_game(client)
    url = f"/api/games/{game_id}/moves"
    headers = {"Content-Type": "application/json"}
    bad = client.post(url, content=b'{"seat": "x", "move": ', headers=headers)
    assert bad.status_code == 422 and bad.json()["error"] == "malformed JSON in the request body"
    assert client.post(url, json=["d3"]).json()["error"] == "the request body must be a JSON object"
    extra = client.post(url, json={"seat": seats["black"], "move": "d3", "x": 1})
    assert extra.status_code == 422 and "x" in extra.json()["error"]
    wrong_type = client.post(url, json={"seat": seats["black"], "move": 5})
    assert wrong_type.status_code == 422
    huge = client.post(url, json={"seat": seats["black"], "move": "d3" * 100})
    assert huge.status_code == 422
    _unchanged(client, game_id, before)
    bad_game = client.post("/api/games", json={"black": {"kind": "robot"}})
    assert bad_game.status_code == 422
    bad_slider = client.post(
        "/api/games", json={"white": {"kind": "ai", "ai": "regions", "corner": 99}}
    )
    assert bad_slider.status_code == 422 and "corner" in bad_slider.json()["error"]
    for level in ("5", True, 5.5):  # no coercion: a level is a JSON integer
        loose = client.post(
            "/api/games", json={"white": {"kind": "ai", "ai": "level", "level": level}}
        )
        assert loose.status_code == 422 and "level" in loose.json()["error"], level
    bad_start = client.post("/api/games", json={"start": "f5f5", "white": {"kind": "human"}})
    assert bad_start.status_code == 400 and "bad start position" in bad_start.json()["error"]


def test_deeply_nested_json_is_malformed_json(client: TestClient) -> None:
    """It used to get FastAPI's 400 "There was an error parsing the body"."""
    game_id, _, before = new_game(client)
    headers = {"Content-Type": "application/json"}
    for url in (f"/api/games/{game_id}/moves", "/api/games", f"/api/games/{game_id}/undo"):
        nested = client.post(url, content=b"[" * 5000 + b"]" * 5000, headers=headers)
        assert nested.status_code == 422
        assert nested.json() == {"error": "malformed JSON in the request body"}
    _unchanged(client, game_id, before)


def test_an_unknown_field_is_quoted_short(client: TestClient) -> None:
    game_id, seats, _ = new_game(client)
    body = {"seat": seats["black"], "move": "d3", "k" * 50_000: 1}
    refused = client.post(f"/api/games/{game_id}/moves", json=body)
    assert refused.status_code == 422 and len(refused.json()["error"]) < 200


def test_undo_words_when_the_friend_moved_last(client: TestClient) -> None:
    """White asking to undo after black's first move was told "your friend has
    moved since": white has not moved at all."""
    game_id, seats, _ = new_game(client)
    move(client, game_id, seats["black"], "f5")
    refused = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["white"]})
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert "moved since" not in error and error.startswith("nothing of yours to undo")
    # once white has moved and black answered, the refusal says that
    move(client, game_id, seats["white"], "d6")
    move(client, game_id, seats["black"], "c3")
    refused = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["white"]})
    assert "moved since your last move" in refused.json()["error"]


def test_unknown_game(client: TestClient) -> None:
    for response in (
        client.get("/api/games/nope"),
        client.post("/api/games/nope/moves", json={"seat": "x", "move": "d3"}),
        client.post("/api/games/nope/undo", json={"seat": "x"}),
        client.get("/api/games/nope/transcript"),
        client.get("/api/games/" + "x" * 500),
    ):
        assert response.status_code == 404
        assert "unknown game" in response.json()["error"]
    assert client.get("/api/no/such/route").status_code == 404


def test_game_over_refuses_moves(client: TestClient) -> None:
    # Reversi rule: the game ends as soon as the side to move cannot move.
    obf = "OX" + "-" * 62 + " X"
    game_id, seats, state = new_game(client, start=obf, rules="reversi")
    assert state["status"] == "over" and state["result"]["score"] == "1/2-1/2"
    response = move(client, game_id, seats["black"], "c1")
    assert response.status_code == 409 and "over" in response.json()["error"]


def test_forced_pass_is_played_and_recorded(client: TestClient) -> None:
    obf = "OX" + "-" * 62 + " X"  # black cannot move; white can (c1)
    game_id, seats, state = new_game(client, start=obf)
    assert state["moves"][0] == {**state["moves"][0], "move": "pass", "by": "auto"}
    assert state["turn"] == "white" and state["legal"] == ["c1"]
    after = move(client, game_id, seats["white"], "c1").json()
    assert after["status"] == "over" and after["result"]["winner"] == "white"


def test_start_from_transcript_and_undo_redo(client: TestClient) -> None:
    """Between two people each takes back only their own last move, before
    the other has answered it; the start's moves stay."""
    game_id, seats, state = new_game(client, start="f5d6c3d3c4")
    assert state["cursor"] == 5 and state["turn"] == "white"
    black, white = seats["black"], seats["white"]

    def step(action: str, seat: str) -> httpx.Response:
        return client.post(f"/api/games/{game_id}/{action}", json={"seat": seat})

    assert step("undo", white).json()["error"] == "nothing to undo"  # the start stays
    state = move(client, game_id, white, "f4").json()
    state = move(client, game_id, black, "f6").json()
    refused = step("undo", white)  # black has answered f4: not white's to erase
    assert refused.status_code == 409 and "only they can take their move back" in refused.text
    undone = step("undo", black).json()
    assert undone["cursor"] == 6 and undone["redo"] == 1 and undone["turn"] == "black"
    undone = step("undo", white).json()  # now f4 is white's last move, unanswered
    assert undone["cursor"] == 5 and undone["redo"] == 2 and undone["turn"] == "white"
    assert "your friend's" in step("redo", black).json()["error"]
    assert step("redo", white).json()["cursor"] == 6
    redone = step("redo", black).json()
    assert redone["cursor"] == 7 and redone["board"] == state["board"]
    assert step("redo", black).status_code == 409
    # a new move drops the redo
    assert step("undo", black).json()["turn"] == "black"
    replaced = move(client, game_id, black, "e6")
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["redo"] == 0 and replaced.json()["transcript"] == "f5d6c3d3c4f4e6"
    assert step("undo", "nope").status_code == 403


def test_nothing_to_undo(client: TestClient) -> None:
    game_id, seats, _ = new_game(client)
    response = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["black"]})
    assert response.status_code == 409 and "nothing to undo" in response.json()["error"]


def test_transcript_export(client: TestClient) -> None:
    game_id, _, _ = new_game(client, start="f5d6c3")
    text = client.get(f"/api/games/{game_id}/transcript").text
    assert text.strip() == "f5d6c3"
    obf = Board.from_transcript("f5d6").obf()
    other, _, _ = new_game(client, start=obf)
    assert client.get(f"/api/games/{other}/transcript").text.splitlines()[0] == obf


def test_a_transcript_export_starts_a_new_game(client: TestClient) -> None:
    """The export of a game from a position (its OBF, then the moves) is a
    valid start; a bare 64-cell board gets the OBF parser's message."""
    obf = Board.from_transcript("f5d6").obf()
    first, seats, _ = new_game(client, start=obf)
    move(client, first, seats["black"], "c3")
    export = client.get(f"/api/games/{first}/transcript").text
    for text in (export, " ".join(export.split())):  # a pasted line joins the two
        _, _, state = new_game(client, start=text)
        assert state["start"] == obf and state["transcript"] == "c3"
    bad = client.post("/api/games", json={"start": obf[:64]})
    assert bad.status_code == 400 and "OBF" in bad.json()["error"]


def test_the_game_list_pages_back(client: TestClient) -> None:
    ids = [new_game(client)[0] for _ in range(5)]
    first = [g["id"] for g in client.get("/api/games", params={"limit": 3}).json()["games"]]
    rest = client.get("/api/games", params={"limit": 3, "offset": 3}).json()["games"]
    assert sorted(first + [g["id"] for g in rest]) == sorted(ids)


def test_limits_of_requests(client: TestClient) -> None:
    """A body past the limit is refused before it is read whole; a human
    seat takes no AI settings; the page answers HEAD."""
    game_id, seats, _ = new_game(client)
    huge = json.dumps({"seat": seats["black"], "move": "f5", "pad": "x" * 200_000})
    answer = client.post(
        f"/api/games/{game_id}/moves", content=huge, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413 and "over" in answer.json()["error"]

    def chunks():  # no Content-Length: counted as it comes
        for _ in range(100):
            yield b"x" * 10_000

    answer = client.post(f"/api/games/{game_id}/moves", content=chunks())
    assert answer.status_code == 413
    assert client.get(f"/api/games/{game_id}").json()["moves"] == []
    human = client.post("/api/games", json={"black": {"kind": "human", "level": 5}})
    assert human.status_code == 422 and "no AI settings (level)" in human.json()["error"]
    assert client.head("/").status_code == 200


def test_list_games_and_info(client: TestClient) -> None:
    game_id, _, _ = new_game(client)
    listed = client.get("/api/games").json()["games"]
    assert listed[0]["id"] == game_id and listed[0]["black"] == "Human"
    assert listed[0]["updated"].endswith("+00:00")  # UTC, said so
    info = client.get("/api/info").json()
    assert {o["ai"] for o in info["opponents"]} >= {"level", "greedy", "regions"}
    assert info["levels"] == {"min": MIN_LEVEL, "max": MAX_LEVEL, "default": DEFAULT_LEVEL}
    # two searches at once by default: the cores shared out between them
    assert info["threads"] == {"per_search": share(2), "searches": 2}


def test_threads_per_search(db_path: Path) -> None:
    with TestClient(create_app(str(db_path), ai_workers=3, threads=4)) as client:
        assert client.get("/api/info").json()["threads"] == {"per_search": 4, "searches": 3}
        engine, _ = client.app.state.service.thinker.engine_for({"ai": "level", "level": 5})
        assert engine.threads == 4
    with pytest.raises(OutflankError, match="threads"):
        create_app(str(db_path), threads=0)


def test_long_poll_returns_newer_version(client: TestClient) -> None:
    game_id, seats, state = new_game(client)
    move(client, game_id, seats["black"], "f5")
    polled = client.get(
        f"/api/games/{game_id}", params={"since": state["version"], "wait": 5}
    ).json()
    assert polled["version"] > state["version"] and polled["last"] == "f5"
    # nothing new: returns after the wait with the same version
    same = client.get(
        f"/api/games/{game_id}", params={"since": polled["version"], "wait": 0.2}
    ).json()
    assert same["version"] == polled["version"]


def test_restart_resumes_the_game(db_path: Path) -> None:
    with TestClient(create_app(str(db_path), ai_delay=0.0)) as first:
        game_id, seats, _ = new_game(first, start="f5d6")
        state = move(first, game_id, seats["black"], "c3").json()
    with TestClient(create_app(str(db_path), ai_delay=0.0)) as second:
        again = second.get(f"/api/games/{game_id}").json()
        assert again["board"] == state["board"] and again["moves"] == state["moves"]
        assert again["turn"] == "white"
        cont = move(second, game_id, seats["white"], "d3")
        assert cont.status_code == 200 and cont.json()["transcript"] == "f5d6c3d3"


def test_serve_rejects_a_bad_port() -> None:
    import subprocess
    import sys

    from conftest import cli_env

    done = subprocess.run(
        [sys.executable, "-m", "outflank", "serve", "--port", "70000"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert done.returncode == 2 and "port must be in 0..65535" in done.stderr


def test_simultaneous_moves_apply_once(client: TestClient) -> None:
    from concurrent.futures import ThreadPoolExecutor

    game_id, seats, _ = new_game(client)
    with ThreadPoolExecutor(8) as pool:
        codes = list(
            pool.map(lambda _: move(client, game_id, seats["black"], "f5").status_code, range(8))
        )
    assert sorted(codes) == [200] + [409] * 7
    state = client.get(f"/api/games/{game_id}").json()
    assert state["transcript"] == "f5" and state["cursor"] == 1
