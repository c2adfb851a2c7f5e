"""Terminal play: ``outflank play othello [--black SPEC --white SPEC ...]``.

A coloured board (rich) on a terminal, plain text through a pipe. People
type a move (``d3``), ``hint``, ``undo``, ``pass`` (when they have no move),
``set`` (see or change a computer player's evaluator and look-ahead between
moves, seed 004), ``help`` or ``quit``; computer players move by themselves.
With ``--hints`` the engine's recommendation is shown before each of the
person's moves (seed 001).

The command module of ``outflank play`` calls :func:`configure` to add the
options and :func:`run` to play; ``python -m outflank.tui`` runs it alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from outflank.board import BLACK, WHITE, Board, Color, Move, Rules
from outflank.book.names import opening_name
from outflank.errors import OutflankError
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, check_level
from outflank.players import BasePlayer, make_player, parse_options, player_specs_help

__all__ = ["configure", "main", "render_board", "run"]

#: The longest a hint may think, in seconds (the top levels allow far more).
HINT_TIME = 3.0
HELP_TEXT = (
    "commands: a move such as d3, 'hint', 'undo', 'pass' (when forced), 'help', 'quit';"
    " 'set' shows the computer's settings, 'set depth=6' (regions AI: 'set corner=40"
    " lookahead=6') changes them"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the terminal game's options to ``parser``."""
    parser.add_argument(
        "--black", default="human", metavar="SPEC", help="black player (default: human)"
    )
    parser.add_argument(
        "--white",
        default=None,
        metavar="SPEC",
        help=f"white player (default: level:N from --level); specs: {player_specs_help()}",
    )
    parser.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        help=f"computer level {MIN_LEVEL}-{MAX_LEVEL} (default {DEFAULT_LEVEL})",
    )
    parser.add_argument(
        "--rules",
        choices=[r.value for r in Rules],
        default="othello",
        help="othello: pass when stuck; reversi: the game ends when the mover is stuck",
    )
    parser.add_argument("--no-color", action="store_true", help="plain text even on a terminal")
    parser.add_argument(
        "--hints",
        action="store_true",
        help="show the recommended moves before each of your moves (seed 001)",
    )


def _name(color: Color) -> str:
    return f"{color.name.lower()} ({color.letter})"


def render_board(board: Board, *, color: bool, last: Move | None = None) -> str | object:
    """The board as plain text, or as a rich renderable when ``color``."""
    if not color:
        return str(board)
    from rich.text import Text

    legal = board.moves_bitboard()
    text = Text()
    text.append("   a b c d e f g h\n", style="bold")
    for r in range(8):
        text.append(f" {r + 1} ", style="bold")
        for c in range(8):
            sq = r * 8 + c
            piece = board.piece_at(sq)
            mark = last is not None and last.square == sq
            if piece is BLACK:
                text.append("●", style="bold black on green" + (" underline" if mark else ""))
            elif piece is WHITE:
                text.append(
                    "●", style="bold bright_white on green" + (" underline" if mark else "")
                )
            elif legal >> sq & 1:
                text.append("·", style="bold yellow on green")
            else:
                text.append(" ", style="on green")
            text.append(" ", style="on green")
        text.append(f"{r + 1}\n", style="bold")
    text.append("   a b c d e f g h\n", style="bold")
    b, w = board.score()
    text.append(f"black ● {b}  white ○ {w}")
    return text


class TerminalGame:
    """One game at the terminal between two players (people or programs)."""

    def __init__(
        self,
        black: BasePlayer,
        white: BasePlayer,
        *,
        rules: Rules = Rules.OTHELLO,
        color: bool = False,
        show_hints: bool = False,
        read: Callable[[str], str | None] | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.players = {BLACK: black, WHITE: white}
        self.board = Board(rules=rules)
        self.color = color
        self.show_hints = show_hints
        self.out = out if out is not None else sys.stdout
        self._read = read if read is not None else self._read_stdin
        self._console = None
        if color:
            from rich.console import Console

            self._console = Console(file=self.out, highlight=False)
        self._hinter: BasePlayer | None = None
        self._hint_engine: Any = None  # an Engine, or False when it is not built
        self._opening: str | None = None  # the named opening last shown

    # ------------------------------------------------------------ io
    def _read_stdin(self, prompt: str) -> str | None:
        if sys.stdin.isatty():
            try:
                return input(prompt)
            except EOFError:
                return None
        line = sys.stdin.readline()  # through a pipe: echo what was read
        if not line:
            return None
        print(prompt + line.rstrip("\n"), file=self.out, flush=True)
        return line

    def say(self, text: str) -> None:
        if self._console is not None:
            self._console.print(text, markup=False)
        else:
            print(text, file=self.out, flush=True)

    def show(self) -> None:
        rendered = render_board(self.board, color=self.color, last=self.board.peek())
        if self._console is not None:
            self._console.print(rendered)
        else:
            print(rendered, file=self.out, flush=True)
        name = opening_name(self.board)
        if name is not None and name != self._opening:  # once, as the game enters it
            self.say(f"opening: {name}")
        self._opening = name

    # ------------------------------------------------------------ actions
    def hints(self) -> str:
        """The three best moves, best first, with their scores in discs
        (:meth:`Engine.for_analysis`; greedy's move when it is not built)."""
        board = self.board
        if board.must_pass():
            return "pass (you have no move)"
        if self._hint_engine is None:
            try:
                from outflank.engine import Engine

                self._hint_engine = Engine.for_analysis(tt_mb=16, time=HINT_TIME)
            except ImportError:
                self._hint_engine = False
        if self._hint_engine:
            # the three best, each scored exactly (multi-PV: the others are only bounded)
            analysis = self._hint_engine.analyze(board.copy(), multipv=3)
            scores = [m for m in analysis if not m.upper][:3]
            kind = " exact" if scores[0].exact else " (opening book)" if scores[0].book else ""
            return ", ".join(f"{m.move} ({m.score:+.1f})" for m in scores) + f" discs{kind}"
        if self._hinter is None:
            self._hinter = make_player("greedy")
        return str(self._hinter.choose_move(board.copy()))

    def settings(self, line: str) -> str:
        """``set`` alone: the computer player's settings; ``set key=value ...``:
        change them (seed 004: between moves, mid-game)."""
        words = line.split()[1:]
        adjustable = {
            color: player
            for color, player in self.players.items()
            if callable(getattr(player, "adjust", None))
        }
        if not adjustable:
            return "no engine player here has settings to change"
        if words:
            try:
                values = parse_options(",".join(words))
                for player in adjustable.values():
                    player.adjust(**values)
            except OutflankError as exc:
                return f"not changed: {exc}"
        return "; ".join(
            f"{_name(color)} {player.name}: {player.describe_settings()}"
            for color, player in adjustable.items()
        )

    def undo(self) -> bool:
        """Take back moves until it is a person's turn again (at least one);
        False when no person has moved yet (an AI's opening stays)."""
        if not any(self.players[c].is_human and not m.is_pass for c, m in self.board.movers()):
            return False
        self.board.pop()
        while self.board.ply and not self.players[self.board.turn].is_human:
            self.board.pop()
        return True

    def human_turn(self, player: BasePlayer) -> bool:
        """Read commands until a move is made; False when the person quits."""
        board = self.board
        legal = board.legal_moves
        forced = legal[0].is_pass
        if self.show_hints and not forced:
            self.say(f"recommended: {self.hints()}")
        while True:
            if forced:
                prompt = f"{_name(board.turn)} has no move: type pass> "
            else:
                prompt = f"{_name(board.turn)} [{' '.join(map(str, legal))}]> "
            line = self._read(prompt)
            if line is None:
                self.say("end of input: quitting")
                return False
            command = line.strip().lower()
            if not command:
                continue
            if command in ("quit", "q", "exit"):
                self.say("bye")
                return False
            if command in ("help", "?"):
                self.say(HELP_TEXT)
                continue
            if command == "hint":
                self.say(f"hint: {self.hints()}")
                continue
            if command == "set" or command.startswith("set "):
                self.say(self.settings(command))
                continue
            if command == "undo":
                if self.undo():
                    self.say("move taken back")
                    self.show()
                    return True
                self.say("nothing to undo")
                continue
            try:
                move = Move.from_str(command)
            except OutflankError:
                self.say(f"not a move or command: {line.strip()!r}; {HELP_TEXT}")
                continue
            if move.is_pass and not forced:
                self.say("you can pass only when you have no move")
                continue
            if move not in legal:
                self.say(f"illegal move {move}; legal: {' '.join(map(str, legal))}")
                continue
            board.push(move)
            return True

    def play(self) -> int:
        """Play to the end (or until a person quits); returns the exit code."""
        self.show()
        while not self.board.is_game_over():
            mover = self.board.turn
            player = self.players[mover]
            if player.is_human:
                ply = self.board.ply
                if not self.human_turn(player):
                    return 0
                if self.board.ply < ply:  # undone
                    continue
            else:
                try:
                    move = player.choose_move(self.board.copy())
                    self.board.push(move)
                except OutflankError as exc:
                    self.say(f"{player.name} failed: {exc}; {_name(mover)} forfeits")
                    return 1
                info = ""
                if player.last_eval is not None:
                    info = f" (eval {player.last_eval:+.1f}"
                    info += f", {player.last_time:.2f} s)" if player.last_time else ")"
                self.say(f"{_name(mover)} {player.name} plays {move}{info}")
            self.show()
        self.say(self.summary())
        return 0

    def summary(self) -> str:
        """The final score and result line."""
        b, w = self.board.score()
        outcome = self.board.outcome()
        assert outcome is not None
        if outcome.winner is None:
            verdict = "a draw"
        else:
            verdict = f"{outcome.winner.name.lower()} wins by {abs(outcome.margin)}"
        return f"game over: black {b}, white {w}: {verdict} ({outcome.result()})"

    def close(self) -> None:
        for player in {*self.players.values(), self._hinter}:
            if player is not None:
                player.close()


def run(args: argparse.Namespace) -> int:
    """Play one terminal game with the options of :func:`configure`."""
    level = getattr(args, "level", None)
    level = check_level(DEFAULT_LEVEL if level is None else level, "--level")
    black_spec = getattr(args, "black", None) or "human"
    white_spec = getattr(args, "white", None) or f"level:{level}"
    rules = Rules(getattr(args, "rules", "othello") or "othello")
    color = sys.stdout.isatty() and not getattr(args, "no_color", False)
    black = make_player(black_spec)
    try:
        white = make_player(white_spec)
    except BaseException:
        black.close()
        raise
    game = TerminalGame(
        black,
        white,
        rules=rules,
        color=color,
        show_hints=bool(getattr(args, "hints", False)),
    )
    try:
        return game.play()
    finally:
        game.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m outflank.tui``: the terminal game on its own."""
    parser = argparse.ArgumentParser(
        prog="python -m outflank.tui",
        description="Othello at the terminal: the game of `outflank play othello`.",
    )
    configure(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except OutflankError as exc:
        print(f"outflank play: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
