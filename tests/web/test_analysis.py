"""Learn mode (the teaching alpha-beta trace) and the GGF export."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from outflank.board import Board
from outflank.classic import alphabeta
from outflank.ggf import parse_ggf
from web.conftest import new_game


def _number(value: float | str) -> float:
    return float(value.replace("Infinity", "inf")) if isinstance(value, str) else value


def _walk(node: dict) -> list[dict]:
    return [node, *(n for child in node["children"] for n in _walk(child))]


def test_learn_tree_matches_the_teaching_search(client: TestClient) -> None:
    game_id, _, _ = new_game(client, start="f5d6c3d3c4")
    board = Board.from_transcript("f5d6c3d3c4")
    for depth in (1, 3):
        data = client.get(f"/api/games/{game_id}/learn", params={"depth": depth}).json()
        expected = alphabeta(board, depth)
        assert data["value"] == expected.value and data["best_move"] == str(expected.best_move)
        assert data["nodes"] == expected.nodes and data["cutoffs"] == expected.cutoffs
        nodes = _walk(data["tree"])
        assert max(n["depth"] for n in nodes) == depth
        assert {c["move"] for c in data["tree"]["children"]} == {str(m) for m in board.legal_moves}
        if depth == 3:
            assert any(n["pruned"] for n in nodes)  # alpha-beta cut something
    # the position at an earlier ply (replay) can be studied too
    early = client.get(f"/api/games/{game_id}/learn", params={"depth": 1, "ply": 0}).json()
    assert {c["move"] for c in early["tree"]["children"]} == {"d3", "c4", "f5", "e6"}


def test_learn_in_both_log_orders(client: TestClient) -> None:
    """The same tree; at each cut-off the logged window is the updated one
    (update-first, the default) or the old one (test-first, AIMA 5.7)."""
    game_id, _, _ = new_game(client, start="f5d6c3d3c4")
    url = f"/api/games/{game_id}/learn"
    default = client.get(url, params={"depth": 3}).json()
    update = client.get(url, params={"depth": 3, "order": "update-first"}).json()
    test = client.get(url, params={"depth": 3, "order": "test-first"}).json()
    assert default == update and update["order"] == "update-first"
    assert test["order"] == "test-first"
    assert (test["value"], test["best_move"], test["nodes"]) == (
        update["value"],
        update["best_move"],
        update["nodes"],
    )
    pairs = list(zip(_walk(update["tree"]), _walk(test["tree"]), strict=True))
    cuts = [(u, t) for u, t in pairs if u["cutoff"]]
    assert cuts
    for u, t in cuts:
        assert (u["alpha"], u["beta"], u["value"]) == (t["alpha"], t["beta"], t["value"])
        # update-first logs the moved window (alpha >= beta), test-first the old one
        assert _number(u["logged_alpha"]) >= _number(u["logged_beta"])
        assert _number(t["logged_alpha"]) < _number(t["logged_beta"])
    for u, t in pairs:  # a cut-off at the last child prunes nothing, but is logged the same way
        if (u["logged_alpha"], u["logged_beta"]) != (t["logged_alpha"], t["logged_beta"]):
            assert _number(u["logged_alpha"]) >= _number(u["logged_beta"])


def test_learn_bad_input(client: TestClient) -> None:
    game_id, _, _ = new_game(client)
    assert client.get(f"/api/games/{game_id}/learn", params={"depth": 5}).status_code == 422
    assert client.get(f"/api/games/{game_id}/learn", params={"ply": 9}).status_code == 400
    bad = client.get(f"/api/games/{game_id}/learn", params={"order": "aima"})
    assert bad.status_code == 400 and "unknown log order 'aima'" in bad.json()["error"]
    long = client.get(f"/api/games/{game_id}/learn", params={"order": "x" * 100})
    assert long.status_code == 422
    assert client.get("/api/games/nope/learn").status_code == 404


def test_ggf_export_replays_to_the_same_board(client: TestClient) -> None:
    game_id, _, state = new_game(client, start="f5d6c3d3c4f4")
    text = client.get(f"/api/games/{game_id}/ggf").text
    record = parse_ggf(text)
    assert record.board().obf()[:64] == state["board"]
    time.sleep(1.1)  # DT is when the game began, not when it is exported
    assert parse_ggf(client.get(f"/api/games/{game_id}/ggf").text).date == record.date


def test_a_reversi_game_says_so_in_its_ggf(client: TestClient) -> None:
    """GGF has no Reversi rules of its own: RU[Reversi] (outflank's tag) makes
    the record replay under them, to the same finished board."""
    wipeout = "c4c5c6b5a6b3f6b7a8a5a2a7a4c7d7c3c2"  # white has no disc left
    game_id, _, state = new_game(client, rules="reversi", start=wipeout)
    record = parse_ggf(client.get(f"/api/games/{game_id}/ggf").text)
    assert record.rules.value == "reversi" and record.board().is_game_over()
    assert record.board().obf()[:64] == state["board"]
