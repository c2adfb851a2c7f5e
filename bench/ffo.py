"""Solve the FForum endgame positions #40-#59 single-threaded and print a table.

    python bench/ffo.py [--file tests/data/ffo/fforum-40-59.obf] [--tt-mb 256]
                        [--only 45-49] [--wld]

Per position: number, empties, best move, exact score, expected (listed)
score, ok, nodes, wall-clock seconds, CPU seconds of this process, nodes per
CPU second; then a total line. On a shared machine the CPU time is the
fairer figure (run ``uptime`` alongside to see the load). The first line
names the core's build in use (``OUTFLANK_NO_AVX512=1`` measures the AVX2
one on an AVX-512 machine, ``OUTFLANK_NO_AVX2=1`` the generic one).
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
    args = parser.parse_args()

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
        engine = Engine(tt_mb=args.tt_mb)
    except OutflankError as exc:
        print(f"ffo.py: error: {exc}", file=sys.stderr)
        return 2
    print(f"core build: {_core.BUILD}, table {args.tt_mb} MiB, one thread")
    print(
        f"{'#':>3} {'empties':>7} {'move':>4} {'score':>5} {'expected':>8} {'ok':>3} "
        f"{'nodes':>14} {'time':>8} {'cpu':>8} {'nodes/s':>12}"
    )
    total_nodes, total_time, total_cpu, correct = 0, 0.0, 0.0, 0
    for number, entry in numbered:
        engine.clear()
        start, cpu_start = time.perf_counter(), time.process_time()
        result = engine.solve(entry.board, wld=args.wld)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        expected = entry.best_score
        if args.wld and expected is not None:
            expected = (expected > 0) - (expected < 0)
        ok = expected is not None and result.score == expected
        correct += ok
        total_nodes += result.nodes
        total_time += elapsed
        total_cpu += cpu
        print(
            f"{number:>3} {entry.board.empties:>7} {result.best_move!s:>4} {result.score:>+5.0f} "
            f"{'-' if expected is None else f'{expected:+d}':>8} "
            f"{'yes' if ok else '-' if expected is None else 'NO':>3} "
            f"{result.nodes:>14,} {elapsed:>8.2f} "
            f"{cpu:>8.2f} {result.nodes / cpu if cpu else 0:>12,.0f}",
            flush=True,
        )
    listed = sum(e.best_score is not None for _, e in numbered)
    checked = f"{correct}/{listed} correct" if listed else "no listed scores to check"
    print(
        f"total: {len(numbered)} positions, {checked}, {total_nodes:,} nodes, "
        f"{total_time:.1f} s wall, {total_cpu:.1f} s CPU, "
        f"{total_nodes / total_cpu if total_cpu else 0:,.0f} nodes/CPU s"
    )
    return 0 if correct == listed else 1


if __name__ == "__main__":
    raise SystemExit(main())
