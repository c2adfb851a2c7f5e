"""Fit the weights of outflank's ``default`` evaluator; write data/eval.bin.gz.

Procedure (see docs/evaluation.md):

1. Self-play: ``--games`` games, each opened with 4..19 random plies (chosen
   from the game's seed), then fixed-depth alpha-beta (``--depth``) with the
   current default evaluator, then perfect play from ``--exact`` empties on
   (``_core.train_game``; runs in ``--workers`` processes).
2. Every position after the random opening is labelled with the game's final
   disc difference from the mover's view: exact (perfect play by both sides)
   at ``--exact`` empties or fewer, the result of good play before that.
   ``scripts/relabel_exact.py`` can then replace the labels of positions
   with a few more empties by exact scores.
3. Features: the evaluator's own (``_core.eval_features``): 46 pattern
   look-ups of 11 types plus numeric features.
4. Ridge least squares (conjugate gradients, Jacobi preconditioned) of the
   label on the features, one fit per anchor phase (every 5 empties), each
   position weighted by its share in the linear interpolation between the
   anchors around it. 10 % of the games are held out to report the error.
5. The weights, in 1/100 disc, go to src/outflank/data/eval.bin.gz, which
   ``import outflank`` loads; no rebuild is needed.

Run:  python scripts/train_eval.py --games 30000 --workers 2
"""

from __future__ import annotations

import argparse
import gzip
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
ANCHORS = list(range(0, 56, 5))  # the self-play data starts at 56 empties
WEIGHTS = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"
WEIGHTS_MAGIC = b"OFEVAL2\0"  # a weight file's first bytes (eval_default.h)


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


def features(players: np.ndarray, opponents: np.ndarray) -> np.ndarray:
    """The evaluator's features: NPAT weight ids then NUM numeric values per row."""
    raw = _core.eval_features(players.tobytes(), opponents.tobytes())
    return np.frombuffer(raw, dtype=np.int32).reshape(len(players), NPAT + NUM)


def design(feats: np.ndarray) -> csr_matrix:
    """Sparse design matrix of one phase's weights: patterns, numeric, constant."""
    n = len(feats)
    cols = np.empty((n, NPAT + NUM + 1), dtype=np.int32)
    vals = np.ones((n, NPAT + NUM + 1), dtype=np.float32)
    cols[:, :NPAT] = feats[:, :NPAT]
    cols[:, NPAT : NPAT + NUM] = PAT_W + np.arange(NUM)
    cols[:, NPAT + NUM] = PAT_W + NUM
    vals[:, NPAT : NPAT + NUM] = feats[:, NPAT:]
    indptr = np.arange(0, n * (NPAT + NUM + 1) + 1, NPAT + NUM + 1, dtype=np.int64)
    return csr_matrix((vals.ravel(), cols.ravel(), indptr), shape=(n, PAT_W + NUM + 1))


def ridge(X: csr_matrix, y: np.ndarray, damp: float, start: np.ndarray | None = None) -> np.ndarray:
    """Minimise |Xw - y|^2 + damp^2 |w|^2 by Jacobi-preconditioned conjugate
    gradients, starting from ``start`` (e.g. the neighbouring phase's weights)."""
    Xt = X.T.tocsr()
    lam = damp * damp
    diag = np.asarray(X.multiply(X).sum(axis=0)).ravel() + lam
    n = X.shape[1]
    A = LinearOperator((n, n), matvec=lambda v: Xt @ (X @ v) + lam * v, dtype=float)
    M = LinearOperator((n, n), matvec=lambda v: v / diag, dtype=float)
    w, info = cg(A, Xt @ y, x0=start, M=M, rtol=1e-6, maxiter=1000)
    if info:
        print(f"  (conjugate gradients stopped after {info} iterations)")
    return w


def anchor_weights(empties: np.ndarray, a: int) -> np.ndarray:
    """Each position's weight in the fit of anchor ``ANCHORS[a]``: the hat
    function of linear interpolation between the neighbouring anchors."""
    e = empties.astype(float)
    w = np.zeros(len(e))
    centre = ANCHORS[a]
    if a > 0:
        lo = ANCHORS[a - 1]
        sel = (e > lo) & (e <= centre)
        w[sel] = (e[sel] - lo) / (centre - lo)
    else:
        w[e <= centre] = 1.0
    if a + 1 < len(ANCHORS):
        hi = ANCHORS[a + 1]
        sel = (e > centre) & (e < hi)
        w[sel] = (hi - e[sel]) / (hi - centre)
    else:
        w[e > centre] = 1.0
    return w


def predict(W: np.ndarray, feats: np.ndarray, empties: np.ndarray) -> np.ndarray:
    """The evaluator's score (discs) with anchor weights W, interpolated like the C code."""
    anchors = np.array(ANCHORS)
    hi = np.clip(np.searchsorted(anchors, empties, side="right"), 1, len(anchors) - 1)
    lo = hi - 1
    t = np.clip((empties - anchors[lo]) / (anchors[hi] - anchors[lo]), 0.0, 1.0)

    pred = np.zeros(len(feats))
    for a in range(len(ANCHORS)):
        w = W[a]
        for rows, share in ((lo == a, 1 - t), (hi == a, t)):
            f = feats[rows]
            score = w[PAT_W + NUM] + w[f[:, :NPAT]].sum(1) + f[:, NPAT:] @ w[PAT_W : PAT_W + NUM]
            pred[rows] += share[rows] * score
    return pred


def fit(
    data: dict, damp: float, keep: np.ndarray | None = None, only: list[int] | None = None
) -> tuple[np.ndarray, dict]:
    """One weighted ridge fit per anchor phase on 90 % of the games; report
    the held-out error by phase. With ``only``, just those anchors are
    fitted and the others keep their weights in ``keep``."""
    feats = features(data["P"], data["O"])
    empties = 64 - np.bitwise_count(data["P"] | data["O"]).astype(np.int64)
    y = data["label"].astype(float)
    test = data["game"] % 10 == 0
    W = np.zeros((len(ANCHORS), PAT_W + NUM + 1)) if keep is None else keep.copy()
    start = time.time()
    for a, anchor in enumerate(ANCHORS):
        if only is not None and anchor not in only:
            continue
        w = anchor_weights(empties, a)
        sel = (w > 0) & ~test
        root = np.sqrt(w[sel])
        X = design(feats[sel])
        X = csr_matrix(X.multiply(root[:, None]))
        # a refit starts from the anchor's own weights, a full fit from the last anchor's
        warm = W[a] if keep is not None else W[a - 1] if a else None
        W[a] = ridge(X, y[sel] * root, damp, warm)
        print(f"  anchor {anchor:2d}: {int(sel.sum())} positions, {time.time() - start:.0f} s")
    pred = predict(W[:, :], feats[test], empties[test])
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
    return W, report


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


def read_weights(path: Path) -> np.ndarray:
    """The anchor weights (in discs) of a weight file written by write_weights."""
    try:
        blob = gzip.decompress(path.read_bytes())
    except (gzip.BadGzipFile, EOFError):
        blob = b""
    if not blob.startswith(WEIGHTS_MAGIC):
        raise ValueError(f"{path} is not an evaluator weight file")
    anchors, pat_w, num = np.frombuffer(blob[8:20], dtype="<i4")
    if list(np.frombuffer(blob[20 : 20 + 4 * anchors], dtype="<i4")) != ANCHORS or (
        (pat_w, num) != (PAT_W, NUM)
    ):
        raise ValueError(f"{path} has another layout than this evaluator")
    at = 20 + 4 * anchors
    pat = np.frombuffer(blob[at : at + 2 * anchors * pat_w], dtype="<i2").reshape(anchors, pat_w)
    at += 2 * anchors * pat_w
    rest = np.frombuffer(blob[at:], dtype="<i4").reshape(anchors, num + 1)
    return np.hstack([pat, rest]).astype(float) / 100


def write_weights(W: np.ndarray, path: Path) -> None:
    """The weight file (layout in eval_default.h), gzip-compressed, in 1/100 disc."""
    cents = np.rint(W * 100)
    pat = np.clip(cents[:, :PAT_W], -32000, 32000).astype("<i2")
    num = cents[:, PAT_W:].astype("<i4")
    head = WEIGHTS_MAGIC + np.array([len(ANCHORS), PAT_W, NUM], dtype="<i4").tobytes()
    blob = head + np.array(ANCHORS, dtype="<i4").tobytes() + pat.tobytes() + num.tobytes()
    path.write_bytes(gzip.compress(blob, 9, mtime=0))
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


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
    ap.add_argument(
        "--refit",
        default=None,
        metavar="A,B,...",
        help="fit only these anchors (empties, e.g. 10,15,20,25); keep the others of --out",
    )
    ap.add_argument("--dry-run", action="store_true", help="fit and report, do not write")
    ap.add_argument("--no-baseline", action="store_true", help="skip the current evaluator's error")
    ap.add_argument("--out", type=Path, default=WEIGHTS, help="weight file to write")
    args = ap.parse_args()
    keep = only = None
    if args.refit:  # checked before any data is generated or loaded
        try:
            only = [int(a) for a in args.refit.split(",")]
        except ValueError:
            only = []
        if not only or not set(only) <= set(ANCHORS):
            ap.error(f"--refit anchors must be among {ANCHORS}, not {args.refit!r}")
        try:
            keep = read_weights(args.out)
        except (OSError, ValueError) as err:
            ap.error(f"--refit keeps the other anchors of --out: {err}")

    for path in args.data:  # before hours of self-play, not after
        if not path.is_file():
            ap.error(f"--data {path}: no such file")
    if not args.out.parent.is_dir():
        ap.error(f"--out {args.out}: no folder {args.out.parent}")
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
    base = baseline_report(data) if not args.no_baseline else {}
    W, report = fit(data, args.damp, keep, only)
    print("held-out RMSE in discs, by empties: positions, fitted, current evaluator, label spread")
    for k, (n, rmse, spread) in report.items():
        print(f"  {k:>6}: {n:7d}  {rmse:6.2f}  {base.get(k, float('nan')):6.2f}  {spread:6.2f}")
    for a, e in enumerate(ANCHORS):
        nums = W[a, PAT_W:]
        print(f"  anchor {e:2d} empties: " + ", ".join(f"{v:.2f}" for v in nums))
    if not args.dry_run:
        write_weights(W, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
