"""Fit the ``default`` evaluator's weights to labelled positions.

The model: for a position with ``e`` empties, the score is a linear function
of its features (one weight per canonical pattern configuration it shows,
numeric features, a constant) whose weights are interpolated linearly between
the two anchor phases around ``e``, exactly as the core evaluates it. All
anchors are fitted at once by minimising

    sum of b * (score - label)^2  +  ridge * |w|^2  +  smooth * sum_a |w[a+1] - w[a]|^2

(the last term ties neighbouring phases together, so a rare configuration
borrows strength from the phases next to it; ``b`` is 1, or with
``balance=S`` each position's weight 1 / (1 + (label / S)^2), so that
positions near an even game, where the evaluation decides games, count
most: see :func:`balance_weights`) with Jacobi-preconditioned
conjugate gradients on the normal equations. The validation positions'
error is checked every few iterations and the best weights kept; the fit
stops when it has not improved for a while (early stopping).

Positions are split by game: ``game % 20 == 0`` is the test set (never
fitted, never used to choose), ``== 1`` the validation set, the rest the
training set. Needs numpy and scipy (``pip install 'outflank[train]'``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from outflank import _core
from outflank.evalmodel import NUMERIC, WeightFile

__all__ = [
    "PATTERN_SETS",
    "FitResult",
    "Split",
    "anchor_shares",
    "balance_weights",
    "design",
    "features",
    "fit",
    "predict",
    "prior_weights",
    "split",
]

N_NUM = len(NUMERIC)
KEEP_RIDGE = 1e9  # the ridge that holds fit(keep_above=...)'s kept anchors in place


def _mask(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << ((int(name[1]) - 1) * 8 + ord(name[0]) - ord("a"))
    return out


#: Named pattern types (squares in the a1 corner's orientation).
TYPES: dict[str, int] = {
    "corner3x3": _mask("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"),
    "edge2x": _mask("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "b2", "g2"),
    "corner2x5": _mask("a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"),
    "row2": 0x000000000000FF00,
    "row3": 0x0000000000FF0000,
    "row4": 0x00000000FF000000,
    "diag8": 0x8040201008040201,
    "diag7": 0x0080402010080402,
    "diag6": 0x0000804020100804,
    "diag5": 0x0000008040201008,
    "diag4": 0x0000000080402010,
    # candidates beyond the first set
    "triangle": _mask("a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"),
    "edgeblock": _mask("a1", "c1", "d1", "e1", "f1", "h1", "c2", "d2", "e2", "f2"),
    "cross": _mask("a1", "b2", "c3", "d4", "b1", "c2", "d3", "a2", "b3", "c4"),
    "edge2c": _mask("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "h2"),
}
LEGACY = (
    "corner3x3", "edge2x", "corner2x5", "row2", "row3", "row4",
    "diag8", "diag7", "diag6", "diag5", "diag4",
)  # fmt: skip
#: Named pattern sets: lists of TYPES names.
PATTERN_SETS: dict[str, tuple[str, ...]] = {
    "legacy": LEGACY,
    "triangle": (*LEGACY, "triangle"),
    "edgeblock": (*LEGACY, "edgeblock"),
    "triangle+edgeblock": (*LEGACY, "triangle", "edgeblock"),
    "cross": (*LEGACY, "cross"),
}


def masks_of(names: Sequence[str]) -> list[int]:
    """The masks of pattern type names (see TYPES)."""
    unknown = [n for n in names if n not in TYPES]
    if unknown:
        raise ValueError(f"unknown pattern types {unknown}; known: {', '.join(TYPES)}")
    return [TYPES[n] for n in names]


@dataclass
class Split:
    """Row indices of the training, validation and test positions."""

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray


def split(game: np.ndarray) -> Split:
    """By game: 1 in 20 games for testing, 1 in 20 for validation."""
    g = game % 20
    return Split(np.flatnonzero(g >= 2), np.flatnonzero(g == 1), np.flatnonzero(g == 0))


def balance_weights(label: np.ndarray, scale: float) -> np.ndarray:
    """Each position's weight in a fit with ``balance=scale``: 1 / (1 +
    (label / scale)^2), labels and scale in discs (1 at an even game, 1/2
    at ``scale`` discs either way, 1/10 at three times that); all 1 for a
    scale of 0. Self-play data holds many lopsided positions, whose large
    errors dominate a plain least-squares fit although no move choice
    there changes a game's result."""
    if scale < 0:
        raise ValueError("the balance scale must be >= 0")
    if scale == 0:
        return np.ones(len(label))
    return 1.0 / (1.0 + (np.asarray(label, dtype=np.float64) / scale) ** 2)


def features(
    player: np.ndarray, opponent: np.ndarray, masks: Sequence[int], tables: bool = False
) -> np.ndarray:
    """Weight ids (one column per pattern instance, then one per count table
    with ``tables``) then numeric features."""
    layout = _core.eval_layout(masks=list(masks), tables=tables)
    width = layout["patterns"] + N_NUM
    out = np.empty((len(player), width), dtype=np.int32)
    step = 1 << 18
    for i in range(0, len(player), step):
        raw = _core.eval_features(
            np.ascontiguousarray(player[i : i + step], dtype=np.uint64).tobytes(),
            np.ascontiguousarray(opponent[i : i + step], dtype=np.uint64).tobytes(),
            masks=list(masks),
            tables=tables,
        )
        out[i : i + step] = np.frombuffer(raw, dtype=np.int32).reshape(-1, width)
    return out


def anchor_shares(empties: np.ndarray, anchors: Sequence[int]) -> tuple[np.ndarray, ...]:
    """(lower anchor, upper anchor, upper share) of each position, as the
    core interpolates: below the first anchor the first one, beyond the last
    the last one."""
    a = np.asarray(anchors)
    e = np.clip(empties.astype(np.int64), 0, 60)
    lo = np.clip(np.searchsorted(a, e, side="right") - 1, 0, len(a) - 1)
    hi = np.minimum(lo + 1, len(a) - 1)
    span = np.maximum(a[hi] - a[lo], 1)
    t = np.clip((e - a[lo]) / span, 0.0, 1.0)
    t[hi == lo] = 0.0
    return lo, hi, t


def design(feats: np.ndarray, empties: np.ndarray, anchors: Sequence[int], n_pat: int):
    """The sparse design matrix over all anchors' weights (anchor-major:
    column ``a * width + j``, width = pattern weights + numeric + 1)."""
    from scipy.sparse import csr_matrix

    n, inst = len(feats), feats.shape[1] - N_NUM
    width = n_pat + N_NUM + 1
    lo, hi, t = anchor_shares(empties, anchors)
    k = inst + N_NUM + 1
    cols = np.empty((n, k), dtype=np.int64)
    vals = np.ones((n, k), dtype=np.float64)
    cols[:, :inst] = feats[:, :inst]
    cols[:, inst : inst + N_NUM] = n_pat + np.arange(N_NUM)
    cols[:, inst + N_NUM] = n_pat + N_NUM
    vals[:, inst : inst + N_NUM] = feats[:, inst:]
    # each row twice: its lower anchor (share 1 - t) and upper anchor (t)
    both_cols = np.concatenate([cols + (lo * width)[:, None], cols + (hi * width)[:, None]], axis=1)
    both_vals = np.concatenate([vals * (1 - t)[:, None], vals * t[:, None]], axis=1)
    indptr = np.arange(0, n * 2 * k + 1, 2 * k, dtype=np.int64)
    X = csr_matrix(
        (both_vals.ravel(), both_cols.ravel().astype(np.int32), indptr),
        shape=(n, len(anchors) * width),
    )
    X.sum_duplicates()  # a row on an anchor: both halves in one column
    X.eliminate_zeros()
    return X


def predict(w: np.ndarray, feats: np.ndarray, empties: np.ndarray, anchors: Sequence[int]):
    """Scores (discs) of weights ``w`` (anchors x width), as the core gives."""
    n_pat = w.shape[1] - N_NUM - 1
    inst = feats.shape[1] - N_NUM
    lo, hi, t = anchor_shares(empties, anchors)

    flat = w.ravel()
    width = w.shape[1]
    pats = feats[:, :inst].astype(np.int64)
    nums = feats[:, inst:]

    def at(a: np.ndarray) -> np.ndarray:
        base = (a * width)[:, None]
        s = flat[base + pats].sum(axis=1)
        s += (flat[base + n_pat + np.arange(N_NUM)] * nums).sum(axis=1)
        return s + flat[a * width + n_pat + N_NUM]

    return (1 - t) * at(lo) + t * at(hi)


def table_weights() -> int:
    """How many weights the count tables add to a model (per phase)."""
    with_tables = _core.eval_layout(masks=[TYPES["row2"]], tables=True)["pattern_weights"]
    return with_tables - _core.eval_layout(masks=[TYPES["row2"]])["pattern_weights"]


def type_offsets(masks: Sequence[int]) -> list[int]:
    """Where each pattern type's weights start in a model of these types."""
    out, at = [], 0
    for m in masks:
        out.append(at)
        at += _core.eval_layout(masks=[m])["pattern_weights"]
    return out


def prior_weights(
    prior: WeightFile, masks: Sequence[int], anchors: Sequence[int], tables: bool = False
) -> np.ndarray:
    """A start (and ridge centre) for a fit: ``prior``'s weights at the new
    anchors (interpolated as the core does), for the pattern types (and
    count tables) it shares with the model of ``masks`` (and ``tables``);
    zero for the others."""
    masks = list(masks)
    n_pat = _core.eval_layout(masks=masks, tables=tables)["pattern_weights"]
    width = n_pat + N_NUM + 1
    lo, hi, t = anchor_shares(np.asarray(anchors), prior.anchors)
    old = np.hstack([prior.patterns, prior.numeric])
    at_new = (1 - t)[:, None] * old[lo] + t[:, None] * old[hi]
    w = np.zeros((len(anchors), width))
    k = table_weights() if tables else 0
    mine, theirs = type_offsets(masks), type_offsets(prior.masks)
    sizes = np.diff([*mine, n_pat - k])
    for i, m in enumerate(masks):
        if m in prior.masks:
            j = prior.masks.index(m)
            w[:, mine[i] : mine[i] + sizes[i]] = at_new[:, theirs[j] : theirs[j] + sizes[i]]
    if tables and prior.tables:
        w[:, n_pat - k : n_pat] = at_new[:, prior.patterns.shape[1] - k : prior.patterns.shape[1]]
    w[:, n_pat:] = at_new[:, prior.patterns.shape[1] :]
    return w


@dataclass
class FitResult:
    """Fitted weights and how the fit went."""

    weights: WeightFile
    iterations: int
    best_iteration: int
    valid_mse: list[tuple[int, float]]
    seconds: float


def fit(
    player: np.ndarray,
    opponent: np.ndarray,
    label: np.ndarray,
    game: np.ndarray,
    masks: Sequence[int],
    anchors: Sequence[int],
    *,
    ridge: float = 1.0,
    smooth: float = 10.0,
    max_iter: int = 600,
    check_every: int = 10,
    patience: int = 5,
    prior: WeightFile | None = None,
    keep_above: int | None = None,
    keep_below: int | None = None,
    tables: bool = False,
    balance: float = 0.0,
    balance_by: str = "label",
    smooth_lag: int = 1,
    log: Callable[[str], None] | None = print,
) -> FitResult:
    """Fit all anchors' weights jointly to ``label`` (discs) on the training
    games, stopping early on the validation games (see the module doc).
    With ``prior``, the fit starts from its weights (for the pattern types
    it shares) and the ridge pulls towards them rather than towards 0.
    ``keep_above`` (needs ``prior``): the anchors with more empties keep the
    prior's weights (interpolated at them) and only the others are fitted,
    for data whose labels there are few or poor; ``keep_below`` (needs
    ``prior``) the same for the anchors with fewer empties (a midgame-only
    refit that keeps the prior's endgame). ``tables``: the model has count
    tables (each side's legal moves and potential mobility), whose weights
    start at the prior's if it has them, else at 0. ``balance`` (discs, 0:
    off) weighs each position by :func:`balance_weights`, in the fit and in
    the validation error that stops it, of its label (``balance_by="label"``)
    or of the prior's score of it (``"prior"``, needs ``prior``): a weight
    that depends on the label favours positions whose labels happen to be
    near zero, which pulls the fitted values towards zero; the prior's
    score depends on the position alone and does not. ``smooth_lag``: the
    smoothing ties each anchor to the anchors that many places away (2 with an
    anchor per empties count: each parity's phases are tied among
    themselves and fitted apart from the other's)."""
    from scipy.sparse import diags
    from scipy.sparse.linalg import LinearOperator, cg

    if smooth_lag < 1:
        raise ValueError("smooth_lag must be 1 or more")
    if balance_by not in ("label", "prior"):
        raise ValueError("balance_by must be 'label' or 'prior'")
    if balance_by == "prior" and prior is None:
        raise ValueError("balance_by='prior' needs prior weights")
    start = time.time()
    say = log or (lambda _msg: None)
    masks, anchors = list(masks), list(anchors)
    n_pat = _core.eval_layout(masks=masks, tables=tables)["pattern_weights"]
    width = n_pat + N_NUM + 1
    n_anchors = len(anchors)
    empties = 64 - np.bitwise_count(player | opponent).astype(np.int64)
    parts = split(game)
    feats = features(player, opponent, masks, tables)
    y = label.astype(np.float64)
    start_w = prior_weights(prior, masks, anchors, tables) if prior else None
    if balance and balance_by == "prior":
        row_w = balance_weights(predict(start_w, feats, empties, anchors), balance)
    else:
        row_w = balance_weights(y, balance)
    root_w = np.sqrt(row_w[parts.train])
    X = diags(root_w) @ design(feats[parts.train], empties[parts.train], anchors, n_pat)
    Xt = X.T.tocsr()
    yt = y[parts.train] * root_w
    say(
        f"  {len(parts.train):,} training, {len(parts.valid):,} validation, "
        f"{len(parts.test):,} test positions; {X.shape[1]:,} weights, {X.nnz:,} non-zeros, "
        f"{time.time() - start:.0f} s"
    )

    def smooth_op(v: np.ndarray) -> np.ndarray:
        w = v.reshape(n_anchors, width)
        d = w[smooth_lag:] - w[:-smooth_lag]
        g = np.zeros_like(w)
        g[:-smooth_lag] -= d
        g[smooth_lag:] += d
        return g.ravel()

    if (keep_above is not None or keep_below is not None) and prior is None:
        raise ValueError("keep_above and keep_below need prior weights")
    kept = np.array(
        [
            (keep_above is not None and a > keep_above)
            or (keep_below is not None and a < keep_below)
            for a in anchors
        ]
    )
    # per weight: the ridge, and a stiff one that holds the kept anchors at the prior
    ridge_v = np.repeat(np.where(kept, KEEP_RIDGE, ridge), width)

    index = np.arange(n_anchors)  # each anchor's tied neighbours (smooth_lag places away)
    degree = (index >= smooth_lag).astype(float) + (index + smooth_lag < n_anchors)
    diag = np.asarray(X.multiply(X).sum(axis=0)).ravel() + ridge_v
    diag += smooth * np.repeat(degree, width)
    n = X.shape[1]
    A = LinearOperator(
        (n, n), matvec=lambda v: Xt @ (X @ v) + ridge_v * v + smooth * smooth_op(v), dtype=float
    )
    M = LinearOperator((n, n), matvec=lambda v: v / diag, dtype=float)
    w0 = start_w.ravel() if start_w is not None else np.zeros(n)
    fv, ev, yv, wv = feats[parts.valid], empties[parts.valid], y[parts.valid], row_w[parts.valid]

    def valid_error(v: np.ndarray) -> float:
        if not len(yv):
            return float("nan")  # no validation games
        err = predict(v.reshape(n_anchors, width), fv, ev, anchors) - yv
        return float(np.average(err**2, weights=wv))

    history: list[tuple[int, float]] = []
    mse0 = valid_error(w0)
    say(f"  start: validation RMSE {mse0**0.5:.3f}")
    best = {"mse": mse0, "w": w0, "it": 0}
    state = {"it": 0, "since": 0}

    class _Stop(Exception):
        pass

    def check(v: np.ndarray) -> None:
        state["it"] += 1
        if state["it"] % check_every or not len(yv):  # no validation games: to max_iter
            return
        mse = valid_error(v)
        history.append((state["it"], mse))
        elapsed = time.time() - start
        say(f"  iteration {state['it']}: validation RMSE {mse**0.5:.3f}, {elapsed:.0f} s")
        if mse < best["mse"] - 1e-6:
            best.update(mse=mse, w=v.copy(), it=state["it"])
            state["since"] = 0
        else:
            state["since"] += 1
            if state["since"] >= patience:
                raise _Stop

    try:
        rhs = Xt @ yt + ridge_v * w0
        w, _info = cg(A, rhs, x0=w0, M=M, rtol=1e-10, maxiter=max_iter, callback=check)
        if len(parts.valid):  # the last iterate, if it is the best
            mse = valid_error(w)
            if mse < best["mse"]:
                best.update(mse=mse, w=w, it=state["it"])
        else:
            best.update(w=w, it=state["it"])
    except _Stop:
        pass
    W = best["w"].reshape(n_anchors, width).copy()
    W[kept] = w0.reshape(n_anchors, width)[kept]  # exactly the prior's
    weights = WeightFile(
        tuple(masks), tuple(anchors), W[:, :n_pat].copy(), W[:, n_pat:].copy(), tables
    )
    sys.stdout.flush()
    return FitResult(weights, state["it"], int(best["it"]), history, time.time() - start)
