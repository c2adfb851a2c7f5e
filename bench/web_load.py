"""Load test of the web app: N simultaneous games against AI level 1 on loopback.

Starts a real ``outflank serve`` subprocess on a free port with a fresh SQLite
file, then plays N games at once for a bounded time: each game's "human"
(this script) picks a random legal move and posts it over HTTP (or sends it
over the game's WebSocket with ``--moves ws``); the server's level-1 AI
replies, and the reply arrives over the WebSocket. When a game ends a new
one starts. At the end every stored game is read back from the database
after the server has stopped and replayed move by move: the board must be
the one the server last reported.

    python bench/web_load.py                 # 50 games, 20 s
    python bench/web_load.py --games 100 --seconds 30 --moves ws

Prints requests/s, the p50/p99 latency of a human move (request sent ->
answer with the new state), the AI moves played, and the errors (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank.web.service import replay  # noqa: E402
from outflank.web.storage import GameRow, Storage  # noqa: E402


@dataclass
class Stats:
    """Counters shared by all simulated players."""

    requests: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    ai_moves: int = 0
    finished: int = 0
    last_state: dict[str, dict[str, Any]] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(db: Path, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "outflank", "serve", "--port", str(port), "--db", str(db)]
    cmd += ["--ai-workers", str(workers), "--ai-delay", "0"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"the server did not start: {err}") from None
            time.sleep(0.1)


async def next_state(ws: Any, version: int, stats: Stats, timeout: float) -> dict[str, Any]:
    """Wait on the WebSocket for a state newer than ``version``."""
    while True:
        event = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if event["type"] == "error":
            stats.errors.append(f"websocket: {event['error']}")
        elif event["type"] == "state" and event["state"]["version"] > version:
            return event["state"]


async def play_games(
    http: httpx.AsyncClient, ws_base: str, deadline: float, moves_over: str, stats: Stats, seed: int
) -> None:
    """One simulated person: plays black against AI level 1 until the deadline."""
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        stats.requests += 1
        body = {"black": {"kind": "human"}, "white": {"kind": "ai", "ai": "level", "level": 1}}
        response = await http.post("/api/games", json=body)
        if response.status_code != 201:
            stats.errors.append(f"create: {response.status_code} {response.text}")
            return
        created = response.json()
        game_id, seat = created["game"]["id"], created["seats"]["black"]
        async with websockets.connect(f"{ws_base}/ws/games/{game_id}?seat={seat}") as ws:
            state = json.loads(await ws.recv())["state"]
            stats.last_state[game_id] = state
            while time.monotonic() < deadline and state["status"] == "playing":
                if state["turn"] != "black":
                    state = await next_state(ws, state["version"], stats, 30)
                    stats.ai_moves += 1
                else:
                    square = rng.choice(state["legal"])
                    started = time.perf_counter()
                    stats.requests += 1
                    if moves_over == "ws":
                        await ws.send(json.dumps({"type": "move", "move": square}))
                        state = await next_state(ws, state["version"], stats, 30)
                    else:
                        response = await http.post(
                            f"/api/games/{game_id}/moves", json={"seat": seat, "move": square}
                        )
                        if response.status_code != 200:
                            stats.errors.append(f"move: {response.status_code} {response.text}")
                            return
                        state = response.json()
                    stats.latencies.append(time.perf_counter() - started)
                stats.last_state[game_id] = state
            if state["status"] == "over":
                stats.finished += 1


async def load(base: str, games: int, seconds: float, moves_over: str, stats: Stats) -> float:
    ws_base = base.replace("http://", "ws://")
    # idle connections are dropped by the client before the server's keep-alive
    # timeout closes them (else a request may race the server's close)
    limits = httpx.Limits(
        max_connections=games + 8, max_keepalive_connections=games + 8, keepalive_expiry=2.0
    )
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        started = time.monotonic()
        deadline = started + seconds
        results = await asyncio.gather(
            *(play_games(http, ws_base, deadline, moves_over, stats, i) for i in range(games)),
            return_exceptions=True,
        )
        elapsed = time.monotonic() - started
        for result in results:
            if isinstance(result, BaseException):
                stats.errors.append(f"{type(result).__name__}: {result}")
        # let AI moves still in flight land, then read every game's final state
        await asyncio.sleep(1.0)
        for game_id in list(stats.last_state):
            stats.requests += 1
            response = await http.get(f"/api/games/{game_id}")
            if response.status_code != 200:
                stats.errors.append(f"get: {response.status_code}")
                continue
            stats.last_state[game_id] = response.json()
    return elapsed


def check_replays(db: Path, states: dict[str, dict[str, Any]]) -> tuple[int, list[str]]:
    """Replay every stored game from the database; compare with the server's last word."""
    storage = Storage(str(db))
    bad = []
    with storage.session() as session:
        for game_id, state in states.items():
            game = session.get(GameRow, game_id)
            if game is None:
                bad.append(f"{game_id}: not stored")
                continue
            board = replay(game).board
            cells = "".join(
                "-" if (p := board.piece_at(sq)) is None else p.letter for sq in range(64)
            )
            if cells != state["board"] or game.cursor != state["cursor"]:
                bad.append(f"{game_id}: stored game replays to another board")
    storage.close()
    return len(states), bad


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="simultaneous games (50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (20)")
    parser.add_argument("--moves", choices=("http", "ws"), default="http", help="move transport")
    parser.add_argument("--ai-workers", type=int, default=2, help="server AI threads (2)")
    args = parser.parse_args()
    if args.games < 1 or not args.seconds > 0 or args.ai_workers < 1:
        parser.error("--games and --ai-workers must be at least 1, --seconds positive")
    # SIGTERM like Ctrl-C: the finally below stops the server it started
    signal.signal(signal.SIGTERM, _interrupt)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        port = free_port()
        server = start_server(db, port, args.ai_workers)
        stats = Stats()
        try:
            elapsed = asyncio.run(
                load(f"http://127.0.0.1:{port}", args.games, args.seconds, args.moves, stats)
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
        checked, bad = check_replays(db, stats.last_state)

    lat = stats.latencies
    print(f"web load: {args.games} games at once for {elapsed:.1f} s, moves over {args.moves}")
    print(f"{'games':>6} {'requests':>9} {'req/s':>8} {'human moves':>12} {'p50 ms':>8}"
          f" {'p99 ms':>8} {'AI moves':>9} {'finished':>9} {'errors':>7}")  # fmt: skip
    print(
        f"{len(stats.last_state):>6} {stats.requests:>9} {stats.requests / elapsed:>8.1f}"
        f" {len(lat):>12} {percentile(lat, 0.5) * 1000:>8.1f} {percentile(lat, 0.99) * 1000:>8.1f}"
        f" {stats.ai_moves:>9} {stats.finished:>9} {len(stats.errors):>7}"
    )
    if lat:
        print(f"human move latency: mean {statistics.mean(lat) * 1000:.1f} ms,"
              f" max {max(lat) * 1000:.1f} ms")  # fmt: skip
    print(f"replay check: {checked - len(bad)}/{checked} stored games replay to the same board")
    for line in (stats.errors + bad)[:10]:
        print("  error:", line)
    return 1 if stats.errors or bad else 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the server is already stopped
        print("web_load.py: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
