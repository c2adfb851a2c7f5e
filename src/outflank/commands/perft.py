"""``outflank perft DEPTH``: count the leaves of the game tree."""

from __future__ import annotations

import argparse
import time

from outflank.board import Board
from outflank.commands.common import board_argument, interruptible
from outflank.errors import OutflankError

NAME = "perft"
HELP = "count move-tree leaves per depth (a rules and speed check)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("depth", type=int, help="deepest depth to count (1-20)")
    parser.add_argument(
        "--position",
        type=board_argument,
        default=None,
        metavar="OBF|TRANSCRIPT",
        help="start from this position instead of the initial one",
    )
    parser.add_argument(
        "--finished-zero",
        action="store_true",
        help="count games that end before the depth as 0 leaves instead of 1",
    )


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.depth <= 20:
        raise OutflankError(f"depth must be in 1..20, not {args.depth}")
    board = args.position or Board()
    print(f"{'depth':>5} {'leaves':>14} {'seconds':>9} {'leaves/s':>14}")
    total_time = 0.0
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        count = interruptible(board.perft, depth, count_finished=not args.finished_zero)
        elapsed = time.perf_counter() - start
        total_time += elapsed
        rate = count / elapsed if elapsed > 0 else float("inf")
        print(f"{depth:>5} {count:>14,} {elapsed:>9.3f} {rate:>14,.0f}", flush=True)
    print(f"total {total_time:.3f} s")
    return 0
