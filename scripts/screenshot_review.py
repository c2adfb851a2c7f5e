"""Make docs/review.png: the web page reviewing a game, a mistake selected, down to the explorer.

Usage::

    python scripts/screenshot_review.py [--out docs/review.png] [--game N]

Starts a real ``outflank serve`` on a free port with a database in a
temporary folder, makes a game of two people from game N of
bench/data/review_games.txt, opens it in Debian's chromium (Playwright),
clicks *Review*, waits for the review, clicks the first inaccuracy (or
worse) of the move list, so that the opening explorer beside it still has
book moves, and saves the page down to the explorer's card. Game 10 (the
default) has a blunder that makes a puzzle: the review card offers it.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "bench" / "data" / "review_games.txt"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_up(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(base + "/api/info", timeout=1)
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("outflank serve did not start") from None
            time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "review.png")
    parser.add_argument("--game", type=int, default=10, help="which game of the bench's file")
    args = parser.parse_args()
    games = [g for g in GAMES.read_text().splitlines() if g and not g.startswith("#")]
    from playwright.sync_api import sync_playwright

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PYTHONPATH": str(ROOT / "src")}
        cmd = [sys.executable, "-m", "outflank", "serve", "--port", str(port)]
        proc = subprocess.Popen(
            [*cmd, "--db", str(Path(tmp) / "shot.db")],
            env={**os.environ, **env},
        )
        try:
            _wait_up(base, proc)
            body = {
                "black": {"kind": "human"},
                "white": {"kind": "human"},
                "start": games[args.game - 1],
            }
            request = urllib.request.Request(
                base + "/api/games",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request) as response:
                game_id = json.load(response)["game"]["id"]
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page(viewport={"width": 1180, "height": 1500})
                page.goto(f"{base}/game/{game_id}")
                page.click("#end-review")
                page.wait_for_function(
                    "document.getElementById('review-note').textContent.startsWith('done')",
                    timeout=120_000,
                )
                page.wait_for_selector("#review-puzzles", timeout=30_000)
                labelled = "#movelist li.lab-inaccuracy, #movelist li.lab-mistake"
                page.locator(f"{labelled}, #movelist li.lab-blunder").first.click()
                page.wait_for_selector("#review-detail:not([hidden])")
                page.wait_for_timeout(400)
                explorer = page.locator("#explorer-card").bounding_box()
                bottom = explorer["y"] + explorer["height"] + 16
                page.screenshot(
                    path=str(args.out), clip={"x": 0, "y": 0, "width": 1180, "height": bottom}
                )
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
