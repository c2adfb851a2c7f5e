"""AI seats, hints and evaluations through the API (needs outflank.engine)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from outflank.board import Board
from outflank.web.app import create_app
from outflank.web.storage import MoveRow, SeatRow, Storage
from web.conftest import move, new_game, wait_for

LEVEL1 = {"kind": "ai", "ai": "level", "level": 1}


def test_ai_replies_to_a_human_move(client: TestClient) -> None:
    game_id, seats, _ = new_game(client, white=LEVEL1)
    state = move(client, game_id, seats["black"], "f5").json()
    assert state["turn"] == "white"
    # the human cannot move for the AI
    assert move(client, game_id, seats["white"], "d6").status_code == 409
    state = wait_for(client, game_id, lambda s: s["cursor"] == 2)
    reply = state["moves"][1]
    assert reply["by"] == "ai" and reply["color"] == "white"
    assert Board.from_transcript(state["transcript"]).obf()[:64] == state["board"]
    assert state["turn"] == "black"


def test_ai_moves_first_when_it_is_black(client: TestClient) -> None:
    game_id, _, _ = new_game(client, black={"kind": "ai", "ai": "greedy"})
    state = wait_for(client, game_id, lambda s: s["cursor"] == 1)
    assert state["moves"][0]["by"] == "ai" and state["turn"] == "white"


def test_two_ais_finish_the_game(client: TestClient) -> None:
    game_id, _, _ = new_game(client, black=LEVEL1, white={"kind": "ai", "ai": "minimax4"})
    state = wait_for(client, game_id, lambda s: s["status"] == "over", timeout=60)
    board = Board.from_transcript(state["transcript"])
    assert board.is_game_over() and board.result() == state["result"]["score"]


def test_regions_sliders_change_mid_game(client: TestClient) -> None:
    regions = {"kind": "ai", "ai": "regions", "corner": 30, "edge": 5, "x_square": -20}
    game_id, seats, _ = new_game(client, white={**regions, "lookahead": 2})
    move(client, game_id, seats["black"], "f5")
    wait_for(client, game_id, lambda s: s["cursor"] == 2)
    url = f"/api/games/{game_id}/players/white"
    new = {**regions, "corner": -50, "lookahead": 6}
    changed = client.patch(url, json={"seat": seats["black"], "player": new})
    assert changed.status_code == 200, changed.text
    white = changed.json()["players"]["white"]
    assert white["corner"] == -50 and white["lookahead"] == 6
    assert "look-ahead 6" in white["name"]
    assert client.patch(url, json={"seat": "nope", "player": new}).status_code == 403
    too_far = client.patch(url, json={"seat": seats["black"], "player": {**new, "lookahead": 11}})
    assert too_far.status_code == 422
    human = client.patch(
        f"/api/games/{game_id}/players/black",
        json={"seat": seats["black"], "player": new},
    )
    assert human.status_code == 409
    assert client.patch(
        f"/api/games/{game_id}/players/green", json={"seat": seats["black"], "player": new}
    ).status_code in (404, 422)


def test_hints_score_every_legal_move(client: TestClient) -> None:
    game_id, _, state = new_game(client, start="f5d6c3")
    hints = client.get(f"/api/games/{game_id}/hints").json()
    assert hints["turn"] == "white"
    assert sorted(h["move"] for h in hints["moves"]) == sorted(state["legal"])
    scores = [h["score"] for h in hints["moves"]]
    assert scores == sorted(scores, reverse=True)
    early = client.get(f"/api/games/{game_id}/hints", params={"ply": 0}).json()
    assert sorted(h["move"] for h in early["moves"]) == ["c4", "d3", "e6", "f5"]
    assert client.get(f"/api/games/{game_id}/hints", params={"ply": 99}).status_code == 400


def test_hints_bound_the_moves_far_below_the_best(client: TestClient) -> None:
    # a1 is far the best: the others are only bounded ("upper"), at most
    # the analysis window (4 discs) below it, which costs far less than their scores
    game_id, _, _ = new_game(client, start="f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    hints = client.get(f"/api/games/{game_id}/hints").json()["moves"]
    best = hints[0]
    assert best["move"] == "a1" and not best["upper"] and not best["book"]
    bounded = [h for h in hints if h["upper"]]
    assert bounded and all(h["score"] <= best["score"] - 4 + 1e-9 for h in bounded)


def test_evaluations_cover_every_position(client: TestClient) -> None:
    game_id, _, _ = new_game(client, start="f5d6c3d3")
    values = client.get(f"/api/games/{game_id}/evaluations").json()["values"]
    assert len(values) == 5 and all(isinstance(v, float) for v in values)


def test_evaluation_of_an_early_end_gives_the_empties_to_the_winner(client: TestClient) -> None:
    # black wipes white out with 43 squares empty: +64, as the engine and the GGF count it
    wipeout = "c4c5c6b5a6b3f6b7a8a5a2a7a4c7d7c3c2"
    game_id, _, _ = new_game(client, start=wipeout)
    values = client.get(f"/api/games/{game_id}/evaluations").json()["values"]
    assert values[-1] == 64.0
    assert "RE[+64.000]" in client.get(f"/api/games/{game_id}/ggf").text


def test_undo_against_the_ai_returns_to_the_human(client: TestClient) -> None:
    game_id, seats, _ = new_game(client, white=LEVEL1)
    move(client, game_id, seats["black"], "f5")
    wait_for(client, game_id, lambda s: s["cursor"] == 2)
    undone = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["black"]}).json()
    assert undone["cursor"] == 0 and undone["turn"] == "black" and undone["redo"] == 2
    redone = client.post(f"/api/games/{game_id}/redo", json={"seat": seats["black"]}).json()
    assert redone["cursor"] == 2 and redone["turn"] == "black"


def test_undo_against_the_ai_keeps_the_start_and_the_ais_opening(client: TestClient) -> None:
    """Undo takes back to the person's last turn after the start position:
    it used to take the start's own moves apart, two by two."""
    game_id, seats, _ = new_game(client, white=LEVEL1, start="f5d6c3d3c4")
    wait_for(client, game_id, lambda s: s["cursor"] == 6)  # white (the AI) answered
    undo = f"/api/games/{game_id}/undo"
    refused = client.post(undo, json={"seat": seats["black"]})
    assert refused.status_code == 409 and refused.json()["error"] == "nothing to undo"
    move(client, game_id, seats["black"], wait_for(client, game_id, lambda s: True)["legal"][0])
    wait_for(client, game_id, lambda s: s["cursor"] == 8)
    assert client.post(undo, json={"seat": seats["black"]}).json()["cursor"] == 6
    assert client.post(undo, json={"seat": seats["black"]}).status_code == 409
    # as white against an AI that opened, there is nothing of yours to take back
    game_id, seats, _ = new_game(client, black=LEVEL1)
    wait_for(client, game_id, lambda s: s["cursor"] == 1)
    refused = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["white"]})
    assert refused.status_code == 409


def test_undo_while_the_ai_thinks_says_nobody_thinks(client: TestClient) -> None:
    """The undo's state must not name the search it has just made stale: that
    search ends without publishing anything, so the page would show "White
    is thinking" for good."""
    strong = {"kind": "ai", "ai": "level", "level": 20}  # thinks up to the 5 s cap
    game_id, seats, _ = new_game(client, white=strong, start="f5d6c3d3c4f4f6f3e6e7d7c6")
    move(client, game_id, seats["black"], "b6")
    wait_for(client, game_id, lambda s: s["thinking"] == "white", poll=0.05)
    undone = client.post(f"/api/games/{game_id}/undo", json={"seat": seats["black"]}).json()
    assert undone["turn"] == "black" and undone["thinking"] is None


def test_restart_lets_a_waiting_ai_move(db_path: Path) -> None:
    with TestClient(create_app(str(db_path), ai_delay=0.0)) as first:
        game_id, seats, _ = new_game(first)
        move(first, game_id, seats["black"], "f5")
    # while the server is down, white becomes an AI (as if it stopped mid-think)
    storage = Storage(str(db_path))
    with storage.session() as session:
        seat = session.scalars(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.color == "white")
        ).one()
        seat.player = LEVEL1
        session.commit()
    storage.close()
    with TestClient(create_app(str(db_path), ai_delay=0.0)) as second:
        state = wait_for(second, game_id, lambda s: s["cursor"] == 2)
        assert state["moves"][1]["by"] == "ai"


def test_a_search_cut_short_by_shutdown_is_not_saved_as_a_move(db_path: Path) -> None:
    """Closing the server stops the AI's search; that stopped search used to
    be committed as the AI's move (shallower than the AI's own, often another
    move). The game must stay "AI to move", for the restart to think again."""
    strong = {"kind": "ai", "ai": "level", "level": 20}
    # 22 plies in: beyond the opening book, which would answer at once
    start = "d3e3f6c5b5b6f3f2e2d2c1d1c3b4e1g3c2g7h4g1g4d6"
    with TestClient(create_app(str(db_path), ai_delay=0.0, time_cap=30.0)) as first:
        game_id, seats, _ = new_game(first, white=strong, start=start)
        move(first, game_id, seats["black"], "f4")
        wait_for(first, game_id, lambda s: s["thinking"] == "white", poll=0.05)
    storage = Storage(str(db_path))
    with storage.session() as session:
        moves = session.scalars(select(MoveRow.move).where(MoveRow.game_id == game_id)).all()
    storage.close()
    assert moves == [start[i : i + 2] for i in range(0, len(start), 2)] + ["f4"]


def test_reversi_rules_with_an_ai(client: TestClient) -> None:
    game_id, seats, state = new_game(
        client, rules="reversi", white={"kind": "ai", "ai": "heuristic"}
    )
    assert state["rules"] == "reversi"
    move(client, game_id, seats["black"], "f5")
    state = wait_for(client, game_id, lambda s: s["cursor"] == 2)
    board = Board.from_transcript(state["transcript"], rules="reversi")
    assert board.obf()[:64] == state["board"]
    hints = client.get(f"/api/games/{game_id}/hints").json()["moves"]
    assert sorted(h["move"] for h in hints) == sorted(state["legal"])


def test_websocket_streams_the_ai_search(client: TestClient) -> None:
    game_id, seats, _ = new_game(client, white={"kind": "ai", "ai": "minimax4"})
    with client.websocket_connect(f"/ws/games/{game_id}?seat={seats['black']}") as ws:
        ws.receive_json()
        ws.send_json({"type": "move", "move": "f5"})
        events = []
        while not (events and events[-1]["type"] == "state" and events[-1]["state"]["cursor"] == 2):
            events.append(ws.receive_json())
    kinds = [e["type"] for e in events]
    assert kinds[0] == "state" and "thinking" in kinds
    infos = [e for e in events if e["type"] == "info"]
    assert infos and infos[-1]["depth"] == 4 and infos[-1]["color"] == "white"
    assert {"score", "nodes", "nps", "pv"} <= set(infos[-1])
    assert kinds.index("thinking") < kinds.index("info")


def test_ai_games_do_not_starve_a_persons_game(db_path: Path) -> None:
    """Two games of AI against AI at level 20 used to hold both AI threads for
    whole games (a worker looped on its game): a person's game then waited
    for them to end. Now a worker gives its thread back after each move, and
    AI-against-AI games never hold the last free thread."""
    strong = {"kind": "ai", "ai": "level", "level": 20}
    # a midgame out of the opening book: every AI move is a real search
    midgame = "------------------XO-O----XXOO-----OOX----OXXX-----XO----------- X"
    app = create_app(str(db_path), ai_workers=2, ai_delay=0.0, time_cap=3.0)
    with TestClient(app) as client:
        busy = [new_game(client, black=strong, white=strong, start=midgame)[0] for _ in range(2)]
        wait_for(client, busy[0], lambda s: s["thinking"] is not None, poll=0.05)
        game_id, seats, _ = new_game(client, white={"kind": "ai", "ai": "greedy"})
        move(client, game_id, seats["black"], "f5")
        wait_for(client, game_id, lambda s: s["cursor"] == 2, timeout=30)
        # the AI games made a move or two meanwhile, not whole games
        for other in busy:
            assert client.get(f"/api/games/{other}").json()["cursor"] <= 4


def test_a_client_may_run_only_so_many_ai_games(db_path: Path) -> None:
    app = create_app(str(db_path), ai_delay=60.0, ai_games_per_client=2)
    two_ais = {"black": LEVEL1, "white": LEVEL1}
    with TestClient(app) as client:
        for _ in range(2):
            assert client.post("/api/games", json=two_ais).status_code == 201
        refused = client.post("/api/games", json=two_ais)
        assert refused.status_code == 429
        assert "at most 2 at once" in refused.json()["error"]
        # a game with a person in it, or another client's, is not counted
        assert client.post("/api/games", json={"white": LEVEL1}).status_code == 201
        other = TestClient(app, client=("192.0.2.7", 40000))
        assert other.post("/api/games", json=two_ais).status_code == 201
