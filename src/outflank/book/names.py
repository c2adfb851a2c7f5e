"""Opening names: Tiger, Rose, Buffalo, Heath, Cow, Chimney...

The names and their move sequences are those of the usual public catalogues
of Othello openings (Robert Gatliff's list as the Thor database and NBoard
use it, with a few later additions), written with the first move on f5.
A game matches a named opening when, at some point, its position is that
opening's final position under one of the 8 board symmetries (so games
that begin d3, c4 or e6, or reach a line by another move order, match too);
the latest match along the game names it, which is the longest line.

>>> from outflank import Board
>>> opening_name(Board.from_transcript("f5d6c3d3c4"))
'Tiger'
>>> opening_name(Board.from_transcript("d3c5f6f5e6"))  # the Tiger, reflected
'Tiger'
"""

from __future__ import annotations

from functools import cache
from typing import Final

from outflank.board import Board, Move
from outflank.book.symmetry import key_of

__all__ = [
    "LONGEST",
    "OPENINGS",
    "named_position",
    "opening_line",
    "opening_name",
    "openings_through",
]

#: (name, transcript from the start), the most common name first where a
#: line has several ("Heath, Tobidashi").
OPENINGS: Final[tuple[tuple[str, str], ...]] = (
    ("Perpendicular", "f5d6"),
    ("Tiger", "f5d6c3d3c4"),
    ("Aubrey, Tanaka", "f5d6c3d3c4b3"),
    ("Rose-Bill", "f5d6c3d3c4f4c5b3c2"),
    ("Nicolet", "f5d6c3d3c4f4c5b3c2e3"),
    ("Central Rose-Bill", "f5d6c3d3c4f4c5b3c2b4"),
    ("Tamenori", "f5d6c3d3c4f4c5b3c2e6"),
    ("Grand Central", "f5d6c3d3c4f4c5b4"),
    ("Ishii", "f5d6c3d3c4f4c5b4b5c6f3e6e3"),
    ("Mainline Tiger", "f5d6c3d3c4f4c5b4b5c6f3e6e3g6f6g5d7g3"),
    ("Twenty-move opening", "f5d6c3d3c4f4c5b3c2b4e3e6c6f6a5a4b5a6d7c7"),
    ("Spencer", "f5d6c3d3c4f4c6"),
    ("Brightwell", "f5d6c3d3c4f4e3"),
    ("Leader's Tiger", "f5d6c3d3c4f4e6"),
    ("Stephenson", "f5d6c3d3c4f4f6"),
    ("Kung", "f5d6c3d3c4f4f6b4"),
    ("Comp'Oth", "f5d6c3d3c4f4f6f3"),
    ("Lightning Bolt", "f5d6c3d3c4f4f6f3e3"),
    ("Scorpion", "f5d6c3d3c4f4f6f3e6e7"),
    ("Scorpion (classic)", "f5d6c3d3c4f4f6f3e6e7f7"),
    ("Scorpion (new)", "f5d6c3d3c4f4f6f3e6e7d7"),
    ("Low-FAT", "f5d6c3d3c4f4f6f3e6e7d7g6f8f7g5"),
    ("F.A.T.", "f5d6c3d3c4f4f6f3e6e7d7g6f8f7g5h6h4g4h3h5h7c5b4"),
    ("No-FAT", "f5d6c3d3c4f4f6f3e6e7d7g6f8f7g5h6h4g4h3g3"),
    ("No-Kung", "f5d6c3d3c4f4f6g5"),
    ("No-Kung (continuation)", "f5d6c3d3c4f4f6g5e3f3g4h3g3f2"),
    ("Ganglion", "f5d6c3g5"),
    ("Fishhook", "f5d6c5"),
    ("Cat", "f5d6c4d3c5"),
    ("Berner", "f5d6c4d3c5f4e3f3c2b4b3"),
    ("Sakaguchi", "f5d6c4d3c5f4e3f3c2c6"),
    ("Italian", "f5d6c4d3e6"),
    ("No-Cat", "f5d6c4g5"),
    ("Swallow", "f5d6c4g5c6"),
    ("No-Cat (continuation)", "f5d6c4g5c6c5d7d3b4c3e3f3"),
    ("Horse", "f5d6c5f4d3"),
    ("Mimura", "f5d6c5f4e3d3"),
    ("Ralle", "f5d6c5f4e3c6d3f3"),
    ("8-Shot", "f5d6c5f4e3c6d3g5"),
    ("Rose", "f5d6c5f4e3c6d3f6e6d7"),
    ("Greenberg, Dawg", "f5d6c5f4e3c6d3f6e6d7e7"),
    ("Rose-Birth", "f5d6c5f4e3c6d3f6e6d7g3c4"),
    ("Rose-Birdie, Rose-Tamenori", "f5d6c5f4e3c6d3f6e6d7g3c4b4"),
    ("Rose-Tamenori-Kling", "f5d6c5f4e3c6d3f6e6d7g3c4b4c3"),
    ("Brightstein", "f5d6c5f4e3c6d3f6e6d7g3c4g5c3b4e2"),
    ("Flat", "f5d6c5f4e3c6d3f6e6d7g4"),
    ("Rotating Flat", "f5d6c5f4e3c6d3f6e6d7g4c4"),
    ("Rotating Flat (Kling continuation)", "f5d6c5f4e3c6d3f6e6d7g4c4g5c3f7d2e7f2"),
    ("Murakami", "f5d6c5f4e3c6d3f6e6d7g4c4g6"),
    ("Bhagat", "f5d6c5f4e3c6d7"),
    ("Inoue", "f5d6c5f4e3c6e6"),
    ("Iago", "f5d6c5f4e3c6e6f6"),
    ("Shaman, Danish", "f5d6c5f4e3c6f3"),
    ("Parallel", "f5f4"),
    ("Diagonal", "f5f6"),
    ("Semi-Wing", "f5f6c4f4"),
    ("Wing", "f5f6d3f4"),
    ("Buffalo, Kenichi", "f5f6e6d6c3"),
    ("Hokuriku Buffalo", "f5f6e6d6c3d3"),
    ("Tanida Buffalo", "f5f6e6d6c3f4c6d3e3d2"),
    ("Maruoka Buffalo", "f5f6e6d6c3g4c6"),
    ("Cow", "f5f6e6d6c5"),
    ("Rose-v-Toth", "f5f6e6d6c5e3d3"),
    ("Landau", "f5f6e6d6c5e3d3c4c3"),
    ("Maruoka", "f5f6e6d6c5e3d3c4c6b5"),
    ("Tanida", "f5f6e6d6c5e3d3g5"),
    ("Aircraft, Feldborg", "f5f6e6d6c5e3d3g5d7"),
    ("Sailboat", "f5f6e6d6c5e3d3g5e2b5"),
    ("Bat, Cow Bat, Cambridge", "f5f6e6d6c5e3e7"),
    ("Bat (Kling continuation)", "f5f6e6d6c5e3e7c6d7f7c7f4g6e8d8c8g5"),
    ("Melnikov, Bat (Piau continuation 1)", "f5f6e6d6c5e3e7c7d7c6d3"),
    ("Bat (Piau continuation 2)", "f5f6e6d6c5e3e7c7d7c6f7"),
    ("Bat (Kling alternative)", "f5f6e6d6c5e3e7f4f7"),
    ("Chimney", "f5f6e6d6c5f4"),
    ("Hamilton", "f5f6e6d6c7c6d7"),
    ("Lollipop", "f5f6e6d6c7f4"),
    ("Raccoon Dog", "f5f6e6d6d7"),
    ("Heath, Tobidashi", "f5f6e6d6e7"),
    ("Heath-Chimney", "f5f6e6d6e7f4"),
    ("Heath-Bat", "f5f6e6d6e7g5c5"),
    ("Iwasaki", "f5f6e6d6e7g5g4"),
    ("Mimura II", "f5f6e6d6e7g5g6e3c5c6d3c4b3"),
    ("Classic Heath", "f5f6e6f4g5e7f7"),
    ("Snake, Peasant", "f5f6e6d6f7"),
    ("Pyramid, Checkerboarding Peasant", "f5f6e6d6f7e3d7e7c6c5d3"),
    ("X-square", "f5f6e6d6g7"),
)


#: No named line is longer (in plies, passes included).
LONGEST: Final = max(len(moves) // 2 for _, moves in OPENINGS)


@cache
def _table() -> dict[int, int]:
    """Canonical key of each named opening's final position -> its index
    (a position two lines reach keeps the first line's name)."""
    table: dict[int, int] = {}
    for index, (_, moves) in enumerate(OPENINGS):
        board = Board.from_transcript(moves)
        table.setdefault(key_of(board.player, board.opponent), index)
    return table


@cache
def _passing() -> dict[int, tuple[int, ...]]:
    """Canonical key of every position along a named line (the start left
    out) -> the indices of the lines through it, shortest line first."""
    through: dict[int, list[int]] = {}
    by_length = sorted(range(len(OPENINGS)), key=lambda i: (len(OPENINGS[i][1]), i))
    for index in by_length:
        board = Board()
        for move in Board.from_transcript(OPENINGS[index][1]).move_stack:
            board.push(move)
            lines = through.setdefault(key_of(board.player, board.opponent), [])
            if index not in lines:
                lines.append(index)
    return {key: tuple(lines) for key, lines in through.items()}


def openings_through(board: Board) -> list[str]:
    """The named openings whose lines pass through (or end at) this
    position, under any of the 8 symmetries, the shortest line first (each
    by its most common name): where a move of the opening explorer leads.

    >>> openings_through(Board.from_transcript("f5d6c3d3c4f4c5b3"))[:2]
    ['Rose-Bill', 'Nicolet']
    """
    lines = _passing().get(key_of(board.player, board.opponent), ())
    names: list[str] = []
    for index in lines:
        name = OPENINGS[index][0].split(", ")[0]
        if name not in names:
            names.append(name)
    return names


def _match(board: Board) -> int | None:
    """Index of the latest named position along the board's game from the
    start (``None`` for none, or a game set up from another position)."""
    if board.root() != Board(rules=board.rules):
        return None
    table = _table()
    found = None
    replay = Board(rules=board.rules)
    for move in board.move_stack[:LONGEST]:
        replay.push(move)
        index = table.get(key_of(replay.player, replay.opponent))
        if index is not None:
            found = index
    return found


def opening_name(board: Board | str) -> str | None:
    """The name of the opening a game is in (the most common name where the
    line has several), or ``None``: ``board`` is a :class:`Board` with its
    moves from the start, or a transcript such as ``"f5d6c3d3c4"``."""
    if isinstance(board, str):
        board = Board.from_transcript(board)
    index = _match(board)
    return None if index is None else OPENINGS[index][0].split(", ")[0]


def named_position(board: Board) -> str | None:
    """The name of the opening whose final position ``board`` is (under any
    symmetry, whatever the moves that led there), or ``None``. A game's
    name is the last named position along its first :data:`LONGEST` plies
    (:func:`opening_name` walks them)."""
    index = _table().get(key_of(board.player, board.opponent))
    return None if index is None else OPENINGS[index][0].split(", ")[0]


def opening_line(board: Board | str) -> tuple[str, str] | None:
    """``(all names, transcript as catalogued)`` of the opening the game is in."""
    if isinstance(board, str):
        board = Board.from_transcript(board)
    index = _match(board)
    return None if index is None else OPENINGS[index]


def named_moves(name: str) -> list[Move]:
    """The moves of a named opening (any of its names, any case)."""
    wanted = name.strip().lower()
    for names, moves in OPENINGS:
        if wanted in (n.lower() for n in names.split(", ")):
            return Board.from_transcript(moves).move_stack
    raise KeyError(name)
