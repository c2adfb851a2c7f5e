"""Take docs/web-puzzles.png: the Puzzles page after a wrong answer.

    python scripts/screenshot_puzzles.py [--out docs/web-puzzles.png] [--puzzle ID]

Starts ``outflank serve`` on a new database in a temporary folder, opens
the puzzle in Debian's chromium (Playwright), solves one puzzle right (so
that the rating and streak show something), answers the next one with a
wrong move and takes the picture once its refutation is on the board.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank.puzzles import PuzzleSet  # noqa: E402


def _serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "outflank", "serve", "--port", str(port), "--db", str(db)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/api/info", timeout=1)
            return proc, base
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("outflank serve did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "web-puzzles.png")
    parser.add_argument("--puzzle", help="the puzzle answered wrong (default: a tricky one)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    puzzles = sorted(PuzzleSet.default(), key=lambda p: p.id)
    first = next(p for p in puzzles if p.grade == 2)
    second = (
        PuzzleSet.default().get(args.puzzle)
        if args.puzzle
        else next(p for p in puzzles if p.grade == 3 and 14 <= p.empties <= 18)
    )
    wrong = sorted(second.refutations, key=lambda m: -second.scores[m])[0]
    with tempfile.TemporaryDirectory() as folder:
        proc, base = _serve(Path(folder) / "shot.db")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path="/usr/bin/chromium", headless=True,
                    args=["--no-sandbox", "--disable-gpu"],
                )  # fmt: skip
                page = browser.new_page(viewport={"width": 1180, "height": 860})
                page.goto(f"{base}/puzzles/{first.id}")
                page.wait_for_selector("circle.legal")
                page.click(f'#board .cell[data-square="{first.solution}"]')
                page.wait_for_selector("#status .pz-right")
                page.goto(f"{base}/puzzles/{second.id}")
                page.wait_for_selector("circle.legal")
                page.click(f'#board .cell[data-square="{wrong}"]')
                page.wait_for_selector('#board[data-shown="played:2"]', timeout=30_000)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"wrote {args.out} (puzzle {second.id}, answered {wrong})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
