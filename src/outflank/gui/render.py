"""Drawing the game at any window size: board and coordinates, discs with
borders, legal-move markers, the last move, hints, the score panel, the
thinking indicator, pass messages and the end screen.

Everything to draw is in a :class:`Scene`; :class:`Renderer` draws it on a
surface and keeps fonts (pygame's default font, no files) and disc images.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pygame

from outflank.board import BLACK, WHITE, Board, Color, Outcome, square_name
from outflank.gui.animation import FlipAnimation
from outflank.gui.layout import Layout

__all__ = ["MOVES_SEPARATOR", "PALETTE", "HintMark", "Renderer", "Scene"]

#: The key help when the full one does not fit a narrow window.
SHORT_KEYS_HELP = "N new  U undo  H hint  L level  Q quit"

#: Between the numbered move pairs of :attr:`Scene.moves` (lines break only there).
MOVES_SEPARATOR = "   "

RGB = tuple[int, int, int]

#: The colours of the window (seed 000's green board, grey-bordered discs).
PALETTE: dict[str, RGB] = {
    "background": (23, 27, 33),
    "panel": (33, 39, 47),
    "panel_hi": (52, 61, 73),
    "frame": (63, 45, 30),
    "frame_edge": (37, 26, 17),
    "coords": (228, 212, 178),
    "board": (0, 132, 66),
    "grid": (0, 78, 38),
    "black": (20, 20, 22),
    "black_border": (185, 185, 185),
    "white": (242, 242, 238),
    "white_border": (105, 105, 105),
    "last": (226, 45, 45),
    "hint": (255, 208, 40),
    "text": (236, 238, 240),
    "dim": (150, 158, 168),
    "accent": (255, 176, 64),
    "good": (110, 220, 140),
}


@dataclass(frozen=True, slots=True)
class HintMark:
    """A scored move shown by the hint overlay."""

    square: int
    score: float
    exact: bool = False
    book: bool = False  # the opening book's score
    upper: bool = False  # only an upper bound: worse than the best by more than the window


@dataclass(slots=True)
class Scene:
    """What the window shows at one moment."""

    board: Board
    layout: Layout
    now: float = 0.0
    legal: Sequence[int] = ()  # squares marked as playable
    last: int | None = None  # the last disc placed
    animation: FlipAnimation | None = None
    hints: Sequence[HintMark] = ()  # best first
    names: dict[Color, str] = field(default_factory=lambda: {BLACK: "Black", WHITE: "White"})
    thinking: str | None = None  # "level 5 is thinking"
    status: str | None = None  # a plain status line ("Your move")
    note: str | None = None  # a quieter line: "Level 5 played d3 (+1.5)"
    opening: str | None = None  # the named opening the game is in: "Tiger"
    alert: str | None = None  # highlighted: passes, setting warnings, errors
    end: Outcome | None = None  # show the end screen
    end_title: str = ""
    info: str = ""  # "move 12 - othello rules"
    moves: str = ""  # the game so far: "1. f5 d6  2. c3 d3 ..."
    keys_help: Sequence[str] = ()


def _fmt_score(score: float, exact: bool, upper: bool = False) -> str:
    if upper:  # "at most", rounded up so that it stays a bound
        return f"\u2264{math.ceil(score):+d}"
    if exact or float(score).is_integer():
        return f"{score:+.0f}"
    return f"{score:+.1f}"


class Renderer:
    """Draws scenes; caches fonts and disc images between frames."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._discs: dict[tuple[Color, int], pygame.Surface] = {}
        self._texts: dict[tuple[str, int, RGB], pygame.Surface] = {}
        self._boards: dict[tuple[tuple[int, int], int], pygame.Surface] = {}

    # ------------------------------------------------------------ helpers
    def font(self, size: int) -> pygame.font.Font:
        """pygame's default font at a pixel size (cached)."""
        size = max(8, int(size))
        font = self._fonts.get(size)
        if font is None:
            font = self._fonts[size] = pygame.font.Font(None, size)
        return font

    def text(
        self,
        surface: pygame.Surface,
        text: str,
        size: int,
        colour: RGB,
        pos: tuple[int, int],
        anchor: str = "topleft",
        shadow: bool = False,
    ) -> pygame.Rect:
        """Draw one line of text placed by ``anchor`` (a pygame.Rect attribute)."""
        image = self._text_image(text, size, colour)
        rect = image.get_rect(**{anchor: pos})
        if shadow:
            offset = max(1, size // 16)
            surface.blit(self._text_image(text, size, (0, 0, 0)), rect.move(offset, offset))
        surface.blit(image, rect)
        return rect

    def _text_image(self, text: str, size: int, colour: RGB) -> pygame.Surface:
        key = (text, size, colour)
        image = self._texts.get(key)
        if image is None:
            if len(self._texts) > 600:  # texts change (scores, moves): keep the cache small
                self._texts.clear()
            image = self._texts[key] = self.font(size).render(text, True, colour)
        return image

    def disc_image(self, colour: Color, radius: int) -> pygame.Surface:
        """A disc with its border, a soft shadow and a highlight (cached)."""
        key = (colour, radius)
        image = self._discs.get(key)
        if image is not None:
            return image
        size = 2 * radius + 4
        image = pygame.Surface((size, size), pygame.SRCALPHA)
        c = size // 2
        fill = PALETTE["black"] if colour is BLACK else PALETTE["white"]
        border = PALETTE["black_border"] if colour is BLACK else PALETTE["white_border"]
        shadow_dy = max(1, radius // 12)
        pygame.draw.aacircle(image, (0, 0, 0, 90), (c, c + shadow_dy), radius)
        pygame.draw.aacircle(image, border, (c, c), radius)
        ring = max(1, round(radius * 0.09))
        pygame.draw.aacircle(image, fill, (c, c), radius - ring)
        if radius >= 8:
            shine = (255, 255, 255, 26) if colour is BLACK else (255, 255, 255, 70)
            off = round(radius * 0.32)
            gloss = pygame.Surface((size, size), pygame.SRCALPHA)
            pygame.draw.aacircle(gloss, shine, (c - off, c - off), max(2, round(radius * 0.3)))
            image.blit(gloss, (0, 0))
        if pygame.display.get_surface() is not None:
            image = image.convert_alpha()
        self._discs[key] = image
        return image

    def marker_image(self, mover: Color, radius: int) -> pygame.Surface:
        """The translucent dot marking a legal move for ``mover`` (cached)."""
        key = (mover, -radius)  # negative: never collides with a disc's key
        image = self._discs.get(key)
        if image is None:
            image = pygame.Surface((2 * radius + 2, 2 * radius + 2), pygame.SRCALPHA)
            colour = (0, 0, 0, 85) if mover is BLACK else (255, 255, 255, 115)
            pygame.draw.aacircle(image, colour, (radius + 1, radius + 1), radius)
            self._discs[key] = image
        return image

    def draw_disc(
        self,
        surface: pygame.Surface,
        colour: Color,
        center: tuple[int, int],
        radius: int,
        width: float = 1.0,
        scale: float = 1.0,
    ) -> None:
        """Blit a disc; ``width`` < 1 squeezes it sideways (a coin seen turning),
        ``scale`` < 1 shrinks it (a disc being put down)."""
        image = self.disc_image(colour, radius)
        if width < 1.0 or scale < 1.0:
            w = max(2, round(image.get_width() * width * scale))
            h = max(2, round(image.get_height() * scale))
            image = pygame.transform.smoothscale(image, (w, h))
        surface.blit(image, image.get_rect(center=center))

    # ------------------------------------------------------------ the scene
    def draw(self, surface: pygame.Surface, scene: Scene) -> None:
        """Draw a whole frame."""
        key = (scene.layout.size, scene.layout.square)
        board = self._boards.get(key)
        if board is None:  # the empty board only changes with the window size
            self._boards.clear()
            board = self._boards[key] = pygame.Surface(scene.layout.size)
            board.fill(PALETTE["background"])
            self._draw_board(board, scene.layout)
            if pygame.display.get_surface() is not None:
                board = self._boards[key] = board.convert()  # blits at display speed
        surface.blit(board, (0, 0))
        self._draw_discs(surface, scene)
        self._draw_markers(surface, scene)
        self._draw_panel(surface, scene)
        if scene.end is not None:
            self._draw_end(surface, scene)

    def _draw_board(self, surface: pygame.Surface, lay: Layout) -> None:
        sq = lay.square
        radius = max(2, sq // 5)
        pygame.draw.rect(
            surface, PALETTE["frame_edge"], lay.frame.inflate(4, 4), border_radius=radius
        )
        pygame.draw.rect(surface, PALETTE["frame"], lay.frame, border_radius=radius)
        pygame.draw.rect(surface, PALETTE["board"], lay.board)
        line = max(1, sq // 40)
        for i in range(9):
            x = lay.board.left + i * sq
            y = lay.board.top + i * sq
            pygame.draw.line(
                surface, PALETTE["grid"], (x, lay.board.top), (x, lay.board.bottom - 1), line
            )
            pygame.draw.line(
                surface, PALETTE["grid"], (lay.board.left, y), (lay.board.right - 1, y), line
            )
        dot = max(2, sq // 14)
        for col, row in ((2, 2), (6, 2), (2, 6), (6, 6)):
            center = (lay.board.left + col * sq, lay.board.top + row * sq)
            pygame.draw.aacircle(surface, PALETTE["grid"], center, dot)
        size = max(10, int(sq * 0.42))
        margin = (lay.frame.width - lay.board.width) // 2
        for i in range(8):
            cx = lay.board.left + i * sq + sq // 2
            cy = lay.board.top + i * sq + sq // 2
            letter, digit = "abcdefgh"[i], str(i + 1)
            for y in (lay.frame.top + margin // 2, lay.frame.bottom - margin // 2):
                self.text(surface, letter, size, PALETTE["coords"], (cx, y), "center")
            for x in (lay.frame.left + margin // 2, lay.frame.right - margin // 2):
                self.text(surface, digit, size, PALETTE["coords"], (x, cy), "center")

    def _draw_discs(self, surface: pygame.Surface, scene: Scene) -> None:
        lay, board, anim = scene.layout, scene.board, scene.animation
        radius = max(2, int(lay.square * 0.42))
        for sq in range(64):
            colour = board.piece_at(sq)
            if colour is None:
                continue
            center = lay.square_center(sq)
            if anim is not None and not anim.done(scene.now):
                if sq == anim.placed:
                    self.draw_disc(
                        surface, colour, center, radius, scale=anim.placed_scale(scene.now)
                    )
                    continue
                turning = anim.disc(sq, scene.now)
                if turning is not None:
                    shown, width = turning
                    self.draw_disc(surface, shown, center, radius, width=width)
                    continue
            self.draw_disc(surface, colour, center, radius)

    def _draw_markers(self, surface: pygame.Surface, scene: Scene) -> None:
        lay, sq = scene.layout, scene.layout.square
        marker = self.marker_image(scene.board.turn, max(2, int(sq * 0.14)))
        hinted = {h.square for h in scene.hints}
        for square in scene.legal:
            if square not in hinted:
                surface.blit(marker, marker.get_rect(center=lay.square_center(square)))
        if scene.last is not None and scene.board.piece_at(scene.last) is not None:
            pygame.draw.aacircle(
                surface, PALETTE["last"], lay.square_center(scene.last), max(2, sq // 11)
            )
        for rank, hint in enumerate(scene.hints):
            rect = lay.square_rect(hint.square)
            if rank == 0:
                pygame.draw.rect(
                    surface,
                    PALETTE["hint"],
                    rect.inflate(-2, -2),
                    max(2, sq // 16),
                    border_radius=max(2, sq // 10),
                )
            colour = PALETTE["hint"] if rank == 0 else PALETTE["text"]
            size = max(10, int(sq * (0.42 if rank == 0 else 0.34)))
            self.text(
                surface,
                _fmt_score(hint.score, hint.exact, hint.upper),
                size,
                colour,
                rect.center,
                "center",
                shadow=True,
            )

    # ------------------------------------------------------------ the panel
    def _draw_panel(self, surface: pygame.Surface, scene: Scene) -> None:
        lay = scene.layout
        panel = lay.panel
        pygame.draw.rect(surface, PALETTE["panel"], panel)
        if lay.wide:
            self._draw_wide_panel(surface, scene, panel)
        else:
            self._draw_narrow_panel(surface, scene, panel)

    def _player_row(
        self, surface: pygame.Surface, scene: Scene, colour: Color, rect: pygame.Rect
    ) -> None:
        board = scene.board
        to_move = board.turn is colour and not board.is_game_over()
        if to_move:
            pygame.draw.rect(surface, PALETTE["panel_hi"], rect, border_radius=rect.h // 4)
            pygame.draw.rect(
                surface,
                PALETTE["accent"],
                (rect.left, rect.top + rect.h // 5, max(3, rect.h // 12), rect.h * 3 // 5),
            )
        radius = max(4, int(rect.h * 0.32))
        self.draw_disc(surface, colour, (rect.left + rect.h // 2 + 6, rect.centery), radius)
        size = max(12, int(rect.h * 0.42))
        name_x = rect.left + rect.h + 12
        count = self.text(
            surface,
            str(board.count(colour)),
            int(size * 1.35),
            PALETTE["text"],
            (rect.right - 12, rect.centery),
            "midright",
        )
        name = scene.names.get(colour, colour.name.title())
        name = self._fit(name, size, count.left - 8 - name_x)
        self.text(surface, name, size, PALETTE["text"], (name_x, rect.centery), "midleft")

    def _status_lines(self, scene: Scene) -> list[tuple[str, RGB]]:
        lines: list[tuple[str, RGB]] = []
        if scene.alert:
            lines.append((scene.alert, PALETTE["accent"]))
        if scene.thinking:
            lines.append((scene.thinking, PALETTE["text"]))
        elif scene.hints:
            best = scene.hints[0]
            lines.append(
                (
                    f"Hint: {square_name(best.square)} is best"
                    f" ({_fmt_score(best.score, best.exact)}{' exact' if best.exact else ''}"
                    f"{' book' if best.book else ''})",
                    PALETTE["hint"],
                )
            )
        if scene.opening:
            lines.append((f"Opening: {scene.opening}", PALETTE["dim"]))
        if scene.note:
            lines.append((scene.note, PALETTE["dim"]))
        if scene.status:
            lines.append((scene.status, PALETTE["text"]))
        return lines

    def _status_blocks(
        self, scene: Scene, size: int, width: int, spinner_room: int
    ) -> list[tuple[RGB, int, list[str]]]:
        """The status lines as ``(colour, indent, wrapped lines)``; the thinking
        line is indented to leave room for its spinner."""
        blocks = []
        for text, colour in self._status_lines(scene):
            indent = spinner_room if scene.thinking and text == scene.thinking else 0
            blocks.append((colour, indent, self._wrap(text, size, width - indent)))
        return blocks

    def _trim_alert(
        self,
        scene: Scene,
        blocks: list[tuple[RGB, int, list[str]]],
        room: int,
        size: int,
        width: int,
    ) -> list[tuple[RGB, int, list[str]]]:
        """A long alert (settings warnings) gives up its last lines so that the
        status lines after it ("Your move") still fit in ``room`` lines."""
        if not scene.alert or not blocks:
            return blocks
        colour, indent, lines = blocks[0]
        keep = max(1, room - sum(len(rest) for _, _, rest in blocks[1:]))
        if keep >= len(lines):
            return blocks
        cut = [*lines[: keep - 1], self._fit(lines[keep - 1] + " ...", size, width - indent)]
        return [(colour, indent, cut), *blocks[1:]]

    def _spinner(
        self, surface: pygame.Surface, center: tuple[int, int], radius: int, now: float
    ) -> None:
        spots = 8
        head = int(now * 10) % spots
        for i in range(spots):
            angle = 2 * math.pi * i / spots
            fade = ((i - head) % spots) / spots
            shade = int(235 - 170 * fade)
            pos = (
                round(center[0] + radius * math.cos(angle)),
                round(center[1] + radius * math.sin(angle)),
            )
            pygame.draw.aacircle(surface, (shade, shade, shade), pos, max(1, radius // 4))

    def _draw_wide_panel(self, surface: pygame.Surface, scene: Scene, panel: pygame.Rect) -> None:
        pad = max(10, panel.w // 16)
        x, w = panel.left + pad, panel.w - 2 * pad
        unit = max(14, min(40, panel.h // 18, w // 8))
        y = panel.top + pad
        self.text(surface, "outflank", int(unit * 1.6), PALETTE["text"], (x, y))
        y += int(unit * 1.6)
        if scene.info:  # two lines at most: a long AI name wraps, then is cut
            size = int(unit * 0.7)
            lines = self._wrap(scene.info, size, w)
            if len(lines) > 2:
                lines = [lines[0], self._fit(" ".join(lines[1:]), size, w)]
            for line in lines:
                self.text(surface, line, size, PALETTE["dim"], (x, y))
                y += int(size * 1.1)
            y -= int(size * 1.1)
        y += int(unit * 1.3)
        row_h = int(unit * 1.7)
        for colour in (BLACK, WHITE):
            self._player_row(surface, scene, colour, pygame.Rect(x, y, w, row_h))
            y += row_h + unit // 3
        y += unit // 2
        help_size = int(unit * 0.68)
        hy = panel.bottom - pad - len(scene.keys_help) * int(help_size * 1.05)
        size, step = int(unit * 0.8), int(unit * 0.85)
        blocks = self._status_blocks(scene, size, w, unit + 4)
        room = (hy - y - len(blocks) * (unit // 4)) // step  # lines that fit above the help
        for colour, indent, lines in self._trim_alert(scene, blocks, room, size, w):
            if indent:
                self._spinner(surface, (x + unit // 2, y + unit * 3 // 8), unit * 3 // 8, scene.now)
            for line in lines:
                if y + step > hy:
                    break
                self.text(surface, line, size, colour, (x + indent, y))
                y += step
            y += unit // 4
        if scene.moves:
            y += unit // 2
            size = int(unit * 0.66)
            step = int(size * 1.02)
            lines = self._wrap(scene.moves, size, w, MOVES_SEPARATOR)
            room = max(0, (hy - unit // 2 - y) // step)
            if room:
                shown = lines[-room:]  # the latest moves when they do not all fit
                for part in shown:
                    self.text(surface, part, size, PALETTE["dim"], (x, y))
                    y += step
        for line in scene.keys_help:
            self.text(surface, line, help_size, PALETTE["dim"], (x, hy))
            hy += int(help_size * 1.05)

    def _draw_narrow_panel(self, surface: pygame.Surface, scene: Scene, panel: pygame.Rect) -> None:
        pad = max(6, panel.h // 12)
        unit = max(12, min(34, panel.h // 4))
        row = pygame.Rect(
            panel.left + pad, panel.top + pad // 2, (panel.w - 3 * pad) // 2, int(unit * 1.4)
        )
        self._player_row(surface, scene, BLACK, row)
        self._player_row(surface, scene, WHITE, row.move(row.w + pad, 0))
        y = row.bottom + pad // 2
        x = panel.left + pad
        lines = self._status_lines(scene)
        if len(lines) > 2:  # room for two: drop the quiet note first
            lines = [line for line in lines if line[0] != scene.note]
        for text, colour in lines[:2]:
            tx = x
            if scene.thinking and text == scene.thinking:
                self._spinner(surface, (x + unit // 3, y + unit // 3), unit // 3, scene.now)
                tx = x + unit
            text = self._fit(text, int(unit * 0.8), panel.right - pad - tx)
            self.text(surface, text, int(unit * 0.8), colour, (tx, y))
            y += int(unit * 0.8)
        if scene.keys_help and y + unit * 0.6 < panel.bottom:
            size = int(unit * 0.6)
            room = panel.w - 2 * pad
            for text in ("   ".join(scene.keys_help), SHORT_KEYS_HELP):
                if self.font(size).size(text)[0] <= room:
                    self.text(
                        surface, text, size, PALETTE["dim"], (x, panel.bottom - pad), "bottomleft"
                    )
                    break

    def _fit(self, text: str, size: int, width: int) -> str:
        """``text``, shortened with "..." at the end if it is wider than ``width``."""
        font = self.font(size)
        if font.size(text)[0] <= width:
            return text
        while text and font.size(text + "...")[0] > width:
            text = text[:-1]
        return text.rstrip() + "..." if text else ""

    def _split_long(self, word: str, font: pygame.font.Font, width: int) -> list[str]:
        """A word wider than ``width`` (a file path) cut into pieces that fit."""
        pieces, piece = [], ""
        for char in word:
            if piece and font.size(piece + char)[0] > width:
                pieces.append(piece)
                piece = ""
            piece += char
        return [*pieces, piece] if piece else pieces

    def _wrap(self, text: str, size: int, width: int, sep: str = " ") -> list[str]:
        """Break ``text`` into lines no wider than ``width``, at ``sep`` (a
        word too wide for a line of its own is cut where it must)."""
        font = self.font(size)
        words = []
        for word in text.split(sep):
            if word.strip():
                too_wide = font.size(word.strip())[0] > width > 0
                words.extend(self._split_long(word.strip(), font, width) if too_wide else [word])
        lines: list[str] = []
        line = ""
        for word in words:
            trial = f"{line}{sep}{word}" if line else word.strip()
            if line and font.size(trial)[0] > width:
                lines.append(line)
                line = word.strip()
            else:
                line = trial
        if line:
            lines.append(line)
        return lines or [""]

    # ------------------------------------------------------------ the end
    def _draw_end(self, surface: pygame.Surface, scene: Scene) -> None:
        lay, outcome = scene.layout, scene.end
        assert outcome is not None
        veil = pygame.Surface(lay.frame.size, pygame.SRCALPHA)
        veil.fill((10, 12, 16, 175))
        surface.blit(veil, lay.frame.topleft)
        card = lay.board.inflate(-lay.square, -int(lay.square * 3.8))
        pygame.draw.rect(surface, PALETTE["panel"], card, border_radius=max(4, lay.square // 4))
        pygame.draw.rect(
            surface,
            PALETTE["accent"],
            card,
            max(2, lay.square // 24),
            border_radius=max(4, lay.square // 4),
        )
        sq = lay.square
        cx = card.centerx
        self.text(
            surface,
            scene.end_title,
            int(sq * 0.95),
            PALETTE["text"],
            (cx, card.top + int(sq * 0.75)),
            "center",
            shadow=True,
        )
        radius = max(4, int(sq * 0.32))
        y = card.top + int(sq * 1.75)
        gap = int(sq * 1.6)
        self.draw_disc(surface, BLACK, (cx - gap, y), radius)
        self.draw_disc(surface, WHITE, (cx + gap, y), radius)
        self.text(
            surface,
            f"{outcome.black}  -  {outcome.white}",
            int(sq * 0.8),
            PALETTE["text"],
            (cx, y),
            "center",
        )
        margin = abs(outcome.margin)
        detail = (
            "a drawn game" if outcome.winner is None else f"by {margin} disc{'s' * (margin != 1)}"
        )
        self.text(
            surface,
            detail,
            max(10, int(sq * 0.4)),
            PALETTE["accent"],
            (cx, card.top + int(sq * 2.55)),
            "center",
        )
        self.text(
            surface,
            "Click or press a key for a new game",
            max(10, int(sq * 0.36)),
            PALETTE["dim"],
            (cx, card.bottom - int(sq * 0.5)),
            "center",
        )
