"""``outflank replay FILE``: show a recorded game move by move."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from outflank.board import Board
from outflank.book.names import opening_name
from outflank.errors import OutflankError
from outflank.ggf import GameRecord, read_ggf_file

NAME = "replay"
HELP = "show a game from a GGF file (or a transcript file) move by move"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="GGF file (several games: pick with --game)")
    parser.add_argument("--game", type=int, default=1, help="which game of the file (from 1)")
    parser.add_argument(
        "--step", action="store_true", help="wait for Enter after each move (q quits)"
    )
    parser.add_argument("--final", action="store_true", help="show only the final position")


def _header(rec: GameRecord, number: int, count: int) -> str:
    parts = [f"game {number}/{count}: {rec.black} (black) vs {rec.white} (white)"]
    if rec.date:
        parts.append(rec.date)
    if rec.place:
        parts.append(rec.place)
    parts.append(f"result {rec.result}")
    return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    if not args.file.exists():
        raise OutflankError(f"no such file: {args.file}")
    records = read_ggf_file(args.file)
    if not 1 <= args.game <= len(records):
        raise OutflankError(f"--game must be in 1..{len(records)} for {args.file}")
    rec = records[args.game - 1]
    print(_header(rec, args.game, len(records)))
    if "C" in rec.tags:
        print(f"comment: {rec.tags['C']}")
    board = Board(rec.start.black, rec.start.white, rec.start.turn, rec.rules)
    final = rec.board()
    if args.final:
        name = opening_name(final)
        if name is not None:
            print(f"opening: {name}")
        print(final)
        return 0
    print(board)
    opening: str | None = None
    for ply, mrec in enumerate(rec.moves, 1):
        if args.step:
            try:
                answer = input("[Enter: next move, q: quit] ")
            except EOFError:
                answer = "q"
            if answer.strip().lower() in ("q", "quit"):
                return 0
        mover = board.turn.name.lower()
        if not mrec.move.is_pass and board.must_pass():
            board.push("pass")
        board.push(mrec.move)
        info = ""
        if mrec.eval is not None:
            info += f" eval {mrec.eval:+g}"
        if mrec.time is not None:
            info += f" time {mrec.time:g}s"
        print(f"\n{ply}. {mover} {mrec.move}{info}")
        name = opening_name(board)
        if name is not None and name != opening:  # as the game enters a named line
            print(f"opening: {name}")
        opening = name
        print(board, flush=True)
    if board.is_game_over():
        b, w = board.score()
        print(f"\nfinal: black {b}, white {w} ({board.result()})")
    elif "C" in rec.tags:
        print(f"\ngame stopped: {rec.tags['C']}")
    sys.stdout.flush()
    return 0
