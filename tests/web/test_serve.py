"""``outflank serve`` as a real process: a game survives ``kill -9`` mid-game."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env
from web.conftest import start_server, stop_server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    return start_server(db, port)


def _call(port: int, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as response:
        return json.load(response)


def test_game_survives_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    port = _free_port()
    proc = _serve(db, port)
    try:
        humans = {"black": {"kind": "human"}, "white": {"kind": "human"}}
        created = _call(port, "/api/games", humans)
        game_id, seats = created["game"]["id"], created["seats"]
        for color, square in (("black", "f5"), ("white", "d6"), ("black", "c3")):
            body = {"seat": seats[color], "move": square}
            state = _call(port, f"/api/games/{game_id}/moves", body)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    proc = _serve(db, port)
    try:
        again = _call(port, f"/api/games/{game_id}")
        assert again["board"] == state["board"] and again["transcript"] == "f5d6c3"
        more = _call(port, f"/api/games/{game_id}/moves", {"seat": seats["white"], "move": "d3"})
        assert more["transcript"] == "f5d6c3d3"
        try:
            _call(port, f"/api/games/{game_id}/moves", {"seat": seats["white"], "move": "e3"})
            raise AssertionError("a move out of turn was accepted")
        except urllib.error.HTTPError as exc:
            assert exc.code == 409
    finally:
        stop_server(proc)


def test_serve_reports_a_busy_port_and_a_bad_database(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "outflank", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            env=cli_env(),
            cwd=tmp_path,
            timeout=60,
        )
    assert done.returncode == 2 and "Address already in use" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "outflank", "serve", "--db", str(tmp_path / "no" / "x.db")],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().endswith("unable to open database file")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--log-level", "bogus"], "argument --log-level: invalid choice: 'bogus'"),
        (["--ai-delay", "nan"], "--ai-delay must be a number of seconds >= 0, not nan"),
        (["--time-cap", "inf"], "--time-cap must be a number of seconds > 0, not inf"),
        (["--threads", "0"], "argument --threads: threads must be an int in 1..64, not '0'"),
    ],
)
def test_serve_refuses_bad_options_before_starting(
    tmp_path: Path, option: list[str], message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "outflank", "serve", "--db", str(tmp_path / "x.db"), *option],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_real_server_closes_a_socket_sent_a_frame_over_64_kib(tmp_path: Path) -> None:
    """uvicorn took WebSocket frames up to 16 MiB (RSS grew by hundreds of
    MiB under a few sockets); now it refuses one over 64 KiB unread (1009)."""
    import asyncio

    import websockets

    port = _free_port()
    proc = _serve(tmp_path / "games.db", port)
    try:
        created = _call(
            port, "/api/games", {"black": {"kind": "human"}, "white": {"kind": "human"}}
        )
        url = f"ws://127.0.0.1:{port}/ws/games/{created['game']['id']}"

        async def send_big() -> int | None:
            async with websockets.connect(url, max_size=None) as ws:
                json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "ping", "pad": "x" * 1_000_000}))
                try:
                    await asyncio.wait_for(ws.recv(), 10)
                except websockets.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None
                return None

        assert asyncio.run(send_big()) == 1009
        assert _call(port, "/api/info")["version"]  # the server goes on
    finally:
        stop_server(proc)
