"""The window's event loop: clicks and keys in, moves out, the AI in a worker
thread, a frame drawn each tick.

:class:`App` is built so tests can drive it step by step: ``handle_event``
takes a real pygame event, ``update`` advances the game (worker results,
animations, passes, starting the AI), ``draw`` renders one frame, the clock
is injectable and ``wait_idle`` waits for the AI.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import pygame

from outflank.board import BLACK, WHITE, Board, Color, Move
from outflank.book.names import opening_name
from outflank.errors import OutflankError
from outflank.gui.ai import AISpec, EngineLike, Worker, best_move_of, make_engine
from outflank.gui.animation import FlipAnimation
from outflank.gui.layout import Layout, compute_layout
from outflank.gui.render import MOVES_SEPARATOR, PALETTE, HintMark, Renderer, Scene
from outflank.gui.session import GameSession, Played
from outflank.gui.settings import Settings
from outflank.threads import default_threads

__all__ = ["KEYS_HELP", "App"]

KEYS_HELP = (
    "N new game    U undo    H hint",
    "L / Shift+L  stronger / weaker AI",
    "C E X (+Shift)  [ ]  tune regions AI",
    "Esc or Q  quit",
)
_ALERT_SECONDS = 4.0
_PASS_SECONDS = 3.0  # how long a pass stays announced
_IDLE_FPS = 30  # frames per second while nothing moves
#: The regions AI's knobs (seed 004): key -> (knob, up?); None: Shift turns it down.
_KNOB_KEYS: dict[int, tuple[str, bool | None]] = {
    pygame.K_c: ("corner", None),
    pygame.K_e: ("edge", None),
    pygame.K_x: ("x_square", None),
    pygame.K_LEFTBRACKET: ("depth", False),
    pygame.K_RIGHTBRACKET: ("depth", True),
}
_MODIFIER_KEYS = {
    pygame.K_LSHIFT,
    pygame.K_RSHIFT,
    pygame.K_LCTRL,
    pygame.K_RCTRL,
    pygame.K_LALT,
    pygame.K_RALT,
    pygame.K_LMETA,
    pygame.K_RMETA,
    pygame.K_CAPSLOCK,
    pygame.K_NUMLOCK,
}


@dataclasses.dataclass(frozen=True, slots=True)
class BookAnswer:
    """The AI's move taken from the opening book (no search)."""

    best_move: Move
    score: float
    book: bool = True


def _icon() -> pygame.Surface:
    """The window icon: a black and a white disc on the green board."""
    icon = pygame.Surface((32, 32), pygame.SRCALPHA)
    pygame.draw.rect(icon, PALETTE["board"], icon.get_rect(), border_radius=6)
    pygame.draw.aacircle(icon, PALETTE["black_border"], (11, 11), 8)
    pygame.draw.aacircle(icon, PALETTE["black"], (11, 11), 7)
    pygame.draw.aacircle(icon, PALETTE["white_border"], (21, 21), 8)
    pygame.draw.aacircle(icon, PALETTE["white"], (21, 21), 7)
    return icon


def score_note(answer: object) -> str:
    """How a computer move's score is told after the move: `` (+2.5)``, with
    ``book`` for the opening book's, or a win or draw, proven or probable
    (the engine's win/draw/loss solve, ``SearchResult.wld`` and
    ``probable``); empty without a score."""
    score = getattr(answer, "score", None)
    if not isinstance(score, int | float):
        return ""
    if getattr(answer, "wld", False):
        how = "probable" if getattr(answer, "probable", False) else "proven"
        return f" (a {how} win)" if score > 0 else f" (a {how} draw)"
    if getattr(answer, "book", False):
        return f" ({score:+.1f}, book)"
    return f" ({score:+.1f})"


class App:
    """The desktop game.

    ``screen``: the surface to draw on (default: open a resizable window of
    the settings' size). ``clock``: seconds as a float (animations and
    messages). ``engine_factory``: makes an engine for an :class:`AISpec`.
    ``start``: the position new games begin from. ``warnings``: messages to
    show first (bad settings).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        screen: pygame.Surface | None = None,
        clock: Callable[[], float] = time.monotonic,
        engine_factory: Callable[[AISpec], EngineLike] | None = None,
        start: Board | None = None,
        warnings: Sequence[str] = (),
    ) -> None:
        pygame.display.init()
        pygame.font.init()
        self.settings = settings
        self._own_window = screen is None
        if screen is None:
            pygame.display.set_caption("outflank - Othello")
            pygame.display.set_icon(_icon())
            screen = pygame.display.set_mode((settings.width, settings.height), pygame.RESIZABLE)
        self.screen = screen
        self.clock = clock
        self.threads = settings.threads or default_threads()  # per search
        self._engine_factory = engine_factory or functools.partial(
            make_engine, threads=self.threads
        )
        self.ai = settings.ai
        self._tunings: dict[str, tuple[tuple[str, int], ...]] = {}  # preset -> knobs, across L
        humans = frozenset({settings.colour}) if self.ai.enabled else frozenset({BLACK, WHITE})
        self.session = GameSession(humans, settings.rules, start)
        self.renderer = Renderer()
        self.worker = Worker()
        self.animation: FlipAnimation | None = None
        self.hints: list[HintMark] = []
        self.running = True
        self.last_ai: str | None = None  # "level 5 played d3 (+1.5)"
        self._engine: EngineLike | None = None
        self._hint_engine: EngineLike | None = None
        self._pending: Move | None = None  # the AI's move, played once animations end
        self._pending_note: str | None = None  # what the panel will say of it
        self._ai_failed = False
        self._alerts: list[tuple[str, float, str | None]] = []  # text, until, key
        self._progress: tuple[object, int, int] | None = None  # token, depth, nodes
        self._progress_token: object | None = None
        self._layout: Layout | None = None
        for text in warnings:
            self.alert(text, seconds=8.0)

    # ------------------------------------------------------------ state
    @property
    def board(self) -> Board:
        """The position on the board."""
        return self.session.board

    @property
    def layout(self) -> Layout:
        """The layout for the current window size."""
        size = self.screen.get_size()
        if self._layout is None or self._layout.size != size:
            self._layout = compute_layout(size, self.settings.square_size)
        return self._layout

    @property
    def thinking(self) -> bool:
        """True while the AI searches for a move."""
        return self.worker.kind == "move"

    @property
    def animating(self) -> bool:
        return self.animation is not None and not self.animation.done(self.clock())

    @property
    def end_screen(self) -> bool:
        """True when the finished game's result is shown."""
        return self.session.over and not self.animating and self._pending is None

    def alert(self, text: str, seconds: float = _ALERT_SECONDS, key: str | None = None) -> None:
        """Show a highlighted message for a while; a new one with the same
        ``key`` (or the same text) replaces the old instead of piling up."""
        self._alerts = [
            (old, until, k) for old, until, k in self._alerts
            if old != text and (key is None or k != key)
        ]  # fmt: skip
        self._alerts.append((text, self.clock() + seconds, key))

    def _name(self, colour: Color) -> str:
        if not self.ai.enabled:
            return colour.name.title()
        return "You" if colour in self.session.humans else self.ai.label.capitalize()

    # ------------------------------------------------------------ events
    def handle_event(self, event: pygame.event.Event) -> None:
        """React to one pygame event."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            self._key(event)
        elif event.type == pygame.MOUSEBUTTONUP and getattr(event, "button", 1) == 1:
            self._click(event.pos)
        elif (
            event.type == pygame.VIDEORESIZE
            and self._own_window
            and self.screen.get_size() != tuple(event.size)
        ):
            self.screen = pygame.display.set_mode(event.size, pygame.RESIZABLE)

    def _key(self, event: pygame.event.Event) -> None:
        key = event.key
        if key in (pygame.K_ESCAPE, pygame.K_q):
            self.running = False
        elif key in _MODIFIER_KEYS:
            return
        elif (self.end_screen and key != pygame.K_u) or key == pygame.K_n:
            self.new_game()
        elif key == pygame.K_u:
            self.undo()
        elif key == pygame.K_h:
            self.request_hint()
        elif key == pygame.K_l:
            self.change_ai(-1 if event.mod & pygame.KMOD_SHIFT else 1)
        elif key in _KNOB_KEYS:
            name, up = _KNOB_KEYS[key]
            down = bool(event.mod & pygame.KMOD_SHIFT) if up is None else not up
            self.tune_ai(name, -1 if down else 1)

    def _click(self, pos: tuple[int, int]) -> None:
        if self.end_screen:
            self.new_game()
            return
        if self.animation is not None:
            self.animation.finish()
        square = self.layout.square_at(pos)
        if square is None or not self.session.human_to_move():
            return
        if square in self.session.legal_squares():
            self._play(Move(square))

    # ------------------------------------------------------------ actions
    def new_game(self) -> None:
        """Start again from the start position."""
        self._reset_turn()
        self.session.new_game()
        self.last_ai = None

    def undo(self) -> None:
        """Take back the last move of the person to move (and the AI's replies)."""
        self._reset_turn()
        if not self.session.undo():
            self.alert("Nothing to undo")
        self.last_ai = None

    def request_hint(self) -> None:
        """Score every legal move in the background; the best is shown."""
        if not self.session.human_to_move():
            self.alert("Hints are for your move")
            return
        if self.worker.busy:
            return
        try:
            if self._hint_engine is None:
                self._hint_engine = self._engine_factory(AISpec("preset", preset="default"))
        except OutflankError as exc:
            self.alert(f"No hint: {exc}")
            return
        engine, board, limit = self._hint_engine, self.board.copy(), self.settings.hint_time
        self.worker.submit("hint", lambda: engine.analyze(board, time=limit), engine.stop)

    def change_ai(self, delta: int) -> None:
        """Walk the AI ladder (seed AIs, then levels 1-20) up or down."""
        if not self.ai.enabled:
            self.alert("Two people are playing: start with --ai to play the computer")
            return
        new = self.ai.step(delta)
        if new == self.ai:
            self.alert(
                f"AI: {self.ai.label} (already the {'strongest' if delta > 0 else 'weakest'})"
            )
            return
        if self.ai.tuning:  # kept for when the ladder comes back to this AI
            self._tunings[self.ai.preset] = self.ai.tuning
        if new.kind == "preset" and new.preset in self._tunings:
            new = dataclasses.replace(new, tuning=self._tunings[new.preset])
        self._drop_ai_move()
        self.ai, self._engine, self._ai_failed = new, None, False
        label = _regions_text(new.knobs) if new.tuning else new.label
        self.alert(f"AI: {label}", key="ai")

    def tune_ai(self, knob: str, delta: int) -> None:
        """Move one of the regions AI's knobs (seed 004: biases and look-ahead
        may change in the middle of a game); its next move uses them."""
        if not self.ai.enabled:
            self.alert("Two people are playing: start with --ai regions to tune the computer")
            return
        if self.ai.preset != "regions":
            self.alert("C, E, X and [ ] tune the regions AI (seed 004): press L to reach it")
            return
        new = self.ai.tuned(knob, delta)
        text = _regions_text(new.knobs)
        if new == self.ai:  # at the end of its range: nothing changes
            self.alert(f"{text} (the limit)", key="ai")
            return
        self._drop_ai_move()  # a search or a move with the old values is thrown away
        self.ai, self._engine, self._ai_failed = new, None, False
        self.alert(text, key="ai")

    def _drop_ai_move(self) -> None:
        """Forget the AI's search, or its move still waiting for an animation:
        the AI chosen now searches again."""
        if self.thinking:
            self.worker.cancel()
        self._pending = None
        self._pending_note = None

    def _reset_turn(self) -> None:
        self.worker.cancel()
        self.animation = None
        self._pending = None
        self._pending_note = None
        self.hints = []
        self._ai_failed = False

    def _play(self, move: Move) -> Played:
        played = self.session.play(move)
        self.hints = []
        if self.worker.kind == "hint":  # its answer would be for the old position
            self.worker.cancel()
        if self.settings.animation and played.move.square is not None:
            self.animation = FlipAnimation(
                played.move.square,
                played.flips,
                played.colour.other,
                self.clock(),
                self.settings.flip_time,
            )
        else:
            self.animation = None
        return played

    # ------------------------------------------------------------ the loop
    def update(self) -> None:
        """Advance the game: results of the worker, the end of an animation,
        forced passes, and starting the AI when it is its turn."""
        now = self.clock()
        if self.animation is not None and self.animation.done(now):
            self.animation = None
        self._collect()
        if self.animation is None and self._pending is not None:
            move, self._pending = self._pending, None
            if self.board.is_legal(move):
                self._play(move)
                self.last_ai, self._pending_note = self._pending_note, None
            else:  # never expected: the engine answered for another position
                self.alert(f"AI move {move} is not legal here; ignored")
                self._ai_failed = True
        if self.animation is None and self._pending is None:
            passed = self.session.auto_pass()
            if passed is not None:
                self.hints = []
                # an alert, so it stays up after a fast reply has cleared the pass
                who = self._name(passed)
                verb = "have" if who == "You" else "has"
                self.alert(f"{who} {verb} no legal move: pass", seconds=_PASS_SECONDS, key="pass")
        if (
            self.session.ai_to_move()
            and not self.worker.busy
            and self._pending is None
            and not self._ai_failed
        ):
            self._start_ai()
        self._alerts = [alert for alert in self._alerts if alert[1] > now]

    def _start_ai(self) -> None:
        try:
            if self._engine is None:
                self._engine = self._engine_factory(self.ai)
        except OutflankError as exc:
            self._ai_failed = True
            self.alert(f"AI unavailable: {exc}", seconds=30.0)
            return
        engine, board = self._engine, self.board.copy()
        token = self._progress_token = object()  # marks this search's progress reports

        def report(info: Any) -> None:  # from the search thread: one plain assignment
            self._progress = (token, int(info.depth), int(info.nodes))

        book_move = getattr(engine, "book_move", None)
        picked = book_move(board) if callable(book_move) else None
        if picked is not None:  # the opening book's move, varied within the level's tolerance
            job: Callable[[], Any] = lambda: BookAnswer(picked.move, picked.value)  # noqa: E731
        elif getattr(engine, "random", 0):  # weak levels sometimes play at random
            job = lambda: engine.choose_move(board)  # noqa: E731
        else:  # a search also tells its score, shown in the panel
            job = lambda: engine.search(board, on_info=report)  # noqa: E731
        self.worker.submit("move", job, engine.stop)

    def _collect(self) -> None:
        result = self.worker.poll()
        if result is None:
            return
        if result.error is not None:
            if result.kind == "move":
                self._ai_failed = True
            self.alert(f"{result.kind} failed: {result.error}", seconds=10.0)
            return
        if result.kind == "move":
            move = best_move_of(result.value)
            self._pending = move
            # said once the move is on the board, not while the last one still turns
            self._pending_note = (
                f"{self.ai.label.capitalize()} played {move}{score_note(result.value)}"
            )
        elif result.kind == "hint":
            self.hints = [
                HintMark(
                    ms.move.square,
                    float(ms.score),
                    bool(getattr(ms, "exact", False)),
                    bool(getattr(ms, "book", False)),
                    bool(getattr(ms, "upper", False)),
                )
                for ms in result.value
                if ms.move.square is not None
            ]

    def scene(self) -> Scene:
        """What to draw now."""
        session, board, now = self.session, self.board, self.clock()
        alerts = [text for text, until, _ in self._alerts if until > now]
        status = None
        if session.human_to_move() and not self.worker.busy:
            status = "Your move" if self.ai.enabled else f"{board.turn.name.title()} to move"
        thinking = None
        if self.thinking:
            thinking = f"{self.ai.label.capitalize()} is thinking..."
            progress = self._progress
            if progress is not None and progress[0] is self._progress_token:
                thinking += f" depth {progress[1]}, {progress[2]:,} nodes"
        elif self.worker.kind == "hint":
            thinking = "Looking for the best move..."
        end = board.outcome() if self.end_screen else None
        title = ""
        if end is not None:
            winner = end.winner
            if winner is None:
                title = "A draw"
            elif not self.ai.enabled:
                title = f"{winner.name.title()} wins!"
            else:
                title = "You win!" if winner in session.humans else "The computer wins"
        rules = board.rules.value
        threads = f"{self.threads} thread{'s' if self.threads > 1 else ''}"
        ai = f" - AI {self.ai.label}, {threads}" if self.ai.enabled else " - two players"
        return Scene(
            board=board,
            layout=self.layout,
            now=now,
            legal=session.legal_squares() if session.human_to_move() and not self.animating else (),
            last=session.last_square(),
            animation=self.animation,
            hints=self.hints,
            names={BLACK: self._name(BLACK), WHITE: self._name(WHITE)},
            thinking=thinking,
            status=status,
            note=self.last_ai if not session.over else None,
            opening=opening_name(board),
            alert="  ".join(alerts) if alerts else None,
            end=end,
            end_title=title,
            info=f"{'game over' if session.over else f'move {board.ply + 1}'} - {rules}{ai}",
            keys_help=KEYS_HELP,
            moves=self._move_list(),
        )

    def _move_list(self) -> str:
        """The moves so far in numbered pairs, three spaces apart: "1. f5 d6   2. c3"."""
        board = self.board
        turn = board.root().turn
        pairs: list[str] = []
        number = 1
        for move in board.move_stack:
            if turn is BLACK:
                pairs.append(f"{number}. {move}")
            elif not pairs:
                pairs.append(f"{number}. ... {move}")
            else:
                pairs[-1] += f" {move}"
            if turn is WHITE:
                number += 1
            turn = turn.other
        return MOVES_SEPARATOR.join(pairs)

    def draw(self) -> None:
        """Render one frame on the screen surface (no display flip)."""
        self.renderer.draw(self.screen, self.scene())

    def step(self) -> None:
        """One frame: pending events, update, draw, show."""
        for event in pygame.event.get():
            self.handle_event(event)
        self.update()
        self.draw()
        if self._own_window or pygame.display.get_surface() is self.screen:
            pygame.display.flip()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until the AI/hint job is done and its move has been played;
        True if the game is idle (waiting for a person or over)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.update()
            settled = not self.worker.busy and self._pending is None and not self.animating
            if settled and (not self.session.ai_to_move() or self._ai_failed):
                return True
            self.worker.wait(min(0.05, max(0.0, deadline - time.monotonic())))
        return False

    def close(self) -> None:
        """Stop the AI and let its thread end."""
        self.worker.cancel()
        self.worker.wait(2.0)

    def run(self) -> int:
        """The main loop, until the window is closed or Esc/Q; returns 0."""
        ticker = pygame.time.Clock()
        try:
            while self.running:
                self.step()
                busy = self.animating or self.worker.busy or self._pending is not None
                ticker.tick(self.settings.fps if busy else min(self.settings.fps, _IDLE_FPS))
        finally:
            self.close()
        return 0


def _regions_text(knobs: dict[str, int]) -> str:
    """The regions AI's knobs as the window shows them."""
    return (
        f"Regions: corner {knobs['corner']:+d}, edge {knobs['edge']:+d},"
        f" X-square {knobs['x_square']:+d}, look-ahead {knobs['depth']}"
    )
