"""``outflank tournament SPEC SPEC ...``: matches between players, with Elo."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from outflank.commands.common import add_threads_option
from outflank.errors import OutflankError
from outflank.interrupt import EXIT_INTERRUPTED, StopSignals
from outflank.players import player_specs_help
from outflank.tournament import OPENINGS, XOT_DEFAULT, GameOutcome, run_tournament

NAME = "tournament"
HELP = "play a round robin or gauntlet between players; results table, Elo, GGF games"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "players",
        nargs="+",
        metavar="SPEC",
        help=player_specs_help().replace("human, ", "") + " (not human)",
    )
    parser.add_argument(
        "--gauntlet", action="store_true", help="the first player meets each other one"
    )
    parser.add_argument(
        "--openings",
        default="4",
        metavar="N|LIST",
        help=f"how many built-in openings (1-{len(OPENINGS)}), or a comma list of names"
        f" ({', '.join(OPENINGS)}), transcripts, or xot / xot:N / xot:all: openings of"
        f" the XOT list of near-even 8-move openings ({XOT_DEFAULT} for a bare xot);"
        " each is played with both colours (default 4)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="repeat everything N times (default 1)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=max(1, min(2, os.cpu_count() or 1)),
        help="parallel worker processes, local backend (default: up to 2)",
    )
    add_threads_option(parser, "the cores shared out between the --workers games played at once")
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="where the games run: worker processes here, or a Ray cluster (default local)",
    )
    parser.add_argument(
        "--rules",
        choices=["othello", "reversi"],
        default="othello",
        help="reversi: a game ends when the side to move cannot move (default othello)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("tournament"),
        help="folder for the games and results, replaced each run (default ./tournament)",
    )
    parser.add_argument("--no-plot", action="store_true", help="skip ratings.png")
    parser.add_argument("--quiet", action="store_true", help="no progress output")


def _openings(text: str) -> int | list[str]:
    text = text.strip()
    if text.isdigit():
        return int(text)
    items = [t for t in text.split(",") if t.strip()]
    if not items:
        raise OutflankError("--openings: give a number or a comma separated list")
    return items


def _line(outcome: GameOutcome, done: int, total: int) -> str:
    what = f"forfeit ({outcome.reason})" if outcome.forfeit else f"{outcome.margin:+d}"
    return f"[{done}/{total}] {outcome.black} vs {outcome.white} ({outcome.opening_name}): {what}"


def run(args: argparse.Namespace) -> int:
    openings = _openings(args.openings)
    progress = None
    task_id = None
    if not args.quiet and sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            transient=True,
        )

    def on_game(outcome: GameOutcome, done: int, total: int) -> None:
        nonlocal task_id
        if args.quiet:
            return
        if progress is not None:
            if task_id is None:
                task_id = progress.add_task("games", total=total, completed=0)
            progress.update(task_id, completed=done)
            if outcome.forfeit:
                progress.console.print(_line(outcome, done, total), markup=False)
        else:
            print(_line(outcome, done, total), file=sys.stderr, flush=True)

    # Ctrl-C or SIGTERM: the games in play are abandoned, the finished ones
    # rated and saved as usual
    with StopSignals() as stop:
        if progress is not None:
            progress.start()
        try:
            result = run_tournament(
                args.players,
                gauntlet=args.gauntlet,
                openings=openings,
                rounds=args.rounds,
                workers=args.workers,
                backend=args.backend,
                rules=args.rules,
                out_dir=args.out,
                plot=not args.no_plot,
                on_game=on_game,
                threads=args.threads,
                stop=stop,
            )
        finally:
            if progress is not None:
                progress.stop()
        if result.interrupted and not result.games:
            print("interrupted before any game was finished: nothing saved", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(result.table())
        print()
        print(result.crosstable())
        print()
        saved = ", ".join(p.name for p in sorted(args.out.iterdir()) if p.is_file())
        print(f"{len(result.games)} games saved in {args.out}/ ({saved}, games/)")
        if result.interrupted:
            print(
                f"interrupted after {len(result.games)} of {result.planned} games: the table"
                f" and {args.out}/ hold the finished ones (a new run starts over)",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
    return 0
