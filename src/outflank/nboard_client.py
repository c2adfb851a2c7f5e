"""The NBoard engine protocol's client side, and what both sides share.

:class:`NBoardClient` starts any NBoard engine (Edax, NTest, ``outflank
nboard``) as a subprocess and asks it for moves and hints, with timeouts; a
dead, silent or garbled engine raises :class:`~outflank.errors.PlayerError`.
:class:`outflank.players.ExternalPlayer` plays with it; the server side, outflank
as an NBoard engine, is :class:`outflank.nboard.NBoardServer`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from outflank.board import Board, Move
from outflank.errors import OutflankError, PlayerError
from outflank.ggf import GameRecord

__all__ = [
    "EngineAnswer",
    "HintLine",
    "NBoardClient",
    "format_move",
    "parse_engine_move",
    "pump_lines",
]


def format_move(move: Move) -> str:
    """A move as NBoard writes it: ``F5`` or ``PA``."""
    return "PA" if move.is_pass else str(move).upper()


def pump_lines(
    stream: Any,
    lines: queue.Queue[str | None],
    on_error: Callable[[Exception], None] | None = None,
) -> None:
    """Copy a stream's lines into a queue; ``None`` marks the end, whatever
    ended it (a read error goes to ``on_error``)."""
    try:
        for line in stream:
            lines.put(line.rstrip("\r\n"))
    except (OSError, ValueError) as exc:
        if on_error is not None:
            on_error(exc)
    finally:
        lines.put(None)


@dataclass(frozen=True)
class EngineAnswer:
    """An engine's ``=== move/eval/time`` answer."""

    move: Move
    eval: float | None = None
    time: float | None = None


@dataclass(frozen=True)
class HintLine:
    """One ``search``/``book`` line of an engine's hints."""

    kind: str
    pv: list[Move]
    eval: float
    depth: str

    @property
    def move(self) -> Move:
        return self.pv[0]


def _parse_pv(text: str) -> list[Move]:
    squares = re.findall(r"[a-hA-H][1-8]|PA|pa|Pa", text)
    if not squares or "".join(squares).lower() != re.sub(r"[-\s]", "", text).lower():
        raise ValueError(f"bad pv {text!r}")
    return [Move.from_str(s) for s in squares]


def _parse_eval(text: str) -> float:
    # an eval may be an ordered pair "(a,b)": take the first value
    return float(text.strip("()").split(",")[0])


def parse_engine_move(line: str) -> EngineAnswer:
    """Parse ``=== f5/1.5/0.3`` (NBoard) or ``=== f5 1.50 0.3`` (Edax style)."""
    body = line.strip()
    if not body.startswith("==="):
        raise ValueError(f"not a move answer: {line!r}")
    rest = body[3:].strip()
    parts = rest.split("/") if "/" in rest else rest.split()
    if not parts or not parts[0].strip() or len(parts) > 3:
        raise ValueError(f"malformed move answer: {line!r}")
    numbers: list[float | None] = []
    try:
        move = Move.from_str(parts[0])
        for part in parts[1:]:
            numbers.append(_parse_eval(part) if part.strip() else None)
    except (OutflankError, ValueError):
        raise ValueError(f"malformed move answer: {line!r}") from None
    numbers += [None] * (2 - len(numbers))
    return EngineAnswer(move, numbers[0], numbers[1])


def _end_process(proc: subprocess.Popen[str]) -> None:
    """Kill an engine process still running when its client is gone."""
    if proc.poll() is None:
        proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2.0)


class NBoardClient:
    """Drive an NBoard engine subprocess (Edax ``-nboard``, NTest,
    ``outflank nboard``...). Every wait has a timeout; a process that dies,
    hangs or answers garbage raises :class:`PlayerError` and is killed."""

    MAX_NOISE = 10_000  # unrecognised lines tolerated per request

    def __init__(
        self,
        argv: list[str],
        *,
        depth: int | None = None,
        start_timeout: float = 10.0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.argv = argv
        self.label = " ".join([os.path.basename(argv[0]), *argv[1:]])[:60]
        self.depth = depth if depth is not None else 10
        self.engine_name: str | None = None
        self.log: list[str] = []  # everything the engine said (for forfeit reports)
        self._ping = 0
        self._lines: queue.Queue[str | None] = queue.Queue()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                errors="replace",
                env=env,
            )
        except OSError as exc:
            raise PlayerError(f"cannot start engine {' '.join(argv)!r}: {exc}") from None
        # the reader and the finalizer hold the process, not the client: a client
        # dropped without close() is collected and its engine stopped
        self._reader = threading.Thread(
            target=pump_lines, args=(self.proc.stdout, self._lines), daemon=True
        )
        self._reader.start()
        weakref.finalize(self, _end_process, self.proc)
        self.send("nboard 2")
        self.send(f"set depth {self.depth}")
        self.sync(start_timeout)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: str) -> None:
        """Send one command line."""
        if self.proc.stdin is None or not self.alive:
            raise PlayerError(f"engine {self.label} is not running")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise PlayerError(f"engine {self.label} closed its input") from None

    def _next(self, deadline: float) -> str:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            self.kill()
            raise PlayerError(f"engine {self.label} timed out")
        try:
            line = self._lines.get(timeout=remaining)
        except queue.Empty:
            self.kill()
            raise PlayerError(f"engine {self.label} timed out") from None
        if line is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)
            raise PlayerError(f"engine {self.label} died (exit code {self.proc.poll()})")
        self.log.append(line)
        del self.log[:-200]
        if line.startswith("set myname "):
            self.engine_name = line[len("set myname ") :].strip() or self.engine_name
        return line

    def sync(self, timeout: float = 10.0) -> list[str]:
        """Send ``ping N`` and return every line before ``pong N``."""
        self._ping += 1
        token = str(self._ping)
        self.send(f"ping {token}")
        deadline = time.monotonic() + timeout
        seen: list[str] = []
        while True:
            line = self._next(deadline)
            if line.split() == ["pong", token]:
                return seen
            seen.append(line)
            if len(seen) > self.MAX_NOISE:
                self.kill()
                raise PlayerError(f"engine {self.label} floods output without answering")

    def set_position(self, board: Board) -> None:
        """Send the game leading to ``board`` (``set game`` with its GGF)."""
        record = GameRecord.from_board(board, black="black", white="white", place="outflank")
        self.send(f"set game {record.to_ggf()}")

    def go(self, board: Board, timeout: float = 30.0) -> EngineAnswer:
        """The engine's move in ``board``."""
        self.set_position(board)
        self.send("go")
        deadline = time.monotonic() + timeout
        noise = 0
        while True:
            line = self._next(deadline)
            if line.startswith("==="):
                try:
                    return parse_engine_move(line)
                except ValueError as exc:
                    raise PlayerError(f"engine {self.label}: {exc}") from None
            if line.startswith("status error"):  # no move will come: say why, now
                raise PlayerError(f"engine {self.label}: {line[len('status ') :]}")
            if not line.split() or line.split()[0] not in (
                "status",
                "search",
                "book",
                "nodestats",
                "set",
                "pong",
                "learned",
            ):
                noise += 1
                if noise > self.MAX_NOISE:
                    self.kill()
                    raise PlayerError(f"engine {self.label} answers garbage")

    def hint(self, board: Board, n: int = 1, timeout: float = 30.0) -> list[HintLine]:
        """The engine's ``search``/``book`` lines for ``hint n`` (latest per move),
        the ``n`` best first.

        Engines bracket a hint with status lines (``status ... thinking`` ...
        ``status ... waiting``, or NTest's bare ``status``); the hint is over
        at the closing one. A ``ping`` would stop the analysis, so it is sent
        only afterwards, to be sure nothing of the hint is still on its way.
        """
        self.sync(timeout)  # let earlier answers (a go's closing status) go by
        self.set_position(board)
        self.send(f"hint {n}")
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        statuses = 0
        while True:
            line = self._next(deadline)
            lines.append(line)
            words = line.split()
            if words[:1] == ["status"]:
                statuses += 1
                text = " ".join(words[1:]).lower()
                if statuses >= 2 or not text or "waiting" in text or "error" in text:
                    break
            if len(lines) > self.MAX_NOISE:
                self.kill()
                raise PlayerError(f"engine {self.label} floods output without finishing a hint")
        lines += self.sync(max(1.0, deadline - time.monotonic()))
        hints: dict[Move, HintLine] = {}
        for line in lines:
            words = line.split()
            if len(words) >= 5 and words[0] in ("search", "book"):
                try:
                    pv = _parse_pv(words[1])
                    hint = HintLine(words[0], pv, _parse_eval(words[2]), words[4])
                except (ValueError, OutflankError):
                    continue
                hints[hint.move] = hint
        return sorted(hints.values(), key=lambda h: -h.eval)[:n]

    def kill(self) -> None:
        """Stop the process at once."""
        if self.alive:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not within a second."""
        if self.alive:
            with contextlib.suppress(PlayerError):
                self.send("quit")
            try:
                self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()
