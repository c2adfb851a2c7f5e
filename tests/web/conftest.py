"""Fixtures of the web tests: an app on a real SQLite file, clients, helpers."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from conftest import cli_env
from outflank.web.app import create_app
from postgres import PostgresServer, running_postgres

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]
"""The ``pytestmark`` of a module whose tests drive the real chromium."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on just now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn_server(db: Path | str, port: int, *options: str) -> subprocess.Popen[bytes]:
    """A real `outflank serve` on the port (database path or URL), just
    started: wait_server_up() waits until it answers."""
    cmd = [sys.executable, "-m", "outflank", "serve", "--port", str(port), "--db", str(db)]
    return subprocess.Popen(
        [*cmd, *options], env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def wait_server_up(proc: subprocess.Popen[bytes], port: int, seconds: float = 30) -> None:
    """Return once the server answers on the port; fail the test with its
    output if it exits or does not answer within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1)
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                out = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"outflank serve did not start: {out}")
            time.sleep(0.1)


def start_server(db: Path | str, port: int, *options: str) -> subprocess.Popen[bytes]:
    """A real `outflank serve` on the port, returned once it answers."""
    proc = spawn_server(db, port, *options)
    wait_server_up(proc, port)
    return proc


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the server shuts down cleanly), SIGKILL if it does not."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def served(db: Path | str, *options: str) -> Iterator[str]:
    """A real `outflank serve` on a free port for the block: its base URL."""
    port = free_port()
    proc = start_server(db, port, *options)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A real headless chromium (Debian's) driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@contextmanager
def browser_page(
    browser: Any, *, height: int = 900, console: bool = True, init_script: str | None = None
) -> Iterator[tuple[Any, list[str]]]:
    """A new page (in its own context, 1280 wide) and the list the errors it
    reports are put in: uncaught script errors, and with ``console`` also
    errors logged to the console. The caller decides what errors may stay."""
    context = browser.new_context(viewport={"width": 1280, "height": height})
    if init_script is not None:
        context.add_init_script(init_script)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    if console:
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        yield page, errors
    finally:
        context.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the session (see tests/postgres.py)."""
    with running_postgres() as server:
        yield server


@pytest.fixture
def pg_url(postgres: PostgresServer) -> str:
    """The URL of a new, empty PostgreSQL database."""
    return postgres.create_database()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    app = create_app(str(db_path), ai_delay=0.0, time_cap=5.0)
    with TestClient(app) as test_client:
        yield test_client


def new_game(client: TestClient, **body: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Create a game; returns (id, seats, state). Two humans unless told otherwise."""
    body.setdefault("black", {"kind": "human"})
    body.setdefault("white", {"kind": "human"})
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data = response.json()
    return data["game"]["id"], data["seats"], data["game"]


def move(client: TestClient, game_id: str, seat: str, square: str) -> Any:
    return client.post(f"/api/games/{game_id}/moves", json={"seat": seat, "move": square})


def wait_for(
    client: TestClient, game_id: str, predicate: Any, timeout: float = 20.0, poll: float = 5.0
) -> dict:
    """Long-poll the game until ``predicate(state)`` holds. A long poll wakes
    on a new version only; "thinking" is not versioned, so a predicate on it
    needs a short ``poll`` (each poll then also ends after that many seconds)."""
    import time

    deadline = time.monotonic() + timeout
    state = client.get(f"/api/games/{game_id}").json()
    while not predicate(state):
        left = deadline - time.monotonic()
        assert left > 0, f"timed out waiting; last state: {state}"
        state = client.get(
            f"/api/games/{game_id}", params={"since": state["version"], "wait": min(left, poll)}
        ).json()
    return state
