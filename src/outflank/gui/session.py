"""The game in the window, without any pygame: the board, which colours the
people play, moves, forced passes and undo.

All rules come from :class:`outflank.board.Board`.
"""

from __future__ import annotations

from dataclasses import dataclass

from outflank.board import PASS, Board, Color, Move, Outcome, Rules

__all__ = ["GameSession", "Played"]


@dataclass(frozen=True, slots=True)
class Played:
    """A move just made: where, by whom, and the discs it turned over."""

    move: Move
    colour: Color
    flips: tuple[int, ...]


class GameSession:
    """One game: ``humans`` are the colours people play (both without an AI).

    ``start`` is the position a new game begins from (the usual start
    position by default); its rules are replaced by ``rules``.
    """

    def __init__(
        self, humans: frozenset[Color], rules: Rules = Rules.OTHELLO, start: Board | None = None
    ) -> None:
        self.humans = frozenset(humans)
        self.rules = rules
        self._start = start.copy(stack=False) if start is not None else None
        self.board = self._fresh()

    def _fresh(self) -> Board:
        if self._start is None:
            return Board(rules=self.rules)
        return Board(self._start.black, self._start.white, self._start.turn, self.rules)

    def new_game(self) -> None:
        """Back to the start position."""
        self.board = self._fresh()

    # ---------------------------------------------------------------- state
    @property
    def over(self) -> bool:
        return self.board.is_game_over()

    @property
    def outcome(self) -> Outcome | None:
        return self.board.outcome()

    def human_to_move(self) -> bool:
        """True when a person should click a square now."""
        return not self.over and self.board.turn in self.humans and not self.board.must_pass()

    def ai_to_move(self) -> bool:
        """True when the computer should search now (forced passes are played by
        :meth:`auto_pass`, not searched)."""
        return not self.over and self.board.turn not in self.humans and not self.board.must_pass()

    def legal_squares(self) -> list[int]:
        """The squares the side to move may play."""
        return [m.square for m in self.board.legal_moves if m.square is not None]

    def last_square(self) -> int | None:
        """The square of the last disc placed (passes skipped)."""
        for move in reversed(self.board.move_stack):
            if move.square is not None:
                return move.square
        return None

    # ---------------------------------------------------------------- moves
    def play(self, move: Move | str) -> Played:
        """Play a move for the side to move; raises ``IllegalMoveError`` if illegal."""
        colour = self.board.turn
        flips = tuple(self.board.flips(move))
        played = self.board.push(move)
        return Played(played, colour, flips)

    def auto_pass(self) -> Color | None:
        """If the side to move has no move but the game goes on, pass for it and
        return its colour."""
        if not self.board.must_pass():
            return None
        colour = self.board.turn
        self.board.push(PASS)
        return colour

    def undo(self) -> bool:
        """Take back moves until a person is to move again and their last disc
        is off the board (with an AI, its replies go too). False if nothing to undo."""
        board = self.board
        if not any(c in self.humans and not m.is_pass for c, m in board.movers()):
            return False  # no person has moved yet (an AI's opening stays)
        while board.ply:
            move = board.pop()
            if board.turn in self.humans and not move.is_pass:
                break
        return True
