"""Analysis cost: what scoring the moves costs against a search for the best one.

    python bench/analysis.py [--depth 13] [--count 20] [--seed 7] [--selective 0.8]
                             [--windows 0,1,2,4,8] [--multipv 3] [--threads 1]
    python bench/analysis.py --empties 18 --count 8 --windows 0,4 --multipv 3

Each position comes from a random game of 12-27 moves (bench/midgame.py's,
the same seed gives the same positions). Every position is searched once
per mode with a cleared table of its own engine: a plain search for the best
move, an analysis scoring every move exactly (window 0), analyses within
each window (discs: a move further below the best only bounded,
``Engine(analysis_window=W)``) and the multi-PV analysis of the k best
(``analyze(multipv=k)``), through the core's ``Searcher`` as the engine
drives it (the ``default`` evaluator, its probable cut-offs at
``--selective`` standard deviations, no exact endgame). The table gives
per mode the nodes and seconds over all positions, the time against the
search's, the share of moves only bounded and in how many positions the
mode's best score is the exact analysis's. With ``--empties N`` the
positions are played on to N empties (random moves) and solved instead:
the exact solve, then the solver's analyses.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from midgame import positions  # noqa: E402
from outflank import Board, _core  # noqa: E402
from outflank.engine import MODE_EXACT, MODE_MID  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402
from outflank.threads import check_threads  # noqa: E402


def endgame_positions(count: int, seed: int, empties: int) -> list[Board]:
    """``count`` positions of ``empties`` empty squares by random play."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board()
        while board.empties > empties and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over() and board.legal_moves:
            found.append(board)
    return found


def _modes(windows: list[float], multipv: int, unit: float) -> list[tuple[str, dict]]:
    """(label, the core's search arguments) per mode, the plain search first;
    ``unit``: the core's score unit in discs (1/100 in the midgame)."""
    modes: list[tuple[str, dict]] = [("search", {})]
    for w in windows:
        label = "every move" if w == 0 else f"window {w:g}"
        modes.append((label, {"analyze": True, "window": math.ceil(w / unit)}))
    if multipv:
        modes.append((f"{multipv} best", {"analyze": True, "multipv": multipv}))
    return modes


def run(args: argparse.Namespace) -> None:
    solving = args.empties is not None
    if solving:
        boards = endgame_positions(args.count, args.seed, args.empties)
        limits = {"mode": MODE_EXACT}
    else:
        boards = positions(args.count, args.seed)
        limits = {"mode": MODE_MID, "depth": args.depth, "selective": round(100 * args.selective)}
    modes = _modes(args.windows, args.multipv, 1.0 if solving else 0.01)
    searcher = _core.Searcher(64, threads=args.threads)
    searcher.search(Board().player, Board().opponent, depth=2)  # the weights, outside the timing
    totals = {label: [0, 0.0, 0, 0, 0] for label, _ in modes}  # nodes, s, bounded, moves, same
    for board in boards:
        found = {}
        for label, call in modes:
            searcher.clear()
            start = time.perf_counter()
            raw = searcher.search(board.player, board.opponent, **limits, **call)
            elapsed = time.perf_counter() - start
            row = totals[label]
            row[0] += raw["nodes"]
            row[1] += elapsed
            if call:
                row[2] += sum(1 for _, _, searched, upper in raw["moves"] if searched and upper)
                row[3] += sum(1 for _, _, searched, _ in raw["moves"] if searched)
            found[label] = raw["moves"][0][1]  # the best move's score (exact: never bounded)
        for label in found:
            totals[label][4] += found[label] == found["every move"]
    kind = (
        f"{args.empties} empties, solved"
        if solving
        else f"depth {args.depth}, selective {args.selective:g}"
    )
    print(f"core build: {_core.BUILD}, {len(boards)} positions, {kind}, threads {args.threads}")
    print(f"{'mode':<12} {'nodes':>14} {'seconds':>9} {'x search':>9} {'bounded':>8} {'best':>6}")
    base = totals["search"][1] or 1e-9
    for label, (nodes, seconds, bounded, moves, same) in totals.items():
        share = f"{100 * bounded / moves:.0f} %" if moves else "-"
        print(
            f"{label:<12} {nodes:>14,} {seconds:>9.2f} {seconds / base:>9.2f} {share:>8}"
            f" {same:>3}/{len(boards)}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=13)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--selective", type=float, default=0.8)
    parser.add_argument("--windows", default="0,1,2,4,8", help="discs; 0: every move exactly")
    parser.add_argument("--multipv", type=int, default=3, help="0: none")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--empties", type=int, help="solve positions of this many empties")
    args = parser.parse_args()
    try:
        args.windows = [float(w) for w in args.windows.split(",")]
        if any(not 0 <= w <= 64 for w in args.windows) or 0 not in args.windows:
            raise ValueError
    except ValueError:
        message = "--windows takes discs in 0..64 like 0,2,4, with 0 (every move) among them"
        print(f"analysis.py: error: {message}", file=sys.stderr)
        return 2
    if not 1 <= args.depth <= 30 or args.count < 1 or not 0 <= args.multipv <= 64:
        print(
            "analysis.py: error: --depth takes 1..30, --count 1 or more, --multipv 0..64",
            file=sys.stderr,
        )
        return 2
    if args.empties is not None and not 1 <= args.empties <= 24:
        print("analysis.py: error: --empties takes 1..24", file=sys.stderr)
        return 2
    try:
        check_threads(args.threads)
    except OutflankError as exc:
        print(f"analysis.py: error: {exc}", file=sys.stderr)
        return 2
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
