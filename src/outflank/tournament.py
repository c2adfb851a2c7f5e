"""Tournaments between players: paired openings, parallel games, Elo.

Every pairing plays each opening twice, once with each colour, so neither
side profits from a lopsided opening. The openings are named ones
(:data:`OPENINGS`), transcripts, or drawn from the XOT list of near-even
eight-move openings (``xot``, ``xot:N``, ``xot:all``). Games run in worker processes
(:mod:`concurrent.futures`; ``backend="ray"`` spreads them over a Ray
cluster when Ray is installed). A player that crashes, hangs or answers an
illegal move forfeits that game; the tournament goes on.

Ratings are maximum-likelihood Elo (Bradley-Terry on the logistic Elo
curve, draws counting half) with one virtual draw per pairing as a prior so
that a perfect score stays finite; error bars are 95% bootstrap intervals
over the games. The ratings' mean is 0.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from outflank.board import Board
from outflank.cluster import ray_cancel, ray_session, ray_wait
from outflank.errors import OutflankError
from outflank.ggf import GameRecord
from outflank.interrupt import Stop, WorkerPool
from outflank.match import play_game, points
from outflank.players import check_player_spec, make_player, player_label
from outflank.threads import check_threads, share, threads_by_default

__all__ = [
    "OPENINGS",
    "XOT_DEFAULT",
    "GameOutcome",
    "PlayerStanding",
    "Task",
    "TournamentResult",
    "elo_ratings",
    "plan_games",
    "run_tournament",
    "xot_openings",
]

#: Named openings, all common in expert play and close to even.
OPENINGS: dict[str, str] = {
    # ordered by balance: outflank's depth-12 search scores the first eight
    # within one disc of a draw
    "tiger": "f5d6c3d3c4",
    "heath": "f5f6e6f4g5",
    "cow": "f5d6c5f4e3",
    "rabbit": "f5f6e6f4e3",
    "stephenson": "f5d6c3d3c4f4c5b3c2e3",
    "snake": "f5d6c3d3c4f4c5b3c2",
    "chimney": "f5f6e6f4e3c5",
    "brightwell": "f5d6c3d3c4f4f6f3e6e7",
    "leaders-tiger": "f5d6c3d3c4f4f6",
    "perpendicular": "f5d6",
    "diagonal": "f5f6",
    "aubrey": "f5d6c3d3c4f4f6f3e6e7d7",
    "buffalo": "f5f6e6f4c3",
}


@dataclass(frozen=True)
class Task:
    """One game to play: player specs, opening transcript, game number."""

    number: int
    black: str
    white: str
    opening_name: str
    opening: str
    rules: str = "othello"
    black_spec: str = ""  # the specs to build the players from, when the
    white_spec: str = ""  # names above are labels (an engine's name=)
    threads: int | None = None  # threads per search of the game's engines (None: all cores)


@dataclass
class GameOutcome:
    """A finished game as the tournament keeps it."""

    number: int
    black: str
    white: str
    opening_name: str
    margin: int  # black's disc difference, +-64 on a forfeit
    forfeit: str | None  # "black", "white" or None
    reason: str
    plies: int
    seconds: float
    ggf: str

    @property
    def black_points(self) -> float:
        """1 for a black win, 0.5 for a draw, 0 for a loss."""
        return points(self.margin)

    @property
    def void(self) -> bool:
        """True for a game that could not be played (not rated)."""
        return self.reason.startswith("void:")


@dataclass
class PlayerStanding:
    """A player's line in the results table."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    discs: int = 0  # sum of disc differences from the player's view
    forfeits: int = 0
    elo: float = 0.0
    elo_error: float = 0.0

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per game, 0..1."""
        return self.points / self.games if self.games else 0.0


@dataclass
class TournamentResult:
    """All games and the standings, best first."""

    players: list[str]
    games: list[GameOutcome] = field(default_factory=list)
    standings: list[PlayerStanding] = field(default_factory=list)
    out_dir: Path | None = None
    planned: int = 0  # games in the plan
    interrupted: bool = False  # stopped (Ctrl-C) before every game was played

    def table(self) -> str:
        """The results as a Markdown table."""
        lines = [
            "| # | player | games | W | D | L | score % | discs/game | Elo | ±95% | forfeits |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for rank, s in enumerate(self.standings, 1):
            avg = s.discs / s.games if s.games else 0.0
            lines.append(
                f"| {rank} | {s.name} | {s.games} | {s.wins} | {s.draws} | {s.losses} |"
                f" {100 * s.score:.1f} | {avg:+.1f} | {_rating(s.elo, '+.0f')} |"
                f" {_rating(s.elo_error, '.0f')} |"
                f" {s.forfeits} |"
            )
        return "\n".join(lines)

    def crosstable(self) -> str:
        """Points scored by each row player against each column player."""
        names = [s.name for s in self.standings]
        pts: dict[tuple[str, str], list[float]] = {}
        for g in self.games:
            if g.void:
                continue
            pts.setdefault((g.black, g.white), []).append(g.black_points)
            pts.setdefault((g.white, g.black), []).append(1 - g.black_points)
        short = [f"{i + 1}" for i in range(len(names))]
        lines = ["| # | player | " + " | ".join(short) + " |", "|---|---|" + "---|" * len(names)]
        for i, a in enumerate(names):
            cells = []
            for b in names:
                got = pts.get((a, b))
                cells.append("—" if a == b else (f"{sum(got):g}/{len(got)}" if got else ""))
            lines.append(f"| {i + 1} | {a} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def _rating(value: float, spec: str) -> str:
    """A rating cell: ``-`` for a player without rated games."""
    return "-" if math.isnan(value) else format(value, spec)


#: The XOT openings: package data, one transcript a line (see xot_openings).
_XOT_PATH = Path(__file__).resolve().parent / "data" / "xot_small.txt"
#: How many XOT openings a bare ``xot`` plays.
XOT_DEFAULT = 10
_XOT_SEED = 2010


@functools.cache
def xot_openings() -> tuple[str, ...]:
    """The XOT small list: 3,623 eight-move openings that Edax and Ntest both
    score within one disc of a draw (Borja Moreno and Matthias Berg's lists
    for random-opening games and engine matches), in the list's order."""
    lines = _XOT_PATH.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _xot(spec: str) -> list[tuple[str, str]]:
    """``xot`` (10 openings), ``xot:N`` or ``xot:all``: XOT openings drawn in a
    fixed pseudo-random order, each named by its line in the list
    (``xot#123``)."""
    everything = xot_openings()
    _, _, count_text = spec.partition(":")
    if not count_text:
        count = XOT_DEFAULT
    elif count_text == "all":
        count = len(everything)
    elif count_text.isdigit() and 1 <= int(count_text) <= len(everything):
        count = int(count_text)
    else:
        raise OutflankError(f"{spec!r}: give xot, xot:all or xot:N with N in 1..{len(everything)}")
    order = list(range(len(everything)))
    random.Random(_XOT_SEED).shuffle(order)
    return [(f"xot#{i + 1}", everything[i]) for i in order[:count]]


# ---------------------------------------------------------------- planning
def _openings(openings: int | Sequence[str] | None) -> list[tuple[str, str]]:
    named = list(OPENINGS.items())
    if openings is None:
        return named[:4]
    if isinstance(openings, int):
        if not 1 <= openings <= len(named):
            raise OutflankError(f"openings must be in 1..{len(named)}, not {openings}")
        return named[:openings]
    chosen: list[tuple[str, str]] = []
    for item in openings:
        key = item.strip().lower()
        if key == "xot" or key.startswith("xot:"):
            for name, moves in _xot(key):
                if moves in (m for _, m in chosen):
                    raise OutflankError(f"opening {name!r} is given twice")
                chosen.append((name, moves))
            continue
        if key in OPENINGS:
            chosen.append((key, OPENINGS[key]))
        elif re.fullmatch(r"([a-h][1-8])+", key):
            try:
                Board.from_transcript(key)
            except OutflankError as exc:
                raise OutflankError(f"opening {key!r}: {exc}") from None
            chosen.append((key, key))
        else:
            raise OutflankError(
                f"unknown opening {key!r}: give one of {', '.join(OPENINGS)}, xot[:N] or a"
                " transcript such as f5d6c3"
            )
        if chosen[-1][1] in (moves for _, moves in chosen[:-1]):
            raise OutflankError(f"opening {key!r} is given twice")
    if not chosen:
        raise OutflankError("no openings given")
    return chosen


def plan_games(
    players: Sequence[str],
    *,
    gauntlet: bool = False,
    openings: int | Sequence[str] | None = None,
    rounds: int = 1,
    rules: str = "othello",
) -> list[Task]:
    """Every game of a round robin (or a gauntlet of ``players[0]`` against
    the others): each opening with both colours, ``rounds`` times."""
    if len(players) < 2:
        raise OutflankError("a tournament needs at least two players")
    if len(set(players)) != len(players):
        raise OutflankError("each player may appear only once (give distinct specs)")
    if rounds < 1:
        raise OutflankError(f"rounds must be at least 1, not {rounds}")
    if gauntlet:
        pairs = [(players[0], other) for other in players[1:]]
    else:
        pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]
    tasks: list[Task] = []
    for _ in range(rounds):
        for name, moves in _openings(openings):
            for a, b in pairs:
                for black, white in ((a, b), (b, a)):
                    tasks.append(Task(len(tasks) + 1, black, white, name, moves, rules))
    return tasks


# ---------------------------------------------------------------- playing
def play_task(task: Task) -> GameOutcome:
    """Play one game (runs in a worker process). Never raises for a
    player's failure: a player that cannot even start forfeits."""
    with threads_by_default(task.threads):  # the game's engines share the machine
        return _play_task(task)


def _play_task(task: Task) -> GameOutcome:
    started = time.perf_counter()
    start = Board.from_transcript(task.opening, rules=task.rules)
    players = []
    try:
        for label, spec in ((task.black, task.black_spec), (task.white, task.white_spec)):
            try:
                players.append(make_player(spec or label, name=label))
            except OutflankError as exc:
                return _forfeit_at_start(task, len(players), str(exc), started)
        result = play_game(players[0], players[1], start=start)
    finally:
        for p in players:
            with contextlib.suppress(Exception):
                p.close()
    forfeit = None if result.forfeit is None else result.forfeit.name.lower()
    return GameOutcome(
        task.number,
        task.black,
        task.white,
        task.opening_name,
        result.margin,
        forfeit,
        result.forfeit_reason,
        result.board.ply,
        time.perf_counter() - started,
        result.record.to_ggf(),
    )


def _forfeit_at_start(task: Task, side: int, reason: str, started: float) -> GameOutcome:
    board = Board.from_transcript(task.opening, rules=task.rules)
    color = "black" if side == 0 else "white"
    name = task.black if side == 0 else task.white
    record = GameRecord.from_board(board, black=task.black, white=task.white)
    margin = -64 if side == 0 else 64
    record.result = f"{margin:+.3f}:r"
    record.tags["C"] = f"{name} ({color}) forfeits: {reason}"
    return GameOutcome(
        task.number,
        task.black,
        task.white,
        task.opening_name,
        margin,
        color,
        record.tags["C"],
        board.ply,
        time.perf_counter() - started,
        record.to_ggf(),
    )


def _run_local(
    tasks: list[Task], workers: int, done: Callable[[GameOutcome], None], stop: Stop
) -> list[GameOutcome]:
    """The games in ``workers`` worker processes (one worker too: a stop
    then ends the game in play at once rather than when it is over)."""
    results = []
    with WorkerPool(workers, stop) as pool:
        # keep each worker busy, a second game queued
        for task, fut in pool.completed(play_task, tasks, 2 * workers):
            try:
                outcome = fut.result()
            except Exception as exc:  # a worker process died: record a void game
                outcome = _void(task, f"worker failed: {type(exc).__name__}: {exc}")
            results.append(outcome)
            done(outcome)
    return results


def _void(task: Task, reason: str) -> GameOutcome:
    """A game no player could be blamed for (a worker process died): saved
    with the reason, left out of the standings and the ratings."""
    reason = f"void: {reason}"
    board = Board.from_transcript(task.opening, rules=task.rules)
    record = GameRecord.from_board(board, black=task.black, white=task.white)
    record.result = "?"
    record.tags["C"] = reason
    return GameOutcome(
        task.number, task.black, task.white, task.opening_name, 0, None, reason, 0, 0.0,
        record.to_ggf(),
    )  # fmt: skip


def _run_ray(
    tasks: list[Task], done: Callable[[GameOutcome], None], stop: Stop
) -> list[GameOutcome]:
    ray = ray_session()
    remote = ray.remote(play_task)
    refs = {remote.remote(t): t for t in tasks}
    results = []
    pending = list(refs)
    while pending and not stop.requested:
        ready, pending = ray_wait(ray, pending, stop)
        for ref in ready:
            try:
                outcome = ray.get(ref)
            except Exception as exc:
                outcome = _void(refs[ref], f"ray task failed: {exc}")
            results.append(outcome)
            done(outcome)
    ray_cancel(ray, pending)  # after a stop: the games in play are abandoned
    return results


# ---------------------------------------------------------------- ratings
def _bt_fit(
    names: list[str], games: Sequence[tuple[int, int, float]], prior_pairs: set[tuple[int, int]]
) -> list[float]:
    n = len(names)
    wins = [0.0] * n
    count: dict[tuple[int, int], float] = {}
    for i, j, s in games:
        wins[i] += s
        wins[j] += 1 - s
        key = (min(i, j), max(i, j))
        count[key] = count.get(key, 0) + 1
    for i, j in prior_pairs:  # one virtual draw per pairing
        wins[i] += 0.5
        wins[j] += 0.5
        count[(i, j)] = count.get((i, j), 0) + 1
    gamma = [1.0] * n
    pairs = list(count.items())
    for _ in range(500):
        denom = [0.0] * n
        for (a, b), c in pairs:
            share = c / (gamma[a] + gamma[b])
            denom[a] += share
            denom[b] += share
        new = [wins[i] / denom[i] if denom[i] > 0 and wins[i] > 0 else 1e-6 for i in range(n)]
        mean_log = sum(math.log(g) for g in new) / n
        new = [g / math.exp(mean_log) for g in new]
        delta = max(abs(math.log(a / b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if delta < 1e-7:
            break
    return [400 * math.log10(g) for g in gamma]


def elo_ratings(
    names: list[str], games: Sequence[GameOutcome], *, bootstrap: int = 200, seed: int = 1
) -> dict[str, tuple[float, float]]:
    """Elo (mean 0) and the half-width of its 95% bootstrap interval per player;
    a player without a rated game has no rating (NaN) and is left out of the mean."""
    played = {name for g in games for name in (g.black, g.white)}
    unrated = {name: (math.nan, math.nan) for name in names if name not in played}
    names = [name for name in names if name in played]
    if not names:
        return unrated
    index = {name: i for i, name in enumerate(names)}
    triples = [(index[g.black], index[g.white], g.black_points) for g in games]
    pairs = {(min(i, j), max(i, j)) for i, j, _ in triples}
    best = _bt_fit(names, triples, pairs)
    rng = random.Random(seed)
    samples: list[list[float]] = []
    if triples:
        for _ in range(bootstrap):
            sample = [triples[rng.randrange(len(triples))] for _ in triples]
            samples.append(_bt_fit(names, sample, pairs))
    out = {}
    for k, name in enumerate(names):
        values = sorted(s[k] for s in samples)
        if len(values) >= 10:
            lo = values[int(0.025 * (len(values) - 1))]
            hi = values[int(0.975 * (len(values) - 1))]
            err = (hi - lo) / 2
        else:
            err = float("nan")
        out[name] = (best[k], err)
    return out | unrated


def standings(players: Sequence[str], games: Sequence[GameOutcome]) -> list[PlayerStanding]:
    """Per-player counts and Elo, best first."""
    table = {name: PlayerStanding(name) for name in players}
    games = [g for g in games if not g.void]
    for g in games:
        for name, sign in ((g.black, 1), (g.white, -1)):
            s = table[name]
            s.games += 1
            s.discs += sign * g.margin
            got = points(sign * g.margin)
            if got == 1:
                s.wins += 1
            elif got == 0:
                s.losses += 1
            else:
                s.draws += 1
        if g.forfeit == "black":
            table[g.black].forfeits += 1
        elif g.forfeit == "white":
            table[g.white].forfeits += 1
    ratings = elo_ratings(list(players), games)
    for name, (elo, err) in ratings.items():
        table[name].elo, table[name].elo_error = elo, err
    return sorted(
        table.values(),
        key=lambda s: (math.isnan(s.elo), -s.elo if s.elo == s.elo else 0, -s.score, s.name),
    )


# ---------------------------------------------------------------- output
def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]


def save_results(result: TournamentResult, out_dir: Path, *, plot: bool = True) -> list[Path]:
    """Write every game (one GGF file each plus ``games.ggf``), the table
    (``results.md``), ``results.json`` and, with matplotlib, ``ratings.png``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    games_dir = out_dir / "games"
    games_dir.mkdir(exist_ok=True)
    for old in games_dir.glob("[0-9][0-9][0-9][0-9]_*_vs_*.ggf"):  # an earlier run's games
        old.unlink()
    written = []
    for g in sorted(result.games, key=lambda g: g.number):
        path = games_dir / f"{g.number:04d}_{_safe(g.black)}_vs_{_safe(g.white)}.ggf"
        path.write_text(g.ggf + "\n", encoding="utf-8")
    all_games = out_dir / "games.ggf"
    all_games.write_text(
        "".join(g.ggf + "\n" for g in sorted(result.games, key=lambda g: g.number)),
        encoding="utf-8",
    )
    written.append(all_games)
    md = out_dir / "results.md"
    md.write_text(result.table() + "\n\n" + result.crosstable() + "\n", encoding="utf-8")
    written.append(md)
    js = out_dir / "results.json"
    js.write_text(
        json.dumps(
            {
                "players": result.players,
                "standings": [
                    {**asdict(s), "points": s.points, "score": s.score} for s in result.standings
                ],
                "games": [{k: v for k, v in asdict(g).items() if k != "ggf"} for g in result.games],
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    written.append(js)
    if plot:
        png = plot_ratings(result, out_dir / "ratings.png")
        if png is not None:
            written.append(png)
    return written


def plot_ratings(result: TournamentResult, path: Path) -> Path | None:
    """A PNG bar chart of the Elo ratings with their error bars, or ``None``
    when matplotlib (the ``plot`` extra) is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = list(reversed(result.standings))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    rows = [s for s in rows if not math.isnan(s.elo)]
    errors = [0 if math.isnan(s.elo_error) else s.elo_error for s in rows]
    ax.barh([s.name for s in rows], [s.elo for s in rows], xerr=errors, color="#2e7d32", capsize=4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("Elo (mean 0), 95% interval")
    ax.set_title(f"outflank tournament: {len(result.games)} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- driver
def run_tournament(
    players: Sequence[str],
    *,
    gauntlet: bool = False,
    openings: int | Sequence[str] | None = None,
    rounds: int = 1,
    workers: int = 1,
    backend: str = "local",
    rules: str = "othello",
    out_dir: str | Path | None = None,
    plot: bool = True,
    on_game: Callable[[GameOutcome, int, int], None] | None = None,
    threads: int | None = None,
    stop: Stop | None = None,
) -> TournamentResult:
    """Plan, play and rate a tournament; save it if ``out_dir`` is given.

    ``on_game(outcome, done, total)`` is called after each game (progress).
    Bad player specs are refused before any game starts. ``threads``: threads
    per search of the engines (an engine spec's own ``threads=`` wins); by
    default the cores shared out between the games played at once (local
    backend: ``workers`` games; Ray: each game on the cores of its node).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OutflankError(f"workers must be at least 1, not {workers!r}")
    if threads is not None:
        check_threads(threads)
    elif backend == "local":
        threads = share(workers)
    specs = [p.strip() for p in players]
    for spec in specs:
        if spec.lower() == "human":
            raise OutflankError("a tournament cannot wait for a human player")
        check_player_spec(spec)  # a clean error now rather than forfeits later
    players = [player_label(spec) for spec in specs]  # an engine's name= names it
    spec_of = dict(zip(players, specs, strict=True))
    if len(spec_of) != len(specs) and len(set(specs)) == len(specs):
        raise OutflankError("two players have the same name: give them distinct name= options")
    tasks = [
        replace(
            task, black_spec=spec_of[task.black], white_spec=spec_of[task.white], threads=threads
        )
        for task in plan_games(
            players, gauntlet=gauntlet, openings=openings, rounds=rounds, rules=rules
        )
    ]
    finished = 0

    def done(outcome: GameOutcome) -> None:
        nonlocal finished
        finished += 1
        if on_game is not None:
            on_game(outcome, finished, len(tasks))

    stop = stop if stop is not None else Stop()
    if backend == "local":
        games = _run_local(tasks, workers, done, stop)
    elif backend == "ray":
        games = _run_ray(tasks, done, stop)
    else:
        raise OutflankError(f"unknown backend {backend!r} (local or ray)")
    games.sort(key=lambda g: g.number)
    result = TournamentResult(list(players), games, standings(players, games), planned=len(tasks))
    result.interrupted = len(games) < len(tasks)
    if out_dir is not None and games:
        result.out_dir = Path(out_dir)
        save_results(result, result.out_dir, plot=plot)
    return result
