"""``outflank book build|extend|show|merge|export``: make and inspect opening books."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from outflank.board import Board, parse_position
from outflank.book.build import (
    BuildDB,
    Builder,
    BuildParams,
    BuildStatus,
    line_positions,
    root_entry,
    start_build,
)
from outflank.book.explorer import explore
from outflank.book.store import Book, BookError, merge
from outflank.errors import OutflankError
from outflank.interrupt import EXIT_INTERRUPTED, StopSignals

NAME = "book"
HELP = "build, extend, show (explore), merge or export an opening book"
#: Openings a move leads to that ``book show`` names (the shortest lines).
LEADS_SHOWN = 4


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    defaults = BuildParams()
    for action, text in (
        ("build", "build a book into a database, or resume an interrupted build"),
        ("extend", "widen a built book (window, plies, more roots) and search what it adds"),
    ):
        p = sub.add_parser(action, help=text, description=text)
        p.add_argument("db", type=Path, help="the build database (SQLite), e.g. my.db")
        if action == "build":
            p.add_argument(
                "--depth",
                type=int,
                help=f"search depth of each position (default {defaults.depth})",
            )
            p.add_argument(
                "--selective",
                type=float,
                help="probable cut-offs of those searches, in standard deviations; 0 for none"
                f" (default {defaults.selective})",
            )
        p.add_argument(
            "--window",
            type=float,
            help="keep the lines whose moves lose at most this many discs in all against"
            f" the best (default {defaults.window})",
        )
        p.add_argument(
            "--plies",
            type=int,
            help=f"the deepest book positions, in plies from the start (default {defaults.plies})",
        )
        p.add_argument(
            "--from",
            dest="roots",
            action="append",
            default=[],
            metavar="POSITION",
            help="a root to expand (transcript or OBF; default the start position; repeatable)",
        )
        p.add_argument(
            "--line",
            action="append",
            default=[],
            metavar="TRANSCRIPT",
            help="add every position of this line, each continued by its best moves",
        )
        p.add_argument(
            "--names",
            action="store_true",
            help="add the line of every named opening (see outflank.book.names)",
        )
        p.add_argument(
            "--workers",
            type=int,
            default=max(1, min(2, os.cpu_count() or 1)),
            help="parallel worker processes, local backend (default: up to 2)",
        )
        p.add_argument(
            "--backend",
            choices=["local", "ray"],
            default="local",
            help="where the searches run: worker processes here, or a Ray cluster",
        )
        p.add_argument("--tt-mb", type=int, default=16, help="transposition table per worker (MiB)")
        p.add_argument(
            "--max-time",
            type=float,
            metavar="SECONDS",
            help="stop starting searches after this long (those running finish); run again"
            " to go on",
        )
        p.add_argument(
            "--max-positions",
            type=int,
            metavar="N",
            help="stop after N searches; run again to go on",
        )
        p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "show",
        help="summarise a book, or explore a position: its book moves, their values and the"
        " openings they lead to",
    )
    p.add_argument(
        "book",
        nargs="?",
        help="a .book file or a build database (default: the book shipped with outflank)",
    )
    p.add_argument("position", nargs="?", help="transcript, OBF or 'start'")

    p = sub.add_parser("merge", help="merge books; a position in several keeps its deepest search")
    p.add_argument("books", type=Path, nargs="+", help=".book files or build databases")
    p.add_argument("-o", "--out", type=Path, required=True, help="the merged .book file")

    p = sub.add_parser("export", help="write a book as a .book file (or as text)")
    p.add_argument("book", type=Path, help="a build database or .book file")
    p.add_argument("-o", "--out", type=Path, required=True, help="output file")
    p.add_argument(
        "--format",
        choices=["binary", "text"],
        default="binary",
        help="binary: the .book format the engine loads; text: one position a line",
    )


# ---------------------------------------------------------------- build
def _roots(args: argparse.Namespace, window: float) -> list[list[Any]]:
    roots = []
    for text in args.roots:
        roots.append(root_entry(parse_position(text).copy(stack=False), 0))
    lines = list(args.line)
    if args.names:
        from outflank.book.names import OPENINGS

        lines += [moves for _, moves in OPENINGS]
    spent = round(window * 100)  # no loss left: the best moves only
    for line in lines:
        for board in line_positions(line):
            entry = root_entry(board, spent)
            if entry not in roots:
                roots.append(entry)
    return roots


def _given(args: argparse.Namespace) -> dict[str, Any]:
    names = ("depth", "selective", "window", "plies")
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


class _ProgressBar:
    """A rich progress bar on a terminal, else a line now and then."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar = None
        self.task = None
        self.last = 0.0
        if not quiet and sys.stderr.isatty():
            from rich.progress import BarColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[info]}")
            )
            self.bar.start()

    def __call__(self, status: BuildStatus) -> None:
        if self.quiet:
            return
        eta = "-" if status.eta is None else f"{status.eta / 60:.1f} min"
        info = (
            f"{status.done} done, {status.queued} queued, {status.running} running,"
            f" {status.rate * 3600:,.0f}/h, ETA {eta}"
        )
        total = status.done + status.queued + status.running
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task("book", total=total, info=info)
            self.bar.update(self.task, completed=status.done, total=total, info=info)
        elif status.elapsed - self.last >= 10 or status.complete:
            self.last = status.elapsed
            print(f"book: {info}", file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _build(args: argparse.Namespace, extend: bool) -> int:
    given = _given(args)
    window = given.get("window")
    if window is None:
        if args.db.exists():
            with BuildDB.open(args.db, create=False) as db:
                stored = db.params()
            window = stored.window if stored else BuildParams().window
        else:
            window = BuildParams().window
    roots = _roots(args, window)
    if not extend and not args.db.exists() and roots and not args.roots:
        roots.insert(0, root_entry(Board(), 0))  # --line/--names add to the start
    db = start_build(args.db, given, extend=extend, roots=roots)
    # Ctrl-C or SIGTERM: the searches stop at once, the ones done are kept
    with StopSignals() as stop:
        progress = _ProgressBar(args.quiet)
        try:
            with db:
                builder = Builder(
                    db, workers=args.workers, backend=args.backend, tt_mb=args.tt_mb,
                    on_progress=progress,
                )  # fmt: skip
                status = builder.run(
                    max_time=args.max_time, max_positions=args.max_positions, stop=stop
                )
        finally:
            progress.stop()
        if status.interrupted:
            print(
                f"interrupted: {status.done} positions saved in {args.db}"
                f" ({status.searched} searched now); run the same command to go on",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
        if status.complete:
            print(
                f"complete: {status.done} positions in {args.db} ({status.searched} searched now)"
            )
        else:
            print(
                f"stopped: {status.done} positions in {args.db}, {status.queued} queued;"
                " run the same command to go on"
            )
    return 0


# ---------------------------------------------------------------- show / merge / export
def _load(path: Path) -> Book:
    if not path.exists():
        raise BookError(f"no book {path}")
    return Book.load(path)


def _show_arguments(args: argparse.Namespace) -> tuple[Book, str | None]:
    """The book and position of ``book show [BOOK] [POSITION]``: a first
    argument that is not a file is the position, in the shipped book."""
    if args.position is not None:
        return _load(Path(args.book)), args.position
    if args.book is None:
        return Book.default(), None
    path = Path(args.book)
    if path.exists():
        return _load(path), None
    try:
        parse_position(args.book)
    except OutflankError:
        if path.suffix or "/" in args.book:
            raise BookError(f"no book {path}") from None
        raise
    return Book.default(), args.book


def _show(args: argparse.Namespace) -> int:
    book, position = _show_arguments(args)
    if position is None:
        plies: dict[int, int] = {}
        depths: dict[tuple[int, float], int] = {}
        for board in book.boards():
            ply = 60 - board.empties
            plies[ply] = plies.get(ply, 0) + 1
        for _, rec, _ in book.records():
            k = (rec.depth, rec.selectivity / 10)
            depths[k] = depths.get(k, 0) + 1
        print(f"{book.source}: {len(book):,} positions, {len(book.to_bytes()):,} bytes")
        build = book.header.get("build")
        if build:
            print(
                f"built with depth {build['depth']}, selective {build['selective']},"
                f" window {build['window']}, plies {build['plies']}, {len(build['roots'])} roots"
            )
        print("positions by ply: " + ", ".join(f"{p}: {n}" for p, n in sorted(plies.items())))
        print(
            "searches: "
            + ", ".join(f"depth {d} sel {s:g}: {n}" for (d, s), n in sorted(depths.items()))
        )
        entry = book.probe(Board())
        if entry is not None:
            line = " ".join(map(str, book.line(Board())))
            print(f"start: value {entry.value:+.2f}, book line {line}")
        return 0
    board = parse_position(position)
    here = explore(board, book)
    if here.opening is not None:
        print(f"opening: {here.opening}")
    if not here.in_book:
        print("not in the book")
        return 1
    print(
        f"value {here.value:+.2f} (depth {here.depth},"
        f" selective {book.probe(board).selectivity:g});"  # type: ignore[union-attr]
        f" book line {' '.join(map(str, book.line(board)))}"
    )
    for m in here.moves:
        names = ""
        if m.opening is not None or m.leads_to:
            shown = ", ".join(m.leads_to[:LEADS_SHOWN])
            more = len(m.leads_to) - LEADS_SHOWN
            if more > 0:
                shown += f" and {more} more"
            names = m.opening or "-"
            if shown:
                names += f" -> {shown}"
        print(f"  {m.move}  {m.value:+6.2f}  {'book' if m.in_book else '    '}  {names}".rstrip())
    return 0


def _merge(args: argparse.Namespace) -> int:
    books = [_load(path) for path in args.books]
    merged = Book.from_records(merge(books), {"merged": [str(p) for p in args.books]})
    merged.save(args.out)
    print(f"{args.out}: {len(merged):,} positions from {len(books)} books")
    return 0


def _export(args: argparse.Namespace) -> int:
    book = _load(args.book)
    if args.format == "text":
        with args.out.open("w", encoding="utf-8") as f:
            for line in book.text_lines():
                f.write(line + "\n")
    else:
        book.save(args.out)
    print(f"{args.out}: {len(book):,} positions ({args.format})")
    return 0


def run(args: argparse.Namespace) -> int:
    action = args.book_command
    if action in ("build", "extend"):
        for name in ("workers", "tt_mb"):
            if getattr(args, name) < 1:
                raise OutflankError(f"--{name.replace('_', '-')} must be at least 1")
        return _build(args, extend=action == "extend")
    if action == "show":
        return _show(args)
    if action == "merge":
        return _merge(args)
    return _export(args)
