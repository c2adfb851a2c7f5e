"""outflank: Othello (Reversi) to play and study.

The public API in short::

    from outflank import Board, Engine, opening_name
    board = Board()
    board.play("f5")
    print(board)
    print(Engine().search(board, depth=8).best_move)
    print(opening_name(board))        # the named opening, if any

See the README and docs/ for the engine, the teaching search and the apps.
"""

from outflank._weights import load_default_weights
from outflank.board import (
    BLACK,
    PASS,
    WHITE,
    Board,
    Color,
    Move,
    Outcome,
    Rules,
    parse_square,
    square_name,
)
from outflank.book.names import opening_name
from outflank.engine import Engine, SearchResult
from outflank.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OutflankError,
    SearchLimitError,
)

load_default_weights()

__version__ = "0.1.0"

__all__ = [
    "BLACK",
    "PASS",
    "WHITE",
    "Board",
    "Color",
    "Engine",
    "GameOverError",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidMoveError",
    "Move",
    "Outcome",
    "OutflankError",
    "Rules",
    "SearchLimitError",
    "SearchResult",
    "__version__",
    "opening_name",
    "parse_square",
    "square_name",
]
