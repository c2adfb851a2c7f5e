"""Rendering: a known position drawn to a PNG has the right pixels on known
squares; the layout maps pixels to squares at any window size."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from pathlib import Path

import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank.board import BLACK, WHITE, Board, parse_square
from outflank.gui.animation import FlipAnimation
from outflank.gui.layout import compute_layout
from outflank.gui.render import PALETTE, HintMark, Renderer, Scene, _fmt_score

# After f5 d6 c3: white to move; black c3 d4 e4 e5 f5, white d5 d6.
POSITION = Board.from_transcript("f5d6c3")


def _is_dark(rgb: tuple[int, ...]) -> bool:
    return max(rgb[:3]) < 70


def _is_light(rgb: tuple[int, ...]) -> bool:
    return min(rgb[:3]) > 200


def _is_board_green(rgb: tuple[int, ...]) -> bool:
    r, g, b = rgb[:3]
    return g > 100 and g > r + 60 and g > b + 40


def _render(size: tuple[int, int], path: Path, **scene: object) -> pygame.Surface:
    pygame.font.init()
    surface = pygame.Surface(size)
    layout = compute_layout(size)
    Renderer().draw(surface, Scene(board=POSITION, layout=layout, **scene))  # type: ignore[arg-type]
    pygame.image.save(surface, str(path))
    return pygame.image.load(str(path))


@pytest.mark.parametrize("size", [(900, 600), (480, 640), (1600, 1000)])
def test_screenshot_pixels_of_known_squares(tmp_path: Path, size: tuple[int, int]) -> None:
    image = _render(size, tmp_path / "board.png")
    layout = compute_layout(size)
    assert image.get_size() == size

    def at(name: str, dx: float = 0.0, dy: float = 0.0) -> tuple[int, ...]:
        x, y = layout.square_center(parse_square(name))
        return tuple(image.get_at((int(x + dx * layout.square), int(y + dy * layout.square))))

    blacks = ["c3", "d4", "e4", "e5", "f5"]
    whites = ["d5", "d6"]
    for sq in range(64):  # the position is what the test thinks it is
        expected = BLACK if sq in map(parse_square, blacks) else None
        expected = WHITE if sq in map(parse_square, whites) else expected
        assert POSITION.piece_at(sq) is expected
    for name in blacks:
        assert _is_dark(at(name)), name
    for name in whites:
        assert _is_light(at(name)), name
    for name in ("a1", "h8", "b7", "g2"):  # empty squares
        assert _is_board_green(at(name)), name
        assert _is_board_green(at(name, 0.3, -0.3)), name
    # the border of a disc differs from its centre (seed 000: grey borders)
    ray = [at("d5", i / 100) for i in range(25, 50)]
    assert any(
        max(abs(a - b) for a, b in zip(p[:3], PALETTE["white_border"], strict=True)) < 30
        for p in ray
    )


def test_markers_last_move_and_hint(tmp_path: Path) -> None:
    legal = [m.square for m in POSITION.legal_moves]
    hint = [HintMark(legal[0], 4.0), HintMark(legal[1], -2.5)]
    image = _render(
        (900, 600), tmp_path / "marks.png", legal=legal, last=parse_square("c3"), hints=hint
    )
    layout = compute_layout((900, 600))
    marked = [sq for sq in legal if sq not in (legal[0], legal[1])]
    assert POSITION.turn is WHITE
    for sq in marked:  # a legal-move marker for white: lighter than the empty board
        centre = image.get_at(layout.square_center(sq))
        assert centre.r > PALETTE["board"][0] + 60 and centre.b > PALETTE["board"][2] + 40
        assert not _is_light(tuple(centre))  # a marker, not a disc
    assert tuple(image.get_at(layout.square_center(parse_square("c3"))))[:3] == PALETTE["last"]
    edge = layout.square_rect(legal[0])
    found = {tuple(image.get_at((edge.left + i, edge.top + 3)))[:3] for i in range(4, 10)}
    assert PALETTE["hint"] in found  # the best move's frame


def test_hint_scores_read_as_discs_and_bounds_as_at_most() -> None:
    assert _fmt_score(4.0, False) == "+4"
    assert _fmt_score(-2.5, False) == "-2.5"
    assert _fmt_score(12.0, True) == "+12"
    # a move worse than the best by more than the analysis window: "at most",
    # rounded up so that the shown number is still a bound
    assert _fmt_score(23.77, False, upper=True) == "\u2264+24"
    assert _fmt_score(-5.2, False, upper=True) == "\u2264-5"


def test_end_screen_and_flip_animation_draw(tmp_path: Path) -> None:
    anim = FlipAnimation(parse_square("c3"), [parse_square("d4")], WHITE, start=0.0, duration=1.0)
    assert POSITION.piece_at(parse_square("d4")) is BLACK  # white before the flip
    layout = compute_layout((900, 600))
    surface = pygame.Surface((900, 600))
    renderer = Renderer()
    d4 = layout.square_center(parse_square("d4"))
    side = (d4[0] + int(layout.square * 0.3), d4[1])
    # half-way through, the coin is seen edge-on: the board shows beside it
    renderer.draw(surface, Scene(board=POSITION, layout=layout, animation=anim, now=0.5))
    assert _is_board_green(tuple(surface.get_at(side)))
    # a quarter of the way, it still shows its old (white) face
    renderer.draw(surface, Scene(board=POSITION, layout=layout, animation=anim, now=0.2))
    assert _is_light(tuple(surface.get_at(d4)))
    renderer.draw(surface, Scene(board=POSITION, layout=layout, animation=anim, now=2.0))
    assert _is_dark(tuple(surface.get_at(side)))
    final = Board.from_ascii("\n".join(["XXXXXXXX"] * 6 + ["OOOOOOOO"] * 2))
    scene = Scene(board=final, layout=layout, end=final.outcome(), end_title="Black wins!")
    renderer.draw(surface, scene)
    pygame.image.save(surface, str(tmp_path / "end.png"))
    # the veil darkens the board
    a1 = layout.square_center(0)
    assert surface.get_at(a1).g < PALETTE["board"][1]


def test_animation_timeline() -> None:
    anim = FlipAnimation(0, [1, 2, 9], BLACK, start=10.0, duration=0.4, stagger=0.1)
    assert anim.end == pytest.approx(10.0 + 0.1 + 0.4)
    assert anim.disc(1, 10.0) == (BLACK, 1.0)
    colour, width = anim.disc(1, 10.3)  # type: ignore[misc]
    assert colour is WHITE and 0 < width < 1
    assert anim.disc(2, 10.1) == (BLACK, 1.0)  # the second ring starts later
    assert anim.disc(5, 10.2) is None and anim.disc(1, 10.5) is None
    assert anim.placed_scale(10.0) < 1.0 and anim.placed_scale(11.0) == 1.0
    assert not anim.done(10.2)
    anim.finish()
    assert anim.done(10.2) and anim.disc(2, 10.1) is None


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(1, 3000),
    height=st.integers(1, 2000),
    cap=st.sampled_from([0, 16, 40, 70, 400]),
    square=st.integers(0, 63),
)
def test_layout_maps_square_centres_back(width: int, height: int, cap: int, square: int) -> None:
    layout = compute_layout((width, height), cap)
    assert layout.square_at(layout.square_center(square)) == square
    rect = layout.square_rect(square)
    assert layout.square_at(rect.topleft) == square
    assert layout.square_at((rect.right - 1, rect.bottom - 1)) == square
    assert layout.square_at((layout.board.left - 1, layout.board.top)) is None
    assert layout.square_at(layout.board.bottomright) is None
    if cap:
        assert layout.square <= max(cap, 4)
    if width >= 200 and height >= 200:  # the board fits in the window
        assert pygame.Rect(0, 0, width, height).contains(layout.frame)
        assert not layout.frame.colliderect(layout.panel)


def test_long_texts_are_shortened_or_wrapped_to_their_room() -> None:
    pygame.font.init()
    renderer = Renderer()
    name = "Region biases (seed 004) with a very long name indeed"
    fitted = renderer._fit(name, 20, 120)
    assert fitted.endswith("...") and renderer.font(20).size(fitted)[0] <= 120
    assert renderer._fit("Level 6", 20, 120) == "Level 6"
    path = "/a/very/long/path/to/the/settings/folder/of/someone/outflank.ini: bad"
    lines = renderer._wrap(path, 18, 150)
    assert len(lines) > 1 and "".join(lines).replace(" ", "") == path.replace(" ", "")
    assert all(renderer.font(18).size(line)[0] <= 150 for line in lines)


def test_many_warnings_leave_the_move_prompt_and_the_key_help_in_view() -> None:
    size = (1024, 720)
    alert = "  ".join(
        f"/long/path/outflank.ini [GAME] KEY{i}: bad value, default used" for i in range(12)
    )
    pygame.font.init()
    renderer, layout = Renderer(), compute_layout(size)
    surface = pygame.Surface(size)
    drawn: list[tuple[str, pygame.Rect]] = []
    original = renderer.text

    def spy(target: pygame.Surface, text: str, *args: object, **kwargs: object) -> pygame.Rect:
        rect = original(target, text, *args, **kwargs)  # type: ignore[arg-type]
        drawn.append((text, rect))
        return rect

    renderer.text = spy  # type: ignore[method-assign]
    scene = Scene(board=POSITION, layout=layout, alert=alert, status="Your move",
                  keys_help=("N new game",))  # fmt: skip
    renderer.draw(surface, scene)
    prompt = next(rect for text, rect in drawn if text == "Your move")
    help_line = next(rect for text, rect in drawn if text == "N new game")
    assert prompt.bottom <= help_line.top
    assert all(rect.right <= size[0] for _, rect in drawn)
