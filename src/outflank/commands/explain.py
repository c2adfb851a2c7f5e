"""``outflank explain POSITION --depth N``: show a search tree and what pruning saves."""

from __future__ import annotations

import argparse
import json

from outflank.classic import ORDERS
from outflank.commands.common import board_argument
from outflank.errors import OutflankError
from outflank.explain import EVALUATION_NAMES, explain

NAME = "explain"
HELP = "show the minimax or alpha-beta tree of a position and the nodes alpha-beta saves"

MAX_DEPTH = 8
SHOW_PLIES = 4


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "position",
        type=board_argument,
        help='an OBF line, a transcript such as "f5d6c3", or "start"',
    )
    parser.add_argument(
        "--depth", type=int, default=2, help=f"moves to look ahead, 0-{MAX_DEPTH} (default 2)"
    )
    parser.add_argument(
        "--algorithm",
        choices=("alphabeta", "minimax"),
        default="alphabeta",
        help="the tree to show (default alphabeta); both are counted",
    )
    parser.add_argument(
        "--eval",
        dest="evaluation",
        choices=EVALUATION_NAMES,
        default="weights",
        help="leaf evaluation (default weights: seed 002's positional weights)",
    )
    parser.add_argument(
        "--show",
        type=int,
        default=SHOW_PLIES,
        metavar="PLIES",
        help=f"plies of the tree to print; deeper subtrees are folded into one line"
        f" (default {SHOW_PLIES}; the counts always cover the whole search)",
    )
    parser.add_argument(
        "--order",
        choices=ORDERS,
        default=None,
        help="alpha-beta's log order: update-first (default; seed 002's example) or"
        " test-first (AIMA figure 5.7); only the window logged at a cut-off differs",
    )
    parser.add_argument("--json", action="store_true", help="print the trace as JSON")


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.depth <= MAX_DEPTH:
        raise OutflankError(f"--depth must be in 0..{MAX_DEPTH}, not {args.depth}")
    if args.show < 1:
        raise OutflankError(f"--show must be at least 1, not {args.show}")
    if args.order is not None and args.algorithm != "alphabeta":
        raise OutflankError("--order applies to the alpha-beta tree, not to minimax")
    report = explain(
        args.position, args.depth, args.algorithm, args.evaluation, order=args.order or ORDERS[0]
    )
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
    else:
        print(report.render(args.show))
    return 0
