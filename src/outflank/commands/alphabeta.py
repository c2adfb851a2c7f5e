"""``outflank alphabeta [INPUT] [OUTPUT]``: seed 002's input.txt -> output.txt task."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from outflank.assignment import ORDERS, run_task

NAME = "alphabeta"
HELP = "seed 002's task: read input.txt, run alpha-beta, write output.txt with the traverse log"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input", nargs="?", default="input.txt", help="the task file (default: input.txt)"
    )
    parser.add_argument(
        "output",
        nargs="?",
        default="output.txt",
        help="where to write the answer (default: output.txt; - for standard output)",
    )
    variant = parser.add_mutually_exclusive_group()
    variant.add_argument(
        "--minimax",
        dest="algorithm",
        action="store_const",
        const="minimax",
        default="alphabeta",
        help="plain minimax instead: the log has the columns Node,Depth,Value",
    )
    variant.add_argument(
        "--greedy",
        dest="algorithm",
        action="store_const",
        const="greedy",
        help="one move deep, no log: just the next board",
    )
    parser.add_argument(
        "--log-only", action="store_true", help="write the traverse log without the board"
    )
    parser.add_argument(
        "--order",
        choices=ORDERS,
        default=None,
        help="the log's order (alpha-beta only): update-first (default; seed 002's example)"
        " updates alpha/beta, logs, then tests the cut-off; test-first (AIMA figure 5.7,"
        " the exercise's official samples) tests first and logs a node that cuts off"
        " with its old alpha/beta",
    )


def run(args: argparse.Namespace) -> int:
    to_stdout = args.output == "-"
    text = run_task(
        Path(args.input),
        None if to_stdout else Path(args.output),
        args.algorithm,
        log_only=args.log_only,
        order=args.order,
    )
    if to_stdout:
        sys.stdout.write(text)
    return 0
