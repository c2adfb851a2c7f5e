"""The opening book measured: accuracy, time saved, build rate.

    python bench/book.py accuracy [--book PATH] [--count 200] [--extra 4]
    python bench/book.py time [--level 18] [--moves 20] [--games 1]
    python bench/book.py rate [--depth 16] [--positions 40]

accuracy: random positions of the book (a fixed seed) are searched again
``--extra`` plies deeper than the book searched them (same selectivity, one
thread, a cleared table each). The deeper search's best move and value are
compared with the book's best move, whose value at that depth is found by
searching the position after it one ply less deep: the loss is the deeper
search's best value minus the book move's (0 when the moves agree).

time: games of a level against itself from the start, once with the
opening book and once without; the time the engines took for the first
``--moves`` plies and for the whole game.

rate: a fresh build from the start position (the shipped book's search
settings) with 1 and then 2 worker processes, stopped after ``--positions``
searches: positions per hour of wall time and per CPU-hour.

Run it on a quiet machine: ``flock -x /tmp/outflank-cpu.lock python bench/book.py ...``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import Board  # noqa: E402
from outflank.book import Book  # noqa: E402
from outflank.book.build import Builder, start_build  # noqa: E402
from outflank.engine import Engine  # noqa: E402


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# ---------------------------------------------------------------- accuracy
def accuracy(book: Book, count: int, extra: int, seed: int) -> str:
    boards = sorted(book.boards(), key=lambda b: (b.black, b.white))
    picked = random.Random(seed).sample(boards, min(count, len(boards)))
    losses: list[float] = []
    agree = 0
    seconds = 0.0
    depths = set()
    for n, board in enumerate(picked, 1):
        entry = book.probe(board)
        assert entry is not None
        depth = entry.depth + extra
        depths.add(depth)
        engine = Engine(tt_mb=64, selective=entry.selectivity, threads=1)  # CPU s of one
        start = time.process_time()
        deep = engine.search(board, depth=depth)
        book_move = entry.best.move
        if deep.best_move == book_move:
            loss = 0.0
            agree += 1
        else:
            after = board.copy()
            after.push(book_move)
            if after.must_pass():
                after.push("pass")
                value = engine.search(after, depth=depth - 1).score
            elif after.is_game_over():  # book boards are black to move
                value = float(after.outcome().margin)  # type: ignore[union-attr]
            else:
                value = -engine.search(after, depth=depth - 1).score
            loss = max(0.0, deep.score - value)
        seconds += time.process_time() - start
        losses.append(loss)
        print(
            f"\r{n}/{len(picked)}  agree {agree}  mean loss {statistics.fmean(losses):.2f}",
            end="", file=sys.stderr, flush=True,
        )  # fmt: skip
    print(file=sys.stderr)
    within = sum(loss <= 1.0 for loss in losses)
    n = len(losses)
    return _table(
        [
            ("book", f"{book.source} ({len(book):,} positions)"),
            ("positions", f"{n} (random, seed {seed})"),
            ("re-searched to depth", ", ".join(map(str, sorted(depths)))),
            ("same best move", f"{agree} ({100 * agree / n:.1f} %)"),
            ("book move within 1 disc", f"{within} ({100 * within / n:.1f} %)"),
            ("mean disc loss", f"{statistics.fmean(losses):.2f}"),
            ("largest loss", f"{max(losses):.2f}"),
            ("CPU time", f"{seconds:.0f} s ({seconds / n:.1f} s a position)"),
        ]
    )


# ---------------------------------------------------------------- time
def _game(level: int, book: bool, moves: int, seed: int) -> tuple[float, float, int, int]:
    """(seconds for the first ``moves`` plies, for the game, book moves, plies)."""
    engines = [Engine.level(level, book=book, seed=seed + side, threads=1) for side in (0, 1)]
    board = Board()
    first = total = 0.0
    from_book = 0
    while not board.is_game_over():
        if board.must_pass():
            board.push("pass")
            continue
        engine = engines[board.ply % 2]
        start = time.perf_counter()
        picked = engine.book_move(board)
        move = picked.move if picked is not None else engine.search(board).best_move
        spent = time.perf_counter() - start
        from_book += picked is not None
        total += spent
        if board.ply < moves:
            first += spent
        board.push(move)
    return first, total, from_book, board.ply


def game_time(level: int, moves: int, games: int, seed: int) -> str:
    rows: list[tuple[str, str]] = [("level", str(level)), ("games", f"{games} each")]
    for book in (True, False):
        runs = [_game(level, book, moves, seed + 10 * g) for g in range(games)]
        first = statistics.fmean(r[0] for r in runs)
        total = statistics.fmean(r[1] for r in runs)
        from_book = statistics.fmean(r[2] for r in runs)
        label = "with book" if book else "without book"
        rows.append((f"{label}: first {moves} plies", f"{first:.2f} s"))
        rows.append((f"{label}: whole game", f"{total:.1f} s"))
        rows.append((f"{label}: book moves", f"{from_book:.1f}"))
    return _table(rows)


# ---------------------------------------------------------------- rate
def build_rate(depth: int, selective: float, positions: int) -> str:
    rows: list[tuple[str, str]] = [
        ("search", f"depth {depth}, selective {selective}"),
        ("positions", str(positions)),
    ]
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            params = {"depth": depth, "selective": selective, "window": 2.0, "plies": 14}
            with start_build(Path(tmp) / "rate.db", params) as db:
                wall0 = time.perf_counter()
                status = Builder(db, workers=workers).run(max_positions=positions)
                wall = time.perf_counter() - wall0
                cpu = db.seconds()  # each search's CPU time, as the workers measured it
                searched = status.searched
        rows.append(
            (
                f"{workers} worker{'s' if workers > 1 else ''}",
                f"{searched} in {wall:.1f} s: {3600 * searched / wall:,.0f} positions/h,"
                f" {3600 * searched / cpu:,.0f} per CPU-hour ({cpu:.1f} CPU s)",
            )
        )
    return _table(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="what", required=True)
    a = sub.add_parser("accuracy")
    a.add_argument("--book", type=Path, help="book file (default: the shipped book)")
    a.add_argument("--count", type=int, default=200)
    a.add_argument("--extra", type=int, default=4, help="plies deeper than the book")
    a.add_argument("--seed", type=int, default=1)
    t = sub.add_parser("time")
    t.add_argument("--level", type=int, default=18)
    t.add_argument("--moves", type=int, default=20)
    t.add_argument("--games", type=int, default=1)
    t.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("rate")
    r.add_argument("--depth", type=int, default=16)
    r.add_argument("--selective", type=float, default=1.5)
    r.add_argument("--positions", type=int, default=40)
    args = ap.parse_args(argv)
    if args.what == "accuracy":
        book = Book.load(args.book) if args.book else Book.default()
        print(accuracy(book, args.count, args.extra, args.seed))
    elif args.what == "time":
        print(game_time(args.level, args.moves, args.games, args.seed))
    else:
        print(build_rate(args.depth, args.selective, args.positions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
