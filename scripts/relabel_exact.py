"""Replace the labels of self-play positions by their exact endgame scores.

``scripts/train_eval.py`` labels a position with the final result of its
self-play game: exact from ``--exact`` (14) empties on, where both sides
play perfectly, but only the result of depth-4 play before that. This
script solves every position of a data file with ``--min``..``--max``
empties with the engine's exact solver and writes a copy of the file with
those labels replaced, so the fit sees exact scores further from the end.

Run:  python scripts/relabel_exact.py /tmp/r1.npz /tmp/r1x.npz --max 18
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import _core  # noqa: E402
from outflank.engine import MODE_EXACT  # noqa: E402

_searcher = None


def solve(position: tuple[int, int]) -> int:
    """Exact final disc difference from the mover's view (run in a worker)."""
    global _searcher
    if _searcher is None:
        _searcher = _core.Searcher(16)
    player, opponent = position
    return _searcher.search(int(player), int(opponent), mode=MODE_EXACT)["score"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="npz written by train_eval.py --cache")
    ap.add_argument("target", type=Path)
    ap.add_argument("--min", type=int, default=15, help="fewest empties to solve")
    ap.add_argument("--max", type=int, default=18, help="most empties to solve")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if not 0 <= args.min <= args.max <= 24:
        ap.error("need 0 <= --min <= --max <= 24")
    if not args.source.is_file():
        ap.error(f"{args.source}: no such file")
    if not args.target.parent.is_dir():  # before the solving, not after
        ap.error(f"{args.target}: no folder {args.target.parent}")
    data = dict(np.load(args.source))
    empties = 64 - np.bitwise_count(data["P"] | data["O"]).astype(np.int64)
    labels = data["label"].copy()
    with Pool(args.workers) as pool:
        for e in range(args.min, args.max + 1):
            start = time.time()
            idx = np.where(empties == e)[0]
            jobs = list(zip(data["P"][idx].tolist(), data["O"][idx].tolist(), strict=True))
            scores = np.array(pool.map(solve, jobs, chunksize=256), dtype=np.int32)
            changed = int((scores != labels[idx]).sum())
            labels[idx] = scores
            print(
                f"{e} empties: {len(idx)} positions, {changed} labels changed, "
                f"{time.time() - start:.0f} s",
                flush=True,
            )
    data["label"] = labels
    np.savez_compressed(args.target, **data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
