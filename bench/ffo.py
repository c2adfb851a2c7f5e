"""Solve the FForum endgame positions #40-#59 and print a table, on one or more threads.

    python bench/ffo.py [--file tests/data/ffo/fforum-40-59.obf] [--tt-mb 256]
                        [--only 45-49] [--wld] [--threads 1,2] [--weights FILE]

Per position: number, empties, best move, exact score, expected (listed)
score, ok, then for each number of threads asked (``--threads 1,2``: each
position is solved with 1 thread, then with 2, in the same run) its nodes,
wall-clock seconds and CPU seconds of this process (all its threads); with
more than one thread count, also each count's wall-time speed-up over the
first and its nodes relative to the first's. Then a total line per thread
count (nodes, wall, CPU, nodes per CPU second, and against the first:
wall-time ratio, speed-up, node overhead). With one thread count the
table is the classic one with nodes per CPU second. On a shared machine
run it under ``flock -x /tmp/outflank-cpu.lock``. The first line names
the core's build in use (``OUTFLANK_NO_AVX512=1`` measures the AVX2 one on
an AVX-512 machine, ``OUTFLANK_NO_AVX2=1`` the generic one).
``--weights FILE`` solves with another weight file of the ``default``
evaluator (which orders the solver's moves) instead of the packaged one.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import _core  # noqa: E402
from outflank.engine import Engine  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402
from outflank.obf import read_obf_file  # noqa: E402
from outflank.threads import MAX_THREADS, thread_counts  # noqa: E402

FFO = ROOT / "tests" / "data" / "ffo"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=FFO / "fforum-40-59.obf")
    parser.add_argument("--tt-mb", type=int, default=256)
    parser.add_argument("--start", type=int, default=40, help="number of the file's first position")
    parser.add_argument(
        "--only", default=None, metavar="A-B", help="only positions A..B (e.g. 45-49)"
    )
    parser.add_argument("--wld", action="store_true", help="win/draw/loss only")
    parser.add_argument("--weights", type=Path, default=None, help="evaluator weight file")
    parser.add_argument(
        "--threads", default="1", metavar="N[,M...]", help="threads per solve (default 1)"
    )
    args = parser.parse_args()
    try:
        counts = thread_counts(args.threads)
    except OutflankError:
        message = f"--threads takes counts in 1..{MAX_THREADS} like 1,2"
        print(f"ffo.py: error: {message}", file=sys.stderr)
        return 2
    if args.weights:
        from outflank import evalmodel

        try:
            evalmodel.load_into(args.weights, 0)
        except (OSError, OutflankError) as exc:
            print(f"ffo.py: error: {exc}", file=sys.stderr)
            return 2

    try:
        numbered = list(enumerate(read_obf_file(args.file), args.start))
    except (OSError, OutflankError) as exc:
        print(f"ffo.py: error: {exc}", file=sys.stderr)
        return 2
    if args.only:
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", args.only.strip())
        if match is None:
            print(f"ffo.py: error: --only takes A or A-B, not {args.only!r}", file=sys.stderr)
            return 2
        low, high = int(match[1]), int(match[2] or match[1])
        numbered = [(n, e) for n, e in numbered if low <= n <= high]
    if not numbered:
        print("ffo.py: error: no position to solve (check --only and --file)", file=sys.stderr)
        return 2
    try:
        engines = {n: Engine(tt_mb=args.tt_mb, threads=n) for n in counts}
    except OutflankError as exc:
        print(f"ffo.py: error: {exc}", file=sys.stderr)
        return 2
    threads_text = ", ".join(str(n) for n in counts)
    print(f"core build: {_core.BUILD}, table {args.tt_mb} MiB, threads {threads_text}")
    if args.weights:
        print(f"evaluator weights: {args.weights}")
    header = f"{'#':>3} {'empties':>7} {'move':>4} {'score':>5} {'expected':>8} {'ok':>3}"
    for n in counts:
        header += f" {f'nodes/{n}':>14} {f'wall/{n}':>8} {f'cpu/{n}':>8}"
        if n != counts[0]:
            header += f" {f'x/{n}':>6} {f'nod/{n}':>7}"
    if len(counts) == 1:
        header += f" {'nodes/s':>12}"
    print(header)
    totals = {n: [0, 0.0, 0.0] for n in counts}  # nodes, wall, cpu
    correct = 0
    for number, entry in numbered:
        expected = entry.best_score
        if args.wld and expected is not None:
            expected = (expected > 0) - (expected < 0)
        cells, ok_all, first = "", True, None
        shown = None
        for n in counts:
            engine = engines[n]
            engine.clear()
            start, cpu_start = time.perf_counter(), time.process_time()
            result = engine.solve(entry.board, wld=args.wld)
            wall = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            ok_all &= expected is not None and result.score == expected
            shown = shown or result
            totals[n][0] += result.nodes
            totals[n][1] += wall
            totals[n][2] += cpu
            cells += f" {result.nodes:>14,} {wall:>8.2f} {cpu:>8.2f}"
            if first is None:
                first = (result.nodes, wall)
            else:
                cells += f" {first[1] / wall if wall else 0:>6.2f} {result.nodes / first[0]:>7.3f}"
            if len(counts) == 1:
                cells += f" {result.nodes / cpu if cpu else 0:>12,.0f}"
        correct += ok_all
        assert shown is not None
        print(
            f"{number:>3} {entry.board.empties:>7} {shown.best_move!s:>4} {shown.score:>+5.0f} "
            f"{'-' if expected is None else f'{expected:+d}':>8} "
            f"{'yes' if ok_all else '-' if expected is None else 'NO':>3}{cells}",
            flush=True,
        )
    base_nodes, base_wall, _ = totals[counts[0]]
    for n in counts:
        nodes, wall, cpu = totals[n]
        line = (
            f"total, {n} thread{'s' if n > 1 else ''}: {nodes:,} nodes, {wall:.1f} s wall, "
            f"{cpu:.1f} s CPU, {nodes / cpu if cpu else 0:,.0f} nodes/CPU s"
        )
        if n != counts[0] and wall and base_nodes:
            line += (
                f"; wall {wall / base_wall:.3f} of {counts[0]} thread(s) "
                f"(speed-up {base_wall / wall:.2f}), nodes {100 * (nodes / base_nodes - 1):+.1f} %"
            )
        print(line)
    listed = sum(e.best_score is not None for _, e in numbered)
    checked = f"{correct}/{listed} correct" if listed else "no listed scores to check"
    print(f"{len(numbered)} positions, {checked}")
    return 0 if correct == listed else 1


if __name__ == "__main__":
    raise SystemExit(main())
