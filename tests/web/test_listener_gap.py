"""Events while a process's PostgreSQL connections for events are cut off.

Two real ``outflank serve`` processes share a real PostgreSQL database.
Moves are made through process A while B's clients (a player's and a
spectator's WebSocket, a long poll) watch. B's listening connection is
killed mid-game with ``pg_terminate_backend`` and moves are made while it
is down: once B listens again it reads the games its clients watch and
pushes what changed, so each client sees every move. Then A's sending
connection is killed: the event it could not send is sent again on a new
connection.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from typing import Any

import psycopg
from websockets.sync.client import ClientConnection, connect

from postgres import PostgresServer
from web.conftest import spawn_server, stop_server, wait_server_up
from web.test_processes import _call, _free_ports

HUMAN = {"kind": "human"}
# a line of play long enough for the test: black and white by turns
LINE = ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"]


def _backend(dsn: str, role: str, pid: int) -> int | None:
    """The PostgreSQL backend of a server process's ``outflank-<role>`` connection."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        row = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name LIKE %s",
            (f"outflank-{role} {pid} %",),
        ).fetchone()
    return None if row is None else int(row[0])


def _terminate(dsn: str, role: str, pid: int) -> int:
    """Kill the connection with pg_terminate_backend; returns once it is gone."""
    backend = _backend(dsn, role, pid)
    assert backend is not None, f"no outflank-{role} connection of process {pid}"
    with psycopg.connect(dsn, autocommit=True) as connection:
        assert connection.execute("SELECT pg_terminate_backend(%s)", (backend,)).fetchone()[0]
        deadline = time.monotonic() + 10
        while connection.execute(
            "SELECT 1 FROM pg_stat_activity WHERE pid = %s", (backend,)
        ).fetchone():
            assert time.monotonic() < deadline, "the terminated backend lives on"
            time.sleep(0.02)
    return backend


class _Watcher:
    """A WebSocket client that keeps every state it is sent (in a thread)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.states: list[dict[str, Any]] = [json.loads(self.socket.recv(timeout=10))["state"]]
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for frame in self.socket:
                event = json.loads(frame)
                assert event["type"] != "error", event
                if event["type"] == "state":
                    with self.lock:
                        self.states.append(event["state"])
        except Exception:  # the socket closed at the end of the test
            return

    def wait_version(self, version: int, timeout: float = 15) -> dict[str, Any]:
        """The first state of at least ``version`` this client got (fails after timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                found = [s for s in self.states if s["version"] >= version]
                newest = self.states[-1]
            if found:
                return found[0]
            assert time.monotonic() < deadline, (
                f"no state of version {version} within {timeout} s; newest: "
                f"{newest['version']} {newest['transcript']!r}"
            )
            time.sleep(0.02)

    def close(self) -> None:
        """Stop the thread (call before the socket's block ends)."""
        self.socket.close()
        self.thread.join(5)


def _check_saw_every_move(watcher: _Watcher, transcript: str) -> None:
    """Every state the client got extends the one before, and the newest
    holds every move made (intermediate states may be merged, none lost)."""
    with watcher.lock:
        states = list(watcher.states)
    versions = [s["version"] for s in states]
    assert versions == sorted(versions), versions
    for before, after in itertools.pairwise(states):
        assert after["transcript"].startswith(before["transcript"])
    assert states[-1]["transcript"] == transcript


def test_clients_miss_no_move_while_the_listener_is_down(postgres: PostgresServer) -> None:
    url = postgres.create_database()
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    port_a, port_b = _free_ports(2)
    options = ("--ai-delay", "0", "--log-level", "info")
    proc_a, proc_b = spawn_server(url, port_a, *options), spawn_server(url, port_b, *options)
    watchers: list[_Watcher] = []
    sockets = contextlib.ExitStack()
    try:
        wait_server_up(proc_a, port_a, seconds=60)
        wait_server_up(proc_b, port_b, seconds=60)
        made = _call(port_a, "/api/games", {"black": HUMAN, "white": HUMAN})
        game_id, seats = made["game"]["id"], made["seats"]
        played: list[str] = []

        def play_on_a() -> int:
            """The next move of LINE through process A; the new version."""
            square = LINE[len(played)]
            seat = seats["black" if len(played) % 2 == 0 else "white"]
            state = _call(port_a, f"/api/games/{game_id}/moves", {"seat": seat, "move": square})
            played.append(square)
            assert state["transcript"] == "".join(played)
            return int(state["version"])

        base = f"ws://127.0.0.1:{port_b}/ws/games/{game_id}"
        watchers = [
            _Watcher(sockets.enter_context(connect(base))),
            _Watcher(sockets.enter_context(connect(f"{base}?seat={seats['black']}"))),
        ]
        version = play_on_a()
        for watcher in watchers:  # the relay works
            assert watcher.wait_version(version)["transcript"] == "f5"

        # B stops listening; a long poll on B waits for a newer version meanwhile
        polled: list[tuple[float, dict[str, Any]]] = []

        def long_poll(since: int) -> None:
            started = time.monotonic()
            state = _call(port_b, f"/api/games/{game_id}?since={since}&wait=30")
            polled.append((time.monotonic() - started, state))

        poll = threading.Thread(target=long_poll, args=(version,))
        poll.start()
        _terminate(dsn, "listen", proc_b.pid)
        for _ in range(3):  # made while B cannot hear them (it waits 1 s to reconnect)
            version = play_on_a()
        for watcher in watchers:
            state = watcher.wait_version(version)
            assert state["transcript"] == "".join(played)
        poll.join(35)
        # woken by the catch-up (not ended by its 30 s wait) with the moves of the gap
        assert polled and polled[0][0] < 20 and polled[0][1]["transcript"].startswith("f5d6")

        # B listens again: moves reach its clients as before
        assert _backend(dsn, "listen", proc_b.pid) is not None
        version = play_on_a()
        for watcher in watchers:
            assert watcher.wait_version(version)["transcript"] == "".join(played)

        # A's sending connection is cut: the event it could not send is sent again
        _terminate(dsn, "notify", proc_a.pid)
        version = play_on_a()
        for watcher in watchers:
            assert watcher.wait_version(version)["transcript"] == "".join(played)
        for watcher in watchers:
            _check_saw_every_move(watcher, "".join(played))
        assert _call(port_b, f"/api/games/{game_id}")["transcript"] == "".join(played)
    finally:
        for watcher in watchers:
            watcher.close()
        sockets.close()
        for proc in (proc_a, proc_b):
            stop_server(proc)
        log_a = proc_a.stdout.read().decode() if proc_a.stdout else ""
        log_b = proc_b.stdout.read().decode() if proc_b.stdout else ""
        print(f"process A's log:\n{log_a}\nprocess B's log:\n{log_b}")  # shown on failure
    # the gap was real: B caught up on a game changed while it did not listen
    assert "listening to the other processes' events again: 1 game changed" in log_b, log_b
    assert "Traceback" not in log_a + log_b
