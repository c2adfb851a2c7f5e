"""Write endgame positions from randomised self-play, as an OBF file for bench/ffo.py.

    python bench/positions.py [--empties 24] [--count 30] [--every 5] [--seed 1] > set.obf
    python bench/ffo.py --file set.obf --start 1

A change to the solver's move order can halve or double one FFO position by
luck (a refutation found through a transposition or not), so a change that
alters the tree is also measured on positions of ordinary play. Each game
starts with random moves until 52 empties, then plays the `default`
evaluator's depth-4 choice, with a random move 15 % of the time, and stops
at the given number of empties (games that end or pass into nothing first
are dropped). Of the positions made, every `--every`-th is written, `--count`
in all. The same arguments always give the same file; the defaults are the
30 positions of 24 empties in docs/benchmarks.md ("Self-play endgames").
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import Board  # noqa: E402
from outflank.engine import Engine  # noqa: E402

OPENING_EMPTIES = 52  # random moves until this many empties
RANDOM_MOVE = 0.15  # then the engine's move, except this often


def self_play_position(rng: random.Random, engine: Engine, empties: int) -> Board | None:
    """One game from the start to `empties` empty squares, or None if it ends first."""
    board = Board()
    while True:
        left = board.obf().split()[0].count("-")
        if left == empties:
            return board if board.legal_moves else None
        moves = list(board.legal_moves)
        if not moves:
            return None
        if left > OPENING_EMPTIES or rng.random() < RANDOM_MOVE:
            board.push(rng.choice(moves))
        else:
            board.push(engine.search(board, depth=4).best_move)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--empties", type=int, default=24, help="empty squares (1-52)")
    parser.add_argument("--count", type=int, default=30, help="positions to write")
    parser.add_argument("--every", type=int, default=5, help="keep every N-th position made")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.empties <= OPENING_EMPTIES:
        parser.error(f"--empties must be 1..{OPENING_EMPTIES}")
    if args.count < 1 or args.every < 1:
        parser.error("--count and --every must be at least 1")

    rng = random.Random(args.seed)
    engine = Engine(depth=4, threads=1)  # one thread: the same moves every time
    made = 0
    written = 0
    while written < args.count:
        board = self_play_position(rng, engine, args.empties)
        if board is None:
            continue
        if made % args.every == 0:
            print(board.obf(), flush=True)
            written += 1
        made += 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
