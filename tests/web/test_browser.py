"""The page in a real headless chromium (Playwright) against a real ``outflank serve``."""

from __future__ import annotations

import json
import random
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from outflank.board import Board
from web.conftest import BROWSER_MARKS, browser_page, free_port, served, start_server, stop_server

pytestmark = BROWSER_MARKS


def _start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    return start_server(db, port, "--ai-delay", "0.05")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("web") / "browser.db", "--ai-delay", "0.05") as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with browser_page(browser, console=False) as (page, errors):
        yield page
    assert not errors, f"JavaScript errors: {errors}"


def _api(base: str, path: str, body: dict | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path, data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req) as response:
        return json.load(response)


def _white_settles_on(page: Any, base: str, game_id: str, **expected: int) -> None:
    """Poll the server until white's AI settings hold `expected`, then check
    that nothing sent later undoes them. (A `page.wait_for_function` whose
    predicate returns a promise does not wait: the promise itself is truthy.)
    The waits are the page's, so that its routes keep being served."""

    def current() -> dict[str, int]:
        white = _api(base, f"/api/games/{game_id}")["players"]["white"]
        return {key: white[key] for key in expected}

    deadline = time.monotonic() + 10
    seen = current()
    while seen != expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        seen = current()
    assert seen == expected
    page.wait_for_timeout(500)  # a stale update still on its way would land in this time
    assert current() == expected


FLIP_RECORDER = """() => {
  window.flipped = [];
  new MutationObserver((records) => {
    for (const r of records) {
      window.flipped.push(`${r.target.dataset.square}:${r.target.dataset.color}`);
    }
  }).observe(document.getElementById("board"),
             { attributes: true, attributeFilter: ["data-color"], subtree: true });
}"""


def _count(page: Any, color: str) -> int:
    return int(page.text_content(f"#count-{color}"))


def _new_game(page: Any, base: str, opponent: str, color: str = "black", start: str = "") -> None:
    page.goto(base + "/")
    page.wait_for_selector("dialog#newgame[open]")
    page.check(f"input[name=color][value={color}]")
    page.select_option("#ng-opponent", opponent)
    if opponent == "level":
        page.fill("#ng-level", "1")
    if start:
        page.click("details summary")
        page.fill("input[name=start]", start)
    page.click("#ng-start")
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#export-card:not([hidden])")


def _near_end_obf() -> str:
    """A position from a random game where black's move fills the last square."""
    rng = random.Random(7)
    while True:
        board = Board()
        while board.empties > 1 and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if board.empties == 1 and board.turn.name == "BLACK" and board.moves_bitboard():
            return board.obf()


def test_finish_a_game_and_reload(server: str, page: Any) -> None:
    obf = _near_end_obf()
    _new_game(page, server, "human", start=obf)
    black_before = _count(page, "black")
    legal = page.get_attribute("[data-legal]", "data-legal")
    page.click(f"rect[data-square={legal}]")
    page.wait_for_selector("#endscreen:not([hidden])")
    title = page.text_content("#end-title")
    assert title in ("Black wins!", "White wins!", "It is a tie!")
    assert _count(page, "black") > black_before
    assert page.locator(f"circle.disc[data-square={legal}]").get_attribute("data-color") == "black"
    page.reload()
    page.wait_for_selector("#endscreen:not([hidden])")
    assert page.text_content("#end-title") == title
    assert page.locator("#movelist li").count() >= 1


def test_two_browsers_play_each_other(server: str, browser: Any, page: Any) -> None:
    _new_game(page, server, "human")
    invite = page.input_value("#link-invite-white")
    spectate = page.input_value("#link-spectate")
    assert "seat=" in invite and "seat=" not in spectate
    other = browser.new_context().new_page()
    other.goto(invite)
    other.wait_for_selector("#tag-white:has-text('you')")
    page.wait_for_selector("[data-legal=f5]")
    page.click("rect[data-square=f5]")
    other.wait_for_selector("circle.disc[data-square=f5][data-color=black]")
    other.wait_for_selector("#count-black:text-is('4')")
    # black cannot move for white; white moves from its own browser
    other.wait_for_selector("[data-legal=d6]")
    other.click("rect[data-square=d6]")
    page.wait_for_selector("circle.disc[data-square=d6][data-color=white]")
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 2")
    # a spectator sees the game but cannot move
    watcher = browser.new_context().new_page()
    watcher.goto(spectate)
    watcher.wait_for_selector("circle.disc[data-square=d6][data-color=white]")
    watcher.click("rect[data-square=c3]")
    watcher.wait_for_selector("#toast:has-text('Spectating')")
    assert page.locator("#movelist li").count() == 2
    # each takes back only their own unanswered move; the other browser follows
    page.wait_for_selector("#btn-undo:disabled")  # white has answered f5
    other.click("#btn-undo")
    page.wait_for_function("document.querySelectorAll('#movelist li.future').length === 1")
    page.click("#btn-undo:enabled")
    other.wait_for_function("document.querySelectorAll('#movelist li.future').length === 2")
    other.wait_for_selector("#btn-redo:disabled")  # the next move to replay is black's
    other.context.close()
    watcher.context.close()


def test_replay_and_learn(server: str, page: Any) -> None:
    _new_game(page, server, "human", start="f5d6c3d3c4f4")
    page.click("#movelist li[data-ply='2']")
    page.wait_for_selector("#replay-banner:not([hidden])")
    assert page.locator("circle.disc").count() == 6
    page.click("#rp-last")
    page.wait_for_selector("#replay-banner", state="hidden")
    assert page.locator("circle.disc").count() == 10
    page.click("#btn-learn")
    page.click(".depths button[data-depth='2']")
    page.wait_for_selector("#tree .node")
    assert "nodes searched" in page.text_content("#learn-summary")
    assert page.locator("#tree .node.max").count() >= 1
    # f3 is cut off below e3 (0): only "at most 0" is known of it, and it says so
    texts = page.locator("#tree .node").all_text_contents()
    assert any(t.startswith("f3v ≤ 0 ✂") for t in texts), texts
    assert "Log order update-first" in page.text_content("#learn-summary")
    cut = page.locator("#tree .node.cutoff title").first.text_content()
    assert "its log line shows alpha" in cut
    # The other log order: one sentence says what differs, and a cut-off's
    # logged window becomes the one it was searched with.
    page.select_option("#learn-order", "test-first")
    page.wait_for_selector("#learn-summary:has-text('Log order test-first')")
    page.wait_for_selector("#tree .node")
    summary = page.text_content("#learn-summary")
    assert "cut-off is tested first" in summary and "old α and β" in summary
    assert page.locator("#tree .node.cutoff").count() >= 1


def test_play_the_ai_hint_undo_reload(server: str, page: Any) -> None:
    _new_game(page, server, "level")
    page.wait_for_selector("[data-legal]")
    page.evaluate(FLIP_RECORDER)
    page.click("rect[data-square=f5]")
    page.wait_for_function("window.flipped.includes('e5:black')")  # the disc turned
    # the AI replies: two moves in the list, black to move again
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 2")
    page.wait_for_selector("#status:has-text('Your move')")
    legal = page.locator("[data-legal]").count()
    page.click("#btn-hint")
    page.wait_for_selector("[data-hint]")
    assert page.locator("[data-hint]").count() == legal
    page.click("#btn-undo")
    page.wait_for_function("document.querySelectorAll('#movelist li.future').length === 2")
    assert _count(page, "black") == 2 and _count(page, "white") == 2
    page.click("#btn-redo")
    page.wait_for_function("document.querySelectorAll('#movelist li.future').length === 0")
    page.reload()
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 2")
    page.wait_for_selector("#status:has-text('Your move')")


def test_ai_against_ai_finishes(server: str, page: Any) -> None:
    _new_game(page, server, "level", color="watch")
    page.wait_for_selector("#endscreen:not([hidden])", timeout=60000)
    black, white = _count(page, "black"), _count(page, "white")
    assert black + white <= 64 and black + white > 4


def _pass_position() -> tuple[str, str]:
    """A position (OBF) where black has a move after which white must pass."""
    rng = random.Random(1)
    while True:
        board = Board()
        while not board.is_game_over() and board.empties > 4:
            if board.turn.name == "BLACK":
                for move in board.legal_moves:
                    after = board.copy()
                    after.push(move)
                    if after.must_pass():
                        return board.obf(), str(move)
            board.push(rng.choice(board.legal_moves))


def test_a_pass_is_announced(server: str, page: Any) -> None:
    obf, square = _pass_position()
    _new_game(page, server, "human", start=obf)
    page.wait_for_selector(f"[data-legal={square}]")
    page.click(f"rect[data-square={square}]")
    page.wait_for_selector("#toast:has-text('White has no legal move and passes')")
    page.wait_for_function("document.querySelectorAll('#movelist li.pass').length === 1")
    page.wait_for_selector("#status:has-text('Your move (black)')")


def test_rest_fallback_without_websocket(server: str, browser: Any) -> None:
    context = browser.new_context()
    context.add_init_script("window.WebSocket = undefined;")  # as behind a proxy without it
    page = context.new_page()
    _new_game(page, server, "human")
    game_id = page.url.split("/game/")[1].split("?")[0]
    page.click("rect[data-square=f5]")  # sent over REST
    page.wait_for_selector("#count-black:text-is('4')")
    white = page.input_value("#link-invite-white").split("seat=")[1]
    _api(server, f"/api/games/{game_id}/moves", {"seat": white, "move": "d6"})
    # the page learns of the other side's move by long polling
    page.wait_for_selector("circle.disc[data-square=d6][data-color=white]")
    page.wait_for_selector("#status:has-text('Your move (black)')")
    context.close()


def test_level_scale_comes_from_the_server(server: str, browser: Any) -> None:
    """The slider takes its range and default from /api/info, and a watched
    game's engines play at that default."""
    context = browser.new_context()
    page = context.new_page()

    def scale(route: Any) -> None:  # a server whose scale differs from the page's own
        info = json.loads(route.fetch().text())
        info["levels"] = {"min": 2, "max": 17, "default": 9}
        route.fulfill(json=info)

    page.route("**/api/info", scale)
    page.goto(server + "/")
    page.wait_for_selector("dialog#newgame[open]")
    page.wait_for_function("document.getElementById('ng-level').max === '17'")
    assert page.get_attribute("#ng-level", "min") == "2"
    assert page.input_value("#ng-level") == "9"
    assert page.text_content("#ng-level-out") == "9"
    page.check("input[name=color][value=watch]")
    page.select_option("#ng-opponent", "human")
    page.click("#ng-start")
    page.wait_for_url("**/game/*")
    game_id = page.url.split("/game/")[1].split("?")[0]
    with urllib.request.urlopen(f"{server}/api/games/{game_id}") as response:
        state = json.load(response)
    assert state["players"]["black"]["level"] == 9
    context.close()


def test_the_new_game_dialog_says_how_many_threads_the_engine_uses(server: str, page: Any) -> None:
    with urllib.request.urlopen(f"{server}/api/info") as response:
        threads = json.load(response)["threads"]["per_search"]
    page.goto(server + "/")
    page.wait_for_selector("dialog#newgame[open]")
    page.wait_for_selector("#ng-threads:not([hidden])")
    plural = "" if threads == 1 else "s"
    assert page.text_content("#ng-threads") == (
        f"The engine thinks on {threads} thread{plural} per move."
    )


def _disc_colors(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "circle.disc", "ds => Object.fromEntries(ds.map(d => [d.dataset.square, d.dataset.color]))"
    )


def _board_colors(board: Board) -> dict[str, str]:
    name = lambda sq: "abcdefgh"[sq % 8] + str(sq // 8 + 1)  # noqa: E731
    colors = {name(sq): "black" for sq in range(64) if board.black >> sq & 1}
    colors.update({name(sq): "white" for sq in range(64) if board.white >> sq & 1})
    return colors


def test_quick_replay_steps_leave_the_right_position(server: str, page: Any) -> None:
    moves = "f5d6c3d3c4f4f6f3e6e7d7"
    _new_game(page, server, "human", start=moves)
    page.click("#movelist li[data-ply='5']")
    page.wait_for_selector("#replay-banner:not([hidden])")
    page.keyboard.press("ArrowRight")  # animates move 6 ...
    page.keyboard.press("ArrowLeft")  # ... and is cut short: back to move 5
    page.wait_for_selector("#status:has-text('move 5 of 11')")
    page.wait_for_timeout(800)  # longer than any flip animation
    assert _disc_colors(page) == _board_colors(Board.from_transcript(moves[:10]))


def _losing_move() -> tuple[str, str]:
    """A position (OBF) where black's only move ends the game, and black loses."""
    rng = random.Random(3)
    while True:
        board = Board()
        while not board.is_game_over():
            moves = board.legal_moves
            if board.turn.name == "BLACK" and len(moves) == 1 and not moves[0].is_pass:
                after = board.copy()
                after.push(moves[0])
                outcome = after.outcome()
                if outcome is not None and outcome.white > outcome.black:
                    return board.obf(), str(moves[0])
            board.push(rng.choice(moves))


def test_losing_to_the_computer_says_so(server: str, page: Any) -> None:
    obf, move = _losing_move()
    _new_game(page, server, "level", start=obf)
    page.click(f"rect[data-square={move}]")
    page.wait_for_selector("#endscreen:not([hidden])")
    assert page.text_content("#end-title") == "Computer wins!"


def test_back_to_the_start_page_leaves_the_game(server: str, page: Any) -> None:
    _new_game(page, server, "level", color="watch")
    page.wait_for_function("document.querySelectorAll('#movelist li').length >= 2")
    page.go_back()
    page.wait_for_selector("dialog#newgame[open]")
    assert page.text_content("#status") == "Start a new game"
    page.wait_for_timeout(1000)  # the old game goes on on the server, not on this page
    assert page.locator("#movelist li").count() == 0
    assert _count(page, "black") == 2 and _count(page, "white") == 2
    assert page.locator("circle.disc").count() == 4
    assert page.is_disabled("#btn-undo") and page.is_disabled("#rp-play")


def test_an_unknown_game_says_so_in_the_dialog(server: str, page: Any) -> None:
    page.goto(server + "/game/nosuchgame")
    page.wait_for_selector("dialog#newgame[open]")
    assert "There is no game nosuchgame here." in page.text_content("#ng-error")
    assert page.locator("circle.disc").count() == 4
    assert _count(page, "black") == 2 and page.is_disabled("#btn-hint")


def test_older_games_page_back_in_the_new_game_dialog(server: str, page: Any) -> None:
    humans = {"black": {"kind": "human"}, "white": {"kind": "human"}}
    for _ in range(10):
        _api(server, "/api/games", humans)
    page.goto(server + "/")
    page.wait_for_selector("#recent-more:not([hidden])")
    assert page.locator("#recent-list li").count() == 8
    page.click("#recent-more")
    page.wait_for_function("document.querySelectorAll('#recent-list li').length > 8")
    links = page.locator("#recent-list li a").evaluate_all("els => els.map(e => e.href)")
    assert len(links) == len(set(links))  # the next page, not the first one again


def test_keyboard_play_slider_focus_and_a_clean_new_game_dialog(server: str, page: Any) -> None:
    """A move from the keyboard (Tab to a marked square, Enter); a regions
    slider keeps the focus while its arrow-key steps reach the server; the
    New game button opens the dialog without a stray error line."""
    _new_game(page, server, "regions")
    page.wait_for_selector("rect.cell.playable")
    page.focus("rect.cell.playable[data-square=f5]")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('#movelist li').length >= 2")
    edge = "#ai-settings input[name=edge]"
    page.focus(edge)
    for step in range(1, 4):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            f"() => document.querySelector('{edge}') &&"
            f" document.querySelector('{edge}').value === String(5 + {step})"
        )
        page.wait_for_timeout(300)  # the PATCH and the redraw of the card
        assert page.evaluate("document.activeElement.name") == "edge"
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    _white_settles_on(page, server, game_id, edge=8)
    page.click("#btn-new")
    page.wait_for_selector("dialog#newgame[open]")
    assert page.locator("#ng-error").is_hidden()


def test_a_replay_leaves_a_move_that_was_taken_back(server: str, page: Any) -> None:
    created = _api(
        server,
        "/api/games",
        {"black": {"kind": "human"}, "white": {"kind": "human"}, "start": "f5d6"},
    )
    game_id, seats = created["game"]["id"], created["seats"]
    for color, square in (("black", "c3"), ("white", "d3"), ("black", "c4"), ("white", "f4")):
        _api(server, f"/api/games/{game_id}/moves", {"seat": seats[color], "move": square})
    page.goto(f"{server}/game/{game_id}")
    page.wait_for_selector("#movelist li[data-ply='5']")
    page.click("#movelist li[data-ply='5']")
    page.wait_for_selector("#replay-banner:not([hidden])")
    for color in ("white", "black"):  # both take back their last move elsewhere: ply 4
        _api(server, f"/api/games/{game_id}/undo", {"seat": seats[color]})
    # The first undo may already end the replay (ply 5 is then the live end);
    # wait for the second one to reach the page before looking at the board.
    page.wait_for_function("document.querySelectorAll('#movelist li.future').length === 2")
    page.wait_for_selector("#replay-banner", state="hidden")
    assert page.locator("circle.disc").count() == 8  # the live board at ply 4


def test_the_page_says_when_the_server_is_gone_and_when_it_is_back(
    tmp_path: Path, page: Any
) -> None:
    port = free_port()
    proc = _start_server(tmp_path / "games.db", port)
    base = f"http://127.0.0.1:{port}"
    try:
        _new_game(page, base, "human")
        assert page.locator("#offline").is_hidden()
        proc.kill()  # as kill -9
        proc.wait()
        page.wait_for_selector("#offline:not([hidden])", timeout=20_000)
        proc = _start_server(tmp_path / "games.db", port)
        page.wait_for_selector("#offline", state="hidden", timeout=20_000)
        page.click("rect[data-square=f5]")  # and the game goes on
        page.wait_for_function("document.querySelectorAll('#movelist li').length === 1")
    finally:
        stop_server(proc)


def test_two_sliders_moved_with_the_mouse_both_reach_the_server(server: str, page: Any) -> None:
    """Two bugs put the first slider back on the server: the second change
    was sent with the settings the card was last drawn with, and two
    updates sent at once could arrive in either order."""
    _new_game(page, server, "regions")
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    held: list[Any] = []  # the first PATCH waits until the page has had time to send another

    def hold_first(route: Any) -> None:
        if route.request.method == "PATCH" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/players/white", hold_first)
    # both in one task of the page, so the second is sent before the first's answer
    page.evaluate(
        """() => {
        for (const [name, value] of [["corner", 43], ["edge", -43]]) {
          const el = document.querySelector(`#ai-settings input[name=${name}]`);
          el.value = value;
          el.dispatchEvent(new Event("change"));
        }
      }"""
    )
    page.wait_for_timeout(300)  # an update sent at once would overtake the held one here
    assert len(held) == 1
    held[0].continue_()
    _white_settles_on(page, server, game_id, corner=43, edge=-43)


def test_hints_leave_when_the_replay_steps_on(server: str, page: Any) -> None:
    _new_game(page, server, "human", start="f5d6c3d3c4f4")
    page.click("#movelist li[data-ply='2']")
    page.wait_for_selector("#replay-banner:not([hidden])")
    page.click("#btn-hint")
    page.wait_for_selector("text.hint")
    page.click("#rp-next")
    page.wait_for_selector("#replay-banner:has-text('Replaying move 3')")
    page.wait_for_timeout(500)  # the move's animation, then the redraw
    assert page.locator("text.hint").count() == 0


def test_hints_far_below_the_best_read_as_at_most(server: str, page: Any) -> None:
    # a1 is far the best: the other moves are bounded, shown as "at most"
    _new_game(page, server, "human", start="f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    page.click("#btn-hint")
    page.wait_for_selector("text.hint")
    assert not page.text_content("text[data-hint=a1]").startswith("\u2264")
    bounded = [t for t in page.locator("text.hint").all_text_contents() if t.startswith("\u2264")]
    assert bounded and all(int(t[1:]) <= 30 for t in bounded)
    assert "best is a1" in page.text_content("#status")


def test_undo_is_off_until_you_have_a_move_to_take_back(server: str, page: Any) -> None:
    """As white against the computer: its opening is not yours to undo."""
    _new_game(page, server, "greedy", color="white")
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 1")
    assert page.is_disabled("#btn-undo")
    page.click(f"rect[data-square={page.get_attribute('[data-legal]', 'data-legal')}]")
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 3")
    page.wait_for_selector("#btn-undo:enabled")


def test_a_landscape_phone_shows_the_whole_board_and_the_end_card_on_it(
    server: str, browser: Any
) -> None:
    context = browser.new_context(viewport={"width": 667, "height": 375})
    page = context.new_page()
    try:
        _new_game(page, server, "human", start=_near_end_obf())
        page.click(f"rect[data-square={page.get_attribute('[data-legal]', 'data-legal')}]")
        page.wait_for_selector("#endscreen:not([hidden])")
        page.locator("#board").scroll_into_view_if_needed()
        board = page.locator(".board-wrap").bounding_box()
        card = page.locator(".end-card").bounding_box()
        top = page.evaluate("document.querySelector('.topbar').getBoundingClientRect().bottom")
        assert board["height"] <= 375 - max(0, top)  # no sticky bar hides part of it
        assert card["x"] >= board["x"] and card["x"] + card["width"] <= board["x"] + board["width"]
    finally:
        context.close()


def test_a_new_state_keeps_the_controls_that_did_not_change(server: str, page: Any) -> None:
    """The share links and the move list were rebuilt on every state, so a
    click that spanned one was lost (and "Copied" went back to "Copy"); the
    search box came and went, moving the column under the mouse."""
    _new_game(page, server, "human", start="f5")
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    page.wait_for_selector("#movelist li")
    page.evaluate(
        "window.kept = [document.querySelector('#share button'),"
        " document.querySelector('#movelist li')]"
    )
    seats = page.evaluate(f"JSON.parse(localStorage.getItem('outflank.seats.{game_id}'))")
    _api(server, f"/api/games/{game_id}/moves", {"seat": seats["white"], "move": "d6"})
    page.wait_for_function("document.querySelectorAll('#movelist li').length === 2")
    assert page.evaluate("window.kept.every((el) => el.isConnected)")
    # against the computer the search box keeps its place between moves
    _new_game(page, server, "level")
    box = page.locator("#engine-info")
    assert box.is_visible() is False and box.bounding_box() is not None  # there, not shown
