"""Othello in the small-games framework, played through :class:`outflank.board.Board`.

The adapter holds no rules of its own: legal moves, playing, taking back and
the end of the game all come from ``Board`` (and so from the C core). It is
meant for teaching and comparison (the generic negamax on Othello); the
strong Othello search is :mod:`outflank.engine`.

The default heuristic is seed 002's positional weights, from the side to
move's view; pass ``evaluate=`` for another one. A finished game's utility is
the final disc margin (empties to the winner), so exact scores are margins.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from outflank.board import BLACK, Board, Move, Rules
from outflank.evaluation import SEED_002_WEIGHTS
from outflank.games.base import HEURISTIC_BOUND, Game

__all__ = ["POSITIONAL_WEIGHTS", "OthelloGame", "positional_score"]

#: Seed 002's cell values, a1..h8 (row by row): the project's one table.
POSITIONAL_WEIGHTS: tuple[int, ...] = SEED_002_WEIGHTS


def positional_score(board: Board) -> int:
    """Seed 002's evaluation: weights of the mover's discs minus the opponent's."""
    player, opponent = board.player, board.opponent
    score = 0
    for square, weight in enumerate(POSITIONAL_WEIGHTS):
        bit = 1 << square
        if player & bit:
            score += weight
        elif opponent & bit:
            score -= weight
    return score


class OthelloGame(Game):
    """An Othello (or Reversi-rules) position as a :class:`Game`.

    ``board`` is used as is (not copied): the search plays and takes back
    moves on it and leaves it as it found it.
    """

    name = "othello"
    margin_utility = True
    default_depth = 4

    def __init__(
        self,
        board: Board | None = None,
        rules: Rules | str = Rules.OTHELLO,
        evaluate: Callable[[Board], int] | None = None,
    ) -> None:
        self.board = board if board is not None else Board(rules=rules)
        self._evaluate = evaluate or positional_score

    @property
    def turn(self) -> int:
        return int(self.board.turn)

    @property
    def ply(self) -> int:
        return self.board.ply

    def legal_moves(self) -> list[Move]:
        return self.board.legal_moves

    def play(self, move: Move) -> None:
        self.board.push(move)

    def undo(self) -> None:
        self.board.pop()

    def is_over(self) -> bool:
        return self.board.is_game_over()

    def winner(self) -> int | None:
        outcome = self.board.outcome()
        if outcome is None or outcome.winner is None:
            return None
        return int(outcome.winner)

    def utility(self) -> int:
        outcome = self.board.outcome()
        if outcome is None:
            return 0
        return outcome.margin if self.board.turn is BLACK else -outcome.margin

    def heuristic(self) -> int:
        return max(-HEURISTIC_BOUND, min(HEURISTIC_BOUND, self._evaluate(self.board)))

    def variant(self) -> Hashable:
        return (type(self), self.board.rules)

    def key(self) -> int:
        board = self.board
        return board.black | board.white << 64 | int(board.turn) << 128

    def copy(self) -> OthelloGame:
        return OthelloGame(self.board.copy(), evaluate=self._evaluate)

    def render(self) -> str:
        return str(self.board)

    def parse_move(self, text: str) -> Move:
        return Move.from_str(text)

    def format_move(self, move: Move) -> str:
        return str(move)

    def check_move(self, move: Move) -> None:
        from outflank.errors import IllegalMoveError

        if self.board.is_game_over():
            raise IllegalMoveError(f"the game is over ({self.board.result()})")
        if not self.board.is_legal(move):
            legal = " ".join(str(m) for m in self.board.legal_moves)
            raise IllegalMoveError(f"{move} is not legal here (legal: {legal})")

    def __repr__(self) -> str:
        return f"OthelloGame({self.board!r})"
