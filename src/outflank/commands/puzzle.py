"""``outflank puzzle [play|show|list|verify|find]``: puzzles in the terminal.

``play`` (the default) shows puzzles near your rating one after another:
type the move that keeps the win (or the draw); a wrong move is answered
with its refutation, and then the solution line is played out. Your
Glicko-2 rating and streak are kept for the session, or in a file with
``--profile FILE`` (``--rating`` starts a new solver elsewhere than 1500).
``show ID`` prints a puzzle with its analysis, ``list`` the set,
``verify`` checks puzzles again with the exact solver, ``find GAMES``
makes puzzles out of your own games (GGF or transcripts): of every
position, or with ``--mistakes`` of those where a review (``outflank
review``) found a mistake.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path
from typing import TextIO

from outflank.board import BLACK, Board, Color, Move
from outflank.errors import OutflankError
from outflank.ggf import GameRecord
from outflank.interrupt import EXIT_INTERRUPTED, StopSignals
from outflank.puzzles import Analyst, PuzzleSet, verify
from outflank.puzzles.generate import Job
from outflank.puzzles.puzzle import GRADES, Puzzle, PuzzleError
from outflank.puzzles.rating import Rating
from outflank.puzzles.trainer import (
    Solver,
    answer,
    load_solver,
    next_puzzle,
    save_solver,
    skip,
)

NAME = "puzzle"
ALIASES = ("puzzles",)
HELP = "solve puzzles (find the only move that keeps the win), check or make them"


def configure(parser: argparse.ArgumentParser) -> None:
    _play_options(parser, argparse.SUPPRESS)
    parser.set_defaults(file=None, rating=None, profile=None, grade=None, count=None, seed=None,
                        no_color=False, id=None)  # fmt: skip
    sub = parser.add_subparsers(dest="puzzle_command", metavar="ACTION")
    p = sub.add_parser("play", help="solve puzzles near your rating (the default)")
    p.add_argument("id", nargs="?", default=argparse.SUPPRESS, help="start with this puzzle")
    _play_options(p, argparse.SUPPRESS)
    p = sub.add_parser("show", help="a puzzle with its exact analysis")
    p.add_argument("id")
    _file_option(p)
    p = sub.add_parser("list", help="the puzzles of a set, easiest first")
    p.add_argument("--grade", type=int, choices=list(GRADES), help="only this grade")
    _file_option(p)
    p = sub.add_parser("verify", help="check puzzles again by a full exact analysis")
    p.add_argument("--sample", type=int, metavar="N", help="N puzzles drawn at random")
    p.add_argument("--seed", type=int, default=1, help="of the sample")
    _file_option(p)
    p = sub.add_parser("find", help="make puzzles out of games (GGF or transcripts)")
    p.add_argument("games", type=Path, help="a GGF file (or one transcript a line)")
    p.add_argument("-o", "--out", type=Path, required=True, help="the puzzle file to write")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    p.add_argument("--min-empties", type=int, default=6)
    p.add_argument("--max-empties", type=int, default=20)
    p.add_argument(
        "--mistakes",
        action="store_true",
        help="review each game (outflank review) and examine only the positions before its"
        " mistakes and blunders, up to 24 empties",
    )
    p.add_argument(
        "--color",
        choices=["black", "white"],
        help="with --mistakes: only this side's mistakes (yours)",
    )


def _file_option(p: argparse.ArgumentParser, default: object = None) -> None:
    p.add_argument(
        "--file",
        type=Path,
        default=default,
        help="a puzzle file (default: the set shipped with outflank)",
    )


def _play_options(p: argparse.ArgumentParser, default: object) -> None:
    """The options of ``play``, on ``outflank puzzle`` itself and on ``play``
    (``default`` SUPPRESS: the one given wherever it is given wins)."""
    _file_option(p, default)
    p.add_argument(
        "--rating", type=float, default=default, help="your starting rating (1500; a new solver)"
    )
    p.add_argument(
        "--profile",
        type=Path,
        default=default,
        help="keep your rating, streak and the puzzles seen in this file (read, then written"
        " after each answer)",
    )
    p.add_argument(
        "--grade", type=int, choices=list(GRADES), default=default, help="only this grade"
    )
    p.add_argument("--count", type=int, default=default, help="stop after this many puzzles")
    p.add_argument("--seed", type=int, default=default, help="seed of the choice of puzzles")
    p.add_argument(
        "--no-color", action="store_true", default=default, help="plain text on a terminal too"
    )


def _load(args: argparse.Namespace) -> PuzzleSet:
    return PuzzleSet.load(args.file) if getattr(args, "file", None) else PuzzleSet.default()


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "puzzle_command", None) or "play"
    if action == "play":
        return _play(args)
    if action == "show":
        return _show(args, sys.stdout)
    if action == "list":
        return _list(args)
    if action == "verify":
        return _verify(args)
    return _find(args)


# ---------------------------------------------------------------- showing
def _side(board: Board) -> str:
    return "black" if board.turn is BLACK else "white"


def _line_text(start: Board, moves: list[Move]) -> str:
    """Moves with who plays them: ``g2 (black) h1 (white) ...`` as ``B g2 W h1``."""
    board = start.copy(stack=False)
    out = []
    for move in moves:
        out.append(f"{'B' if board.turn is BLACK else 'W'} {move}")
        board.push(move)
    return ", ".join(out)


def _board_text(board: Board, color: bool) -> object:
    from outflank.tui import render_board

    return render_board(board, color=color)


def _task(puzzle: Puzzle) -> str:
    goal = "win" if puzzle.score > 0 else "draw"
    return (
        f"puzzle {puzzle.id} ({puzzle.grade_name}, rated {puzzle.rating}): {_side(puzzle.board)}"
        f" to move and {goal}: find the only move that keeps the {goal}"
    )


def _show(args: argparse.Namespace, out: TextIO) -> int:
    puzzle = _load(args).get(args.id)
    print(puzzle.board, file=out)
    print(_task(puzzle), file=out)
    print(
        f"solution: {puzzle.solution} ({puzzle.score:+d}); empties {puzzle.empties},"
        f" tempting moves {puzzle.tempting}, depth {puzzle.depth}; from {puzzle.source}",
        file=out,
    )
    scores = puzzle.to_dict()["scores"].items()
    print("every move, exact: " + ", ".join(f"{m} {v:+d}" for m, v in scores), file=out)
    print(f"line: {_line_text(puzzle.board, puzzle.line)}", file=out)
    for move, line in sorted(puzzle.refutations.items()):
        after = puzzle.board_after([Move.from_str(move)])
        print(f"after {move}: {_line_text(after, line)}", file=out)
    return 0


def _list(args: argparse.Namespace) -> int:
    puzzles = sorted(_load(args), key=lambda p: (p.rating, p.id))
    for puzzle in puzzles:
        if args.grade is None or puzzle.grade == args.grade:
            print(
                f"{puzzle.id}  {puzzle.rating:4d}  {puzzle.grade_name:8s}  {puzzle.empties:2d}"
                f" empties  {_side(puzzle.board)} to {puzzle.result}"
            )
    return 0


# ---------------------------------------------------------------- playing
def _read(prompt: str, out: TextIO) -> str | None:
    if sys.stdin.isatty():
        try:
            return input(prompt)
        except EOFError:
            return None
    line = sys.stdin.readline()
    if not line:
        return None
    print(prompt + line.rstrip("\n"), file=out, flush=True)
    return line


def _play(args: argparse.Namespace) -> int:
    puzzles = _load(args)
    if args.grade is not None:
        puzzles = PuzzleSet([p for p in puzzles if p.grade == args.grade], puzzles.header)
    if args.count is not None and args.count < 1:
        raise OutflankError("--count must be at least 1")
    first = getattr(args, "id", None)
    if first is not None:
        puzzles.get(first)  # a wrong id is an error before anything starts
    color = sys.stdout.isatty() and not args.no_color
    out = sys.stdout
    console = None
    if color:
        from rich.console import Console

        console = Console(file=out, highlight=False)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    def show(board: Board) -> None:
        rendered = _board_text(board, color)
        if console is not None:
            console.print(rendered)
        else:
            say(str(rendered))

    rng = random.Random(args.seed)
    profile = args.profile
    if profile is not None and profile.exists():
        if args.rating is not None:
            raise OutflankError(f"{profile} holds a rating already: --rating starts a new one")
        solver = load_solver(profile)
    else:
        solver = Solver(rating=Rating(1500.0 if args.rating is None else args.rating))
    done = 0
    while args.count is None or done < args.count:
        puzzle = puzzles.get(first) if first and done == 0 else next_puzzle(puzzles, solver, rng)
        show(puzzle.board)
        say(_task(puzzle))
        while True:
            line = _read("your move (or 'skip', 'quit'): ", out)
            if line is None or line.strip().lower() in ("quit", "q", "exit"):
                say(_summary(solver))
                return 0
            text = line.strip().lower()
            if text == "skip":
                verdict = None
                solver = skip(solver, puzzle)
                if profile is not None:
                    save_solver(solver, profile)
                say(f"skipped: the solution was {puzzle.solution} ({puzzle.score:+d})")
                break
            try:
                solver, verdict = answer(solver, puzzle, text)
            except OutflankError as exc:
                say(f"? {exc}")
                continue
            if profile is not None:
                save_solver(solver, profile)
            break
        if verdict is not None:
            if verdict.correct:
                say(f"right! {verdict.move} keeps the {puzzle.result} ({verdict.best:+d})")
            else:
                after = puzzle.board_after([verdict.move])
                say(
                    f"wrong: {verdict.move} ends {verdict.score:+d}; the refutation:"
                    f" {_line_text(after, verdict.refutation[:6])}"
                )
                say(f"the solution was {puzzle.solution} ({verdict.best:+d})")
            say(f"the line: {_line_text(puzzle.board, verdict.line)}")
            show(puzzle.board_after(verdict.line))
            say(
                f"rating {verdict.after.rating:.0f} ({verdict.change:+.0f}), streak {solver.streak}"
            )
        done += 1
    say(_summary(solver))
    return 0


def _summary(solver: Solver) -> str:
    return (
        f"solved {solver.solved}, failed {solver.failed}; rating {solver.rating.rating:.0f}"
        f" (RD {solver.rating.rd:.0f}); best streak {solver.best_streak}"
    )


# ---------------------------------------------------------------- checking, making
def _verify(args: argparse.Namespace) -> int:
    puzzles = list(_load(args))
    if args.sample is not None:
        if args.sample < 1:
            raise OutflankError("--sample must be at least 1")
        puzzles = random.Random(args.seed).sample(puzzles, min(args.sample, len(puzzles)))
    analyst = Analyst.make()
    failed = 0
    for i, puzzle in enumerate(puzzles, 1):
        try:
            verify(puzzle, analyst)
        except PuzzleError as exc:
            failed += 1
            print(f"FAILED {exc}", flush=True)
        if i % 50 == 0:
            print(f"  {i}/{len(puzzles)} checked", flush=True)
    print(f"{len(puzzles) - failed} of {len(puzzles)} puzzles verified by the exact solver")
    return 1 if failed else 0


def _find(args: argparse.Namespace) -> int:
    import tempfile

    from outflank.ggf import read_ggf_file
    from outflank.puzzles import generate as gen

    records = read_ggf_file(args.games)
    if args.color and not args.mistakes:
        raise OutflankError("--color goes with --mistakes")
    if args.mistakes:  # every position a mistake was made in, whatever its empties
        params = gen.GenParams(min_empties=1, max_empties=gen.MAX_EMPTIES)
        jobs = _mistake_jobs(records, args)
    else:
        params = gen.GenParams(min_empties=args.min_empties, max_empties=args.max_empties)
        jobs = [
            gen.game_job(r.start, [m.move for m in r.moves], f"{args.games.name} game {n}")
            for n, r in enumerate(records, 1)
        ]
    params.check()
    with (
        tempfile.TemporaryDirectory() as folder,
        StopSignals() as stop,
        gen.PuzzleDB.open(Path(folder) / "find.db", params) as db,
    ):
        status = gen.generate(db, jobs, workers=args.workers, stop=stop)
        if status.interrupted:
            print("interrupted: nothing written", file=sys.stderr)
            return EXIT_INTERRUPTED
        found = [puzzle for _, puzzle in db.puzzles()]
    PuzzleSet(found, {"made": "outflank puzzle find", "margin": params.margin}).save(args.out)
    print(f"{len(found)} puzzles from {len(records)} games written to {args.out}")
    return 0


def _mistake_jobs(records: list[GameRecord], args: argparse.Namespace) -> list[Job]:
    """A job per game: the positions before its mistakes, by a review."""
    from outflank.puzzles import generate as gen
    from outflank.review import Reviewer

    color = Color.parse(args.color) if args.color else None
    reviewer = Reviewer()
    jobs = []
    for number, record in enumerate(records, 1):
        print(f"  reviewing game {number} of {len(records)}", file=sys.stderr, flush=True)
        review = reviewer.review(record)
        jobs.append(gen.review_job(review, color, f"{args.games.name} game {number}, review"))
    return jobs
