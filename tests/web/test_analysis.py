"""Learn mode (the teaching alpha-beta trace) and the GGF export."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

from outflank.board import Board
from outflank.classic import alphabeta
from outflank.ggf import parse_ggf
from outflank.web.ai import Thinker
from outflank.web.analysis import Cancel, Cancelled
from outflank.web.app import create_app
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


BIG_TREE = "d3c3b3f4f3d6c6f2f6b7c5c2e7e6d1a3g4g6f7g3e2h4g5b4f5"  # 14624 nodes at depth 4


def test_learn_trees_are_bounded(client: TestClient) -> None:
    """A depth-4 tree of a busy midgame used to be sent whole (megabytes)."""
    game_id, _, _ = new_game(client, start=BIG_TREE)
    url = f"/api/games/{game_id}/learn"
    refused = client.get(url, params={"depth": 4})
    assert refused.status_code == 400 and "ask for a smaller depth" in refused.json()["error"]
    smaller = client.get(url, params={"depth": 3})
    assert smaller.status_code == 200 and len(smaller.content) < 2_000_000


def _hold_the_analysts(client: TestClient, jobs: int) -> tuple[threading.Event, list]:
    """Fill the analysis queue with jobs that wait for the returned event."""
    queue = client.app.state.service.analysis
    release = threading.Event()
    threads = [
        threading.Thread(target=lambda: queue.run(lambda cancel: release.wait(30), timeout=30))
        for _ in range(jobs)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while queue.pending < jobs:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return release, threads


def test_a_full_analysis_queue_answers_503_with_retry_after(db_path: Path) -> None:
    """150 Learn requests at once used to pile up threads, end in 500s with
    tracebacks, and make /api/info wait 14 s."""
    app = create_app(str(db_path), analysts=1, analysis_limit=2)
    with TestClient(app) as client:
        game_id, _, _ = new_game(client, start="f5d6c3d3c4")
        release, threads = _hold_the_analysts(client, 2)
        try:
            for path in ("learn", "hints", "evaluations"):
                busy = client.get(f"/api/games/{game_id}/{path}")
                assert busy.status_code == 503, path
                assert int(busy.headers["Retry-After"]) >= 1
                assert "busy" in busy.json()["error"] and "try again in" in busy.json()["error"]
            assert client.get("/api/info").status_code == 200  # cheap requests go on
            assert client.get(f"/api/games/{game_id}").status_code == 200
        finally:
            release.set()
            for thread in threads:
                thread.join()
        assert client.get(f"/api/games/{game_id}/learn").status_code == 200


def test_an_analysis_that_waits_too_long_is_cancelled(db_path: Path) -> None:
    app = create_app(str(db_path), analysts=1, analysis_limit=4, analysis_timeout=0.3)
    with TestClient(app) as client:
        game_id, _, _ = new_game(client, start="f5d6c3d3c4")
        queue = client.app.state.service.analysis
        release, threads = _hold_the_analysts(client, 1)
        try:
            late = client.get(f"/api/games/{game_id}/learn", params={"depth": 2})
            assert late.status_code == 503 and "Retry-After" in late.headers
            assert "was stopped" in late.json()["error"]
            assert queue.pending == 1  # the timed-out job left the queue; only the holder stays
        finally:
            release.set()
            for thread in threads:
                thread.join()


def test_many_learn_requests_at_once_get_answers_not_500s(db_path: Path) -> None:
    app = create_app(str(db_path), analysts=2, analysis_limit=3)
    with TestClient(app) as client:
        game_id, _, _ = new_game(client, start="f5d6c3d3c4f4f6f3e6e7d7c6")
        codes: list[int] = []

        def ask() -> None:
            codes.append(client.get(f"/api/games/{game_id}/learn", params={"depth": 4}).status_code)

        threads = [threading.Thread(target=ask) for _ in range(30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(codes) == 30 and set(codes) <= {200, 503} and 200 in codes


def test_a_cancelled_engine_analysis_stops_at_once() -> None:
    thinker = Thinker(time_cap=60.0)
    cancel = Cancel()
    board = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c6")
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            thinker.analyze(board, 40, 60.0, cancel)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.3)
    cancel.cancel()
    worker.join(10)  # the search would run 60 s if the cancellation did not stop it
    assert not worker.is_alive() and isinstance(outcome[0], Cancelled)
