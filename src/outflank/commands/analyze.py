"""``outflank analyze POSITION``: stream a search's progress, then score every move."""

from __future__ import annotations

import argparse

from outflank.book.names import opening_name
from outflank.commands.common import add_threads_option, board_argument, interruptible
from outflank.engine import Engine, MoveScore, SearchInfo, check_limits
from outflank.errors import OutflankError
from outflank.evaluation import EVALUATORS

NAME = "analyze"
ALIASES = ("analyse",)  # the help says "analyse"
HELP = "analyse a position (OBF line or transcript): info per depth, then every move's score"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "position",
        type=board_argument,
        help='OBF line (then moves), transcript, ASCII board or "start"',
    )
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, help="search depth in plies")
    limit.add_argument(
        "--time",
        type=float,
        help="seconds for the search (default 2), and at most as long again to score every move",
    )
    parser.add_argument(
        "--evaluator",
        default="default",
        choices=sorted(EVALUATORS),
        help="evaluator to use (default: default)",
    )
    parser.add_argument(
        "--no-book",
        action="store_true",
        help="search even where the opening book knows the position (the book is used"
        " with the default evaluator)",
    )
    parser.add_argument(
        "--endgame",
        type=int,
        default=None,
        help="solve exactly from this many empties (default: 18 with the default evaluator)",
    )
    parser.add_argument(
        "--selective",
        type=float,
        default=None,
        help="probable cut-offs at this many standard deviations, with the default evaluator"
        " (default: the default preset's 0.8; 0 searches full width)",
    )
    parser.add_argument(
        "--window",
        type=float,
        default=None,
        help="score exactly the moves within this many discs of the best and the others by an"
        " upper bound (<=), with the default evaluator (default: the hints' 4; 0 scores every"
        " move exactly)",
    )
    add_threads_option(parser, "every core this process may use")


def _fmt_score(score: float) -> str:
    return f"{score:+.2f}" if score != int(score) else f"{score:+.0f}"


def _fmt_move_score(item: MoveScore) -> str:
    """A move and its score; an upper bound as ``<=``."""
    return f"{item.move} {'<=' if item.upper else ''}{_fmt_score(item.score)}"


def _info(info: SearchInfo) -> None:
    pv = " ".join(str(m) for m in info.pv)
    print(
        f"depth {info.depth:>2}  score {_fmt_score(info.score):>7}  nodes {info.nodes:>12,}"
        f"  nps {info.nps:>12,.0f}  time {info.elapsed:6.2f}s  pv {pv}",
        flush=True,
    )


def _engine(args: argparse.Namespace) -> Engine:
    """The default evaluator analyses as the hints do (:meth:`Engine.for_analysis`:
    the preset's probable cut-offs and the book); the others full width."""
    if args.evaluator != "default":
        if args.selective:
            raise OutflankError("--selective works with the default evaluator only")
        if args.window:
            raise OutflankError("--window works with the default evaluator only")
        return Engine(args.evaluator, endgame=args.endgame, threads=args.threads)
    given: dict[str, object] = {
        key: value
        for key, value in (("endgame", args.endgame), ("selective", args.selective))
        if value is not None
    }
    if args.window is not None:
        given["analysis_window"] = args.window or None  # 0: every move exactly
    return Engine.for_analysis(book=not args.no_book, threads=args.threads, **given)


def run(args: argparse.Namespace) -> int:
    board = args.position
    if board.is_game_over():
        raise OutflankError("the game is over: nothing to analyse")
    time = args.time if args.time is not None or args.depth is not None else 2.0
    check_limits(depth=args.depth, time=time)  # before any output
    engine = _engine(args)
    print(board)
    print(f"{board.turn.name.lower()} to move, {board.empties} empties, evaluator "
          f"{engine.evaluator.describe()}")  # fmt: skip
    name = opening_name(board)
    if name is not None:
        print(f"opening: {name}")
    if engine.book is not None and engine.book.probe(board) is not None:
        scores = engine.analyze(board)
        result = engine.search(board)
        pv = " ".join(str(m) for m in result.pv)
        print(f"best {result.best_move}  score {_fmt_score(result.score)} (book, searched to depth"
              f" {result.depth})  book line {pv}")  # fmt: skip
        print("moves (book):", "  ".join(f"{s.move} {_fmt_score(s.score)}" for s in scores))
        return 0
    result = interruptible(
        engine.search, board, depth=args.depth, time=time, on_info=_info, on_interrupt=engine.stop
    )
    kind = "exact" if result.exact else "estimate"
    print(f"best {result.best_move}  score {_fmt_score(result.score)} ({kind})  "
          f"depth {result.depth}  nodes {result.nodes:,}  time {result.elapsed:.2f}s")  # fmt: skip
    depth = args.depth if args.depth is not None else max(result.depth, 1)
    # every move to the search's depth, within the same time again
    scores = interruptible(
        engine.analyze, board, depth=depth, time=None if args.depth is not None else time,
        on_interrupt=engine.stop,
    )  # fmt: skip
    reach = "exact" if scores[0].exact else f"depth {scores[0].depth}"
    print(f"moves ({reach}):", "  ".join(_fmt_move_score(s) for s in scores))
    return 0
