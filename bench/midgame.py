"""Midgame search speed: fixed-depth searches of reproducible positions.

    python bench/midgame.py [--depth 11] [--count 6] [--seed 1]
                            [--evaluator default] [--selective 0]

Each position comes from a random game of 12-27 moves (the same seed gives
the same positions; games that end early are skipped). Per position: the
moves played, empties, best move, score, nodes, CPU seconds and nodes per
CPU second of a fresh ``Engine`` (64 MiB table, no exact endgame) searching
to the given depth (with ``--selective`` its probable cut-offs); then a total
line. Evaluations
made only to order moves are not counted as nodes. Run it alone on the
machine for timings (CPU seconds of this process).
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


def positions(count: int, seed: int) -> list[Board]:
    """``count`` positions after 12-27 random moves, reproducible from ``seed``."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board()
        for _ in range(rng.randint(12, 27)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        else:
            if board.legal_moves:
                found.append(board)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=11)
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--evaluator", default="default")
    parser.add_argument("--selective", type=float, default=0.0)
    args = parser.parse_args()
    if not 1 <= args.depth <= 30 or args.count < 1:
        print("midgame.py: error: --depth takes 1..30 and --count 1 or more", file=sys.stderr)
        return 2

    print(f"core build: {_core.BUILD}, evaluator {args.evaluator}, depth {args.depth}")
    print(
        f"{'#':>3} {'moves':>5} {'empties':>7} {'move':>4} {'score':>7} "
        f"{'nodes':>12} {'cpu':>7} {'nodes/s':>12}"
    )
    Engine(args.evaluator).search(Board(), depth=4)  # loads the weights, outside the timing
    total_nodes, total_cpu = 0, 0.0
    for number, board in enumerate(positions(args.count, args.seed), 1):
        engine = Engine(args.evaluator, selective=args.selective, endgame=0)
        cpu_start = time.process_time()
        result = engine.search(board, depth=args.depth)
        cpu = time.process_time() - cpu_start
        total_nodes += result.nodes
        total_cpu += cpu
        print(
            f"{number:>3} {board.ply:>5} {board.empties:>7} {result.best_move!s:>4} "
            f"{result.score:>+7.2f} {result.nodes:>12,} {cpu:>7.2f} "
            f"{result.nodes / cpu if cpu else 0:>12,.0f}",
            flush=True,
        )
    print(
        f"total: {args.count} positions, {total_nodes:,} nodes, {total_cpu:.2f} s CPU, "
        f"{total_nodes / total_cpu if total_cpu else 0:,.0f} nodes/CPU s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
