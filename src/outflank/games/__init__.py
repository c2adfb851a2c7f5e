"""Small games and a generic minimax framework (seed 001).

A :class:`Game` is played and taken back in place (``play``/``undo``); the
generic :class:`Searcher` runs negamax with alpha-beta, a depth cut-off
scored by the game's heuristic, iterative deepening and a transposition
table, and :func:`recommend` suggests a move with its score::

    from outflank.games import TicTacToe, recommend
    game = TicTacToe()
    game.play(4)                      # X takes the centre (cell 5)
    result = recommend(game)          # O's best reply, solved to the end
    print(game.format_move(result.best_move), result.describe())

Games: :class:`TicTacToe`, :class:`MNK` (any rows, columns, k in a row),
:class:`ConnectFour` (gravity, bitboards) and :class:`OthelloGame` (an
adapter over :class:`outflank.board.Board`).
"""

from outflank.games.base import HEURISTIC_BOUND, Game
from outflank.games.connect4 import ConnectFour
from outflank.games.othello import OthelloGame
from outflank.games.search import (
    MoveScore,
    Searcher,
    SearchInfo,
    SearchResult,
    analyze,
    describe_score,
    recommend,
    search,
    solve,
)
from outflank.games.tictactoe import MNK, TicTacToe

__all__ = [
    "HEURISTIC_BOUND",
    "MNK",
    "ConnectFour",
    "Game",
    "MoveScore",
    "OthelloGame",
    "SearchInfo",
    "SearchResult",
    "Searcher",
    "TicTacToe",
    "analyze",
    "describe_score",
    "recommend",
    "search",
    "solve",
]
