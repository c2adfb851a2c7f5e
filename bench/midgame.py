"""Midgame time to depth on one or more threads: six positions, each thread count in the same run.

    python bench/midgame.py [--threads 1,2] [--depth 13] [--selective 0] [--tt-mb 64]

The six positions are random games of 12, 15, 18, 21, 24 and 27 moves
(seed 6; 48 to 33 empty squares). Each is searched by iterative deepening
to ``--depth`` with the ``default`` evaluator (``--selective 1.5`` adds the
probable cut-offs of the default preset and levels 19-20; a depth around
18 then takes as long as 13 without), from an empty table, once per thread
count. Per position: its empties, then for each thread count the move,
nodes and wall-clock seconds to the depth, and against the first count
the speed-up and the nodes' ratio; then totals. A parallel search reaches
the same depth with another tree (more nodes: work a cut-off made
useless; fewer: a transposition found sooner), so its move and score may
differ. Run it under ``flock -x /tmp/outflank-cpu.lock`` on a shared
machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import Board, _core  # noqa: E402
from outflank.engine import Engine  # noqa: E402
from outflank.threads import MAX_THREADS  # noqa: E402

MOVES = (12, 15, 18, 21, 24, 27)


def positions(seed: int = 6) -> list[Board]:
    """The six positions: random play from the start, one game per length."""
    rng = random.Random(seed)
    boards = []
    for plies in MOVES:
        board = Board()
        for _ in range(plies):
            board.push(rng.choice(board.legal_moves))
        boards.append(board)
    return boards


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2", metavar="N[,M...]")
    parser.add_argument("--depth", type=int, default=13)
    parser.add_argument("--selective", type=float, default=0.0)
    parser.add_argument("--tt-mb", type=int, default=64)
    args = parser.parse_args()
    try:
        counts = [int(part) for part in args.threads.split(",") if part.strip()]
        if not counts or any(not 1 <= n <= MAX_THREADS for n in counts):
            raise ValueError
    except ValueError:
        parser.error(f"--threads takes counts in 1..{MAX_THREADS} like 1,2")
    if not 1 <= args.depth <= 60:
        parser.error("--depth must be in 1..60")
    print(
        f"core build: {_core.BUILD}, table {args.tt_mb} MiB, depth {args.depth}, "
        f"selective {args.selective}, threads {', '.join(map(str, counts))}"
    )
    header = f"{'pos':>3} {'empties':>7}"
    for n in counts:
        header += f" {f'move/{n}':>6} {f'nodes/{n}':>13} {f's/{n}':>7}"
        if n != counts[0]:
            header += f" {f'x/{n}':>6} {f'nod/{n}':>7}"
    print(header)
    totals = {n: [0, 0.0] for n in counts}
    for number, board in enumerate(positions(), 1):
        line, first = f"{number:>3} {board.empties:>7}", None
        for n in counts:
            engine = Engine(tt_mb=args.tt_mb, threads=n, selective=args.selective, endgame=0)
            start = time.perf_counter()
            result = engine.search(board, depth=args.depth)
            seconds = time.perf_counter() - start
            totals[n][0] += result.nodes
            totals[n][1] += seconds
            line += f" {result.best_move!s:>6} {result.nodes:>13,} {seconds:>7.2f}"
            if first is None:
                first = (result.nodes, seconds)
            else:
                line += f" {first[1] / seconds:>6.2f} {result.nodes / first[0]:>7.3f}"
        print(line, flush=True)
    base_nodes, base_time = totals[counts[0]]
    for n in counts:
        nodes, seconds = totals[n]
        text = f"total, {n} thread{'s' if n > 1 else ''}: {nodes:,} nodes, {seconds:.2f} s"
        if n != counts[0]:
            overhead = 100 * (nodes / base_nodes - 1)
            text += (
                f"; time to depth {seconds / base_time:.3f} of {counts[0]} thread(s) "
                f"(speed-up {base_time / seconds:.2f}), nodes {overhead:+.1f} %"
            )
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
