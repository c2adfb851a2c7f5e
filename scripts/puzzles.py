"""Make puzzles: from self-play and game records into a database, then a set.

    python scripts/puzzles.py generate DB --games 2000 [--ggf GAMES.ggf ...] [--workers 2]
    python scripts/puzzles.py summary DB
    python scripts/puzzles.py export DB [DB ...] OUT.jsonl --count 1000 [--per-game 2]

``generate`` examines every position of each game within --min-empties to
--max-empties by a full exact analysis (outflank.puzzles.generate) and
keeps the puzzles in DB (SQLite): self-play games 0..--games-1 and every
game of each --ggf file. Rerun it to go on where it stopped (the
settings are stored in DB; any given again must be the same); --max-time
ends a run after that many seconds (the jobs running finish), so a long
job can run in chunks:

    while nice -n 19 python scripts/puzzles.py generate DB --games 4000 --max-time 540
    [ $? = 3 ]; do sleep 5; done

exits 0 when every job is done, 3 when the time limit left some, 2 on bad
input, 130 when Ctrl-C or SIGTERM stopped it (the finished jobs are kept;
those in flight are done again by the next run). ``export`` picks up to
--count puzzles spread over the grades (at most --per-game from one game),
checks each again by a new exact analysis and writes the puzzle file
(the shipped set is src/outflank/data/puzzles.jsonl).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank.errors import OutflankError  # noqa: E402
from outflank.ggf import read_ggf_file  # noqa: E402
from outflank.interrupt import EXIT_INTERRUPTED, StopSignals  # noqa: E402
from outflank.puzzles import generate as gen  # noqa: E402
from outflank.puzzles.puzzle import GRADES  # noqa: E402


def _jobs(args: argparse.Namespace) -> list[gen.Job]:
    jobs = list(gen.self_play_jobs(args.games))
    for path in args.ggf:
        for number, record in enumerate(read_ggf_file(path), 1):
            moves = [m.move for m in record.moves]
            jobs.append(gen.game_job(record.start, moves, f"{Path(path).name} game {number}"))
    return jobs


def _generate(args: argparse.Namespace) -> int:
    names = ("seed", "margin", "min_empties", "max_empties")
    given = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    jobs = _jobs(args)
    start = time.monotonic()

    def progress(status: gen.GenStatus) -> None:
        if not args.quiet:
            print(
                f"  {status.done} jobs done, {status.todo} left, {status.puzzles} new puzzles,"
                f" {status.elapsed:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    with gen.PuzzleDB.start(args.db, given) as db, StopSignals() as stop:
        status = gen.generate(
            db, jobs, workers=args.workers, backend=args.backend, max_time=args.max_time,
            stop=stop, on_progress=progress,
        )  # fmt: skip
        left = len([j for j in jobs if j.key not in db.done()])
        total = db.summary()["puzzles"]
        if status.interrupted:
            print(
                f"interrupted: {status.done} jobs done in {time.monotonic() - start:.0f} s,"
                f" {left} left ({total} puzzles in {args.db}); run the same command to go on",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
        print(f"{status.done} jobs done, {left} left; {total} puzzles in {args.db}")
    return 0 if left == 0 else 3


def _summary(args: argparse.Namespace) -> int:
    if not args.db.is_file():
        raise OutflankError(f"no puzzle database {args.db}")
    with gen.PuzzleDB.open(args.db) as db:
        s = db.summary()
        print(
            f"{s['jobs']} jobs, {s['positions']} positions examined, {s['puzzles']} puzzles,"
            f" {s['seconds'] / 3600:.2f} CPU h"
        )
        for grade, n in s["grades"].items():
            print(f"  grade {grade} ({GRADES[grade][0]}): {n}")
    return 0


def _export(args: argparse.Namespace) -> int:
    for path in args.db:
        if not path.is_file():
            raise OutflankError(f"no puzzle database {path}")

    def progress(done: int, total: int) -> None:
        if not args.quiet and (done % 50 == 0 or done == total):
            print(f"  checked {done}/{total}", file=sys.stderr, flush=True)

    dbs = []
    try:
        for path in args.db:
            dbs.append(gen.PuzzleDB.open(path))
        with StopSignals() as stop:
            out = gen.export(
                dbs, args.out, args.count, per_job=args.per_game, seed=args.seed,
                check=not args.no_check, on_progress=progress, stop=stop,
            )  # fmt: skip
    finally:
        for db in dbs:
            db.close()
    grades = {g: 0 for g in GRADES}
    for puzzle in out:
        grades[puzzle.grade] += 1
    shown = ", ".join(f"{GRADES[g][0]} {n}" for g, n in grades.items())
    print(f"wrote {len(out)} puzzles to {args.out} ({shown})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    defaults = gen.GenParams()

    p = sub.add_parser("generate", help="find puzzles in self-play games and game records")
    p.add_argument("db", type=Path, help="the puzzle database (SQLite)")
    p.add_argument("--games", type=int, default=0, help="self-play games 0..N-1")
    p.add_argument("--ggf", type=Path, action="append", default=[], help="a GGF file of games")
    p.add_argument("--seed", type=int, help=f"of the self-play games ({defaults.seed})")
    p.add_argument(
        "--margin",
        type=int,
        help=f"discs between the solution and every other move ({defaults.margin})",
    )
    p.add_argument("--min-empties", type=int, help=f"({defaults.min_empties})")
    p.add_argument("--max-empties", type=int, help=f"({defaults.max_empties})")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument(
        "--max-time",
        type=float,
        metavar="SECONDS",
        help="start no job after this long; rerun to go on",
    )
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=_generate)

    p = sub.add_parser("summary", help="what a puzzle database holds")
    p.add_argument("db", type=Path)
    p.set_defaults(run=_summary)

    p = sub.add_parser("export", help="write a graded, checked puzzle file from databases")
    p.add_argument("db", type=Path, nargs="+", help="one or more puzzle databases")
    p.add_argument("out", type=Path, help="the puzzle file to write")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--per-game", type=int, default=2, help="at most this many from one game")
    p.add_argument("--seed", type=int, default=1, help="of the random choice within a grade")
    p.add_argument("--no-check", action="store_true", help="skip the new exact analysis")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=_export)

    args = parser.parse_args(argv)
    try:
        if getattr(args, "games", 0) < 0 or getattr(args, "count", 0) < 0:
            raise OutflankError("--games and --count must not be negative")
        return int(args.run(args))
    except (OutflankError, OSError) as exc:
        print(f"puzzles.py {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
