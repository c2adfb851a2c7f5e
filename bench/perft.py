"""Perft benchmark: leaves, seconds and leaves/s per depth from the start.

python bench/perft.py [MAX_DEPTH]
"""

from __future__ import annotations

import sys
import time

from outflank import Board

KNOWN = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800]


def main(max_depth: int = 11) -> None:
    board = Board()
    print(f"{'depth':>5} {'leaves':>14} {'ok':>3} {'seconds':>9} {'leaves/s':>14}")
    for depth in range(1, max_depth + 1):
        start = time.perf_counter()
        count = board.perft(depth)
        elapsed = time.perf_counter() - start
        ok = "yes" if depth > len(KNOWN) or KNOWN[depth - 1] == count else "NO"
        rate = count / elapsed if elapsed else float("inf")
        print(f"{depth:>5} {count:>14,} {ok:>3} {elapsed:>9.3f} {rate:>14,.0f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
