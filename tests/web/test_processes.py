"""Several real ``outflank serve`` processes on one real PostgreSQL database.

Games are played with each request going to another process, over HTTP and
WebSocket; one process is killed with SIGKILL while it searches an AI move;
the survivors make that move, and every game, read back from the database,
replays to the state the survivors report, each AI move made exactly once.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from typing import Any

import pytest
from sqlalchemy import select
from websockets.sync.client import connect

from conftest import cli_env
from outflank.board import Board, Move
from outflank.web.storage import GameRow, Storage
from outflank.web.store import GameStore
from postgres import PostgresServer
from web.conftest import spawn_server, stop_server, wait_server_up

LEVEL1 = {"kind": "ai", "ai": "level", "level": 1}
STRONG = {"kind": "ai", "ai": "level", "level": 20}
# a midgame out of the opening book: a strong AI searches it for its whole time cap
MIDGAME = "------------------XO-O----XXOO-----OOX----OXXX-----XO----------- X"
TIME_CAP = 3.0


def _free_ports(n: int) -> list[int]:
    import socket

    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def _start(url: str, port: int) -> subprocess.Popen[bytes]:
    options = ["--ai-delay", "0", "--time-cap", str(TIME_CAP), "--ai-workers", "2"]
    return spawn_server(url, port, *options)


def _call(port: int, path: str, body: Any = None, method: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method or ("POST" if body is not None else "GET"),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _wait(port: int, game_id: str, cursor: int, timeout: float = 30) -> dict[str, Any]:
    """Long-poll one process until the game's cursor reaches ``cursor``."""
    deadline = time.monotonic() + timeout
    state = _call(port, f"/api/games/{game_id}")
    while state["cursor"] < cursor:
        left = deadline - time.monotonic()
        assert left > 0, f"game {game_id} stuck at {state['cursor']} on port {port}"
        wait = min(left, 5)
        state = _call(port, f"/api/games/{game_id}?since={state['version']}&wait={wait:.1f}")
    return state


def _play_ws(port: int, game_id: str, seat: str, move: str) -> dict[str, Any]:
    """A human move sent over one process's WebSocket; its new state."""
    with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?seat={seat}") as socket:
        cursor = json.loads(socket.recv(timeout=10))["state"]["cursor"]
        socket.send(json.dumps({"type": "move", "move": move}))
        while True:
            event = json.loads(socket.recv(timeout=10))
            assert event["type"] != "error", event
            if event["type"] == "state" and event["state"]["cursor"] > cursor:
                return event["state"]


def _human_move(state: dict[str, Any]) -> str:
    return state["legal"][0] if state["legal"] else "pass"


def _check_replay(store: GameStore, game_id: str, reported: dict[str, Any]) -> None:
    """The stored game replays, move by move with the right side to move, to
    the reported board; the AI answered each human move exactly once."""
    game = store.load(game_id)
    assert game is not None
    board = Board.from_obf(game.start_obf)
    for ply in game.plies[: game.cursor]:
        assert ply.color == ("black" if board.turn.name == "BLACK" else "white"), ply
        board.push(Move.from_str(ply.move))
    assert game.cursor == reported["cursor"] and _cells(board) == reported["board"]
    kinds = [ply.by for ply in game.plies if ply.by in ("human", "ai")]
    assert kinds == ["human", "ai"] * (len(kinds) // 2), kinds  # each human move, one AI reply


def _cells(board: Board) -> str:
    return "".join(
        "X" if board.black >> sq & 1 else "O" if board.white >> sq & 1 else "-" for sq in range(64)
    )


@pytest.mark.slow
def test_three_processes_share_games_and_survive_a_kill(postgres: PostgresServer) -> None:
    url = postgres.create_database()
    ports = _free_ports(3)
    procs = [_start(url, port) for port in ports]
    storage = Storage(url)
    try:
        for proc, port in zip(procs, ports, strict=True):
            wait_server_up(proc, port, seconds=60)
        # games against level 1, each created on another process
        games = []
        for i in range(3):
            made = _call(ports[i], "/api/games", {"white": LEVEL1})
            games.append((made["game"]["id"], made["seats"]["black"]))
        # three rounds: the human's move goes to process (i + k) % 3, over
        # HTTP or WebSocket by turns; the AI's reply is awaited on the next one
        for k in range(3):
            for i, (game_id, seat) in enumerate(games):
                here, there = ports[(i + k) % 3], ports[(i + k + 1) % 3]
                state = _call(here, f"/api/games/{game_id}")
                move = _human_move(state)
                if (i + k) % 2:
                    after = _play_ws(here, game_id, seat, move)
                else:
                    after = _call(here, f"/api/games/{game_id}/moves", {"seat": seat, "move": move})
                assert after["cursor"] == state["cursor"] + 1
                _wait(there, game_id, after["cursor"] + 1)

        # a strong AI's move is searched by process 0, which is killed mid-search
        victim, survivors = procs[0], ports[1:]
        made = _call(ports[1], "/api/games", {"white": STRONG, "start": MIDGAME})
        strong_id, strong_seat = made["game"]["id"], made["seats"]["black"]
        state = made["game"]
        with connect(f"ws://127.0.0.1:{ports[2]}/ws/games/{strong_id}") as watcher:
            watcher.recv(timeout=10)
            answer = _call(
                ports[0],
                f"/api/games/{strong_id}/moves",
                {"seat": strong_seat, "move": _human_move(state)},
            )
            assert answer["cursor"] == 1
            while True:  # the other process hears that process 0 is thinking
                event = json.loads(watcher.recv(timeout=10))
                if event["type"] in ("thinking", "info"):
                    break
                assert event["type"] == "state", event
        with storage.engine.connect() as connection:
            owner = connection.execute(
                select(GameRow.ai_owner).where(GameRow.id == strong_id)
            ).scalar()
        assert owner is not None and f":{victim.pid}:" in owner  # process 0's claim
        victim.send_signal(signal.SIGKILL)
        victim.wait()

        # the survivors go on with the other games, and make the dead process's move
        for k in range(2):
            for i, (game_id, seat) in enumerate(games):
                here, there = survivors[(i + k) % 2], survivors[(i + k + 1) % 2]
                state = _call(here, f"/api/games/{game_id}")
                if state["status"] != "playing":
                    continue
                if (i + k) % 2:
                    after = _play_ws(here, game_id, seat, _human_move(state))
                else:
                    after = _call(
                        here,
                        f"/api/games/{game_id}/moves",
                        {"seat": seat, "move": _human_move(state)},
                    )
                _wait(there, game_id, after["cursor"] + 1)
        _wait(survivors[0], strong_id, 2, timeout=TIME_CAP + 20)

        reported = {
            game_id: _call(survivors[n % 2], f"/api/games/{game_id}")
            for n, game_id in enumerate([g for g, _ in games] + [strong_id])
        }
    finally:
        for proc in procs:
            if proc.poll() is None:
                stop_server(proc)
    store = GameStore(storage)
    try:
        for game_id, state in reported.items():
            _check_replay(store, game_id, state)
            assert state["thinking"] is None
        strong = store.load(strong_id)
        assert strong is not None and [p.by for p in strong.plies] == ["human", "ai"]
    finally:
        storage.close()


def test_several_workers_need_postgresql(tmp_path: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "outflank", "serve", "--workers", "2", "--db", f"{tmp_path}/g.db"],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs a PostgreSQL database" in lines[0]


def test_serve_workers_runs_processes_on_one_port(postgres: PostgresServer) -> None:
    url = postgres.create_database()
    (port,) = _free_ports(1)
    proc = spawn_server(url, port, "--workers", "2", "--ai-delay", "0")
    try:
        wait_server_up(proc, port, seconds=60)
        made = _call(port, "/api/games", {"white": LEVEL1})
        game_id, seat = made["game"]["id"], made["seats"]["black"]
        for _ in range(3):  # whichever process answers, the game goes on
            state = _call(port, f"/api/games/{game_id}")
            after = _call(
                port, f"/api/games/{game_id}/moves", {"seat": seat, "move": _human_move(state)}
            )
            state = _wait(port, game_id, after["cursor"] + 1)
        children = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        assert len(children) >= 2  # uvicorn's worker processes
    finally:
        stop_server(proc)
    storage = Storage(url)
    try:
        _check_replay(GameStore(storage), game_id, state)
    finally:
        storage.close()
