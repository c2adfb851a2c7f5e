"""Argument helpers shared by the commands."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from outflank.board import Board, parse_position
from outflank.errors import OutflankError
from outflank.threads import MAX_THREADS, check_threads

__all__ = ["add_threads_option", "board_argument", "parse_position", "threads_argument"]


def board_argument(text: str) -> Board:
    """argparse type: a position, with a clean error message."""
    try:
        return parse_position(text)
    except OutflankError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def threads_argument(text: str) -> int:
    """argparse type: a number of threads per search, 1..MAX_THREADS."""
    try:
        return check_threads(int(text))
    except (ValueError, OutflankError):
        raise argparse.ArgumentTypeError(
            f"threads must be an int in 1..{MAX_THREADS}, not {text!r}"
        ) from None


def add_threads_option(parser: Any, default_help: str) -> None:
    """The ``--threads N`` option of the commands that search."""
    parser.add_argument(
        "--threads",
        type=threads_argument,
        default=None,
        metavar="N",
        help=f"threads per search (1-{MAX_THREADS}; default: {default_help})",
    )


T = TypeVar("T")


def interruptible(
    work: Callable[..., T],
    *args: Any,
    on_interrupt: Callable[[], None] | None = None,
    **kwargs: Any,
) -> T:
    """Run ``work`` (C code that releases the GIL) in a daemon thread, so that
    Ctrl-C reaches the main thread at once instead of when the C code ends.
    ``on_interrupt`` (an engine's ``stop``) is called before the
    KeyboardInterrupt goes on; an abandoned job ends with the process."""
    box: list[Any] = []

    def job() -> None:
        try:
            box.append(work(*args, **kwargs))
        except BaseException as exc:  # handed to the main thread
            box.append(exc)

    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        if on_interrupt is not None:
            on_interrupt()
        raise
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def progress_bar() -> Any:
    """A rich progress bar on stderr (description, bar, done/total, time
    spent) that leaves nothing behind once stopped. Start it, add tasks."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
