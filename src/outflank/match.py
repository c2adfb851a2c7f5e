"""Play one game between two players and record it.

A player that fails (raises, answers an illegal move, times out) forfeits:
the game ends at once, the opponent wins 64-0 in the record (``RE`` gets a
``:r`` suffix, ``:t`` for a timeout) and the reason is kept in the record's
``C`` (comment) field and in :attr:`GameResult.forfeit_reason`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from outflank.board import BLACK, Board, Color, Move, Rules
from outflank.errors import OutflankError
from outflank.ggf import GameRecord, now_string
from outflank.players import BasePlayer, Player

__all__ = ["GameResult", "play_game", "points"]


def points(margin: float) -> float:
    """A game's points for a final (or exact) disc difference ``margin``
    from one side's view: a win 1, a draw one half, a loss 0."""
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


@dataclass
class GameResult:
    """How a game ended: the record, the final board, and any forfeit."""

    record: GameRecord
    board: Board
    forfeit: Color | None = None
    forfeit_reason: str = ""

    @property
    def margin(self) -> int:
        """Black's disc difference (empties to the winner); +-64 on a forfeit."""
        if self.forfeit is not None:
            return -64 if self.forfeit is BLACK else 64
        outcome = self.board.outcome()
        return 0 if outcome is None else outcome.margin

    @property
    def winner(self) -> Color | None:
        m = self.margin
        return None if m == 0 else (BLACK if m > 0 else Color.WHITE)

    @property
    def black_points(self) -> float:
        """1 for a black win, 0.5 for a draw, 0 for a loss."""
        return points(self.margin)


def play_game(
    black: Player | BasePlayer,
    white: Player | BasePlayer,
    *,
    start: Board | None = None,
    rules: Rules | str = Rules.OTHELLO,
    on_move: Callable[[Board, Move], None] | None = None,
    place: str = "outflank",
) -> GameResult:
    """Play ``black`` against ``white`` from ``start`` (with its rules) or
    the initial position under ``rules``, to the end; a player's failure
    forfeits the game instead of raising."""
    board = start.copy() if start is not None else Board(rules=rules)
    evals: list[float | None] = [None] * board.ply
    times: list[float | None] = [None] * board.ply
    players = {BLACK: black, Color.WHITE: white}
    forfeit: Color | None = None
    reason = ""
    while not board.is_game_over():
        mover = board.turn
        player = players[mover]
        try:
            move = player.choose_move(board.copy())
            if not board.is_legal(move):
                raise OutflankError(f"illegal move {move}")
        except OutflankError as exc:
            forfeit, reason = mover, f"{player.name} ({mover.name.lower()}) forfeits: {exc}"
            break
        except Exception as exc:  # a crashing player forfeits, the caller goes on
            forfeit = mover
            reason = f"{player.name} ({mover.name.lower()}) forfeits: {type(exc).__name__}: {exc}"
            break
        board.push(move)
        evals.append(_rounded(getattr(player, "last_eval", None), 2))
        times.append(_rounded(getattr(player, "last_time", None), 3))
        if on_move is not None:
            on_move(board, move)
    record = GameRecord.from_board(
        board,
        black=black.name,
        white=white.name,
        place=place,
        date=now_string(),
        evals=evals,
        times=times,
    )
    result = GameResult(record, board, forfeit, reason)
    if forfeit is not None:
        suffix = ":t" if "timed out" in reason else ":r"
        record.result = f"{result.margin:+.3f}{suffix}"
        record.tags["C"] = reason
    return result


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(float(value), digits)
