"""Midgame search speed: fixed-depth searches of reproducible positions, on one or more threads.

    python bench/midgame.py [--depth 11] [--count 6] [--seed 1]
                            [--evaluator default] [--selective 0] [--threads 1]
    python bench/midgame.py --depth 13 --threads 1,2      # time to depth, 1 and 2 threads
    python bench/midgame.py --timed 0.03 --count 180 --threads 1,2 [--spin 0,100]

Each position comes from a random game of 12-27 moves (the same seed gives
the same positions; games that end early are skipped). With one thread
count: per position the moves played, empties, best move, score, nodes,
CPU seconds and nodes per CPU second of a fresh ``Engine`` (64 MiB table, no
exact endgame) searching to the given depth (with ``--selective`` its
probable cut-offs) on that many threads; then a total line. Evaluations
made only to order moves are not counted as nodes. With several
(``--threads 1,2``), each position is searched once per count in the same
run, and the table gives each count's nodes and wall-clock seconds to the
depth, and against the first count the speed-up and the nodes' ratio (a
parallel search reaches the depth with a slightly different tree, so its
move and score may differ); then a total line per count. Run it alone on
the machine for timings (``flock -x /tmp/outflank-cpu.lock``).

``--timed T`` searches each position with the ``default`` preset (its
probable cut-offs, no exact endgame) for T seconds instead of to a depth,
as a match does, on each thread count and, on several threads, with each
``--spin`` value (``_core.tune("par_spin", us)``: how long an idle thread
polls before it sleeps); it prints per setting the nodes a second, the
mean depth reached and the mean time, and the nodes a second against the
first setting's.
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
from outflank.errors import OutflankError  # noqa: E402
from outflank.threads import MAX_THREADS, thread_counts  # noqa: E402


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


def one_count(args: argparse.Namespace, threads: int) -> None:
    """The classic table: CPU seconds and nodes per CPU second."""
    print(
        f"{'#':>3} {'moves':>5} {'empties':>7} {'move':>4} {'score':>7} "
        f"{'nodes':>12} {'cpu':>7} {'nodes/s':>12}"
    )
    total_nodes, total_cpu = 0, 0.0
    for number, board in enumerate(positions(args.count, args.seed), 1):
        engine = Engine(args.evaluator, selective=args.selective, endgame=0, threads=threads)
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


def several_counts(args: argparse.Namespace, counts: list[int]) -> None:
    """Time to depth on each thread count, in the same run."""
    header = f"{'#':>3} {'moves':>5} {'empties':>7}"
    for n in counts:
        header += f" {f'move/{n}':>6} {f'nodes/{n}':>13} {f's/{n}':>7}"
        if n != counts[0]:
            header += f" {f'x/{n}':>6} {f'nod/{n}':>7}"
    print(header)
    totals = {n: [0, 0.0] for n in counts}
    for number, board in enumerate(positions(args.count, args.seed), 1):
        line, first = f"{number:>3} {board.ply:>5} {board.empties:>7}", None
        for n in counts:
            engine = Engine(args.evaluator, selective=args.selective, endgame=0, threads=n)
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


def timed(args: argparse.Namespace, counts: list[int], spins: list[int]) -> None:
    """Timed searches: nodes a second and depth reached per setting."""
    boards = positions(args.count, args.seed)
    default_spin = _core.tune()["par_spin"]
    settings = [(n, s) for n in counts for s in (spins if n > 1 else [default_spin])]
    print(f"{'threads':>7} {'spin us':>7} {'positions':>9} {'nodes/s':>12} {'depth':>6} "
          f"{'ms':>6} {'ratio':>6}")  # fmt: skip
    base = None
    try:
        for n, spin in settings:
            _core.tune("par_spin", spin)
            engine = Engine.preset("default", endgame=0, threads=n)
            nodes, seconds, depths = 0, 0.0, 0
            for board in boards:
                engine.clear()
                result = engine.search(board, time=args.timed)
                nodes += result.nodes
                seconds += result.elapsed
                depths += result.depth
            rate = nodes / seconds if seconds else 0.0
            base = base or rate
            print(
                f"{n:>7} {spin:>7} {len(boards):>9} {rate:>12,.0f} {depths / len(boards):>6.2f} "
                f"{1000 * seconds / len(boards):>6.1f} {rate / base if base else 0:>6.2f}",
                flush=True,
            )
    finally:
        _core.tune("par_spin", default_spin)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=11)
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--evaluator", default="default")
    parser.add_argument("--selective", type=float, default=0.0)
    parser.add_argument("--threads", default="1", metavar="N[,M...]")
    parser.add_argument("--timed", type=float, metavar="SECONDS", help="timed searches instead")
    parser.add_argument("--spin", default=None, metavar="US[,US...]", help="with --timed")
    args = parser.parse_args()
    if args.timed is not None and not 0 < args.timed <= 60:
        print("midgame.py: error: --timed takes seconds in (0, 60]", file=sys.stderr)
        return 2
    if args.spin is not None and args.timed is None:
        print("midgame.py: error: --spin goes with --timed", file=sys.stderr)
        return 2
    try:
        spins = [int(x) for x in args.spin.split(",")] if args.spin else [_core.tune()["par_spin"]]
        if any(x < 0 for x in spins):
            raise ValueError
    except ValueError:
        print("midgame.py: error: --spin takes microseconds >= 0 like 0,100", file=sys.stderr)
        return 2
    if not 1 <= args.depth <= 30 or args.count < 1:
        print("midgame.py: error: --depth takes 1..30 and --count 1 or more", file=sys.stderr)
        return 2
    try:
        counts = thread_counts(args.threads)
    except OutflankError:
        message = f"--threads takes counts in 1..{MAX_THREADS} like 1,2"
        print(f"midgame.py: error: {message}", file=sys.stderr)
        return 2

    setting = (
        f"the default preset, {args.timed:g} s a search"
        if args.timed is not None
        else f"evaluator {args.evaluator}, depth {args.depth}, selective {args.selective:g}"
    )
    print(f"core build: {_core.BUILD}, {setting}, threads {', '.join(map(str, counts))}")
    Engine(args.evaluator).search(Board(), depth=4)  # loads the weights, outside the timing
    if args.timed is not None:
        timed(args, counts, spins)
    elif len(counts) == 1:
        one_count(args, counts[0])
    else:
        several_counts(args, counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
