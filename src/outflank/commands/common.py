"""Argument helpers shared by the commands."""

from __future__ import annotations

import argparse

from outflank.board import Board, parse_position
from outflank.errors import OutflankError

__all__ = ["board_argument", "parse_position"]


def board_argument(text: str) -> Board:
    """argparse type: a position, with a clean error message."""
    try:
        return parse_position(text)
    except OutflankError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
