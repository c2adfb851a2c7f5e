"""The review and the opening explorer in a real headless chromium (Playwright)
against a real ``outflank serve``: start a review, watch its progress, the
move list coloured by label, a mistake clicked and its better line played;
walk the opening tree and back; no error in the console."""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from outflank.board import BLACK, Board
from outflank.puzzles import PuzzleSet
from web.conftest import BROWSER_MARKS, browser_page, served

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # shallower reviews than the default: the page is under test, not the engine
    options = ("--review-depth", "6", "--review-exact", "14")
    with served(tmp_path_factory.mktemp("review") / "review.db", *options) as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with browser_page(browser, height=1000) as (page, errors):
        yield page
    assert not errors, f"errors in the console: {errors}"


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def _new_game(base: str, start: str = "") -> tuple[str, dict[str, str]]:
    body = {"black": {"kind": "human"}, "white": {"kind": "human"}, "start": start}
    data = _post(base + "/api/games", body)
    return data["game"]["id"], data["seats"]


def _random_game(seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over():
        board.push("pass" if board.must_pass() else rng.choice(board.legal_moves))
    return board


RECORD_PROGRESS = """() => {
  const count = document.getElementById("review-count");
  window.progress = [];
  new MutationObserver(() => window.progress.push(count.textContent))
    .observe(count, { childList: true, characterData: true, subtree: true });
}"""


def test_review_a_game_click_a_mistake_and_play_the_better_line(server: str, page: Any) -> None:
    board = _random_game(3)
    judged = sum(not m.is_pass for m in board.move_stack)
    game_id, _ = _new_game(server, " ".join(map(str, board.move_stack)))
    page.goto(f"{server}/game/{game_id}")
    page.wait_for_selector("#endscreen:not([hidden])")
    page.evaluate(RECORD_PROGRESS)
    page.click("#end-review")  # the end screen's button
    page.wait_for_selector("#review-card:not([hidden])")
    page.wait_for_function(
        "document.getElementById('review-note').textContent.startsWith('done')", timeout=120_000
    )
    # the progress bar showed partial results on the way
    seen = page.evaluate("window.progress")
    partial = [s for s in seen if s.endswith(" moves") and 0 < int(s.split()[0]) < judged]
    assert partial, seen
    # every move coloured by its label; random moves make mistakes
    assert page.locator("#movelist li[class*='lab-']").count() == judged
    bad = page.locator("#movelist li.lab-blunder, #movelist li.lab-mistake")
    assert bad.count() >= 1
    assert page.locator("#review-summary .rv-player").count() == 2
    assert page.locator("#graph .exact-band").count() == 1
    # a mistake clicked: the position before it, the move played and the better one
    item = bad.first
    number = int(item.get_attribute("data-ply"))
    played = item.get_attribute("data-move").split()[1]
    item.click()
    page.wait_for_selector("#review-detail:not([hidden])")
    assert f"{number}. {played}" in page.text_content("#review-detail .rv-head")
    assert page.text_content("#status").startswith(f"Replay · move {number - 1} ")
    assert page.get_attribute("[data-played]", "data-played") == played
    better = page.get_attribute("[data-better]", "data-better")
    assert better and better != played
    assert page.locator(f"circle.disc[data-square={better}]").count() == 0
    # the better line played forward on the board, then back to the game
    page.click("#rv-play-line")
    page.wait_for_selector("#line-banner:not([hidden])")
    page.wait_for_selector(f"circle.disc[data-square={better}]")
    assert better in page.text_content("#line-text")
    page.click("#line-exit")
    page.wait_for_selector("#line-banner", state="hidden")
    assert page.locator(f"circle.disc[data-square={better}]").count() == 0
    assert page.text_content("#status").startswith(f"Replay · move {number - 1} ")
    # a reload shows the stored review at once, without asking for a new one
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.reload()
    page.wait_for_function("document.getElementById('review-note').textContent.startsWith('done')")
    assert page.locator("#movelist li[class*='lab-']").count() == judged
    assert not posts


def test_walk_the_opening_explorer_and_back(server: str, page: Any) -> None:
    game_id, seats = _new_game(server)
    page.goto(f"{server}/game/{game_id}?seat={seats['black']}")
    page.wait_for_selector("#explorer-moves li[data-move=f5]")
    assert page.locator("#explorer-moves li").count() == 4
    page.click("#explorer-moves li[data-move=f5]")
    page.wait_for_selector("#line-banner:not([hidden])")
    page.wait_for_selector("circle.disc[data-square=f5]")
    page.wait_for_selector("#explorer-moves li[data-move=d6]")  # white's book moves now
    page.click("#explorer-moves li[data-move=d6]")
    page.wait_for_selector("#explorer-head:has-text('Perpendicular')")
    page.wait_for_selector("#explorer-moves li[data-move=c3]")
    # one step back: the position after f5 again
    page.click("#line-prev")
    page.wait_for_selector("circle.disc[data-square=d6]", state="detached")
    page.wait_for_selector("#explorer-moves li[data-move=f6]")
    assert page.locator("circle.disc[data-square=f5]").count() == 1
    # out of the walk: the game as it is (nothing was played)
    page.click("#line-exit")
    page.wait_for_selector("circle.disc[data-square=f5]", state="detached")
    page.wait_for_selector("#explorer-moves li[data-move=e6]")
    assert page.locator("#movelist li").count() == 0
    # in Learn mode too
    page.click("#btn-learn")
    page.wait_for_selector("#learn:not([hidden])")
    page.click("#explorer-moves li[data-move=c4]")
    page.wait_for_selector("circle.disc[data-square=c4]")
    page.wait_for_selector("#explorer-moves li[data-move=c3]")


def test_the_explorer_while_reviewing(server: str, page: Any) -> None:
    game_id, _ = _new_game(server, "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    page.goto(f"{server}/game/{game_id}")
    page.click("#btn-review")
    page.wait_for_function("document.getElementById('review-note').textContent.startsWith('done')")
    page.click("#movelist li[data-ply='5']")  # move 5, c4: the Tiger's last move
    page.wait_for_selector("#review-detail:not([hidden])")
    page.wait_for_selector("#explorer-head:has-text('Perpendicular')")
    page.click("#explorer-moves li[data-move=c4]")
    page.wait_for_selector("#explorer-head:has-text('Tiger')")
    page.click("#line-exit")
    page.wait_for_selector("#review-detail:not([hidden])")


def test_a_reviews_mistake_set_as_a_puzzle(server: str, page: Any) -> None:
    """A game that went wrong where one move alone kept the result: the
    review card offers its puzzle, which the Puzzles page sets first."""
    puzzle = min(PuzzleSet.default(), key=lambda p: (p.empties, p.id))
    wrong = min(puzzle.refutations, key=lambda m: puzzle.scores[m])
    game_id, seats = _new_game(server, puzzle.board.obf())
    board = puzzle.board.copy(stack=False)
    for square in [wrong, *map(str, puzzle.refutations[wrong])]:
        if square != "pass":
            seat = seats["black" if board.turn is BLACK else "white"]
            _post(f"{server}/api/games/{game_id}/moves", {"seat": seat, "move": square})
        board.push(square)
    page.goto(f"{server}/game/{game_id}")
    page.click("#btn-review")
    page.wait_for_selector("#review-puzzles", timeout=120_000)
    assert page.text_content("#review-puzzles").startswith("Solve the puzzle")
    page.click("#review-puzzles")
    page.wait_for_function(
        f"document.getElementById('pz-id').textContent === '{puzzle.id}'"
        " && document.querySelectorAll('circle.legal').length > 0"
    )
    assert f"move 1 ({wrong}," in page.text_content(".pz-from")
    assert page.text_content("#pz-game-left") == "the last from your game"
    page.click(f'#board .cell[data-square="{puzzle.solution}"]')
    page.wait_for_selector("#status .pz-right")
    page.wait_for_selector(f'#board[data-shown="played:{len(puzzle.line)}"]', timeout=60_000)
    page.click("#pz-next")  # then puzzles near the rating, as usual
    page.wait_for_function(f"document.getElementById('pz-id').textContent !== '{puzzle.id}'")
    assert page.text_content("#pz-game-left") == ""
