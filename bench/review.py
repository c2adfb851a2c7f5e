"""Review whole games and print how long each took, and when its first results came.

    python bench/review.py [--file bench/data/review_games.txt] [--games 10]
                           [--threads 2] [--depth 14] [--exact 20] [--exact-time 4]
                           [--web]

Each line of the file is a game (a transcript; ``#`` lines are comments);
the shipped file holds ten 60-move games of level-10 self-play with one
move in ten played at random. Per game: its moves, the seconds to its
first reviewed move (the book's, or the end's), to the end of the exact
part, and to the whole review; from which move the values are exact (and
the empties then), the midgame depth reached, the number of mistakes and
blunders and each player's accuracy; then what the web app does after a
review: the puzzles found at its mistakes in the exact part
up to its ``exact`` empties (``puzzles_from_review(..., exact_only=True,
max_empties=exact)``), how many and in how many
seconds, and the web review's whole time (review + puzzles). Then the mean
and the worst.
With ``--web``, the same games then go through the web app (in this
process, on a SQLite file): the seconds from ``POST .../review`` to the
first reviewed move on the game's WebSocket, and to the end. The
default settings are the library's (``ReviewSettings()``); the issue's
target is a 60-move game in at most 20 s on 2 cores. Time it alone on the
machine (``flock /work/wt/bench.lock python bench/review.py`` on the
shared one), not under ``nice``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import BLACK, WHITE  # noqa: E402
from outflank.puzzles import Analyst, puzzles_from_review  # noqa: E402
from outflank.review import Reviewer, ReviewSettings, Source  # noqa: E402
from outflank.threads import default_threads  # noqa: E402

GAMES = ROOT / "bench" / "data" / "review_games.txt"


def games(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def main() -> int:
    defaults = ReviewSettings()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=GAMES)
    parser.add_argument("--games", type=int, default=10, help="how many games of the file")
    parser.add_argument("--threads", type=int, default=None, help="threads per search (all)")
    parser.add_argument("--depth", type=int, default=defaults.depth)
    parser.add_argument("--exact", type=int, default=defaults.exact)
    parser.add_argument("--exact-time", type=float, default=defaults.exact_time)
    parser.add_argument("--web", action="store_true", help="also through the web app")
    args = parser.parse_args()
    settings = ReviewSettings(depth=args.depth, exact=args.exact, exact_time=args.exact_time)
    reviewer = Reviewer(settings, threads=args.threads)
    threads = args.threads or default_threads()
    print(
        f"review settings: depth {settings.depth}, selective {settings.selective},"
        f" exact from {settings.exact} empties (+{settings.exact_time:g} s budget),"
        f" move time {settings.move_time:g} s; {threads} threads"
    )
    header = (
        f"{'game':>4} {'moves':>5} {'first s':>7} {'exact s':>7} {'total s':>7}"
        f" {'exact from':>10} {'depth':>5} {'mistakes':>8} {'black acc':>9} {'white acc':>9}"
        f" {'puzzles':>7} {'pz s':>5} {'web s':>6}"
    )
    print(header)
    print("-" * len(header))
    totals, firsts, webs = [], [], []
    analyst = Analyst.make()  # as the web app makes it (one thread)
    for number, game in enumerate(games(args.file)[: args.games], 1):
        started = time.perf_counter()
        marks: dict[str, float] = {}

        def on_move(m, done, total, marks=marks, started=started):  # type: ignore[no-untyped-def]
            now = time.perf_counter() - started
            marks.setdefault("first", now)
            if m.source is Source.EXACT:
                marks["exact"] = now

        review = reviewer.review(game, on_move)
        total = time.perf_counter() - started
        totals.append(total)
        firsts.append(marks["first"])
        first_exact = review.move(review.exact_from) if review.exact_from is not None else None
        reach = "-" if first_exact is None else f"{first_exact.number} ({first_exact.empties})"
        depths = [m.depth for m in review.moves if m.source is Source.SEARCH]
        depth = f"{min(depths)}" if depths else "-"
        mistakes = len(review.mistakes)
        accuracy = [review.summary(c).accuracy for c in (BLACK, WHITE)]
        exact = marks.get("exact", 0.0)
        found = puzzles_from_review(review, analyst, exact_only=True, max_empties=settings.exact)
        web = time.perf_counter() - started
        webs.append(web)
        print(
            f"{number:>4} {len(review.moves):>5} {marks['first']:>7.2f} {exact:>7.2f} {total:>7.2f}"
            f" {reach:>10} {depth:>5} {mistakes:>8}"
            f" {accuracy[0]:>9.1f} {accuracy[1]:>9.1f}"
            f" {len(found):>7} {web - total:>5.2f} {web:>6.2f}"
        )
    print("-" * len(header))
    print(
        f"mean {statistics.mean(totals):.2f} s a game, worst {max(totals):.2f} s;"
        f" first results after {statistics.mean(firsts):.3f} s (worst {max(firsts):.3f} s);"
        f" with the puzzles (the web app) {statistics.mean(webs):.2f} s, worst {max(webs):.2f} s"
    )
    if args.web:
        web_table(games(args.file)[: args.games], settings, args.threads)
    return 0


def web_table(transcripts: list[str], settings: ReviewSettings, threads: int | None) -> None:
    """Each game reviewed through the web app: a POST, then the WebSocket's events."""
    import tempfile
    import warnings

    with warnings.catch_warnings():  # starlette's note about its HTTP client
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from outflank.web.app import create_app

    print()
    print(f"{'game':>4} {'first move on the socket s':>26} {'done s':>7}")
    firsts, ends = [], []
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(str(Path(tmp) / "bench.db"), review_settings=settings, threads=threads)
        app.state.reviews.threads = threads
        with TestClient(app) as client:
            for number, transcript in enumerate(transcripts, 1):
                human = {"kind": "human"}
                body = {"black": human, "white": human, "start": transcript}
                game_id = client.post("/api/games", json=body).json()["game"]["id"]
                with client.websocket_connect(f"/ws/games/{game_id}") as ws:
                    ws.receive_json()  # the game's state
                    started = time.perf_counter()
                    assert client.post(f"/api/games/{game_id}/review").status_code == 202
                    first = None
                    while True:
                        event = ws.receive_json()
                        if event["type"] != "review":
                            continue
                        if first is None and event.get("move"):
                            first = time.perf_counter() - started
                        if event["status"] != "running":
                            break
                    end = time.perf_counter() - started
                assert first is not None and event["status"] == "done", event
                firsts.append(first)
                ends.append(end)
                print(f"{number:>4} {first:>26.3f} {end:>7.2f}")
    print(
        f"first move on the socket after {statistics.mean(firsts):.3f} s (worst"
        f" {max(firsts):.3f} s); done after {statistics.mean(ends):.2f} s (worst {max(ends):.2f} s)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
