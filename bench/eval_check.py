"""How weight files of the ``default`` evaluator rank positions whose values are known.

    python bench/eval_check.py DATA... [--weights NAME=FILE ...] [--empties 24 44]
                               [--count 20000] [--depth 12] [--nodes 80] [--selective 0.8]
                               [--all-games]

DATA are data files or shard folders of ``scripts/eval_data.py`` whose
labels are deeper than the evaluation (``eval_data.py relabel`` writes
12-ply ones). The positions with --empties of the test games (those no
fit sees, ``outflank.evalfit.split``; --all-games takes every game, for
data that was never fitted) are shuffled (a fixed seed) and the first
--count kept. For the packaged weights and each --weights file
(at most three, each loaded into a core slot) the table gives the spread
(standard deviation) of the static values, their slope on the labels,
their correlation with the labels, the mean absolute error, and the nodes
a one-thread midgame search with probable cut-offs (--selective, the
``default`` preset's 0.8; the margins compiled into the core) needs to
reach --depth in the first --nodes positions, each from a cleared table.

Why these and not the fit's own error (docs/evaluation.md, "The fifteenth
run"): a refit that shrinks its values towards zero lowers the mean error
on near-even positions without ranking them any better, and a narrower
evaluation cuts less at the same margins, so its trees grow. A refit worth
a match ranks better (correlation), keeps its spread, and needs no more
nodes for a depth.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from outflank import Board, evaldata, evalfit, evalmodel  # noqa: E402
from outflank.engine import Engine  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402

PACKAGED = "packaged"
SEED = 7


def weight_spec(text: str) -> tuple[str, Path]:
    """``NAME=FILE`` as argparse reads it."""
    name, sep, file = text.partition("=")
    if not sep or not name or not file or name == PACKAGED:
        raise argparse.ArgumentTypeError(f"want NAME=FILE (NAME not {PACKAGED!r}), not {text!r}")
    return name, Path(file)


def sample(
    paths: list[Path], empties: tuple[int, int], count: int, all_games: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to ``count`` labelled positions with ``empties`` (both ends
    included) of the test games (of all games with ``all_games``), in a
    fixed random order: players, opponents, labels in discs."""
    data = evaldata.load(paths)
    games = np.arange(len(data["game"])) if all_games else evalfit.split(data["game"]).test
    rows = games[(data["empties"][games] >= empties[0]) & (data["empties"][games] <= empties[1])]
    if not len(rows):
        where = "" if all_games else " of the test games (--all-games: of all)"
        raise OutflankError(f"no position with {empties[0]}-{empties[1]} empties{where}")
    rows = np.random.default_rng(SEED).permutation(rows)[:count]
    return data["player"][rows], data["opponent"][rows], data["label"][rows] / 100


def nodes_to_depth(player: np.ndarray, opponent: np.ndarray, depth: int, selective: float) -> int:
    """Nodes of the active weights' searches to ``depth``, each from a cleared table."""
    engine = Engine(depth=depth, selective=selective, endgame=0, threads=1, tt_mb=64)
    nodes = 0
    for p, o in zip(player.tolist(), opponent.tolist(), strict=True):
        engine.clear()
        nodes += engine.search(Board(p, o)).nodes  # the mover as black
    return nodes


def check(args: argparse.Namespace) -> str:
    """The table (markdown) for the packaged weights and each --weights file."""
    player, opponent, label = sample(args.data, tuple(args.empties), args.count, args.all_games)
    slots = {PACKAGED: 0}
    for slot, (name, file) in enumerate(args.weights, 1):
        evalmodel.load_into(file, slot)
        slots[name] = slot
    deep = f"nodes to depth {args.depth}, {min(args.nodes, len(label))} positions"
    deep = deep if args.nodes else "nodes (--nodes 0)"
    lines = [
        f"{len(label):,} positions of {args.empties[0]}-{args.empties[1]} empties; "
        f"labels: standard deviation {label.std():.2f} discs",
        "",
        f"| weights | s.d. | slope on labels | correlation | MAE | {deep} | nodes / packaged |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    first = None
    try:
        for name, slot in slots.items():
            value = evalmodel.scores(player, opponent, slot)
            cells = [
                f"{value.std():.2f}",
                f"{np.polyfit(label, value, 1)[0]:.3f}",
                f"{np.corrcoef(value, label)[0, 1]:.3f}",
                f"{np.abs(value - label).mean():.2f}",
            ]
            if args.nodes:
                evalmodel.use(slot)
                n = nodes_to_depth(
                    player[: args.nodes], opponent[: args.nodes], args.depth, args.selective
                )
                first = first or n
                cells += [f"{n:,}", f"{n / first:.3f}"]
            else:
                cells += ["-", "-"]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    finally:
        evalmodel.use(0)
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, checked (an OutflankError names what is wrong)."""
    ap = argparse.ArgumentParser(
        description="Spread, correlation and nodes of evaluator weight files."
    )
    ap.add_argument("data", type=Path, nargs="+", help="eval_data.py shard folders or .npz files")
    ap.add_argument("--weights", type=weight_spec, action="append", default=[],
                    metavar="NAME=FILE", help="a weight file to compare (up to 3)")  # fmt: skip
    ap.add_argument("--empties", type=int, nargs=2, default=[24, 44], metavar=("LOW", "HIGH"))
    ap.add_argument("--count", type=int, default=20000, help="positions for the values")
    ap.add_argument("--depth", type=int, default=12, help="depth of the node counts")
    ap.add_argument("--nodes", type=int, default=80, help="positions searched (0: none)")
    ap.add_argument("--selective", type=float, default=0.8, help="probable cut-offs (s.d.)")
    ap.add_argument("--all-games", action="store_true", help="not only the test games")
    args = ap.parse_args(argv)
    names = [name for name, _ in args.weights]
    if len(names) > 3 or len(set(names)) < len(names):
        raise OutflankError("at most 3 --weights files, each with a name of its own")
    if not 0 <= args.empties[0] <= args.empties[1] <= 60:
        raise OutflankError("--empties wants 0 <= LOW <= HIGH <= 60")
    if args.count < 2 or args.nodes < 0 or not 1 <= args.depth <= 30:
        raise OutflankError("need --count >= 2, --nodes >= 0 and --depth in 1..30")
    if args.selective < 0:
        raise OutflankError("--selective must be >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    try:
        print(check(parse_args(argv)))
    except (OutflankError, OSError) as exc:
        print(f"eval_check.py: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
