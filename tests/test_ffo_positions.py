"""Every FFO position loads and its listed moves are exactly its legal moves."""

from __future__ import annotations

from pathlib import Path

from outflank import Board
from outflank.obf import read_obf_file


def test_ffo_listed_moves_are_legal_moves(ffo_dir: Path) -> None:
    files = sorted(ffo_dir.glob("*.obf"))
    assert files
    total = 0
    for path in files:
        for entry in read_obf_file(path):
            assert isinstance(entry.board, Board)
            legal = {m for m in entry.board.legal_moves}
            assert set(entry.scores) == legal, f"{path.name}:{entry.line}"
            total += 1
    assert total == 79
