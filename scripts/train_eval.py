"""Fit the ``default`` evaluator's weights; write data/eval.bin.gz.

    python scripts/train_eval.py DATA... [--types NAME] [--anchor-step 2]
                                 [--ridge 1] [--smooth 10] [--out FILE] [--dry-run]

DATA are shard folders or merged .npz files of ``scripts/eval_data.py``
(positions labelled exactly, by probable-cut endgame searches or by deep
midgame searches; see docs/evaluation.md). The fit (outflank.evalfit): all
anchor phases (every --anchor-step empties) at once, ridge and smoothing
between neighbouring phases, conjugate gradients stopped early on the
validation games (1 in 20); the test games (another 1 in 20) are never
fitted. It then loads the new weights and --baseline (default: the packaged
file) into the core and prints both evaluators' test error by phase, as the
engine computes them.

--types chooses the pattern set: names of outflank.evalfit.PATTERN_SETS
(legacy, triangle, ...) and of pattern types (outflank.evalfit.TYPES)
joined by "+", e.g. legacy+edge2c. --tables adds count tables (a weight
per value of each side's legal moves and potential mobility). --balance S
weighs each position by 1 / (1 + (label / S)^2) in the fit and in the
validation error (the packaged weights: S = 5; docs/evaluation.md);
--balance-by prior takes the --prior weights' score of the position instead
of its label (a weight that depends on the label pulls the fit towards 0).
--parity gives every empties count its own anchor and ties each only to
the counts two away, so that the phases of odd and even empties (who
moves last) are fitted apart, as NTest's and Edax's weight sets are.
--outcome W blends each midgame search label with its game's value (the
exact label of the game's first exactly labelled position, from the
position's mover's view; evaldata.game_values): (1 - W) * label + W *
value, where the game has one. It is meant for data of games played
without random moves and labelled down into the exact range (the label
then sees the rest of the game, not only the search's horizon); other
sets are left as they are. --label-min E drops positions with fewer than
E empties (after the blend, which needs the exact rows).
--scale K multiplies the fitted weights (the anchors not kept, or all)
by K before they are tested and written: a refit whose values came out
narrower than its prior's is scaled back to the prior's spread (the
packaged weights from 20 empties on: K = 1.07, the ratio of the two
spreads that bench/eval_check.py measures).
--dry-run fits and reports without writing.
Compute: about 2-3 minutes of one core per million positions for the
legacy set, plus 1 GB of memory per million positions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import _core, evaldata, evalfit, evalmodel  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402

WEIGHTS = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"
BANDS = [(1, 8), (9, 12), (13, 16), (17, 20), (21, 24), (25, 30), (31, 40), (41, 50), (51, 60)]


def pattern_set(text: str) -> list[str]:
    """Set names (evalfit.PATTERN_SETS) and type names (evalfit.TYPES) joined
    by '+', expanded to type names in order (each once)."""
    if text in evalfit.PATTERN_SETS:
        return list(evalfit.PATTERN_SETS[text])
    names: list[str] = []
    for piece in (p for p in text.split("+") if p):
        if piece in evalfit.PATTERN_SETS:
            names += evalfit.PATTERN_SETS[piece]
        elif piece in evalfit.TYPES:
            names.append(piece)
        else:
            raise OutflankError(
                f"unknown pattern set or type {piece!r}: sets {', '.join(evalfit.PATTERN_SETS)}; "
                f"types {', '.join(evalfit.TYPES)}"
            )
    if not names:
        raise OutflankError("--types names no pattern type")
    return list(dict.fromkeys(names))


def error_table(
    empties: np.ndarray, label: np.ndarray, preds: dict[str, np.ndarray], balance: float = 0.0
) -> str:
    """Markdown: mean absolute error (and RMSE) in discs per band of empties;
    with ``balance``, also the MAE weighted as the fit weighs positions."""
    names = list(preds)
    weight = evalfit.balance_weights(label, balance)
    head = "| empties | positions | " + " | ".join(f"MAE {n}" for n in names)
    head += " | " + " | ".join(f"RMSE {n}" for n in names)
    head += "".join(f" | balanced MAE {n}" for n in names) if balance else ""
    lines = [head + " |", "|---" * (2 + (3 if balance else 2) * len(names)) + "|"]
    for lo, hi in [*BANDS, (1, 60)]:
        sel = (empties >= lo) & (empties <= hi)
        if not sel.any():
            continue
        mae = [float(np.mean(np.abs(preds[n][sel] - label[sel]))) for n in names]
        rmse = [float(np.sqrt(np.mean((preds[n][sel] - label[sel]) ** 2))) for n in names]
        balanced = [
            float(np.average(np.abs(preds[n][sel] - label[sel]), weights=weight[sel]))
            for n in (names if balance else [])
        ]
        band = "all" if (lo, hi) == (1, 60) else f"{lo}-{hi}"
        cells = [f"{v:.2f}" for v in mae + rmse + balanced]
        lines.append(f"| {band} | {int(sel.sum()):,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def load(paths: list[Path], outcome: float, label_min: int) -> dict[str, np.ndarray]:
    """The data sets, each search label blended with its game's value by
    ``outcome`` (set by set: their game numbers overlap), positions with
    fewer than ``label_min`` empties dropped."""
    sets = []
    for path in paths:
        data = evaldata.load([path])
        if outcome:
            value = evaldata.game_values(data)
            blend = (data["kind"] == evaldata.SEARCH) & ~np.isnan(value)
            mixed = (1 - outcome) * data["label"] + outcome * np.nan_to_num(value)
            data["label"] = np.where(blend, np.rint(mixed), data["label"]).astype(np.int16)
            print(f"{path}: {int(blend.sum()):,} of {len(blend):,} labels blended")
        keep = data["empties"] >= label_min
        sets.append({k: v[keep] for k, v in data.items()})
    return {k: np.concatenate([d[k] for d in sets]) for k in sets[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("data", type=Path, nargs="+", help="shard folders or .npz files")
    ap.add_argument("--types", default="legacy", help="pattern set (see above)")
    ap.add_argument(
        "--tables", action="store_true",
        help="the model has count tables: a weight per value of each side's moves and "
        "potential mobility",
    )  # fmt: skip
    ap.add_argument(
        "--anchor-step", type=int, default=None, help="empties between anchor phases (2)"
    )
    ap.add_argument(
        "--parity", action="store_true",
        help="an anchor per empties count, the smoothing only between counts of the same "
        "parity: odd and even phases fitted apart",
    )  # fmt: skip
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--smooth", type=float, default=10.0, help="tie between neighbouring phases")
    ap.add_argument(
        "--balance", type=float, default=0.0, metavar="S",
        help="weigh each position by 1 / (1 + (label / S)^2), S in discs: positions near "
        "an even game count most (0: all alike)",
    )  # fmt: skip
    ap.add_argument(
        "--balance-by", choices=("label", "prior"), default="label",
        help="what --balance weighs by: the label, or the --prior weights' score",
    )  # fmt: skip
    ap.add_argument(
        "--outcome", type=float, default=0.0, metavar="W",
        help="blend search labels with their game's exact value: (1 - W) * label + W * value",
    )  # fmt: skip
    ap.add_argument(
        "--label-min", type=int, default=0, metavar="E",
        help="fit only positions with at least E empties",
    )  # fmt: skip
    ap.add_argument("--max-iter", type=int, default=600)
    ap.add_argument("--patience", type=int, default=5, help="checks (of 10 iterations) w/o gain")
    ap.add_argument("--max-positions", type=int, default=0, help="use the first N positions")
    ap.add_argument("--baseline", type=Path, default=WEIGHTS, help="weights to compare with")
    ap.add_argument(
        "--prior", type=Path, default=None,
        help="start from these weights and pull towards them (types they share)",
    )  # fmt: skip
    ap.add_argument(
        "--keep-above", type=int, default=None, metavar="E",
        help="anchors with more than E empties keep the --prior weights (not fitted)",
    )  # fmt: skip
    ap.add_argument(
        "--keep-below", type=int, default=None, metavar="E",
        help="anchors with fewer than E empties keep the --prior weights (not fitted)",
    )  # fmt: skip
    ap.add_argument(
        "--scale", type=float, default=1.0, metavar="K",
        help="multiply the fitted anchors' weights by K (the kept ones stay)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, default=WEIGHTS, help="weight file to write")
    ap.add_argument("--report", type=Path, default=None, help="also write the table here")
    ap.add_argument("--dry-run", action="store_true", help="fit and report, do not write")
    args = ap.parse_args(argv)
    try:
        names = pattern_set(args.types)
        if args.parity and args.anchor_step not in (None, 1):
            raise OutflankError("--parity has an anchor per empties count: no --anchor-step")
        if args.anchor_step is None:
            args.anchor_step = 1 if args.parity else 2
        if not 1 <= args.anchor_step <= 30:
            raise OutflankError("--anchor-step must be in 1..30")
        if args.ridge < 0 or args.smooth < 0 or args.max_iter < 1:
            raise OutflankError("need --ridge >= 0, --smooth >= 0 and --max-iter >= 1")
        if not 0 <= args.balance < float("inf"):
            raise OutflankError("--balance must be 0 (off) or a number of discs above 0")
        if not 0 <= args.outcome <= 1:
            raise OutflankError("--outcome must be in 0..1")
        if not 0 <= args.label_min <= 60:
            raise OutflankError("--label-min must be in 0..60")
        if args.balance_by == "prior" and (args.prior is None or not args.balance):
            raise OutflankError("--balance-by prior needs --prior and --balance")
        if args.keep_above is not None and args.prior is None:
            raise OutflankError("--keep-above needs --prior")
        if args.keep_below is not None and args.prior is None:
            raise OutflankError("--keep-below needs --prior")
        if not 0 < args.scale < float("inf"):
            raise OutflankError("--scale must be a number above 0")
        if not args.dry_run and not args.out.parent.is_dir():
            raise OutflankError(f"--out {args.out}: no folder {args.out.parent}")
        base = evalmodel.read(args.baseline) if args.baseline else None
        prior = evalmodel.read(args.prior) if args.prior else None
        data = load(args.data, args.outcome, args.label_min)
    except (OutflankError, OSError) as exc:
        print(f"train_eval.py: error: {exc}", file=sys.stderr)
        return 2
    if args.max_positions:
        data = {k: v[: args.max_positions] for k, v in data.items()}
    start = time.time()
    anchors = list(range(0, 61, args.anchor_step))
    if anchors[-1] != 60:
        anchors.append(60)
    masks = evalfit.masks_of(names)
    tables = "; count tables" if args.tables else ""
    parity = "; parity apart" if args.parity else ""
    print(
        f"{len(data['label']):,} positions; types {'+'.join(names)}{tables}{parity}; "
        f"anchors {anchors}"
    )
    result = evalfit.fit(
        data["player"], data["opponent"], data["label"] / 100, data["game"], masks, anchors,
        ridge=args.ridge, smooth=args.smooth, max_iter=args.max_iter, patience=args.patience,
        prior=prior, keep_above=args.keep_above, keep_below=args.keep_below, tables=args.tables,
        balance=args.balance, balance_by=args.balance_by, smooth_lag=2 if args.parity else 1,
    )  # fmt: skip
    print(
        f"fit: {result.iterations} iterations (best {result.best_iteration}), "
        f"{result.seconds:.0f} s"
    )
    weights = result.weights
    if args.scale != 1:
        low = 0 if args.keep_below is None else args.keep_below
        high = 60 if args.keep_above is None else args.keep_above
        weights = weights.scaled(args.scale, low, high)
    # test error as the engine computes it: both weight files in core slots
    test = evalfit.split(data["game"]).test
    p, o = data["player"][test], data["opponent"][test]
    empties = 64 - np.bitwise_count(p | o).astype(np.int64)
    label = data["label"][test] / 100
    _core.eval_load(weights.to_bytes(), 1)
    preds = {"new": evalmodel.scores(p, o, 1)}
    if base is not None:
        _core.eval_load(base.to_bytes(), 2)
        preds["baseline"] = evalmodel.scores(p, o, 2)
    table = error_table(empties, label, preds, args.balance)
    print("test positions (never fitted), error in discs against the labels:")
    print(table)
    if args.report:
        args.report.write_text(table + "\n")
    if not args.dry_run:
        size = evalmodel.write(weights, args.out)
        print(f"wrote {args.out} ({size / 2**20:.2f} MiB)")
    print(f"total {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
