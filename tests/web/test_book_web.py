"""The opening book on the web: hints from the book say so, the state names
the opening, and the page shows it as the game goes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank.board import Board
from outflank.book.names import opening_name
from outflank.web.live import LiveGame, Seat
from web.conftest import CHROMIUM, move, new_game, wait_for
from web.test_browser import _new_game, page, server  # noqa: F401


def test_hints_in_the_opening_come_from_the_book(client: TestClient) -> None:
    game_id, _, _ = new_game(client)
    hints = client.get(f"/api/games/{game_id}/hints").json()["moves"]
    assert sorted(h["move"] for h in hints) == ["c4", "d3", "e6", "f5"]
    assert all(h["book"] and not h["exact"] for h in hints)
    deep = "d3e3f6c5b5b6f3f2e2d2c1d1c3b4e1g3c2g7h4g1g4d6"  # beyond the book
    game_id, _, _ = new_game(client, start=deep)
    hints = client.get(f"/api/games/{game_id}/hints?depth=2").json()["moves"]
    assert hints and not any(h["book"] for h in hints)


def test_the_state_names_the_opening_as_the_game_goes(client: TestClient) -> None:
    game_id, seats, state = new_game(client)
    assert state["opening"] is None
    for ply, square in enumerate(("f5", "d6", "c3", "d3", "c4"), 1):
        black = ply % 2 == 1
        assert move(client, game_id, seats["black" if black else "white"], square).status_code < 300
    state = wait_for(client, game_id, lambda s: s["cursor"] == 5)
    assert state["opening"] == "Tiger"
    game_id, _, state = new_game(client, start="d3c5f6f5e6")  # the Tiger, reflected
    assert state["opening"] == "Tiger"


def test_a_level_plays_the_opening_from_the_book_at_once(client: TestClient) -> None:
    level = {"kind": "ai", "ai": "level", "level": 18}  # would think 4 s a move
    game_id, seats, _ = new_game(client, white=level)
    move(client, game_id, seats["black"], "f5")
    state = wait_for(client, game_id, lambda s: s["cursor"] == 2, timeout=3.0)
    assert state["moves"][1]["by"] == "ai" and state["moves"][1]["move"] in ("d6", "f6", "f4")


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed")
def test_the_page_shows_the_opening_and_book_hints(server: str, page: Any) -> None:  # noqa: F811
    _new_game(page, server, "level")
    page.wait_for_selector("[data-legal]")
    assert page.locator("#opening").is_hidden()
    page.click("rect[data-square=f5]")
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 2")
    page.wait_for_selector("#status:has-text('Your move')")
    # f5 and any reply is a named opening: the perpendicular, diagonal or parallel
    page.wait_for_selector("#opening:not([hidden])")
    shown = page.text_content("#opening") or ""
    assert shown in ("Opening: Perpendicular", "Opening: Diagonal", "Opening: Parallel")
    page.click("#btn-hint")
    page.wait_for_selector("[data-hint]")
    page.wait_for_selector("#status:has-text('book')")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 30), back=st.integers(0, 30))
def test_the_cached_opening_name_is_the_replayed_one(seed: int, plies: int, back: int) -> None:
    """A state's opening (cached by the game's first moves) names what
    replaying the game to its cursor names, after moves and undos alike."""
    rng = random.Random(seed)
    seats = {c: Seat(c, f"secret-{c}", {"kind": "human"}) for c in ("black", "white")}
    game = LiveGame.new("g", Board(), seats)
    for _ in range(plies):
        tip = game.tip
        if tip.is_game_over():
            break
        game.push(rng.choice(tip.legal_moves), "human")
        game.changed()
    game.cursor = max(0, game.cursor - back)
    game.changed()
    replayed = Board()
    for ply in game.plies[: game.cursor]:
        replayed.push(ply.move)
    assert game.state()["opening"] == opening_name(replayed)
