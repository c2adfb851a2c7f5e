"""``outflank play GAME``: play a game against the computer in the terminal.

Small games (``tictactoe``, ``mnk``, ``connect4``) are played here, seed 001
style: numbered cells (columns for Connect Four) and a recommended move
printed before each of your turns. ``othello`` hands over to
:mod:`outflank.tui`, the Othello terminal game.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys

from outflank.commands.common import add_threads_option
from outflank.errors import OutflankError
from outflank.games import MNK, ConnectFour, Game, Searcher, TicTacToe
from outflank.games.search import MAX_PLY, SearchResult
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, check_level
from outflank.threads import set_default_threads

NAME = "play"
HELP = "play tictactoe, mnk, connect4 or othello against the computer in the terminal"

SMALL_GAMES = ("tictactoe", "mnk", "connect4")
_MAX_SIDE = 20
_SMALL_OPTIONS = ("rows", "cols", "k", "depth", "time", "first", "seed")
#: Seconds the AI may think per move when neither --depth nor --time is given.
DEFAULT_TIME = 3.0
_OTHELLO_OPTIONS = ("black", "white", "level", "rules", "no_color", "hints", "threads")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=[*SMALL_GAMES, "othello"], help="the game to play")
    small = parser.add_argument_group("tictactoe, mnk and connect4")
    small.add_argument("--rows", type=int, help="board rows (mnk: 3, connect4: 6)")
    small.add_argument("--cols", type=int, help="board columns (mnk: 3, connect4: 7)")
    small.add_argument("--k", type=int, help="stones in a row to win (mnk: 3, connect4: 4)")
    small.add_argument(
        "--depth",
        type=int,
        help="AI search depth in plies (default: to the end for tictactoe, 8 for connect4;"
        " capped at 3 s per move unless --depth or --time is given)",
    )
    small.add_argument(
        "--time",
        type=float,
        help="AI thinking time limit in seconds per move (default: 3 without --depth,"
        " none for games solved to the end)",
    )
    small.add_argument(
        "--first",
        choices=["human", "ai", "random"],
        help="who moves first and plays X (default: human)",
    )
    small.add_argument("--seed", type=int, help="random seed for --first random")
    othello = parser.add_argument_group("othello (the Othello terminal game)")
    othello.add_argument("--black", help="black player spec (default: human)")
    othello.add_argument("--white", help="white player spec (default: level:N from --level)")
    othello.add_argument(
        "--level",
        type=int,
        help=f"engine level {MIN_LEVEL}..{MAX_LEVEL} of the default computer side"
        f" (default: {DEFAULT_LEVEL})",
    )
    othello.add_argument("--rules", choices=["othello", "reversi"], help="rules (default: othello)")
    othello.add_argument(
        "--no-color", action="store_true", default=None, help="plain output without colours"
    )
    othello.add_argument(
        "--hints",
        action="store_true",
        default=None,
        help="show the recommended moves before each of your moves (seed 001)",
    )
    add_threads_option(othello, "every core this process may use")


def run(args: argparse.Namespace) -> int:
    if args.game == "othello":
        return _run_othello(args)
    _reject(args, _OTHELLO_OPTIONS, "othello")
    game = make_game(args.game, args.rows, args.cols, args.k)
    depth, time = _check_limits(game, args.depth, args.time)
    first = args.first or "human"
    if first == "random":
        first = random.Random(args.seed).choice(["human", "ai"])
    human = 0 if first == "human" else 1
    return play_game(game, human, depth, time)


def _reject(args: argparse.Namespace, names: tuple[str, ...], owner: str) -> None:
    for name in names:
        if getattr(args, name, None) is not None:
            option = "--" + name.replace("_", "-")
            raise OutflankError(f"{option} is an option of `outflank play {owner}` only")


def _run_othello(args: argparse.Namespace) -> int:
    _reject(args, _SMALL_OPTIONS, "tictactoe|mnk|connect4")
    args.black = args.black or "human"  # --white defaults to level:N (outflank.tui)
    args.level = DEFAULT_LEVEL if args.level is None else args.level
    args.rules = args.rules or "othello"
    args.no_color = bool(args.no_color)
    args.hints = bool(args.hints)
    check_level(args.level, "--level")
    if args.threads is not None:
        set_default_threads(args.threads)  # every engine of the game: players, hints
    try:
        tui = importlib.import_module("outflank.tui")
    except ModuleNotFoundError as exc:
        if exc.name != "outflank.tui":
            raise
        raise OutflankError(
            "othello terminal play is not available yet (outflank.tui is missing)"
        ) from None
    return int(tui.run(args) or 0)


def make_game(name: str, rows: int | None, cols: int | None, k: int | None) -> Game:
    """Build a small game from the command line's options, with clear errors."""
    for option, value in (("--rows", rows), ("--cols", cols), ("--k", k)):
        if value is not None and not 1 <= value <= _MAX_SIDE:
            raise OutflankError(f"{option} must be in 1..{_MAX_SIDE}, not {value}")
    if name == "tictactoe":
        if (rows, cols, k) != (None, None, None):
            raise OutflankError("tictactoe is 3x3 with 3 in a row; use `mnk` for other sizes")
        return TicTacToe()
    if name == "mnk":
        return MNK(rows or 3, cols or 3, k or 3)
    return ConnectFour(cols or 7, rows or 6, k or 4)


def _check_limits(
    game: Game, depth: int | None, time: float | None
) -> tuple[int | None, float | None]:
    """The AI's depth and time limits: the options, else the game's default depth
    (with a time cap, so that a big board never keeps the player waiting)."""
    if depth is not None and not 1 <= depth <= MAX_PLY:
        raise OutflankError(f"--depth must be in 1..{MAX_PLY}, not {depth}")
    if time is not None and not time > 0:
        raise OutflankError(f"--time must be a positive number of seconds, not {time}")
    if depth is None and time is None:
        depth = game.default_depth
        time = None if depth is None else DEFAULT_TIME
    return depth, time


def _summary(result: SearchResult) -> str:
    return (
        f"{result.describe()}; depth {result.depth}, {result.nodes:,} nodes, {result.elapsed:.2f} s"
    )


def play_game(
    game: Game, human: int, depth: int | None, time: float | None, out=None, read=input
) -> int:
    """Play ``game`` in the terminal: ``human`` is the person's player (0 moves first)."""
    out = out or sys.stdout
    echo = read is input and not sys.stdin.isatty()  # show piped moves in the transcript
    searcher = Searcher()
    what = "column" if isinstance(game, ConnectFour) else "cell"
    names = {human: "you", 1 - human: "AI"}

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"{game.name}: you play {game.symbols[human]}, the AI plays {game.symbols[1 - human]}.")
    say(f"Type a {what} number to move, 'undo' to take back, 'q' to quit.")
    say()
    say(game.render())
    while not game.is_over():
        symbol = game.symbols[game.turn]
        if game.turn != human:
            result = searcher.search(game, depth=depth, time=time)
            game.play(result.best_move)
            move_text = game.format_move(result.best_move)
            say(f"AI ({symbol}) plays {move_text}  [{_summary(result)}]")
            say(game.render())
            continue
        advice = searcher.search(game, depth=depth, time=time)
        say(f"Recommendation: {game.format_move(advice.best_move)}  [{_summary(advice)}]")
        while True:
            try:
                text = read(f"Your move ({symbol}, {what} number): ").strip()
            except EOFError:
                say()
                say("Input ended: game abandoned.")
                return 0
            if echo:
                say(text)
            if text.lower() in ("q", "quit", "exit"):
                say("Game abandoned.")
                return 0
            if text.lower() == "undo":
                if _undo_turn(game, human):
                    say(game.render())
                    break
                say("Nothing to take back yet.")
                continue
            try:
                move = game.parse_move(text)
                game.check_move(move)
            except OutflankError as exc:
                say(f"Not played: {exc}. Try again.")
                continue
            game.play(move)
            say(game.render())
            break
    winner = game.winner()
    if winner is None:
        say("Result: draw.")
    else:
        say(f"Result: {game.symbols[winner]} ({names[winner]}) wins.")
    return 0


def _undo_turn(game: Game, human: int) -> bool:
    """Take back the AI's reply and the person's last move; False if there is none."""
    if game.ply < 2 + human:
        return False
    game.undo()
    game.undo()
    return True
