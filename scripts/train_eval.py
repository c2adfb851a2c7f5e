"""Fit the weights of outflank's ``default`` evaluator; write eval_weights.h.

Procedure (see docs/evaluation.md):

1. Self-play: ``--games`` games, each opened with 4..19 random plies (chosen
   from the game's seed), then fixed-depth alpha-beta (``--depth``) with the
   current default evaluator, then perfect play from ``--exact`` empties on
   (``_core.train_game``; runs in ``--workers`` processes).
2. Every position after the random opening is labelled with the game's final
   disc difference from the mover's view: exact (perfect play by both sides)
   at ``--exact`` empties or fewer, the result of good play before that.
3. Features: the evaluator's own (``_core.eval_features``): 8 pattern
   look-ups (4 edges, 4 corner 3x3 blocks) plus numeric features.
4. Ridge least squares (conjugate gradients, Jacobi preconditioned) of the
   label on the features, the weights being piecewise linear in the number of empties between anchor
   phases. 10 % of the games are held out to report the error.
5. The weights, in 1/100 disc, go to src/outflank/_core/eval_weights.h;
   rebuild the extension afterwards (``python setup.py build_ext --inplace``).

Run:  python scripts/train_eval.py --games 30000 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import LinearOperator, cg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import _core  # noqa: E402

LAYOUT = _core.eval_layout()
NPAT = LAYOUT["patterns"]  # pattern look-ups per position
PAT_W = LAYOUT["pattern_weights"]  # pattern weights per phase
NUM = LAYOUT["numeric"]
NUM_NAMES = ["mobility", "potential mobility", "stable discs", "discs", "parity", "corners"]
ANCHORS = [0, 12, 24, 36, 48, 60]
HEADER = ROOT / "src" / "outflank" / "_core" / "eval_weights.h"


def play(job: tuple[int, int, int]) -> tuple[bytes, bytes, bytes, int]:
    """One self-play game (run in a worker); keeps positions after the opening."""
    seed, depth, exact = job
    random_plies = 4 + (seed * 7919) % 16
    p, o, labels, _black, nodes = _core.train_game(
        seed * 0x9E3779B97F4A7C15 % 2**64, random_plies, depth, exact
    )
    cut = random_plies * 8
    return p[cut:], o[cut:], labels[cut // 2 :], nodes


def generate(games: int, depth: int, exact: int, workers: int, seed0: int) -> dict:
    """Self-play data: bitboards, labels, game ids."""
    start = time.time()
    jobs = [(seed0 + i, depth, exact) for i in range(games)]
    ps, os_, ls, gid = [], [], [], []
    nodes = 0
    with Pool(workers) as pool:
        for i, (p, o, lab, n) in enumerate(pool.imap(play, jobs, chunksize=64)):
            ps.append(p)
            os_.append(o)
            ls.append(lab)
            gid.append(np.full(len(p) // 8, i, dtype=np.int32))
            nodes += n
            if (i + 1) % 2000 == 0:
                print(f"  {i + 1}/{games} games, {time.time() - start:.0f} s", flush=True)
    data = {
        "P": np.frombuffer(b"".join(ps), dtype=np.uint64),
        "O": np.frombuffer(b"".join(os_), dtype=np.uint64),
        "label": np.frombuffer(b"".join(ls), dtype=np.int32),
        "game": np.concatenate(gid),
    }
    print(
        f"self-play: {games} games, {len(data['label'])} positions, "
        f"{nodes / 1e6:.0f} M nodes, {time.time() - start:.0f} s"
    )
    return data


def design(players: np.ndarray, opponents: np.ndarray) -> tuple[csr_matrix, np.ndarray]:
    """Sparse design matrix (rows: positions) over all anchors' weights."""
    raw = _core.eval_features(players.tobytes(), opponents.tobytes())
    feats = np.frombuffer(raw, dtype=np.int32).reshape(len(players), NPAT + NUM)
    empties = 64 - np.bitwise_count(players | opponents).astype(np.int64)
    anchors = np.array(ANCHORS)
    hi = np.clip(np.searchsorted(anchors, empties, side="right"), 1, len(anchors) - 1)
    lo = hi - 1
    t = (empties - anchors[lo]) / (anchors[hi] - anchors[lo])
    t = np.clip(t, 0.0, 1.0)
    per_anchor = PAT_W + NUM + 1
    n = len(players)
    cols_one = np.empty((n, NPAT + NUM + 1), dtype=np.int64)
    vals_one = np.empty((n, NPAT + NUM + 1))
    cols_one[:, :NPAT] = feats[:, :NPAT]
    cols_one[:, NPAT : NPAT + NUM] = PAT_W + np.arange(NUM)
    cols_one[:, NPAT + NUM] = PAT_W + NUM
    vals_one[:, :NPAT] = 1.0
    vals_one[:, NPAT : NPAT + NUM] = feats[:, NPAT:]
    vals_one[:, NPAT + NUM] = 1.0
    cols = np.concatenate(
        [cols_one + (lo * per_anchor)[:, None], cols_one + (hi * per_anchor)[:, None]], axis=1
    )
    vals = np.concatenate([vals_one * (1 - t)[:, None], vals_one * t[:, None]], axis=1)
    rows = np.repeat(np.arange(n), cols.shape[1])
    X = csr_matrix((vals.ravel(), (rows, cols.ravel())), shape=(n, per_anchor * len(ANCHORS)))
    return X, empties


def ridge(X: csr_matrix, y: np.ndarray, damp: float) -> np.ndarray:
    """Minimise |Xw - y|^2 + damp^2 |w|^2 by Jacobi-preconditioned conjugate gradients."""
    Xt = X.T.tocsr()
    lam = damp * damp
    diag = np.asarray(X.multiply(X).sum(axis=0)).ravel() + lam
    n = X.shape[1]
    A = LinearOperator((n, n), matvec=lambda v: Xt @ (X @ v) + lam * v, dtype=float)
    M = LinearOperator((n, n), matvec=lambda v: v / diag, dtype=float)
    w, info = cg(A, Xt @ y, M=M, rtol=1e-6, maxiter=1000)
    if info:
        print(f"  (conjugate gradients stopped after {info} iterations)")
    return w


def fit(data: dict, damp: float) -> tuple[np.ndarray, dict]:
    """Ridge fit on 90 % of the games; report the held-out error by phase."""
    X, empties = design(data["P"], data["O"])
    y = data["label"].astype(float)
    test = data["game"] % 10 == 0
    start = time.time()
    w = ridge(X[~test].tocsr(), y[~test], damp)
    print(
        f"fit: {X.shape[1]} weights on {int((~test).sum())} positions, {time.time() - start:.0f} s"
    )
    pred = X[test] @ w
    report = {}
    for lo_e in range(0, 60, 10):
        sel = (empties[test] > lo_e) & (empties[test] <= lo_e + 10)
        if sel.any():
            err = pred[sel] - y[test][sel]
            report[f"{lo_e + 1}-{lo_e + 10}"] = (
                int(sel.sum()),
                float(np.sqrt(np.mean(err**2))),
                float(np.sqrt(np.mean((y[test][sel] - y[test][sel].mean()) ** 2))),
            )
    return w, report


def baseline_report(data: dict) -> dict:
    """Held-out error of the evaluator currently built (scaled by least squares)."""
    test = data["game"] % 10 == 0
    ps, os_, y = data["P"][test], data["O"][test], data["label"][test].astype(float)
    ev = np.array([_core.eval_default(int(p), int(o)) for p, o in zip(ps, os_, strict=True)], float)
    empties = 64 - np.bitwise_count(ps | os_).astype(np.int64)
    report = {}
    for lo_e in range(0, 60, 10):
        sel = (empties > lo_e) & (empties <= lo_e + 10)
        if sel.any():
            a = np.dot(ev[sel], y[sel]) / max(np.dot(ev[sel], ev[sel]), 1e-9)
            report[f"{lo_e + 1}-{lo_e + 10}"] = float(np.sqrt(np.mean((a * ev[sel] - y[sel]) ** 2)))
    return report


def write_header(w: np.ndarray, meta: str) -> None:
    """eval_weights.h: anchor tables in 1/100 disc."""
    per_anchor = PAT_W + NUM + 1
    W = np.rint(w.reshape(len(ANCHORS), per_anchor) * 100).astype(np.int64)
    W[:, :PAT_W] = np.clip(W[:, :PAT_W], -32000, 32000)

    def rows(block: np.ndarray) -> str:
        out = []
        for r in block:
            items = [str(int(v)) for v in r]
            lines = [",".join(items[i : i + 24]) for i in range(0, len(items), 24)]
            out.append("{" + ",\n".join(lines) + "}")
        return ",\n".join(out)

    text = f"""/* eval_weights.h - GENERATED by scripts/train_eval.py; do not edit.
 * {meta}
 * Weights of the default evaluator in 1/100 disc at anchor phases (number of
 * empty squares), interpolated linearly in between by eval_default.c. */
#ifndef OUTFLANK_EVAL_WEIGHTS_H
#define OUTFLANK_EVAL_WEIGHTS_H
#define EVALW_FITTED 1
#define EVALW_ANCHORS {len(ANCHORS)}
#define EVALW_ANCHOR_EMPTIES {{{", ".join(map(str, ANCHORS))}}}
static const short evalw_pat[EVALW_ANCHORS][{PAT_W}] = {{
{rows(W[:, :PAT_W])}}};
/* {", ".join(NUM_NAMES)}, constant */
static const int evalw_num[EVALW_ANCHORS][{NUM + 1}] = {{
{rows(W[:, PAT_W:])}}};
#endif
"""
    HEADER.write_text(text)
    print(f"wrote {HEADER} ({len(text) // 1024} KiB)")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=30000)
    ap.add_argument("--depth", type=int, default=4, help="self-play search depth")
    ap.add_argument("--exact", type=int, default=14, help="perfect play from this many empties")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--damp", type=float, default=2.0, help="ridge strength")
    ap.add_argument("--cache", type=Path, default=None, help="npz file to reuse/keep the data")
    ap.add_argument(
        "--data", type=Path, action="append", default=[], help="also fit on this npz (repeatable)"
    )
    ap.add_argument("--dry-run", action="store_true", help="fit and report, do not write")
    args = ap.parse_args()

    if args.cache and args.cache.exists():
        data = dict(np.load(args.cache))
        print(f"loaded {len(data['label'])} positions from {args.cache}")
    else:
        data = generate(args.games, args.depth, args.exact, args.workers, args.seed)
        if args.cache:
            np.savez_compressed(args.cache, **data)
    for extra in args.data:
        more = dict(np.load(extra))
        print(f"added {len(more['label'])} positions from {extra}")
        more["game"] = more["game"] + data["game"].max() + 1
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
    base = baseline_report(data)
    w, report = fit(data, args.damp)
    print("held-out RMSE in discs, by empties: positions, fitted, current evaluator, label spread")
    for k, (n, rmse, spread) in report.items():
        print(f"  {k:>6}: {n:7d}  {rmse:6.2f}  {base.get(k, float('nan')):6.2f}  {spread:6.2f}")
    per = PAT_W + NUM + 1
    for a, e in enumerate(ANCHORS):
        nums = w[a * per + PAT_W : (a + 1) * per]
        print(f"  anchor {e:2d} empties: " + ", ".join(f"{v:.2f}" for v in nums))
    if not args.dry_run:
        games = len(np.unique(data["game"]))
        meta = (
            f"{games} self-play games, {len(data['label'])} positions "
            f"(exact from {args.exact} empties), ridge damp {args.damp}"
        )
        write_header(w, meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
