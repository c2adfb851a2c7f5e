"""``outflank review GAME``: judge every move of a game (or of every game in a file)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from outflank.board import BLACK, Color
from outflank.book.names import opening_name
from outflank.commands.common import add_threads_option, interruptible, progress_bar
from outflank.errors import OutflankError
from outflank.ggf import GameRecord, read_ggf_file
from outflank.review import (
    THRESHOLDS,
    GameReview,
    Label,
    MoveReview,
    Reviewer,
    ReviewSettings,
    game_board,
)

NAME = "review"
HELP = "review a game: every move's value, the best move, the loss, mistakes, accuracy"

#: The colour of each label in the table.
STYLES = {
    Label.BOOK: "cyan",
    Label.BEST: "green",
    Label.GOOD: "green3",
    Label.INACCURACY: "yellow",
    Label.MISTAKE: "dark_orange",
    Label.BLUNDER: "bold red",
}
#: Moves of a better line shown in the table.
LINE_MOVES = 8


def configure(parser: argparse.ArgumentParser) -> None:
    defaults = ReviewSettings()
    parser.add_argument(
        "game",
        help="a GGF file (every game in it, or --game N), a file of transcripts, or a game"
        " written out: a transcript such as f5d6c3 or an OBF line followed by moves",
    )
    parser.add_argument("--game", dest="number", type=int, help="only game N of the file (from 1)")
    parser.add_argument("--json", action="store_true", help="print the reviews as JSON")
    parser.add_argument(
        "--depth",
        type=int,
        default=defaults.depth,
        help=f"plies of the midgame searches (default {defaults.depth})",
    )
    parser.add_argument(
        "--exact",
        type=int,
        default=defaults.exact,
        help=f"always solve exactly from this many empties (default {defaults.exact})",
    )
    parser.add_argument(
        "--exact-time",
        type=float,
        default=defaults.exact_time,
        metavar="SECONDS",
        help="seconds more the solver may spend going further back, a position at a time"
        f" (default {defaults.exact_time:g})",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        default=defaults.move_time,
        metavar="SECONDS",
        help=f"at most this long per searched position (default {defaults.move_time:g})",
    )
    parser.add_argument("--no-book", action="store_true", help="search the opening too")
    add_threads_option(parser, "every core this process may use")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _records(text: str, number: int | None) -> list[tuple[int, int, GameRecord | None, Any]]:
    """``(number, count, record or None, game)`` for each game to review."""
    path = Path(text)
    if path.is_file():
        records = read_ggf_file(path)
        if number is not None:
            if not 1 <= number <= len(records):
                raise OutflankError(f"--game must be in 1..{len(records)} for {path}")
            chosen = [(number, records[number - 1])]
        else:
            chosen = list(enumerate(records, 1))
        games = []
        for n, rec in chosen:
            try:
                games.append((n, len(records), rec, game_board(rec)))
            except OutflankError as exc:
                raise OutflankError(f"{path}: game {n}: {exc}") from None
        return games
    if number not in (None, 1):
        raise OutflankError("--game picks a game of a file; a written-out game is game 1")
    try:
        return [(1, 1, None, game_board(text))]
    except OutflankError:
        if path.suffix or "/" in text or "\\" in text:
            raise OutflankError(f"no such file: {text}") from None
        raise


def _settings(args: argparse.Namespace) -> ReviewSettings:
    return ReviewSettings(
        depth=args.depth,
        exact=args.exact,
        exact_time=args.exact_time,
        move_time=args.move_time,
        book=not args.no_book,
    )


def run(args: argparse.Namespace) -> int:
    settings = _settings(args)  # bad settings: an error before any work
    games = _records(args.game, args.number)
    reviewer = Reviewer(settings, threads=args.threads)
    progress = _Progress(not args.quiet and sys.stderr.isatty())
    out: list[dict[str, Any]] = []
    console = None if args.json else _console()
    try:
        for number, count, record, board in games:
            moves = sum(not m.is_pass for m in board.move_stack)
            if progress.bar is None and not args.quiet:  # no terminal: a line instead
                print(f"game {number}/{count}: reviewing {moves} moves", file=sys.stderr)
            progress.begin(f"game {number}/{count}", moves)
            review = interruptible(
                reviewer.review, board, progress.advance, on_interrupt=reviewer.stop
            )
            progress.end()
            if args.json:
                out.append(_game_json(number, record, review))
            else:
                assert console is not None
                _print_game(console, number, count, record, review)
    finally:
        progress.end()
    if args.json:
        print(json.dumps({"games": out}, indent=1))
    return 0


# ---------------------------------------------------------------- output
def _game_json(number: int, record: GameRecord | None, review: GameReview) -> dict[str, Any]:
    game: dict[str, Any] = {"number": number}
    if record is not None:
        game.update(black=record.black, white=record.white, result=record.result)
    return {**game, "review": review.to_dict()}


def _console() -> Any:
    from rich.console import Console

    # piped output keeps whole table rows rather than wrapping at 80 columns
    return Console(width=None if sys.stdout.isatty() else 132, highlight=False)


def _value(value: float, exact: bool) -> str:
    return f"{value:+.0f}" if exact else f"{value:+.1f}"


def _how(m: MoveReview) -> str:
    if m.source.value == "book":
        return "book"
    return "exact" if m.best_exact else f"d{m.depth}"


def _print_game(
    console: Any, number: int, count: int, record: GameRecord | None, review: GameReview
) -> None:
    from rich.table import Table
    from rich.text import Text

    final = review.board(len(review.game_moves))
    title = f"game {number}/{count}"
    if record is not None:
        title += f": {record.black} (black) vs {record.white} (white), result {record.result}"
    name = opening_name(final)
    if name is not None:
        title += f"; opening: {name}"
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for heading, justify in (
        ("#", "right"),
        ("", "left"),
        ("move", "left"),
        ("value", "right"),
        ("best", "left"),
        ("best value", "right"),
        ("loss", "right"),
        ("label", "left"),
        ("how", "left"),
        ("better line", "left"),
    ):
        table.add_column(heading, justify=justify, no_wrap=heading != "better line")  # type: ignore[arg-type]
    for m in review.moves:
        style = STYLES[m.label]
        line = ""
        if m.better is not None and m.label.severity >= Label.INACCURACY.severity:
            line = " ".join(map(str, m.pv[:LINE_MOVES])) + (
                " ..." if len(m.pv) > LINE_MOVES else ""
            )
        label = m.label.value + (" *" if m.turning_point else "")
        table.add_row(
            str(m.number),
            "B" if m.color is BLACK else "W",
            str(m.move),
            _value(m.value, m.exact),
            "" if m.better is None else str(m.best_move),
            "" if m.better is None else _value(m.best_value, m.best_exact),
            f"{m.loss:.1f}" if m.loss else "",
            Text(label, style=style),
            _how(m),
            line,
        )
    console.print(table)
    for color in Color:
        console.print(_summary_line(review, color, record))
    turning = review.turning_points
    if turning:
        marks = ", ".join(
            f"{m.number}. {m.move} ({m.color.name.lower()}, {_value(m.best_value, m.best_exact)}"
            f" -> {_value(m.value, m.exact)})"
            for m in turning
        )
        console.print(f"turning points (*): {marks}")
    exact_from = review.exact_from
    reach = "no exact values"
    if exact_from is not None:
        first = review.move(exact_from)
        assert first is not None
        reach = f"exact from move {first.number} ({first.empties} empties)"
    console.print(
        f"values in discs for the mover; {reach}; labels by loss: good from"
        f" {THRESHOLDS.good:g}, inaccuracy {THRESHOLDS.inaccuracy:g}, mistake"
        f" {THRESHOLDS.mistake:g}, blunder {THRESHOLDS.blunder:g}; reviewed in"
        f" {review.elapsed:.1f} s\n"
    )


def _summary_line(review: GameReview, color: Color, record: GameRecord | None) -> str:
    s = review.summary(color)
    who = color.name.lower()
    if record is not None:
        who += f" ({record.black if color is BLACK else record.white})"
    if s.accuracy is None:
        return f"{who}: no move with a choice"
    counts = ", ".join(
        f"{n} {label.value}" for label, n in s.counts.items() if n and label is not Label.BOOK
    )
    book = s.counts[Label.BOOK]
    if book:
        counts = f"{book} book, " + counts
    return (
        f"{who}: accuracy {s.accuracy:.1f}, mean loss {s.mean_loss:.2f} discs over"
        f" {s.moves} moves ({counts})"
    )


class _Progress:
    """A rich progress bar on stderr (a terminal only), one task per game."""

    def __init__(self, enabled: bool) -> None:
        self.bar: Any = None
        self.task: Any = None
        if enabled:
            self.bar = progress_bar()

    def begin(self, description: str, total: int) -> None:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task(description, total=total)

    def advance(self, _review: MoveReview, done: int, total: int) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=done, total=total)

    def end(self) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.remove_task(self.task)
            self.task = None
            self.bar.stop()
