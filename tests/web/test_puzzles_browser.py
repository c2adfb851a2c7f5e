"""The Puzzles page in a real headless chromium (Playwright) against a real
``outflank serve``: a puzzle solved right, one solved wrong, no console errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from outflank.board import Board, Move
from outflank.puzzles import Puzzle, PuzzleSet
from web.conftest import BROWSER_MARKS, browser_page, served

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("web") / "puzzles.db") as url:
        yield url


@pytest.fixture
def console(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """A page, and the errors its console and scripts report (none allowed
    unless the test takes them out)."""
    quick_lines = "localStorage.setItem('outflank-puzzle-step', '40')"
    with browser_page(browser, init_script=quick_lines) as (page, errors):
        yield page, errors
    assert not errors, f"console errors: {errors}"


def _colors(board: Board) -> dict[str, str]:
    name = lambda sq: "abcdefgh"[sq % 8] + str(sq // 8 + 1)  # noqa: E731
    colors = {name(sq): "black" for sq in range(64) if board.black >> sq & 1}
    colors.update({name(sq): "white" for sq in range(64) if board.white >> sq & 1})
    return colors


def _shown(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "circle.disc", "ds => Object.fromEntries(ds.map(d => [d.dataset.square, d.dataset.color]))"
    )


def _current(page: Any, after: str = "") -> Puzzle:
    """The puzzle the page shows (waiting for one other than ``after``)."""
    page.wait_for_function(
        "(old) => { const t = document.getElementById('pz-id').textContent;"
        " return t && t !== old && document.querySelectorAll('circle.legal').length > 0; }",
        arg=after,
    )
    puzzle = PuzzleSet.default().get(page.text_content("#pz-id"))
    assert _shown(page) == _colors(puzzle.board)
    return puzzle


def test_a_puzzle_solved_right_then_one_solved_wrong(server: str, console: Any) -> None:
    page, _ = console
    page.goto(server + "/puzzles")
    puzzle = _current(page)
    assert f"to move and {puzzle.result}" in page.text_content("#status")
    assert page.text_content("#pz-rating") == "1500"
    assert page.is_visible("#pz-provisional")  # a new solver's rating is provisional

    page.click(f'#board .cell[data-square="{puzzle.solution}"]')
    page.wait_for_selector("#status .pz-right")
    assert f"Right! {puzzle.solution} keeps the {puzzle.result}" in page.text_content("#status")
    assert page.text_content("#pz-streak") == "1"
    assert int(page.text_content("#pz-rating")) > 1500
    assert page.text_content("#pz-change").startswith("+")
    # the solution line is played out to the end of the game
    page.wait_for_selector(f'#board[data-shown="played:{len(puzzle.line)}"]', timeout=60_000)
    assert _shown(page) == _colors(puzzle.board_after(puzzle.line))
    assert page.is_visible(f'#pz-scores li.best[data-move="{puzzle.solution}"]')

    page.click("#pz-next")
    second = _current(page, after=puzzle.id)
    wrong = sorted(second.refutations)[0]
    reply = second.refutations[wrong][0]
    page.click(f'#board .cell[data-square="{wrong}"]')
    page.wait_for_selector("#status .pz-wrong")
    status = page.text_content("#status")
    assert f"Wrong: {wrong} ends {second.scores[wrong]:+d}".replace("+0", "0") in status
    assert f"refuted by {reply}" in status
    assert f" {reply}" in page.text_content("#pz-refutation")
    assert page.text_content("#pz-streak") == "0"
    assert page.text_content("#pz-best") == "1" and page.text_content("#pz-failed") == "1"
    # the wrong move and its refutation on the board
    page.wait_for_selector('#board[data-shown="played:2"]')
    assert _shown(page) == _colors(second.board_after([Move.from_str(wrong), reply]))
    # then the solution line, played out
    page.click("#pz-line")
    page.wait_for_selector(f'#board[data-shown="line:{len(second.line)}"]', timeout=60_000)
    assert _shown(page) == _colors(second.board_after(second.line))
    # a move of the solution line, clicked: the position after it
    page.click('#pz-moves li[data-ply="1"]')
    assert _shown(page) == _colors(second.board_after(second.line[:1]))
    # try again: the position is back, and a right answer now is not rated
    rating = page.text_content("#pz-rating")
    page.click("#pz-retry")
    assert _shown(page) == _colors(second.board)
    page.click(f'#board .cell[data-square="{second.solution}"]')
    page.wait_for_selector("#status .pz-right")
    assert "not rated" in page.text_content("#status")
    assert page.text_content("#pz-rating") == rating and page.text_content("#pz-streak") == "0"

    # the rating belongs to this browser: a reload shows the same
    rating = page.text_content("#pz-rating")
    page.reload()
    _current(page)
    assert page.text_content("#pz-rating") == rating
    assert page.text_content("#pz-solved") == "1"


def test_an_unknown_puzzle_address_says_so(server: str, console: Any) -> None:
    page, errors = console
    page.goto(server + "/puzzles/nope")
    page.wait_for_selector("#status .pz-wrong")
    assert "unknown puzzle 'nope'" in page.text_content("#status")
    # the browser reports the 404 itself; nothing else may go wrong
    assert all("404" in e for e in errors), errors
    errors.clear()
    page.click("#pz-next")
    _current(page)
    assert page.url.endswith("/puzzles/" + page.text_content("#pz-id"))
