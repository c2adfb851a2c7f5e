"""Make labelled positions for fitting the ``default`` evaluator.

    python scripts/eval_data.py generate DIR --shards 500 [--workers 2] [--time-limit 540]
    python scripts/eval_data.py merge DIR OUT.npz        # one columnar file + OUT.md datasheet
    python scripts/eval_data.py datasheet DIR_OR_NPZ ...
    python scripts/eval_data.py relabel DIR NEW_DIR --depth 12 [--empties 24 40] [--shards N]

``generate`` plays and labels the shards DIR lacks (see outflank.evaldata:
varied self-play, exact labels up to --exact empties, probable-cut endgame
searches up to --probable, midgame searches of --depth plies above), in
--workers processes or on a Ray cluster (--backend ray). Rerun it with the
same settings to go on where it stopped; --time-limit ends a run after that
many seconds (the shards in progress finish), so a long job can run in
chunks (``relabel`` too: it copies DIR to NEW_DIR with the positions of
--empties searched again --depth plies deep, in --shards of its shards
chosen at random by --seed, or all; see outflank.evalrelabel):

    while python scripts/eval_data.py generate DIR --shards 2000 --time-limit 540; [ $? = 3 ]
    do sleep 5; done

exits 0 when all shards exist, 3 when the time limit left some to make, 2 on
bad input, 130 when Ctrl-C or SIGTERM stopped it (the finished shards are
kept; the ones in progress are made again by the next run).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import evaldata, evalrelabel  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402
from outflank.interrupt import EXIT_INTERRUPTED, StopSignals  # noqa: E402


def _generate(args: argparse.Namespace) -> int:
    cfg = evaldata.DataConfig(
        seed=args.seed,
        games_per_shard=args.games_per_shard,
        opening_min=args.opening[0],
        opening_max=args.opening[1],
        depths=tuple(args.depths),
        random_move=args.random_move,
        exact=args.exact,
        probable=max(args.probable, args.exact),
        depth=args.depth,
        selective=args.selective,
        label_all=args.label_all,
        sample=args.sample,
        label_max=args.label_max,
        label_min=args.label_min,
    )
    start = time.time()

    def progress(made: int, todo: int, rows: int) -> None:
        print(f"  shard {made}/{todo} ({rows} positions), {time.time() - start:.0f} s", flush=True)

    # Ctrl-C or SIGTERM: the shards in progress are abandoned, the finished
    # ones stay on disk
    with StopSignals() as stop:
        made = evaldata.generate(
            args.folder, cfg, args.shards, workers=args.workers, backend=args.backend,
            time_limit=args.time_limit, progress=None if args.quiet else progress, stop=stop,
        )  # fmt: skip
        left = args.shards - len(evaldata.done_shards(args.folder) & set(range(args.shards)))
        return _ending(stop, f"made {made} shards in {time.time() - start:.0f} s", left)


def _ending(stop: StopSignals, done: str, left: int) -> int:
    """Say how a resumable run ended (``done``: what it did); its exit code:
    0 when nothing is left, 3 when a time limit left work, 130 when a stop
    request did."""
    if stop.requested and left:
        print(f"interrupted: {done}, {left} left; run the same command to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"{done}; {left} left")
    return 0 if left == 0 else 3


def _relabel(args: argparse.Namespace) -> int:
    start = time.time()

    def progress(made: int, todo: int, labels: int) -> None:
        print(f"  shard {made}/{todo} ({labels} labels), {time.time() - start:.0f} s", flush=True)

    with StopSignals() as stop:
        made, left = evalrelabel.relabel(
            args.source, args.target, depth=args.depth, selective=args.selective,
            empties=tuple(args.empties), shards=args.shards, seed=args.seed,
            workers=args.workers, time_limit=args.time_limit,
            progress=None if args.quiet else progress, stop=stop,
        )  # fmt: skip
        return _ending(stop, f"relabelled {made} shards in {time.time() - start:.0f} s", left)


def _merge(args: argparse.Namespace) -> int:
    data = evaldata.merge(args.folder, args.target)
    sheet = _sheet(args.folder, data)
    args.target.with_suffix(".md").write_text(sheet)
    print(f"wrote {args.target} ({len(data['label']):,} positions) and its datasheet")
    return 0


def _sheet(path: Path, data: dict) -> str:
    config = seconds = None
    if path.is_dir():
        if (path / evaldata.CONFIG_FILE).exists():
            config = json.loads((path / evaldata.CONFIG_FILE).read_text())
        seconds = evaldata.shard_seconds(path)
    return evaldata.datasheet(data, config, seconds)


def _datasheet(args: argparse.Namespace) -> int:
    data = evaldata.load(args.paths)
    print(_sheet(args.paths[0], data) if len(args.paths) == 1 else evaldata.datasheet(data))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    d = evaldata.DataConfig()
    g = sub.add_parser("generate", help="play and label the missing shards")
    g.add_argument("folder", type=Path)
    g.add_argument("--shards", type=int, required=True, help="shards in all (0..N-1)")
    g.add_argument("--games-per-shard", type=int, default=d.games_per_shard)
    g.add_argument("--seed", type=int, default=d.seed)
    g.add_argument("--opening", type=int, nargs=2, default=[d.opening_min, d.opening_max],
                   metavar=("MIN", "MAX"), help="random plies at the start")  # fmt: skip
    g.add_argument("--depths", type=int, nargs="+", default=list(d.depths),
                   help="search depths the sides play at (drawn per side and game)")  # fmt: skip
    g.add_argument("--random-move", type=float, default=d.random_move)
    g.add_argument("--exact", type=int, default=d.exact, help="exact labels up to these empties")
    g.add_argument("--probable", type=int, default=d.probable,
                   help="probable-cut endgame labels up to these empties")  # fmt: skip
    g.add_argument("--depth", type=int, default=d.depth, help="midgame label search depth")
    g.add_argument("--selective", type=float, default=d.selective)
    g.add_argument("--label-all", type=int, default=d.label_all,
                   help="label every position with this many empties or fewer")  # fmt: skip
    g.add_argument("--sample", type=float, default=d.sample, help="share of the others labelled")
    g.add_argument("--label-max", type=int, default=d.label_max,
                   help="label no position with more empties")  # fmt: skip
    g.add_argument("--label-min", type=int, default=d.label_min,
                   help="label no position with fewer empties")  # fmt: skip
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--backend", choices=["local", "ray"], default="local")
    g.add_argument("--time-limit", type=float, default=None, help="seconds; then stop starting")
    g.add_argument("--quiet", action="store_true")
    g.set_defaults(run=_generate)
    r = sub.add_parser("relabel", help="copy a folder with deeper labels in a range of empties")
    r.add_argument("source", type=Path)
    r.add_argument("target", type=Path)
    r.add_argument("--depth", type=int, required=True, help="plies of the new labels' searches")
    r.add_argument("--selective", type=float, default=1.0,
                   help="their probable cut-offs (standard deviations)")  # fmt: skip
    r.add_argument("--empties", type=int, nargs=2, default=[24, 40], metavar=("LOW", "HIGH"),
                   help="relabel the positions with this many empties")  # fmt: skip
    r.add_argument("--shards", type=int, default=None,
                   help="relabel this many shards, chosen by --seed (default: all)")  # fmt: skip
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--time-limit", type=float, default=None, help="seconds; then stop starting")
    r.add_argument("--quiet", action="store_true")
    r.set_defaults(run=_relabel)
    m = sub.add_parser("merge", help="join a folder's shards into one .npz and a datasheet")
    m.add_argument("folder", type=Path)
    m.add_argument("target", type=Path)
    m.set_defaults(run=_merge)
    s = sub.add_parser("datasheet", help="print the datasheet of shard folders or .npz files")
    s.add_argument("paths", type=Path, nargs="+")
    s.set_defaults(run=_datasheet)
    args = ap.parse_args(argv)
    try:
        return args.run(args)
    except OutflankError as exc:
        print(f"eval_data.py: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
