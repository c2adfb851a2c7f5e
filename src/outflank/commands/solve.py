"""``outflank solve FILE.obf``: solve every position of an OBF suite exactly."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from outflank.board import BLACK
from outflank.commands.common import add_threads_option, interruptible, progress_bar
from outflank.engine import Engine
from outflank.errors import OutflankError
from outflank.obf import ObfEntry, read_obf_file

NAME = "solve"
HELP = "solve the positions of an OBF file exactly and check the listed scores"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="OBF file (one position per line)")
    parser.add_argument("--wld", action="store_true", help="only win/draw/loss (faster)")
    parser.add_argument("--tt-mb", type=int, default=64, help="transposition table MiB (64)")
    add_threads_option(parser, "every core this process may use")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    entries = read_obf_file(args.file)
    if not entries:
        raise OutflankError(f"{args.file}: no positions")
    engine = Engine(tt_mb=args.tt_mb, threads=args.threads)
    header = (
        f"{'#':>3} {'empties':>7} {'move':>4} {'score':>5} {'listed':>6} {'ok':>3} "
        f"{'nodes':>14} {'time':>8} {'nodes/s':>12}"
    )
    print(header, flush=True)
    progress = progress_bar() if not args.no_progress and sys.stderr.isatty() else None
    task = None
    if progress is not None:
        progress.start()
        task = progress.add_task(str(args.file.name), total=len(entries))
    total_nodes = correct = checked = 0
    start = time.perf_counter()
    try:
        for number, entry in enumerate(entries, 1):
            board = entry.board
            if board.is_game_over():
                raise OutflankError(f"{args.file}:{entry.line}: the game is over")
            result = interruptible(engine.solve, board, wld=args.wld, on_interrupt=engine.stop)
            listed = entry.best_score
            if listed is not None and args.wld:
                listed = (listed > 0) - (listed < 0)
            ok = "-" if listed is None else _verdict(engine, entry, result.score, args.wld)
            if listed is not None:
                checked += 1
                correct += ok == "yes"
            total_nodes += result.nodes
            print(
                f"{number:>3} {board.empties:>7} {result.best_move!s:>4} {result.score:>+5.0f} "
                f"{'-' if listed is None else f'{listed:+d}':>6} {ok:>3} {result.nodes:>14,} "
                f"{result.elapsed:>8.2f} {result.nps:>12,.0f}",
                flush=True,
            )
            if progress is not None and task is not None:
                progress.advance(task)
    finally:
        if progress is not None:
            progress.stop()
    elapsed = time.perf_counter() - start
    rate = total_nodes / elapsed if elapsed > 0 else 0.0
    listed = f"{correct}/{checked} match the listed scores" if checked else "no scores listed"
    print(
        f"total: {len(entries)} position{'s' if len(entries) != 1 else ''}, {listed}, "
        f"{total_nodes:,} nodes, {elapsed:.2f} s, {rate:,.0f} nodes/s"
    )
    return 0 if correct == checked else 1


def _verdict(engine: Engine, entry: ObfEntry, value: float, wld: bool) -> str:
    """``yes`` if the listed scores agree with the solved value ``value``.

    The best listed score must be the value; a list without the best move
    (a partial list) is checked move by move instead, each listed move solved
    after it is played."""

    def sign(score: float) -> float:
        return (score > 0) - (score < 0) if wld else score

    best = entry.best_score
    assert best is not None
    if value == sign(best):
        return "yes"
    if value < sign(best):  # a listed move does better than the exact value
        return "no"
    mover = entry.board.turn
    for move, score in entry.scores.items():
        child = entry.board.copy(stack=False)
        child.push(move)
        outcome = child.outcome()
        if outcome is not None:  # the move ends the game
            got = sign(outcome.margin if mover is BLACK else -outcome.margin)
        else:
            got = -interruptible(engine.solve, child, wld=wld, on_interrupt=engine.stop).score
        if got != sign(score):
            return "no"
    return "yes"
