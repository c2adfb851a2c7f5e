"""Nodes visited by the classic minimax and alpha-beta, and their speed.

    python bench/classic_nodes.py [MAX_DEPTH]

Prints one row per position and depth: nodes visited by each algorithm,
the share alpha-beta saves, cut-offs, and nodes per second of pure Python.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from outflank.board import Board
from outflank.classic import alphabeta, minimax


def random_game(plies: int, seed: int) -> str:
    """The transcript of a reproducible random game of ``plies`` moves."""
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        board.push(rng.choice(board.legal_moves))
    return board.transcript()


POSITIONS = {
    "start": "",
    "opening f5d6c3d3c4": "f5d6c3d3c4",
    "random 20 plies": random_game(20, 7),
    "random 44 plies": random_game(44, 7),
}


def main() -> None:
    max_depth = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    header = f"{'position':<22} {'depth':>5} {'minimax':>9} {'alphabeta':>9} {'saved':>7}"
    print(header + f" {'cut-offs':>8} {'mm nodes/s':>11} {'ab nodes/s':>11}")
    for name, transcript in POSITIONS.items():
        board = Board.from_transcript(transcript)
        for depth in range(1, max_depth + 1):
            start = time.perf_counter()
            full = minimax(board, depth)
            mid = time.perf_counter()
            pruned = alphabeta(board, depth)
            end = time.perf_counter()
            assert full.value == pruned.value and full.best_move == pruned.best_move
            saved = 100.0 * (full.nodes - pruned.nodes) / full.nodes
            print(
                f"{name:<22} {depth:>5} {full.nodes:>9} {pruned.nodes:>9} {saved:>6.1f}%"
                f" {pruned.cutoffs:>8} {full.nodes / (mid - start):>11,.0f}"
                f" {pruned.nodes / (end - mid):>11,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
