"""Measure the error of the midgame probable cut-off's shallow searches.

The midgame search (``_core/search.c``) may cut a null-window node of depth
D when a search of depth d = 2 * (D // 4) + D % 2 clears the window by a
margin of t standard deviations of (score at D) - (score at d). This script
plays self-play games with random moves mixed in, takes positions with
``--min``..``--max`` empties, searches each to ``--depth`` plies with the
``default`` evaluator (the packaged weights, or ``--weights FILE``) and no
probable cut-offs, and prints that standard deviation (1/100 disc) for
every D: the values of ``MPC_SIGMA_TABLE``, which go with the weights
they were measured with.

Run:  python scripts/mpc_sigma.py --positions 200 --depth 12 [--bands 3] [--weights FILE]

``--bands N`` also prints the standard deviations for N bands of empties.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import _core, evaldata, evalmodel  # noqa: E402
from outflank.board import Board  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402


def shallow_depth(depth: int) -> int:
    """The depth of the search that predicts a depth-``depth`` score."""
    return 2 * (depth // 4) + depth % 2


def sample_positions(count: int, lo: int, hi: int, seed: int) -> list[tuple[int, int]]:
    """(player, opponent) bitboards from self-play games: one position per
    game, its number of empties drawn from lo..hi."""
    rng = random.Random(seed)
    searcher = _core.Searcher(16)
    positions: list[tuple[int, int]] = []
    while len(positions) < count:
        board, target = Board(), rng.randint(lo, hi)
        while board.empties > target and not board.is_game_over():
            moves = board.legal_moves
            if len(moves) == 1 or rng.random() < 0.3:  # a forced pass, or a random move
                board.push(rng.choice(moves))
            else:
                best = searcher.search(board.player, board.opponent, mode=_core.MODE_MID, depth=2)
                board.push(next(m for m in moves if m.square == best["move"]))
        if board.empties == target and board.legal_moves:
            positions.append((board.player, board.opponent))
    return positions


def use_weights(path: Path | None) -> None:
    """Make the ``default`` evaluator use the weight file at ``path`` (in
    this process; a worker calls it as it starts). None keeps the packaged
    weights."""
    if path is not None:
        evalmodel.load_into(path, 1)
        evalmodel.use(1)


def depth_scores(args: tuple[int, int, int]) -> list[int]:
    """Root scores of iterations 1..depth (run in a worker), in 1/100 disc
    (a game finished within the search counts its disc difference, not the
    search's win score, which would swamp the table)."""
    player, opponent, depth = args
    searcher = _core.Searcher(16)
    scores: list[int] = []
    searcher.search(
        player, opponent, mode=_core.MODE_MID, depth=depth,
        callback=lambda d, score, nodes, elapsed, pv: scores.append(evaldata.centidiscs(score)),
    )  # fmt: skip
    return scores


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--depth", type=int, default=12, help="deepest search (plies)")
    ap.add_argument("--min", type=int, default=20, help="fewest empties")
    ap.add_argument("--max", type=int, default=50, help="most empties")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--bands", type=int, default=1, help="also by this many bands of empties")
    ap.add_argument("--weights", type=Path, help="weight file (default: the packaged one)")
    args = ap.parse_args()
    if not 1 <= args.min <= args.max <= 59:  # a random game reaches 1..59 empties
        ap.error(f"need 1 <= --min <= --max <= 59, not {args.min}..{args.max}")
    if args.positions < 2 or not 3 <= args.depth <= 60 or args.workers < 1:
        ap.error("need --positions >= 2, --depth in 3..60 and --workers >= 1")
    if args.weights is not None:
        try:
            use_weights(args.weights)
        except (OSError, OutflankError) as exc:
            ap.error(f"--weights: {exc}")
    positions = sample_positions(args.positions, args.min, args.max, args.seed)
    with Pool(args.workers, use_weights, (args.weights,)) as pool:
        runs = pool.map(depth_scores, [(p, o, args.depth) for p, o in positions])
    empties = [64 - bin(p | o).count("1") for p, o in positions]
    # games that ended before the deepest search drop out
    kept = [(e, r) for e, r in zip(empties, runs, strict=True) if len(r) == args.depth]
    runs = [r for _, r in kept]
    print(f"{len(runs)} positions, {args.min}-{args.max} empties")
    print("depth  shallow  sigma (1/100 disc)  mean error")
    sigmas = []
    for depth in range(3, args.depth + 1):
        d = shallow_depth(depth)
        errors = [r[depth - 1] - r[d - 1] for r in runs]
        sigma = statistics.pstdev(errors)
        sigmas.append(round(sigma))
        print(f"{depth:5}  {d:7}  {sigma:18.0f}  {statistics.fmean(errors):10.0f}")
    print("MPC_SIGMA_TABLE", ", ".join(str(s) for s in sigmas))
    if args.bands > 1:  # the same standard deviations by band of empties
        step = (args.max - args.min + args.bands) // args.bands
        print("sigma by empties:", "  ".join(f"depth {d:2}" for d in range(3, args.depth + 1)))
        for lo in range(args.min, args.max + 1, step):
            hi = min(lo + step - 1, args.max)
            band = [r for e, r in kept if lo <= e <= hi]
            if len(band) < 2:
                continue
            cells = (
                statistics.pstdev([r[d - 1] - r[shallow_depth(d) - 1] for r in band])
                for d in range(3, args.depth + 1)
            )
            print(f"{lo:2}-{hi:2} ({len(band):3}):", "  ".join(f"{c:8.0f}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
