"""Seed 002's task: read ``input.txt``, search with alpha-beta, write ``output.txt``.

The input: the player to move (``X`` black or ``O`` white), the cut-off depth,
then 8 rows of 8 cells (``*`` empty, ``X``, ``O``), row 1 first::

    X
    2
    ********
    ...

The output: the board after the chosen move (unchanged if the player passes,
or if the depth is 0), then the traverse log ``Node,Depth,Value,Alpha,Beta``
with one line per step of the search (see :mod:`outflank.classic`), values
written as integers or ``Infinity``/``-Infinity``. Lines end with LF; the
last one only if the input's last line does (the exercise's official samples
end both files without a line break, seed 002's example ends both with one).

The log's order: ``update-first`` (the default) logs as seed 002's example
does, ``test-first`` as AIMA figure 5.7 and the exercise's official samples
do (a node that cuts off is logged with its old alpha and beta; see
:mod:`outflank.classic`).

Variants: ``minimax`` writes the 3-column log ``Node,Depth,Value``; ``greedy``
writes the board only (one move deep, positional weights).
"""

from __future__ import annotations

import math
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from outflank.board import BLACK, PASS, WHITE, Board, Color
from outflank.classic import (
    ORDERS,
    LogOrder,
    SearchTrace,
    TraceEntry,
    alphabeta,
    check_order,
    greedy,
    minimax,
)
from outflank.classic_eval import weights
from outflank.errors import OutflankError

__all__ = [
    "ALGORITHMS",
    "ORDERS",
    "Task",
    "format_value",
    "parse_task",
    "run_task",
    "solve",
    "write_atomic",
]

ALGORITHMS: Final = ("alphabeta", "minimax", "greedy")


@dataclass(frozen=True, slots=True)
class Task:
    """A parsed input file: the position (the player to move is ``board.turn``) and depth."""

    board: Board
    depth: int

    @property
    def player(self) -> Color:
        return self.board.turn


def parse_task(text: str) -> Task:
    """Parse the input file's text (LF or CRLF, blank lines and trailing spaces ignored).

    Raises :class:`OutflankError` naming the offending line.
    """
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)]
    lines = [(number, line) for number, line in lines if line]  # skip blank lines
    last = len(text.splitlines())

    def missing(what: str) -> OutflankError:
        where = f"after line {last}" if last else "at the start"
        return OutflankError(f"the input ends {where}: {what} is missing")

    if not lines:
        raise missing("the player (X or O)")
    number, player_text = lines[0]
    if player_text.upper() not in ("X", "O"):
        raise OutflankError(f"line {number}: the player must be X or O, not {player_text!r}")
    player = BLACK if player_text.upper() == "X" else WHITE

    if len(lines) < 2:
        raise missing("the depth")
    number, depth_text = lines[1]
    if re.fullmatch(r"-[0-9]+", depth_text):
        raise OutflankError(f"line {number}: the depth must be 0 or more, not {depth_text}")
    if not re.fullmatch(r"\+?[0-9]+", depth_text):
        raise OutflankError(f"line {number}: the depth must be a whole number, not {depth_text!r}")
    if len(depth_text.lstrip("+0")) > 6:
        raise OutflankError(f"line {number}: the depth is too large ({len(depth_text)} digits)")
    depth = int(depth_text)

    rows = lines[2:]
    black = white = 0
    for row_index in range(8):
        if row_index >= len(rows):
            raise missing(f"board row {row_index + 1} of 8")
        number, row = rows[row_index]
        if not re.fullmatch(r"[*XOxo]{8}", row):
            raise OutflankError(
                f"line {number}: board row {row_index + 1} must be 8 cells of *, X or O,"
                f" not {row!r}"
            )
        for col, cell in enumerate(row.upper()):
            bit = 1 << (row_index * 8 + col)
            if cell == "X":
                black |= bit
            elif cell == "O":
                white |= bit
    if len(rows) > 8:
        number, extra = rows[8]
        raise OutflankError(f"line {number}: unexpected text after the board: {extra[:40]!r}")
    return Task(Board(black, white, player), depth)


def solve(
    task: Task, algorithm: str = "alphabeta", order: LogOrder | None = None
) -> tuple[Board, SearchTrace]:
    """Search the task's position; returns the board after the chosen move and the trace.

    ``order`` (alpha-beta only; default ``update-first``) is the log's order.
    """
    if order is not None and algorithm != "alphabeta":
        raise OutflankError(f"the log order applies to alpha-beta only, not to {algorithm}")
    if algorithm == "alphabeta":
        trace = alphabeta(task.board, task.depth, weights, order=check_order(order or ORDERS[0]))
    elif algorithm == "minimax":
        trace = minimax(task.board, task.depth, weights)
    elif algorithm == "greedy":
        trace = greedy(task.board, weights)
    else:
        raise OutflankError(f"unknown algorithm {algorithm!r}: choose one of {ALGORITHMS}")
    after = task.board.copy(stack=False)
    if trace.best_move is not None and trace.best_move != PASS:
        after.push(trace.best_move)
    return after, trace


def format_value(value: float | None) -> str:
    """``Infinity``, ``-Infinity`` or the value as an integer (``-3``, never ``-3.0``)."""
    if value is None:
        raise ValueError("no value to format")
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if float(value).is_integer():
        return str(int(value))
    return repr(value)


def format_board(board: Board) -> str:
    """The 8 rows of the board, ``*`` for empty squares, each line ending with LF."""
    rows = []
    for row in range(8):
        cells = []
        for col in range(8):
            piece = board.piece_at(row * 8 + col)
            cells.append("*" if piece is None else piece.letter)
        rows.append("".join(cells) + "\n")
    return "".join(rows)


def format_log(log: list[TraceEntry], *, with_window: bool = True) -> str:
    """The traverse log with its header line, LF line ends."""
    if with_window:
        lines = ["Node,Depth,Value,Alpha,Beta"]
        lines += [
            f"{e.node},{e.depth},{format_value(e.value)},{format_value(e.alpha)},"
            f"{format_value(e.beta)}"
            for e in log
        ]
    else:
        lines = ["Node,Depth,Value"]
        lines += [f"{e.node},{e.depth},{format_value(e.value)}" for e in log]
    return "".join(line + "\n" for line in lines)


def format_output(after: Board, trace: SearchTrace, *, log_only: bool = False) -> str:
    """The whole output file for a solved task."""
    parts = [] if log_only else [format_board(after)]
    if trace.algorithm == "alphabeta":
        parts.append(format_log(trace.log))
    elif trace.algorithm == "minimax":
        parts.append(format_log(trace.log, with_window=False))
    return "".join(parts)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (LF line ends, UTF-8) to ``path`` through a temporary file
    and a rename, so ``path`` is either the old file or the complete new one."""
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise OutflankError(f"cannot write {path}: no folder {directory}")
    if path.is_dir():
        raise OutflankError(f"cannot write {path}: it is a folder")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)  # an existing file keeps its permissions
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # a new file gets what open() would give it
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_text(path: Path) -> str:
    """The input file's text; a clear :class:`OutflankError` if it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise OutflankError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OutflankError(f"{path} is not a text file (UTF-8 expected)") from None


def run_task(
    input_path: Path,
    output_path: Path | None,
    algorithm: str = "alphabeta",
    *,
    log_only: bool = False,
    order: LogOrder | None = None,
) -> str:
    """Read, solve and write one task; returns the output text.

    ``order``: the alpha-beta log's order (``update-first`` when not given).
    With ``output_path=None`` nothing is written. Bad input raises
    :class:`OutflankError` (prefixed with the input's name) before any file is touched.
    """
    if log_only and algorithm == "greedy":
        raise OutflankError("greedy has no traverse log: log_only would write nothing")
    if order is not None:
        order = check_order(order)
        if algorithm != "alphabeta":
            raise OutflankError(f"the log order applies to alpha-beta only, not to {algorithm}")
    text = read_text(input_path)
    try:
        task = parse_task(text)
    except OutflankError as exc:
        raise OutflankError(f"{input_path}: {exc}") from None
    after, trace = solve(task, algorithm, order)
    output = format_output(after, trace, log_only=log_only)
    if not text.endswith(("\n", "\r")):  # the input's last line has no line break
        output = output.removesuffix("\n")
    if output_path is not None:
        write_atomic(output_path, output)
    return output
