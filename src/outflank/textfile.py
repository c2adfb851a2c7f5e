"""Reading the text files users hand in (OBF positions, GGF games, transcripts)."""

from __future__ import annotations

from pathlib import Path

from outflank.errors import InvalidBoardError


def read_text_file(path: str | Path) -> str:
    """The file's text: UTF-8 (a byte-order mark is dropped), else Latin-1 as
    in older game archives. A file with NUL bytes is refused as not text;
    OS errors (missing file, a folder) propagate."""
    data = Path(path).read_bytes()
    if b"\x00" in data:
        raise InvalidBoardError(f"{path}: not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
