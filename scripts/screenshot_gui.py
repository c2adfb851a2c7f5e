"""Make docs/gui.png: the real ``outflank gui`` window, under Xvfb.

Usage::

    python scripts/screenshot_gui.py [--out docs/gui.png] [--size 1100x720]
                                     [--moves f5d6c3...] [--ai 5] [--no-hint] [--end]

Without a display it runs itself again under ``xvfb-run`` (Debian's xvfb).
It opens the window through :class:`outflank.gui.app.App`, plays the given
opening (the AI answering as in a game), asks for a hint, draws the frame and
saves the window's surface.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# A quiet mid-game: black (you) to move, with a few captures to show.
DEFAULT_MOVES = "f5d6c3d3c4f4f6f3e6e7d7c5b6"


def _reexec_under_xvfb() -> int:
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        print("no display and no xvfb-run: install xvfb", file=sys.stderr)
        return 2
    env = dict(os.environ, OUTFLANK_SCREENSHOT_CHILD="1")
    cmd = [xvfb, "-a", "-s", "-screen 0 1600x1200x24", sys.executable, __file__, *sys.argv[1:]]
    return subprocess.call(cmd, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "gui.png")
    parser.add_argument("--size", default="1100x720", help="window WIDTHxHEIGHT")
    parser.add_argument("--moves", default=DEFAULT_MOVES, help="opening to play first")
    parser.add_argument("--ai", default="5", help="AI level or name (none: two people)")
    parser.add_argument("--no-hint", action="store_true", help="do not show the hint overlay")
    parser.add_argument("--end", action="store_true", help="play the game out; show the end screen")
    args = parser.parse_args()

    if not os.environ.get("DISPLAY") and not os.environ.get("OUTFLANK_SCREENSHOT_CHILD"):
        return _reexec_under_xvfb()

    import pygame

    from outflank.board import Board
    from outflank.gui.app import App
    from outflank.gui.settings import Settings

    width, height = (int(v) for v in args.size.lower().split("x"))
    settings = Settings().replace(ai=args.ai, width=width, height=height, animation=False)
    app = App(settings)
    start = Board.from_transcript(args.moves)
    for move in start.move_stack:
        app.session.play(move)
    app.step()
    if not app.wait_idle(60):
        print("the AI did not answer in time", file=sys.stderr)
        return 1
    if args.end:
        while not app.session.over:
            if app.session.human_to_move():
                app.session.play(app.session.board.legal_moves[0])
            app.wait_idle(60)
    elif not args.no_hint:
        app.request_hint()
        app.wait_idle(60)
    for _ in range(3):
        app.step()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(pygame.display.get_surface(), str(args.out))
    print(f"saved {args.out} ({width}x{height}, driver {pygame.display.get_driver()})")
    app.close()
    pygame.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
