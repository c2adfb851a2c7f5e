"""Argument helpers shared by the commands."""

from __future__ import annotations

import argparse
import re

from outflank.board import Board
from outflank.errors import OutflankError


def parse_position(text: str) -> Board:
    """A board from an OBF line, a transcript (``f5d6c3``) or ``start``."""
    stripped = text.strip()
    if stripped.lower() in ("", "start", "initial"):
        return Board()
    if re.match(r"^[XOxo\-.*]{16}", stripped):  # board cells (a transcript has none):
        return Board.from_obf(stripped)  # the OBF parser says what is wrong with them
    return Board.from_transcript(stripped)


def board_argument(text: str) -> Board:
    """argparse type: a position, with a clean error message."""
    try:
        return parse_position(text)
    except OutflankError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
