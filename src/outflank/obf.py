"""OBF test-suite files: one position per line with every move's exact score.

A line reads ``<64 cells> <mover>; A2:+38; C7:+36; ...`` as in the FForum
endgame suite (``tests/data/ffo`` in the repository). Lines that are blank or start with ``%``
or ``#`` are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from outflank.board import Board, Move
from outflank.errors import InvalidBoardError, OutflankError
from outflank.textfile import read_text_file

__all__ = ["ObfEntry", "parse_obf_line", "read_obf_file"]


@dataclass(frozen=True)
class ObfEntry:
    """One position of a suite: the board and the listed score of each move."""

    board: Board
    scores: dict[Move, int] = field(default_factory=dict)
    line: int = 0

    @property
    def best_score(self) -> int | None:
        """The best listed score: the position's exact value when the best
        move is among those listed (suites list every move, or the best)."""
        return max(self.scores.values()) if self.scores else None

    @property
    def best_moves(self) -> list[Move]:
        best = self.best_score
        return [m for m, s in self.scores.items() if s == best]


_SCORE = re.compile(r"^\s*([A-Ha-h][1-8]|pass|PA)\s*:\s*([+-]?\d+)\s*$", re.IGNORECASE)


def parse_obf_line(text: str, line: int = 0) -> ObfEntry:
    """Parse one OBF line with optional ``; move:score`` fields."""
    head, *fields = text.strip().split(";")
    board = Board.from_obf(head)
    scores: dict[Move, int] = {}
    for item in fields:
        if not item.strip():
            continue
        match = _SCORE.match(item)
        if match is None:
            raise InvalidBoardError(f"malformed move score {item.strip()!r}")
        digits = match.group(2).lstrip("+-")
        if len(digits) > 2 or int(digits) > 64:  # a final disc difference: -64..64
            raise InvalidBoardError(f"move score out of range -64..64: {item.strip()[:40]!r}")
        move = Move.from_str(match.group(1))
        if move in scores:
            raise InvalidBoardError(f"move {move} is listed twice")
        if not board.is_legal(move):
            raise InvalidBoardError(f"listed move {move} is not legal in the position")
        scores[move] = int(match.group(2))
    return ObfEntry(board, scores, line)


def iter_obf(text: str, source: str = "<string>") -> Iterator[ObfEntry]:
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped[0] in "%#":
            continue
        try:
            yield parse_obf_line(stripped, number)
        except OutflankError as exc:
            raise InvalidBoardError(f"{source}:{number}: {exc}") from None


def read_obf_file(path: str | Path) -> list[ObfEntry]:
    """Every position of an OBF file; errors name the file and the line."""
    path = Path(path)
    text = read_text_file(path)
    return list(iter_obf(text, str(path)))
