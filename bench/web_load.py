"""Load test of the web app: N simultaneous games against AI level 1 on loopback.

Starts real ``outflank serve`` subprocesses on free ports (one by default,
``--servers N`` on one database), on a fresh SQLite file or on the database
given by ``--db`` (a PostgreSQL URL for several servers), then plays N games
at once for a bounded time: each game's "human" (this script) picks a
random legal move and posts it over HTTP (or sends it over the game's
WebSocket with ``--moves ws``); the server's level-1 AI replies, and the
reply arrives over the WebSocket. With several servers, game i posts its
moves to server i and listens on server i+1, so every reply crosses
processes. When a game ends a new one starts. At the end every stored game
is read back from the database after the servers have stopped and replayed
move by move: the board must be the one the server last reported.

    python bench/web_load.py                 # 50 games, 20 s
    python bench/web_load.py --games 500 --seconds 30 --moves ws
    python bench/web_load.py --servers 3 --db postgresql+psycopg://user@host/db
    python bench/web_load.py --compare /tmp/old-checkout   # old server, then this one
    python bench/web_load.py --games 500 --rate 600   # paced: 600 human moves/s in all
    python bench/web_load.py --games 500 --profile /tmp/burst.txt   # py-spy: the first seconds

The games start spread over the first ``--ramp`` seconds (1). By default
each person answers the AI at once (a closed loop that saturates the
server); ``--rate`` paces the moves instead (a Poisson stream per game),
to measure the latency at a given load.

Prints requests/s, human moves/s, the p50/p99 latency of a human move
(request sent -> answer with the new state), the p99 of the moves sent once
every game has started (*steady*: from 1 s after the ramp), the p50/p99 wait
for the AI's reply (human move answered -> AI's move received), the AI moves
played, the CPU time the servers and this client spent per human move (the
AI's reply included), and the errors (must be 0). The client speaks
HTTP/1.1 on one kept-alive connection per game, takes WebSocket messages
uncompressed and does not collect garbage while it measures, so that it
costs the machine less than the server it measures and its own pauses do
not count as the server's.

``--profile FILE`` samples the (first) server with py-spy (``pip install
py-spy``; it needs the right to ptrace the server) from the start of the
load for ``--profile-seconds`` (the arrival burst by default), only the
threads that hold the interpreter lock, and prints where that time went:
the functions with the largest share of the samples, inclusive and self.
FILE keeps py-spy's raw stacks (collapsed: one stack and its count a line).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank.web.storage import Storage  # noqa: E402
from outflank.web.store import GameStore  # noqa: E402


@dataclass
class Stats:
    """Counters shared by all simulated players."""

    requests: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    ai_latencies: list[float] = field(default_factory=list)  # human move answered -> AI's reply
    when: list[float] = field(default_factory=list)  # when each human move was sent
    ai_moves: int = 0
    finished: int = 0
    last_state: dict[str, dict[str, Any]] = field(default_factory=dict)  # board, cursor

    def keep(self, state: dict[str, Any]) -> None:
        """Remember a game's last reported board (not the whole state: a light client)."""
        self.last_state[state["id"]] = {"board": state["board"], "cursor": state["cursor"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(src: Path, db: str, port: int, workers: int, log: Path) -> subprocess.Popen[bytes]:
    """A server of ``src`` on the port; its log goes to the file ``log`` (a
    pipe nobody reads would stop the server once 64 KiB of log filled it)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "outflank", "serve", "--port", str(port), "--db", db]
    cmd += ["--ai-workers", str(workers), "--ai-delay", "0"]
    with log.open("wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=out)


def wait_until_up(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1)
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                err = log.read_text(errors="replace")[-2000:]
                raise SystemExit(f"the server did not start: {err}") from None
            time.sleep(0.1)


def logged_errors(logs: list[Path]) -> list[str]:
    """One line per server whose log holds tracebacks: how many, and the last line of the first."""
    found = []
    for n, log in enumerate(logs):
        text = log.read_text(errors="replace")
        count = text.count("Traceback (most recent call last)")
        if count:
            first = text.split("Traceback (most recent call last)", 1)[1]
            last = next((x for x in first.splitlines() if x and not x.startswith(" ")), "?")
            found.append(f"server {n} logged {count} tracebacks, the first: {last[:200]}")
    return found


class HTTP:
    """A minimal HTTP/1.1 client on one kept-alive connection (JSON in, JSON out)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def _connect(self) -> None:
        await self.close()
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        # the server drops a connection idle for 30 s: reconnect before that
        if self.writer is None or time.monotonic() - self.used > 20:
            await self._connect()
        assert self.reader is not None and self.writer is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            content = await self.reader.readexactly(int(headers["content-length"]))
        else:  # chunked (not what outflank sends, but be correct)
            content = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                content += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                content = content[:-2]
        if headers.get("connection", "").lower() == "close":
            await self.close()
        self.used = time.monotonic()
        return status, content

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def next_state(ws: Any, version: int, stats: Stats, timeout: float) -> dict[str, Any]:
    """Wait on the WebSocket for a state newer than ``version``."""
    while True:
        text = await asyncio.wait_for(ws.recv(), timeout)
        if text.startswith('{"type":"info"') or text.startswith('{"type": "info"'):
            continue  # engine progress: not needed here
        event = json.loads(text)
        if event["type"] == "error":
            stats.errors.append(f"websocket: {event['error']}")
        elif event["type"] == "state" and event["state"]["version"] > version:
            return event["state"]


async def play_games(
    http_port: int,
    ws_port: int,
    deadline: float,
    moves_over: str,
    stats: Stats,
    seed: int,
    delay: float = 0.0,
    think: float = 0.0,
) -> None:
    """One simulated person: plays black against AI level 1 until the
    deadline, starting after ``delay`` seconds. With ``think`` > 0 the
    person's moves are paced: each is sent a random time after the one
    before (exponential, ``think`` seconds on average: a Poisson stream of
    moves), or as soon as the AI has answered if that is later."""
    rng = random.Random(seed)
    http = HTTP(http_port)
    await asyncio.sleep(delay)
    due = time.monotonic() + (rng.expovariate(1 / think) if think > 0 else 0.0)
    try:
        while time.monotonic() < deadline:
            stats.requests += 1
            body = {"black": {"kind": "human"}, "white": {"kind": "ai", "ai": "level", "level": 1}}
            status, content = await http.request("POST", "/api/games", body)
            if status != 201:
                stats.errors.append(f"create: {status} {content[:200]!r}")
                return
            created = json.loads(content)
            game_id, seat = created["game"]["id"], created["seats"]["black"]
            url = f"ws://127.0.0.1:{ws_port}/ws/games/{game_id}?seat={seat}"
            async with websockets.connect(url, compression=None, max_size=None) as ws:
                state = json.loads(await ws.recv())["state"]
                stats.keep(state)
                while time.monotonic() < deadline and state["status"] == "playing":
                    if state["turn"] != "black":
                        waited = time.perf_counter()
                        state = await next_state(ws, state["version"], stats, 30)
                        stats.ai_latencies.append(time.perf_counter() - waited)
                        stats.ai_moves += 1
                    else:
                        square = rng.choice(state["legal"])
                        if think > 0:
                            wait = due - time.monotonic()
                            if wait > 0:
                                await asyncio.sleep(wait)
                            due = max(due, time.monotonic()) + rng.expovariate(1 / think)
                        started = time.perf_counter()
                        stats.requests += 1
                        if moves_over == "ws":
                            await ws.send(json.dumps({"type": "move", "move": square}))
                            state = await next_state(ws, state["version"], stats, 30)
                        else:
                            status, content = await http.request(
                                "POST",
                                f"/api/games/{game_id}/moves",
                                {"seat": seat, "move": square},
                            )
                            if status != 200:
                                stats.errors.append(f"move: {status} {content[:200]!r}")
                                return
                            state = json.loads(content)
                        stats.latencies.append(time.perf_counter() - started)
                        stats.when.append(started)
                    stats.keep(state)
                if state["status"] == "over":
                    stats.finished += 1
    finally:
        await http.close()


async def load(
    ports: list[int],
    games: int,
    seconds: float,
    moves_over: str,
    stats: Stats,
    ramp: float,
    rate: float = 0.0,
) -> float:
    """Play ``games`` games at once until ``seconds`` are up; their starts are
    spread evenly over the first ``ramp`` seconds (people do not all move in
    the same millisecond: N first moves at one instant measure a queue of N
    requests, the same at any server speed). ``rate`` > 0: the people send
    ``rate`` human moves per second in all (each game ``rate / games``, as
    a Poisson stream) instead of each answering the AI at once."""
    think = games / rate if rate > 0 else 0.0
    started = time.monotonic()
    deadline = started + seconds
    n = len(ports)
    results = await asyncio.gather(
        *(
            play_games(
                ports[i % n],
                ports[(i + 1) % n],
                deadline,
                moves_over,
                stats,
                i,
                i * ramp / games,
                think,
            )
            for i in range(games)
        ),
        return_exceptions=True,
    )
    elapsed = time.monotonic() - started
    for result in results:
        if isinstance(result, BaseException):
            stats.errors.append(f"{type(result).__name__}: {result}")
    # let AI moves still in flight land, then read every game's final state
    await asyncio.sleep(1.0)
    http = HTTP(ports[0])
    for game_id in list(stats.last_state):
        stats.requests += 1
        status, content = await http.request("GET", f"/api/games/{game_id}")
        if status != 200:
            stats.errors.append(f"get: {status}")
            continue
        stats.keep(json.loads(content))
    await http.close()
    return elapsed


def check_replays(db: str, states: dict[str, dict[str, Any]]) -> tuple[int, list[str]]:
    """Replay every stored game from the database; compare with the server's last word."""
    storage = Storage(db)
    store = GameStore(storage)  # reads the rows afresh, move by move
    bad = []
    for game_id, state in states.items():
        game = store.load(game_id)
        if game is None:
            bad.append(f"{game_id}: not stored")
            continue
        board = game.board()
        cells = "".join("-" if (p := board.piece_at(sq)) is None else p.letter for sq in range(64))
        if cells != state["board"] or game.cursor != state["cursor"]:
            bad.append(f"{game_id}: stored game replays to another board")
    storage.close()
    return len(states), bad


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def start_profile(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling ``pid`` for ``seconds`` into ``out`` (raw collapsed stacks):
    only the threads holding the interpreter lock, without pausing the server."""
    cmd = ["py-spy", "record", "--pid", str(pid), "--duration", str(max(1, round(seconds)))]
    cmd += ["--rate", "200", "--format", "raw", "--gil", "--nonblocking", "--nolineno"]
    cmd += ["--output", str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def profile_table(raw: Path, top: int = 25) -> str:
    """The functions with the most samples in py-spy's raw stacks: inclusive
    (on the stack) and self (the innermost frame), in % of all samples."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [f.strip() for f in stack.split(";") if f.strip()]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + n
        if frames:
            own[frames[-1]] = own.get(frames[-1], 0) + n
    if not total:
        return "profile: no samples"
    lines = [f"profile: {total} samples holding the interpreter lock"]
    for title, table in (("inclusive", inclusive), ("self", own)):
        lines.append(f"  {title}:")
        for frame, n in sorted(table.items(), key=lambda item: -item[1])[:top]:
            lines.append(f"    {100 * n / total:5.1f} %  {frame[:150]}")
    return "\n".join(lines)


def run(label: str, src: Path, args: argparse.Namespace) -> tuple[str, bool]:
    """One measurement: servers from ``src``, the load, the replay check; a table row."""
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "load.db")
        ports = [free_port() for _ in range(args.servers)]
        logs = [Path(tmp) / f"server{n}.log" for n in range(args.servers)]
        servers = [
            start_server(src, db, port, args.ai_workers, log)
            for port, log in zip(ports, logs, strict=True)
        ]
        stats = Stats()
        cpu = client = float("nan")
        try:
            for proc, port in zip(servers, ports, strict=True):
                wait_until_up(proc, port, logs[servers.index(proc)])
            before = sum(_cpu_seconds(p.pid) for p in servers)
            mine = time.process_time()
            spy = None
            if args.profile is not None:
                seconds = args.profile_seconds or args.ramp + 3
                spy = start_profile(servers[0].pid, seconds, args.profile)
            elapsed = asyncio.run(
                load(ports, args.games, args.seconds, args.moves, stats, args.ramp, args.rate)
            )
            cpu = sum(_cpu_seconds(p.pid) for p in servers) - before
            client = time.process_time() - mine
            if spy is not None:
                _, err = spy.communicate(timeout=60)
                if spy.returncode:
                    stats.errors.append(f"py-spy failed: {err.decode(errors='replace')[-300:]}")
        finally:
            for proc in servers:
                proc.terminate()
            for proc in servers:
                proc.wait(timeout=30)
        checked, bad = check_replays(db, stats.last_state)
        stats.errors += logged_errors(logs)
    lat, ai = stats.latencies, stats.ai_latencies
    moves = len(lat)
    # "steady": the moves sent from 1 s after the last game started (not
    # during the arrival of the N players, which --ramp spreads over its seconds)
    first = min(stats.when, default=0.0)
    steady = [x for x, w in zip(lat, stats.when, strict=True) if w - first >= args.ramp + 1]
    row = (
        f"{label:<10} {args.servers:>7} {args.games:>6} {len(stats.last_state):>6}"
        f" {stats.requests / elapsed:>8.1f} {moves / elapsed:>8.1f}"
        f" {percentile(lat, 0.5) * 1000:>7.1f} {percentile(lat, 0.99) * 1000:>7.1f}"
        f" {percentile(steady, 0.99) * 1000:>7.1f}"
        f" {percentile(ai, 0.5) * 1000:>7.1f} {percentile(ai, 0.99) * 1000:>7.1f}"
        f" {stats.ai_moves:>8} {cpu * 1000 / max(moves, 1):>9.2f}"
        f" {client * 1000 / max(moves, 1):>9.2f}"
        f" {len(stats.errors):>6} {checked - len(bad):>5}/{checked:<5}"
    )
    if lat and args.timeline:
        start = min(stats.when)
        for lo in range(0, int(args.seconds) + 1, 2):
            part = [x for x, w in zip(lat, stats.when, strict=True) if lo <= w - start < lo + 2]
            if part:
                row += (
                    f"\n{'':<10} {lo:>3}-{lo + 2:<3} s: {len(part):>6} moves,"
                    f" p50 {percentile(part, 0.5) * 1000:6.1f} ms,"
                    f" p99 {percentile(part, 0.99) * 1000:6.1f} ms"
                )
    if lat:
        row += f"\n{'':<10} mean {statistics.mean(lat) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms"
    for line in (stats.errors + bad)[:10]:
        row += f"\n  error: {line}"
    if args.profile is not None and args.profile.exists():
        row += "\n" + profile_table(args.profile)
    return row, not (stats.errors or bad)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="simultaneous games (50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (20)")
    parser.add_argument("--moves", choices=("http", "ws"), default="http", help="move transport")
    parser.add_argument("--ai-workers", type=int, default=2, help="server AI threads (2)")
    parser.add_argument("--servers", type=int, default=1, help="server processes (1)")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="CHECKOUT",
        help="first measure the server of another checkout (its src/), then this one",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=1.0,
        help="spread the games' starts over this many seconds (1; 0: all at once)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="human moves per second sent in all, paced (0: each game answers the AI at once)",
    )
    parser.add_argument("--timeline", action="store_true", help="latency per 2 s of the run")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="sample the server with py-spy from the start (raw stacks to FILE) and print a table",
    )
    parser.add_argument(
        "--profile-seconds",
        type=float,
        default=0.0,
        help="how long to sample (default: --ramp + 3 s, the arrival of the players)",
    )
    args = parser.parse_args()
    if args.games < 1 or not args.seconds > 0 or args.ai_workers < 1 or args.servers < 1:
        parser.error("--games, --servers and --ai-workers must be at least 1, --seconds positive")
    if not (0 <= args.rate < float("inf")):
        parser.error("--rate must be a number of moves per second, at least 0")
    if not 0 <= args.ramp < args.seconds:
        parser.error("--ramp must be at least 0 and less than --seconds")
    if args.servers > 1 and not args.db:
        parser.error("several --servers need a shared database: --db postgresql://...")
    # SIGTERM like Ctrl-C: the finally in run() stops the servers it started
    signal.signal(signal.SIGTERM, _interrupt)
    # the client's own pauses must not count as the server's latency: its
    # full collections walk every game's last state (100 ms and more with
    # 500 games) and find no garbage, so there are none while it measures
    gc.collect()
    gc.freeze()
    gc.disable()
    runs = [("this", ROOT / "src")]
    if args.compare is not None:
        runs.insert(0, (args.compare.name[:10] or "other", args.compare / "src"))
    print(
        f"web load: {args.games} games at once for {args.seconds:g} s, moves over {args.moves},"
        f" {args.servers} server(s) on {'SQLite' if not args.db else args.db.split(':')[0]},"
        f" {f'{args.rate:g} human moves/s paced' if args.rate else 'moves as fast as answered'}"
    )
    print(
        f"{'server':<10} {'servers':>7} {'games':>6} {'played':>6} {'req/s':>8} {'moves/s':>8}"
        f" {'p50 ms':>7} {'p99 ms':>7} {'steady':>7} {'AI p50':>7} {'AI p99':>7}"
        f" {'AI moves':>8} {'server ms':>9} {'client ms':>9}"
        f" {'errors':>6}"
        f" {'replayed':>11}"
    )
    ok = True
    for label, src in runs:
        row, good = run(label, src, args)
        print(row, flush=True)
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the servers are already stopped
        print("web_load.py: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
