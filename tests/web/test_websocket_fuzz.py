"""Property: whatever frames a client sends over a game's WebSocket, each is
answered with a state (a legal action), a pong, an error event with a 4xx
status, or a clean close (a frame over 64 KiB: 1009); the connection
outlives every error, a refused frame leaves the game as it was, and the
server logs no error. Against a real ``outflank serve`` on a SQLite file,
with the real WebSocket client of the ``websockets`` package.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from conftest import cli_env
from outflank.board import SQUARE_NAMES, Board
from web.conftest import stop_server, wait_server_up
from web.test_processes import _free_ports

MAX_FRAME = 64 * 1024
ANSWER_TIMEOUT = 10.0

# ------------------------------------------------------------ frames
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
MOVE_TEXT = st.sampled_from([*SQUARE_NAMES, "pass", "PASS", "D3", " d3", "d3\x00", "i9", "", "a"])
TYPES = st.sampled_from(["move", "undo", "redo", "ping"])


@st.composite
def typed_message(draw: Any) -> dict[str, Any]:
    """A message of a known type, its fields right, wrong, missing or extra."""
    message: dict[str, Any] = {"type": draw(TYPES)}
    if draw(st.booleans()):
        message["move"] = draw(MOVE_TEXT | JSON)
    for key in draw(st.lists(st.text(max_size=6), max_size=2)):
        message.setdefault(key, draw(JSON))
    return message


def _encode(value: Any) -> str:
    return json.dumps(value)  # NaN and Infinity as Python writes them


TEXT_FRAMES = st.one_of(
    typed_message().map(_encode),  # every message type
    st.fixed_dictionaries({"type": JSON}).map(_encode),  # any value as the type
    JSON.filter(lambda v: not isinstance(v, dict)).map(_encode),  # JSON, not an object
    st.text(max_size=60),  # not JSON
    st.integers(1, 40_000).map(lambda n: "[" * n + "]" * n),  # nested past the parser
    st.integers(1, 20_000).map(lambda n: '{"type":' * n + "1" + "}" * n),
)
LEGAL = st.integers(0, 63).map(lambda n: ("legal", n))  # the n-th legal move of the moment
OVERSIZED = st.sampled_from(["text", "bytes"]).map(  # over 64 KiB
    lambda kind: (kind, '{"type":"ping","pad":"' + "x" * MAX_FRAME + '"}')
)
FRAMES = st.one_of(  # a branch listed twice is drawn twice as often
    LEGAL,
    LEGAL,
    TEXT_FRAMES.map(lambda text: ("text", text)),
    TEXT_FRAMES.map(lambda text: ("text", text)),
    TEXT_FRAMES.map(lambda text: ("bytes", text.encode())),  # UTF-8 JSON in a binary frame
    st.binary(max_size=60).map(lambda data: ("bytes", data)),  # not UTF-8 at all
    OVERSIZED,
)


# ------------------------------------------------------------ the server
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """A real ``outflank serve`` (no AI: two people play); its port and log file."""
    folder = tmp_path_factory.mktemp("wsfuzz")
    (port,) = _free_ports(1)
    log = folder / "server.log"
    with log.open("wb") as out:
        cmd = [sys.executable, "-m", "outflank", "serve", "--port", str(port)]
        proc = subprocess.Popen(
            [*cmd, "--db", str(folder / "games.db"), "--log-level", "info"],
            env=cli_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_server_up(proc, port, seconds=60)
            yield port, log
        finally:
            stop_server(proc)


def _rest(port: int, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _answer(socket: ClientConnection) -> dict[str, Any] | int:
    """The next event, or the close code if the server closed the connection."""
    try:
        return json.loads(socket.recv(timeout=ANSWER_TIMEOUT))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "the connection was lost, not closed"
        return closed.rcvd.code


def _check_replays(state: dict[str, Any]) -> None:
    """The state's moves replay under the rules to its board and legal moves."""
    board = Board()
    for ply in state["moves"][: state["cursor"]]:
        board.push(ply["move"])
    assert board.obf()[:64] == state["board"]
    assert sorted(state["legal"]) == sorted(str(m) for m in board.legal_moves if not m.is_pass)


def _expected_kind(kind: str, payload: str | bytes) -> str | None:
    """What a frame must be answered with when it is not an action: "close",
    "pong", or None (an error, or a state if it is an action that is legal)."""
    data = payload.encode() if isinstance(payload, str) else payload
    if len(data) > MAX_FRAME:
        return "close"
    try:
        message = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return "error"
    if not isinstance(message, dict):
        return "error"
    return "pong" if message.get("type") == "ping" else None


@settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seat=st.sampled_from(["black", "white", None]), frames=st.lists(FRAMES, max_size=12))
def test_any_frames_get_an_answer_and_change_nothing_they_are_refused(
    server: tuple[int, Path], seat: str | None, frames: list[tuple[str, Any]]
) -> None:
    port, log = server
    logged = log.stat().st_size
    made = _rest(port, "/api/games", {"black": {"kind": "human"}, "white": {"kind": "human"}})
    game_id = made["game"]["id"]
    url = f"ws://127.0.0.1:{port}/ws/games/{game_id}"
    if seat is not None:
        url += f"?seat={made['seats'][seat]}"
    sockets = contextlib.ExitStack()
    socket = sockets.enter_context(connect(url, max_size=None))
    try:
        hello = _answer(socket)
        assert isinstance(hello, dict) and hello["type"] == "state" and hello["you"] == seat
        before = _rest(port, f"/api/games/{game_id}")
        for kind, payload in frames:
            if kind == "legal":  # a legal move (a pass if none), as text
                legal = before["legal"] or ["pass"]
                kind, payload = (
                    "text",
                    _encode({"type": "move", "move": legal[payload % len(legal)]}),
                )
            expected = _expected_kind(kind, payload)
            socket.send(payload, text=kind == "text")
            answer = _answer(socket)
            after = _rest(port, f"/api/games/{game_id}")
            if expected == "close":
                assert answer == 1009, answer  # "message too big", nothing read
                assert after == before
                event("answer: close 1009")
                socket = sockets.enter_context(connect(url, max_size=None))  # the game goes on
                assert _answer(socket)["type"] == "state"  # type: ignore[index]
                continue
            assert isinstance(answer, dict), f"closed with {answer} after {payload!r:.200}"
            if expected == "pong":
                assert answer == {"type": "pong"}
                assert after == before
            elif answer["type"] == "error":
                assert set(answer) == {"type", "status", "error"}, answer
                assert 400 <= answer["status"] < 500, answer
                assert isinstance(answer["error"], str) and 0 < len(answer["error"]) < 300
                assert after == before  # refused: the game is as it was
            else:
                assert expected is None, f"{answer} for {payload!r:.200}"
                assert answer["type"] == "state" and seat is not None, answer
                assert answer["state"]["version"] > before["version"]
                assert {**answer["state"], "you": None} == after
                _check_replays(after)
            before = after
            event(f"answer: {answer['type']} {answer.get('status', '')}")
    finally:
        sockets.close()
    with log.open("rb") as out:  # what the server logged during this example
        out.seek(logged)
        text = out.read().decode(errors="replace")
    assert "Traceback" not in text and "ERROR" not in text, text[-3000:]
