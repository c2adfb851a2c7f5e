"""The window against the real engine (outflank.engine): the AI replies from
its worker thread, the window keeps drawing while it thinks, undo cancels
it, hints score the legal moves, L / Shift+L change the level."""

from __future__ import annotations

import os
import re
import time

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from collections.abc import Callable, Iterator

import pygame
import pytest

from outflank.board import BLACK, WHITE, Board, parse_square, square_name
from outflank.engine import Engine
from outflank.gui.ai import AISpec, EngineLike, make_engine
from outflank.gui.app import App
from outflank.gui.render import Renderer
from outflank.gui.settings import Settings


def _without_book(spec: AISpec) -> EngineLike:
    engine = make_engine(spec)
    engine.configure(book=False)  # type: ignore[attr-defined]
    return engine


@pytest.fixture
def make_app() -> Iterator[Callable[..., App]]:
    apps: list[App] = []

    def make(
        clock: Callable[[], float] = time.monotonic, book: bool = True, **changes: object
    ) -> App:
        base = {"ai": "greedy", "animation": False, "width": 900, "height": 640, "hint_time": 0.2}
        factory = make_engine if book else _without_book
        app = App(Settings().replace(**{**base, **changes}), clock=clock, engine_factory=factory)
        apps.append(app)
        app.step()
        return app

    yield make
    for app in apps:
        app.close()
    pygame.display.quit()


def click(app: App, name: str) -> None:
    pos = app.layout.square_center(parse_square(name))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
    app.step()


def key(app: App, keycode: int, mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=keycode, mod=mod, unicode=""))
    app.step()


def test_the_ai_replies_to_a_click(make_app: Callable[..., App]) -> None:
    app = make_app()
    click(app, "f5")
    assert app.board.ply >= 1
    assert app.wait_idle(20)
    app.step()
    assert app.board.ply == 2 and app.board.turn is BLACK
    reply = app.board.move_stack[-1]
    assert reply.square in (parse_square(s) for s in ("d6", "f6", "f4"))
    assert "played" in (app.scene().note or "")


def test_the_ai_opens_when_the_human_plays_white(make_app: Callable[..., App]) -> None:
    app = make_app(colour="white")
    assert app.wait_idle(20)
    assert app.board.ply == 1 and app.board.turn is WHITE
    assert app.scene().names[BLACK] != "You" and app.scene().names[WHITE] == "You"


def test_the_window_keeps_drawing_while_the_ai_thinks_and_undo_cancels(
    make_app: Callable[..., App],
) -> None:
    app = make_app(ai="20", book=False)  # a search, not the opening book's instant answer
    click(app, "f5")
    assert app.thinking
    for _ in range(5):  # frames go on while the search runs in its thread
        app.step()
    assert app.thinking and app.board.ply == 1
    assert app.scene().thinking is not None and "thinking" in app.scene().thinking
    for _ in range(100):  # the search reports each finished depth to the panel
        app.worker.wait(0.05)
        app.step()
        if "depth" in (app.scene().thinking or ""):
            break
    assert re.search(r"thinking\.\.\. depth \d+, [\d,]+ nodes", app.scene().thinking or "")
    key(app, pygame.K_u)  # undo during the search: cancelled, board back
    assert not app.thinking and app.board.ply == 0
    assert app.worker.wait(15)  # the stopped search ends soon
    app.step()
    assert app.board.ply == 0 and app.board.turn is BLACK  # its late answer is dropped


def test_hint_scores_the_legal_moves(make_app: Callable[..., App]) -> None:
    app = make_app()
    key(app, pygame.K_h)
    assert app.wait_idle(20)
    app.step()
    legal = set(app.session.legal_squares())
    assert app.hints and {h.square for h in app.hints} == legal
    best = app.hints[0]
    assert all(best.score >= h.score for h in app.hints)
    click(app, "f5")  # playing clears the hint
    assert app.hints == []


def test_the_hint_engine_is_the_analysis_engine() -> None:
    # the default AI and the hints: Engine.for_analysis (the book, the window)
    engine = make_engine(AISpec("preset", preset="default"), threads=1)
    reference = Engine.for_analysis(threads=1)
    assert engine.book is not None and engine.analysis_window == reference.analysis_window
    assert (engine.selective, engine.endgame, engine.wld) == (
        reference.selective,
        reference.endgame,
        reference.wld,
    )


def test_a_move_during_a_hint_search_drops_the_hint(make_app: Callable[..., App]) -> None:
    app = make_app(hint_time=3.0, book=False)  # a search, not the book's instant hint
    key(app, pygame.K_h)
    assert app.worker.kind == "hint"
    click(app, "f5")
    assert app.board.ply >= 1 and app.worker.kind != "hint"
    assert app.wait_idle(20)
    app.step()
    assert app.board.ply == 2 and app.hints == []


@pytest.mark.parametrize("ai", ["1", "3", "minimax4", "regions"])
def test_weak_levels_and_seed_ais_reply_legally(make_app: Callable[..., App], ai: str) -> None:
    app = make_app(ai=ai)
    click(app, "f5")
    assert app.wait_idle(20)
    assert app.board.ply == 2 and app.board.turn is BLACK


def test_level_keys_walk_the_ladder(make_app: Callable[..., App]) -> None:
    app = make_app(ai="5")
    key(app, pygame.K_l)
    assert app.ai == AISpec("level", level=6)
    key(app, pygame.K_l, pygame.KMOD_LSHIFT)
    key(app, pygame.K_l, pygame.KMOD_LSHIFT)
    assert app.ai == AISpec("level", level=4)
    assert "level 4" in (app.scene().alert or "")
    click(app, "f5")
    assert app.wait_idle(30)
    assert app.board.ply == 2


def test_hints_and_moves_in_the_opening_come_from_the_book(make_app: Callable[..., App]) -> None:
    app = make_app(ai="12")
    key(app, pygame.K_h)
    assert app.wait_idle(5)
    app.step()
    assert app.hints and all(h.book for h in app.hints)
    assert "book" in "".join(text for text, _ in Renderer()._status_lines(app.scene()))
    click(app, "f5")
    assert app.wait_idle(5)
    app.step()
    assert app.board.ply == 2 and "book" in (app.scene().note or "")
    assert app.scene().opening in ("Perpendicular", "Diagonal", "Parallel")


def test_a_whole_game_against_greedy_ends_on_the_end_screen(
    make_app: Callable[..., App],
) -> None:
    app = make_app()
    for _ in range(70):
        assert app.wait_idle(20)
        app.step()
        if app.end_screen:
            break
        squares = app.session.legal_squares()
        corners = [sq for sq in squares if sq in (0, 7, 56, 63)]
        click(app, square_name((corners or squares)[0]))
    assert app.end_screen and app.scene().end is not None
    assert app.scene().end_title in ("You win!", "The computer wins", "A draw")


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_your_pass_stays_announced_after_a_fast_reply() -> None:
    # black (the person) cannot move; greedy (white) answers at once with a1
    start = Board.from_ascii("\n".join(["-XOOOOOO"] + ["--------"] * 7), turn=BLACK)
    assert start.must_pass()
    settings = Settings().replace(ai="greedy", animation=False, width=900, height=640)
    app = App(settings, start=start)
    try:
        app.step()
        assert app.wait_idle(20)
        app.step()
        assert app.board.move_stack[0].is_pass and len(app.board.move_stack) == 2
        assert "You have no legal move: pass" in (app.scene().alert or "")
    finally:
        app.close()


def test_the_ai_move_is_told_once_it_is_on_the_board() -> None:
    clock = _Clock()
    settings = Settings().replace(ai="greedy", animation=True, width=900, height=640)
    app = App(settings, clock=clock)
    try:
        app.step()
        click(app, "f5")  # its flips now turn over, on the test's clock
        assert app.worker.wait(20)
        app.step()  # greedy's answer is in, but waits for the animation
        assert app.animating and app.board.ply == 1
        assert app.scene().note is None
        clock.now += 10.0
        app.step()
        assert app.board.ply == 2
        assert "played" in (app.scene().note or "")
    finally:
        app.close()


def test_regions_knobs_change_mid_game_and_the_next_move_uses_them(
    make_app: Callable[..., App],
) -> None:
    """Seed 004 in the window: C, E, X (Shift: down) move the biases by 10
    within -50..50, [ and ] the look-ahead within 2-10; the AI's next move
    is the move of an engine with those values (after d3 c5 b6 the preset
    plays c3, corner -50 / edge +50 / X-square +50 / look-ahead 3 plays b5)."""
    app = make_app(ai="regions")
    click(app, "d3")
    assert app.wait_idle(20)
    app.step()
    assert square_name(app.board.move_stack[-1].square) == "c5"
    for _ in range(9):
        key(app, pygame.K_c, pygame.KMOD_LSHIFT)  # 30 -> -50, then held there
    for _ in range(5):
        key(app, pygame.K_e)
    for _ in range(7):
        key(app, pygame.K_x)
    key(app, pygame.K_LEFTBRACKET)
    assert app.ai.knobs == {"corner": -50, "edge": 50, "x_square": 50, "depth": 3}
    assert "corner -50, edge +50, X-square +50, look-ahead 3" in (app.scene().alert or "")
    click(app, "b6")
    assert app.wait_idle(20)
    app.step()
    assert square_name(app.board.move_stack[-1].square) == "b5"
    key(app, pygame.K_l)  # the ladder goes on from regions, tuned or not
    assert app.ai == AISpec("preset", preset="weights")
    key(app, pygame.K_c)
    assert "tune the regions AI" in (app.scene().alert or "")
    key(app, pygame.K_l, pygame.KMOD_LSHIFT)  # back: the tuning is still there
    assert app.ai.knobs == {"corner": -50, "edge": 50, "x_square": 50, "depth": 3}
    assert "corner -50, edge +50, X-square +50, look-ahead 3" in (app.scene().alert or "")


def test_a_new_ai_replaces_a_reply_waiting_for_the_animation(
    make_app: Callable[..., App],
) -> None:
    """A fast AI's reply waits for the flip animation; L (or a tuning key)
    pressed meanwhile must drop it: the new AI answers instead."""
    clock = _Clock()  # the discs turn only when the test says so
    app = make_app(ai="regions", animation=True, flip_time=3.0, clock=clock)
    click(app, "f5")
    deadline = time.monotonic() + 20  # the reply is ready while the discs still turn
    while app._pending is None and time.monotonic() < deadline:
        app.step()
        time.sleep(0.005)
    assert app._pending is not None and app.animating
    key(app, pygame.K_l)  # weights (seed 002)
    assert app._pending is None
    deadline = time.monotonic() + 20
    while app.board.ply < 2 and time.monotonic() < deadline:  # time runs: every flip ends
        clock.now += 10.0
        app.step()
        time.sleep(0.005)
    assert app.board.ply == 2
    assert (app.last_ai or "").startswith("Weights (seed 002) played")
