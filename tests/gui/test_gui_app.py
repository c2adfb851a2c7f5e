"""The game driven through real pygame events (dummy video driver): clicks,
keys, undo, passes, the end screen, resizing, and the AI in its thread."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from collections.abc import Callable, Iterator

import pygame
import pytest

from outflank.board import BLACK, WHITE, Board, parse_square
from outflank.gui.ai import AISpec
from outflank.gui.app import App
from outflank.gui.settings import Settings


class FakeClock:
    """A clock the test moves by hand (animations, messages)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def make_app() -> Iterator[Callable[..., App]]:
    apps: list[App] = []

    def make(start: Board | None = None, **changes: object) -> App:
        settings = Settings().replace(
            **{"ai": "none", "animation": False, "width": 900, "height": 640, **changes}
        )
        app = App(settings, start=start, clock=FakeClock())
        apps.append(app)
        app.step()
        return app

    yield make
    for app in apps:
        app.close()
    pygame.display.quit()


def click(app: App, square: int | str | tuple[int, int]) -> None:
    if isinstance(square, str):
        square = parse_square(square)
    pos = app.layout.square_center(square) if isinstance(square, int) else square
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
    app.step()


def key(app: App, keycode: int, mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=keycode, mod=mod, unicode=""))
    app.step()


def test_click_on_a_legal_square_plays_it(make_app: Callable[..., App]) -> None:
    app = make_app()
    click(app, "f5")
    assert app.board.move_stack[-1].square == parse_square("f5")
    assert app.board.piece_at(parse_square("e5")) is BLACK  # flipped
    assert app.board.turn is WHITE
    click(app, "d6")
    assert app.board.transcript() == "f5d6"


def test_illegal_clicks_change_nothing(make_app: Callable[..., App]) -> None:
    app = make_app()
    before = app.board.obf()
    for target in ("a1", "d4", "e5", "h8", (3, 3), (899, 639)):
        click(app, target)
    assert app.board.obf() == before and app.board.ply == 0
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=app.layout.square_center(37), button=3)
    )
    app.step()  # a right click is not a move
    assert app.board.ply == 0


def test_undo_before_your_first_move_keeps_the_ai_opening(make_app: Callable[..., App]) -> None:
    """As white, U before any move of yours used to take back the AI's
    opening, which it then chose again (perhaps another move)."""
    app = make_app(ai="greedy", colour="white")
    assert app.wait_idle(20)
    app.step()
    opening = app.board.transcript()
    assert len(opening) == 2
    key(app, pygame.K_u)
    assert app.board.transcript() == opening and "Nothing to undo" in (app.scene().alert or "")


def test_undo_and_new_game_keys(make_app: Callable[..., App]) -> None:
    app = make_app()
    click(app, "f5")
    click(app, "d6")
    key(app, pygame.K_u)
    assert app.board.transcript() == "f5"
    key(app, pygame.K_u)
    assert app.board.ply == 0
    key(app, pygame.K_u)  # nothing left: a message, no crash
    assert app.board.ply == 0 and "Nothing to undo" in (app.scene().alert or "")
    click(app, "f5")
    key(app, pygame.K_n)
    assert app.board == Board() and app.board.ply == 0


def test_quit_keys_and_window_close(make_app: Callable[..., App]) -> None:
    for event in (
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""),
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=0, unicode="q"),
        pygame.event.Event(pygame.QUIT),
    ):
        app = make_app()
        pygame.event.post(event)
        app.step()
        assert not app.running


def test_finished_game_shows_the_end_screen(make_app: Callable[..., App]) -> None:
    start = Board.from_ascii("\n".join(["-OOOOOOX"] + ["XXXXXXXX"] * 7))
    app = make_app(start=start)
    assert not app.end_screen
    click(app, "a1")
    assert app.session.over and app.end_screen
    scene = app.scene()
    assert scene.end is not None and scene.end.black == 64
    assert scene.end_title == "Black wins!"
    a1 = app.layout.square_center(0)
    assert app.screen.get_at(a1).g < 60  # veiled by the end screen
    click(app, (5, 5))  # any click: a new game from the start position
    assert not app.end_screen and app.board == start and app.board.ply == 0


def test_any_key_on_the_end_screen_starts_again(make_app: Callable[..., App]) -> None:
    start = Board.from_ascii("\n".join(["-OOOOOOX"] + ["XXXXXXXX"] * 7))
    app = make_app(start=start)
    click(app, "a1")
    key(app, pygame.K_LSHIFT)  # a modifier alone is not "a key"
    assert app.end_screen
    key(app, pygame.K_u)  # undo from the end screen
    assert app.board.ply == 0 and not app.end_screen
    click(app, "a1")
    key(app, pygame.K_SPACE)
    assert app.board.ply == 0 and not app.end_screen


def test_a_forced_pass_is_played_and_announced(make_app: Callable[..., App]) -> None:
    # white (to move) has no move; black has a1
    start = Board.from_ascii("\n".join(["-OXXXXXX"] + ["--------"] * 7), turn=WHITE)
    assert start.must_pass()
    app = make_app(start=start)
    assert app.board.turn is BLACK and app.board.move_stack[-1].is_pass
    assert "White has no legal move: pass" in (app.scene().alert or "")
    click(app, "a1")
    assert app.session.over and app.end_screen


def test_resize_keeps_clicks_on_the_right_squares(make_app: Callable[..., App]) -> None:
    app = make_app()
    old = app.layout.square_center(parse_square("f5"))
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(420, 700), w=420, h=700))
    app.step()
    assert app.screen.get_size() == (420, 700)
    assert not app.layout.wide
    new = app.layout.square_center(parse_square("f5"))
    assert new != old
    click(app, new)
    assert app.board.transcript() == "f5"
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(1500, 600), w=1500, h=600))
    app.step()
    click(app, "d6")
    assert app.board.transcript() == "f5d6"


def test_flip_animation_runs_on_the_clock(make_app: Callable[..., App]) -> None:
    app = make_app(animation=True, flip_time=0.4)
    clock = app.clock
    assert isinstance(clock, FakeClock)
    click(app, "f5")
    assert app.animating
    e5 = app.layout.square_center(parse_square("e5"))
    beside = (e5[0] + int(app.layout.square * 0.3), e5[1])
    clock.now += 0.2  # half-way: the coin is edge-on
    app.step()
    assert app.screen.get_at(beside).g > 100
    assert app.scene().legal == ()  # no markers while discs turn
    clock.now += 1.0
    app.step()
    assert not app.animating and app.animation is None
    assert max(tuple(app.screen.get_at(beside))[:3]) < 70  # now a black disc
    click(app, "d6")  # a click during an animation finishes it and still counts
    assert app.animating
    click(app, "c3")
    assert app.board.transcript() == "f5d6c3"


def test_level_keys_without_an_ai_only_explain(make_app: Callable[..., App]) -> None:
    app = make_app()
    key(app, pygame.K_l)
    assert app.ai == AISpec("none") and "--ai" in (app.scene().alert or "")


def test_the_ai_searches_on_the_threads_the_settings_give(make_app: Callable[..., App]) -> None:
    from outflank.threads import default_threads

    app = make_app(ai="3", threads="2")
    assert app.threads == 2
    engine = app._engine_factory(app.ai)
    assert engine.threads == 2  # type: ignore[attr-defined]
    assert "AI level 3, 2 threads" in app.scene().info
    assert make_app(ai="3").threads == default_threads()


def test_a_computer_moves_score_is_told_as_the_engine_found_it() -> None:
    from outflank.board import Move
    from outflank.engine import SearchResult
    from outflank.gui.app import score_note

    def result(score: float, **flags: bool) -> SearchResult:
        move = Move(parse_square("d3"))
        return SearchResult(move, score, [move], 8, 100, 0.01, 1e4, False, **flags)

    assert score_note(result(2.5)) == " (+2.5)"
    assert score_note(result(-1.0, book=True)) == " (-1.0, book)"
    assert score_note(result(1.0, wld=True)) == " (a proven win)"
    assert score_note(result(0.0, wld=True)) == " (a proven draw)"
    assert score_note(result(1.0, wld=True, probable=True)) == " (a probable win)"
    assert score_note(result(0.0, wld=True, probable=True)) == " (a probable draw)"
    assert score_note(object()) == ""
