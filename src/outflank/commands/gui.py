"""``outflank gui``: play Othello in a desktop window (pygame-ce)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from outflank.board import Board
from outflank.commands.common import board_argument
from outflank.errors import OutflankError
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL

NAME = "gui"
HELP = "play in a desktop window (pygame-ce): against an engine level, a seed AI, or a friend"


def configure(parser: argparse.ArgumentParser) -> None:
    from outflank.gui.settings import Settings  # no pygame: the defaults only

    default = Settings()
    parser.epilog = (
        "Settings come from outflank.ini in the current folder, else "
        "$XDG_CONFIG_HOME/outflank/outflank.ini; options given here override them. "
        "Keys: N new game, U undo, H hint, L / Shift+L stronger / weaker AI, C / E / X"
        " (Shift: down) and [ / ] the regions AI's biases and look-ahead, Esc or Q quit."
    )
    parser.add_argument(
        "--ai",
        metavar="LEVEL|NAME",
        help=f"the computer: a level {MIN_LEVEL}-{MAX_LEVEL}, greedy, minimax4, heuristic,"
        f" regions, weights, default (1 s a move), or none for two people"
        f" (default {DEFAULT_LEVEL})",
    )
    parser.add_argument(
        "--colour",
        "--color",
        dest="colour",
        metavar="COLOUR",
        help=f"your colour: black or white (default {default.colour.name.lower()})",
    )
    parser.add_argument("--rules", metavar="RULES", help="othello (default) or reversi")
    parser.add_argument(
        "--width", metavar="PX", help=f"window width in pixels (default {default.width})"
    )
    parser.add_argument(
        "--height", metavar="PX", help=f"window height in pixels (default {default.height})"
    )
    parser.add_argument(
        "--square-size", metavar="PX", help="largest square size in pixels (0: fit the window)"
    )
    parser.add_argument("--fps", metavar="N", help=f"frames per second (default {default.fps})")
    parser.add_argument(
        "--animation",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="turn discs over like coins (default on)",
    )
    parser.add_argument(
        "--flip-time",
        metavar="SECONDS",
        help=f"how long one disc takes to turn (default {default.flip_time})",
    )
    parser.add_argument(
        "--hint-time",
        metavar="SECONDS",
        help=f"how long a hint (H) may think (default {default.hint_time})",
    )
    parser.add_argument(
        "--threads",
        metavar="N",
        help="threads per search of the AI and the hints (0: every core; default"
        f" {default.threads or 'every core'})",
    )
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="read this INI file instead of the usual ones"
    )
    parser.add_argument(
        "--position",
        type=board_argument,
        default=None,
        metavar="OBF|TRANSCRIPT",
        help="start games from this position",
    )


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from outflank.gui.app import App
    from outflank.gui.settings import load_settings

    overrides = {
        name: getattr(args, name)
        for name in (
            "ai",
            "colour",
            "rules",
            "width",
            "height",
            "square_size",
            "fps",
            "animation",
            "flip_time",
            "hint_time",
            "threads",
        )
    }
    settings, warnings, _ = load_settings(args.config, overrides)
    if args.position is not None:  # over or not under the rules the game will use
        start = args.position
        if Board(start.black, start.white, start.turn, settings.rules).is_game_over():
            raise OutflankError("--position is a finished game: there is nothing to play")
    for warning in warnings:
        print(f"outflank gui: warning: {warning}", file=sys.stderr)
    import pygame

    _require_a_display(pygame)
    try:
        app = App(settings, start=args.position, warnings=warnings)
        return app.run()
    finally:
        pygame.quit()


def _require_a_display(pygame: Any) -> None:
    """Refuse to run in a window nobody can see: without a display, SDL falls
    back to its off-screen driver and the game would wait forever. A driver
    chosen on purpose (``SDL_VIDEODRIVER``, as the tests do) is respected."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return
    try:
        pygame.display.init()
        driver = pygame.display.get_driver()
    except pygame.error as exc:
        driver, reason = None, str(exc)
    else:
        reason = f"SDL found only its {driver!r} video driver"
    if driver in (None, "offscreen", "dummy"):
        pygame.quit()
        raise OutflankError(
            f"no display to open the window on ({reason}): run it on a desktop,"
            " over ssh -X, or under xvfb-run"
        )
