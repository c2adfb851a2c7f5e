"""Equal-time matches against another engine that speaks the NBoard protocol.

    python bench/anchor.py match --engine engine:preset=default,time=0.1 \\
        --anchor "bash -c 'cd /tmp/ntest/build && exec ./ntest x 2>/dev/null'" \\
        --depth auto --games 400 --out /tmp/anchor/t01

    python bench/anchor.py calibrate --engine engine:preset=default,time=0.1 --anchor "..."
    python bench/anchor.py where /tmp/anchor/t01/games.ggf --empties 24 20
    python bench/anchor.py compare /tmp/anchor/t01/games.ggf /tmp/anchor/t02/games.ggf

The other engine (the *anchor*: NTest, Edax, ``outflank nboard`` ...) has no
time control in NBoard mode, only a depth. ``--depth auto`` calibrates it:
short matches (40 games, on other openings than the match's) measure both
sides' mean wall time a move (measured here, from the request to the
answer), and the anchor's depth whose mean is nearest to outflank's is
chosen; if that leaves the two more than ``--tolerance`` (15 %) apart and
outflank's spec has ``time=``, outflank's time is scaled towards the
anchor's and measured again. The match itself then reports both sides' mean
and 95th-percentile time a move, so every result says how equal the time
was.

Player spec of the outflank side: ``engine:preset=NAME,KEY=VALUE,...`` is the
preset (``default``: the strongest engine at a given time) with any key
overriding it (``time=0.1``, ``threads=1``, ``endgame=22`` ...);
``engine:KEY=VALUE,...`` without a preset, ``level:N`` and the other specs of
``outflank.players.make_player`` work too. ``weights=FILE`` (a weight file of
the ``default`` evaluator) plays with those weights instead of the packaged
ones, and ``tune.NAME=N`` changes a setting of the core's search
(``outflank._core.tune``), to measure a variant. One search thread unless
the spec says ``threads=``.

Openings: the XOT list (3,623 near-even 8-move openings), in a fixed
pseudo-random order (``--seed``), each played twice with the colours swapped:
an unbalanced opening favours nobody. No opening books. Games run in
``--workers`` processes, each holding one outflank engine and one anchor
process. ``--out DIR`` keeps every game (``games.ggf``, with each move's
time) and the table (``result.txt``).

``where`` replays recorded games and solves each exactly at the given
numbers of empties (outflank's solver, a few seconds a position at 24): the
mean exact value, from the named player's side, of the positions it reached,
against its final result, shows in which part of the game the discs were
lost (before 24 empties, between 24 and 20, or in the last 20); beside
each, the score the games would have had with perfect play from there (a
win counts 1, a draw one half), which shows where the points went.

``compare`` pairs two matches' games by their opening and prints each
run's score on the openings both played, the correlation of the two runs'
scores an opening, and their difference with its 95 % interval, paired
(over the openings) and as if the runs were independent. Two runs of the
same settings on the same openings largely replay the same games (NTest is
deterministic, outflank nearly so): their scores an opening correlate
strongly, so a repeated run adds little that new openings (``--skip``)
would not; a variant that changes the games correlates weakly with its
control, and then the pairing narrows the interval only a little.
"""

from __future__ import annotations

import argparse
import math
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # this checkout's package

from outflank.board import BLACK, PASS, Board  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402
from outflank.interrupt import EXIT_INTERRUPTED, Stop, StopSignals, WorkerPool  # noqa: E402
from outflank.match import points  # noqa: E402

DEFAULT_TOLERANCE = 0.15  # the largest relative gap between the two mean times
Z95 = 1.96


# ------------------------------------------------------------------ statistics
@dataclass
class Tally:
    """One side's results over a match (outflank's view) and both sides' times.

    A game may name its opening: the score and disc difference are then
    means over the openings (of each opening's games) and their intervals
    are taken over the openings, since the games on one opening are not
    independent (the colours swapped; a run repeated on the same openings
    largely replays the same games)."""

    points: list[float] = field(default_factory=list)  # 1, 0.5, 0 a game
    discs: list[int] = field(default_factory=list)  # final disc difference a game
    ours: list[float] = field(default_factory=list)  # seconds a move, outflank
    theirs: list[float] = field(default_factory=list)  # seconds a move, the anchor
    openings: list[object] = field(default_factory=list)  # a game's opening, or None
    interrupted: bool = False

    def add(
        self, diff: int, ours: list[float], theirs: list[float], opening: object = None
    ) -> None:
        self.points.append(points(diff))
        self.discs.append(diff)
        self.ours += ours
        self.theirs += theirs
        self.openings.append(opening)

    def opening_groups(self, values: list[float]) -> dict[object, list[float]]:
        """``values`` (one a game) by opening; a game that names none is a
        group of its own."""
        groups: dict[object, list[float]] = {}
        for index, (value, opening) in enumerate(zip(values, self.openings, strict=True)):
            groups.setdefault(("game", index) if opening is None else opening, []).append(value)
        return groups

    def by_opening(self, values: list[float]) -> list[float]:
        """Each opening's mean of ``values`` (one a game)."""
        return [statistics.fmean(g) for g in self.opening_groups(values).values()]

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def wdl(self) -> tuple[int, int, int]:
        return (
            self.points.count(1.0),
            self.points.count(0.5),
            self.points.count(0.0),
        )

    @property
    def score(self) -> float:
        return statistics.fmean(self.by_opening(self.points)) if self.points else 0.0

    @property
    def score_ci(self) -> float:
        """Half-width of the score's 95 % interval (normal approximation)."""
        return half_width(self.by_opening(self.points))

    @property
    def disc_mean(self) -> float:
        return mean(self.by_opening([float(d) for d in self.discs]))

    @property
    def disc_ci(self) -> float:
        return half_width(self.by_opening([float(d) for d in self.discs]))

    @property
    def elo(self) -> float:
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        ci = self.score_ci if len(self.by_opening(self.points)) >= 2 else 0.5
        return elo(self.score - ci), elo(self.score + ci)

    @property
    def time_ratio(self) -> float:
        """outflank's mean time a move over the anchor's."""
        theirs = mean(self.theirs)
        return mean(self.ours) / theirs if theirs else math.inf


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def half_width(values: list[float]) -> float:
    """Half-width of a 95 % confidence interval of the mean of ``values``."""
    if len(values) < 2:
        return math.nan
    return Z95 * statistics.stdev(values) / math.sqrt(len(values))


def elo(score: float) -> float:
    """The Elo difference a score (0..1) stands for on the logistic curve."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)


# ------------------------------------------------------------------ players
def make_outflank(spec: str):
    """The outflank player of a spec; one search thread unless it says."""
    from outflank.players import make_player

    spec = spec.strip()
    if spec.startswith("engine:") and "threads=" not in spec:
        spec += ",threads=1"
    return make_player(spec)


def split_spec(spec: str) -> tuple[str, str | None, dict[str, int]]:
    """A spec without its benchmark keys, its ``weights=FILE`` (or None) and
    its ``tune.NAME=N`` search settings (``outflank._core.tune``)."""
    head, _, rest = spec.partition(":")
    kept, found, tuning = [], None, {}
    for item in rest.split(",") if rest else []:
        key, _, value = (part.strip() for part in item.partition("="))
        if key == "weights":
            found = value
        elif key.startswith("tune."):
            try:
                tuning[key[len("tune.") :]] = int(value)
            except ValueError:
                raise OutflankError(f"{key} takes a whole number, not {value!r}") from None
        else:
            kept.append(item)
    return (f"{head}:{','.join(kept)}" if kept or rest else head), found, tuning


def check_tuning(tuning: dict[str, int]) -> None:
    """An unknown search setting is a clear error."""
    from outflank import _core

    known = _core.tune()
    unknown = sorted(set(tuning) - set(known))
    if unknown:
        raise OutflankError(f"unknown search settings {unknown}; known: {sorted(known)}")


def apply_tuning(tuning: dict[str, int]) -> None:
    """Set the core's search settings (an unknown name is a clear error)."""
    from outflank import _core

    check_tuning(tuning)
    for name, value in tuning.items():
        _core.tune(name, value)


def with_time(spec: str, seconds: float) -> str:
    """The spec with its ``time=`` set to ``seconds``."""
    head, _, rest = spec.partition(":")
    items = [i for i in rest.split(",") if i and not i.strip().startswith("time=")]
    return f"{head}:{','.join([*items, f'time={seconds:.4g}'])}"


def time_of(spec: str) -> float | None:
    for item in spec.partition(":")[2].split(","):
        key, _, value = item.partition("=")
        if key.strip() == "time":
            return float(value)
    return None


# ------------------------------------------------------------------ openings
def xot_lines(count: int, seed: int) -> list[str]:
    """``count`` XOT openings in a fixed pseudo-random order."""
    from outflank.tournament import xot_openings

    lines = list(xot_openings())
    random.Random(seed).shuffle(lines)
    if count > len(lines):
        raise OutflankError(f"only {len(lines)} XOT openings, not {count}")
    return lines[:count]


# ------------------------------------------------------------------ workers
_STATE: dict[str, object] = {}


def _init(spec: str, anchor: list[str], depth: int) -> None:
    from outflank import evalmodel
    from outflank.nboard import NBoardClient

    spec, weights, tuning = split_spec(spec)
    apply_tuning(tuning)
    if weights:
        evalmodel.load_into(Path(weights), 1)
        from outflank import _core

        _core.eval_use(1)
    _STATE["player"] = make_outflank(spec)
    _STATE["anchor"] = NBoardClient(anchor, depth=depth)
    _STATE["depth"] = depth


def play_game(job: tuple[int, str, bool]) -> tuple[int, int, list[float], list[float], str]:
    """One game; returns (index, outflank's disc difference, outflank's and the
    anchor's seconds a move, the game as GGF)."""
    from outflank.ggf import GameRecord

    index, line, ours_black = job
    player = _STATE["player"]
    anchor = _STATE["anchor"]
    engine = getattr(player, "engine", None)
    if engine is not None:
        engine.clear()  # each game from an empty table: reproducible
    board = Board.from_transcript(line)
    opening = len(board.move_stack)
    ours: list[float] = []
    theirs: list[float] = []
    times: list[float | None] = [None] * opening
    while not board.is_game_over():
        if board.must_pass():
            board.play(PASS)
            times.append(None)
            continue
        our_turn = (board.turn == BLACK) == ours_black
        start = time.perf_counter()
        move = player.choose_move(board.copy()) if our_turn else anchor.go(board, 600).move
        spent = time.perf_counter() - start
        (ours if our_turn else theirs).append(spent)
        times.append(spent)
        if move.is_pass or not board.is_legal(move):
            who = "outflank" if our_turn else "the anchor"
            raise OutflankError(f"{who} chose an illegal move {move} in game {index}")
        board.play(move)
    ours_name = player.name
    their_name = f"anchor:depth={_STATE['depth']}"
    black, white = (ours_name, their_name) if ours_black else (their_name, ours_name)
    record = GameRecord.from_board(
        board,
        black=black,
        white=white,
        place="bench/anchor.py",
        times=[None if t is None else round(t, 4) for t in times],
    )
    outcome = board.outcome()
    margin = outcome.margin if outcome else 0
    diff = margin if ours_black else -margin
    return index, diff, ours, theirs, record.to_ggf()


def check_players(spec: str, anchor: list[str], depth: int) -> None:
    """Fail here with one clear error, not in every worker: a bad spec or
    weight file, or an anchor that does not start and answer."""
    from outflank.nboard import NBoardClient

    bare, weights, tuning = split_spec(spec)
    if weights and not Path(weights).is_file():
        raise OutflankError(f"no weight file {weights!r}")
    check_tuning(tuning)
    player = make_outflank(bare)
    player.close()
    if not 1 <= depth <= 60:
        raise OutflankError(f"the anchor's depth must be in 1..60, not {depth}")
    client = NBoardClient(anchor, depth=depth)
    client.close()


def run_match(
    spec: str,
    anchor: list[str],
    depth: int,
    games: int,
    *,
    workers: int = 2,
    skip: int = 0,
    seed: int = 46,
    quiet: bool = False,
    stop: Stop | None = None,
    records: list[str] | None = None,
) -> Tally:
    """Play ``games`` paired games (an even number) and tally them."""
    if games < 2 or games % 2:
        raise OutflankError("--games must be an even number >= 2 (paired games)")
    if workers < 1:
        raise OutflankError("--workers must be >= 1")
    check_players(spec, anchor, depth)
    lines = xot_lines(skip + games // 2, seed)[skip:]
    jobs = [(i, lines[i // 2], i % 2 == 0) for i in range(games)]
    tally = Tally()
    stop = stop if stop is not None else Stop()
    try:
        with WorkerPool(workers, stop, initializer=_init, initargs=(spec, anchor, depth)) as pool:
            for _job, future in pool.completed(play_game, jobs, 2 * workers):
                index, diff, ours, theirs, ggf = future.result()
                tally.add(diff, ours, theirs, jobs[index][1])
                if records is not None:
                    records.append(ggf)
                if not quiet:
                    w, d, lost = tally.wdl
                    print(
                        f"\r{tally.games}/{games} games  {w}-{d}-{lost}  "
                        f"score {100 * tally.score:.1f} %  time ratio {tally.time_ratio:.2f}",
                        end="",
                        file=sys.stderr,
                        flush=True,
                    )
    except BrokenProcessPool:
        raise OutflankError("a worker process died: its game is lost") from None
    tally.interrupted = stop.requested and tally.games < games
    if not quiet:
        print(file=sys.stderr)
    return tally


# ------------------------------------------------------------------ calibration
@dataclass
class Calibration:
    spec: str  # outflank's spec, its time perhaps scaled
    depth: int  # the anchor's depth
    ours_ms: float
    theirs_ms: float
    steps: list[str]


def calibrate(
    spec: str,
    anchor: list[str],
    *,
    start_depth: int = 10,
    games: int = 40,
    workers: int = 2,
    tolerance: float = DEFAULT_TOLERANCE,
    seed: int = 4646,
    stop: Stop | None = None,
    measure: Callable[[str, int], tuple[float, float]] | None = None,
) -> Calibration:
    """Find the anchor depth (and, if need be, outflank's time) at which the
    two mean times a move are within ``tolerance`` of each other, by short
    matches (``games`` games on openings the real match does not use).

    Only games give the times a match will see: an engine's table carries
    what its earlier moves searched, and NTest gains far more from that than
    outflank does (on positions of real games searched one at a time, even
    after the position two plies earlier, its depth 14 took 53 ms a move; in
    the games, 29 ms). ``measure(spec, depth) -> (outflank's ms, the
    anchor's ms)`` replaces the matches (tests give it a model)."""
    stop = stop if stop is not None else Stop()
    steps: list[str] = []
    known: dict[tuple[str, int], tuple[float, float]] = {}

    def play(s: str, d: int) -> tuple[float, float]:
        t = run_match(s, anchor, d, games, workers=workers, seed=seed, quiet=True, stop=stop)
        if stop.requested:
            raise OutflankError("calibration interrupted")
        return 1000 * mean(t.ours), 1000 * mean(t.theirs)

    def ratio(s: str, d: int) -> float:
        if (s, d) not in known:
            known[(s, d)] = (measure or play)(s, d)
            ours, theirs = known[(s, d)]
            steps.append(f"{s} vs depth {d}: {ours:.1f} ms / {theirs:.1f} ms a move")
        ours, theirs = known[(s, d)]
        return ours / theirs if theirs else math.inf

    depth = start_depth
    for _ in range(60):  # walk the depth until the ratio changes sides
        r = ratio(spec, depth)
        nxt = depth + 1 if r > 1 and depth < 60 else depth - 1 if r < 1 and depth > 1 else 0
        if not nxt:
            break
        other = ratio(spec, nxt)
        if (r - 1) * (other - 1) <= 0:  # between the two: the nearer in log ratio
            if abs(math.log(other)) < abs(math.log(r)):
                depth = nxt
            break
        depth = nxt
    seconds = time_of(spec)
    for _ in range(3):  # scale outflank's time towards the anchor's
        r = ratio(spec, depth)
        if abs(r - 1) <= tolerance or seconds is None:
            break
        seconds /= r
        spec = with_time(spec, seconds)
    ratio(spec, depth)  # measured already unless the time was just scaled
    ours, theirs = known[(spec, depth)]
    return Calibration(spec, depth, ours, theirs, steps)


# ------------------------------------------------------------------ report
def table(spec: str, anchor: str, depth: int | None, tally: Tally, seconds: float | None) -> str:
    """The result table of a match (of pooled matches: no depth, no wall time)."""
    w, d, lost = tally.wdl
    lo, hi = tally.elo_interval
    openings = len({o for o in tally.openings if o is not None})
    games = f"{tally.games} (interrupted)" if tally.interrupted else str(tally.games)
    rows = [
        ("outflank", spec),
        ("anchor", anchor if depth is None else f"{anchor} (depth {depth})"),
        ("games", f"{games} on {openings} openings" if openings else games),
        ("outflank wins / draws / losses", f"{w} / {d} / {lost}"),
        ("outflank score", f"{100 * tally.score:.1f} % +/- {100 * tally.score_ci:.1f} (95 %)"),
        ("Elo (outflank - anchor)", f"{round(tally.elo):+d} [{round(lo):+d}, {round(hi):+d}]"),
        (
            "outflank disc difference",
            f"{tally.disc_mean:+.2f} +/- {tally.disc_ci:.2f}",
        ),
        (
            "time a move, outflank",
            f"mean {1000 * mean(tally.ours):.1f} ms, p95 {1000 * p95(tally.ours):.1f} ms",
        ),
        (
            "time a move, anchor",
            f"mean {1000 * mean(tally.theirs):.1f} ms, p95 {1000 * p95(tally.theirs):.1f} ms",
        ),
        ("time ratio (outflank / anchor)", f"{tally.time_ratio:.2f}"),
    ]
    if seconds is not None:
        rows.append(("wall time", f"{seconds:.0f} s"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# ------------------------------------------------------------------ where
def where(paths: list[Path], player: str, empties: list[int], threads: int) -> str:
    """Mean exact value at each number of empties, from ``player``'s side."""
    from outflank.engine import Engine
    from outflank.ggf import read_ggf_file

    engine = Engine(threads=threads, tt_mb=256)
    values: dict[int, list[float]] = {e: [] for e in empties}
    finals: list[float] = []
    lost_at: dict[int, int] = {e: 0 for e in empties}
    lost = 0
    for path in paths:
        for record in read_ggf_file(path):
            names = (record.black, record.white)
            if not any(player in n for n in names):
                continue
            sign = 1 if player in record.black else -1
            board = record.start.copy()
            seen: dict[int, float] = {}
            for move in record.moves:
                left = 64 - sum(board.score())
                if left in values and left not in seen and not board.is_game_over():
                    v = engine.solve(board).score  # from the side to move
                    seen[left] = v if (board.turn == BLACK) == (sign == 1) else -v
                board.push(move.move)
            final = board.outcome().margin * sign
            finals.append(final)
            lost += final < 0
            for e, v in seen.items():
                values[e].append(v)
                lost_at[e] += final < 0 and v < 0
    rows = [f"games: {len(finals)} ({player}'s side); lost: {lost}"]
    for e in empties:
        vs = values[e]
        rows.append(
            f"exact value at {e} empties: {mean(vs):+.2f} +/- {half_width(vs):.2f} "
            f"({len(vs)} games; lost games already lost here: {lost_at[e]}; "
            f"score with perfect play from here: {100 * perfect_score(vs):.1f} %)"
        )
    rows.append(
        f"final result: {mean(finals):+.2f} +/- {half_width(finals):.2f} "
        f"(score {100 * perfect_score(finals):.1f} %)"
    )
    return "\n".join(rows)


def perfect_score(values: list[float]) -> float:
    """The share of points of games whose exact values are ``values`` (0
    for none)."""
    return mean([points(v) for v in values])


# ------------------------------------------------------------------ pool, compare
def read_matches(paths: list[Path], player: str) -> Tally:
    """The games of match files (``games.ggf``) as one tally, from the side
    of ``player`` (a part of its name): results, both sides' times a move,
    and each game's opening (the moves played before the first timed one:
    the XOT line, which the harness plays untimed)."""
    from outflank.ggf import read_ggf_file

    tally = Tally()
    for path in paths:
        for record in read_ggf_file(path):
            ours_black = player in record.black
            if not ours_black and player not in record.white:
                continue
            timed = [i for i, m in enumerate(record.moves) if m.time is not None]
            board = record.start.copy()
            ours: list[float] = []
            theirs: list[float] = []
            for move in record.moves:
                if move.time is not None:
                    (ours if (board.turn == BLACK) == ours_black else theirs).append(move.time)
                board.push(move.move)
            if not timed or not board.is_game_over():
                raise OutflankError(f"{path}: a game without timed moves or unfinished")
            margin = board.outcome().margin
            opening = tuple(str(m.move) for m in record.moves[: timed[0]])
            tally.add(margin if ours_black else -margin, ours, theirs, opening)
    if not tally.games:
        raise OutflankError(f"no games of a player named like {player!r}")
    return tally


def compare(first: Path, second: Path, player: str) -> str:
    """Two matches' scores on the openings both played, paired and not."""
    runs = []
    for path in (first, second):
        tally = read_matches([path], player)
        runs.append(tally.opening_groups(tally.points))
    a, b = runs
    common = [k for k in a if k in b]
    if len(common) < 2:
        raise OutflankError(f"{first} and {second} share {len(common)} opening(s): need 2")
    x = [statistics.fmean(a[k]) for k in common]
    y = [statistics.fmean(b[k]) for k in common]
    games = (sum(len(a[k]) for k in common), sum(len(b[k]) for k in common))
    diff = [q - p for p, q in zip(x, y, strict=True)]
    apart = math.hypot(half_width(x), half_width(y))
    r = statistics.correlation(x, y) if len(set(x)) > 1 and len(set(y)) > 1 else math.nan
    rows = [
        ("openings in common", str(len(common))),
        ("first", f"{first}: {100 * statistics.fmean(x):.1f} % ({games[0]} games)"),
        ("second", f"{second}: {100 * statistics.fmean(y):.1f} % ({games[1]} games)"),
        ("correlation an opening", f"{r:.2f}"),
        (
            "second - first",
            f"{100 * statistics.fmean(diff):+.1f} points +/- {100 * half_width(diff):.1f} "
            f"(95 %, paired; independent runs: +/- {100 * apart:.1f})",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# ------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("match", "calibrate"):
        p = sub.add_parser(name)
        p.add_argument("--engine", required=True, help="outflank's player spec")
        p.add_argument("--anchor", required=True, help="the other engine's command line")
        p.add_argument("--workers", type=int, default=2, help="games at once")
        p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE)
        p.add_argument("--start-depth", type=int, default=10, help="calibration's first depth")
        p.add_argument(
            "--calibration-games", type=int, default=40, help="games a calibration step plays"
        )
    m = sub.choices["match"]
    m.add_argument("--depth", default="auto", help="the anchor's depth, or auto")
    m.add_argument("--games", type=int, default=100, help="games (even: paired)")
    m.add_argument("--skip", type=int, default=0, help="leave out the first N openings")
    m.add_argument("--seed", type=int, default=46, help="order of the XOT openings")
    m.add_argument("--out", type=Path, help="folder for games.ggf and result.txt")
    m.add_argument("--quiet", action="store_true")
    w = sub.add_parser("where")
    w.add_argument("ggf", type=Path, nargs="+")
    w.add_argument("--player", default="engine", help="a part of the player's name")
    w.add_argument("--empties", type=int, nargs="+", default=[24, 20])
    w.add_argument("--threads", type=int, default=2)
    pl = sub.add_parser("pool")
    pl.add_argument("ggf", type=Path, nargs="+", help="matches' games.ggf")
    pl.add_argument("--player", default="engine", help="a part of the player's name")
    c = sub.add_parser("compare")
    c.add_argument("ggf", type=Path, nargs=2, help="two matches' games.ggf")
    c.add_argument("--player", default="engine", help="a part of the player's name")
    args = ap.parse_args(argv)
    if args.command in ("where", "pool", "compare"):
        try:
            if args.command == "where":
                print(where(args.ggf, args.player, args.empties, args.threads))
            elif args.command == "pool":
                tally = read_matches(args.ggf, args.player)
                names = ", ".join(str(p) for p in args.ggf)
                print(table(f"{args.player} in {names}", "the other side", None, tally, None))
            else:
                print(compare(args.ggf[0], args.ggf[1], args.player))
        except (OSError, OutflankError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    anchor = shlex.split(args.anchor)
    with StopSignals() as stop:
        try:
            spec, depth = args.engine, None
            if args.command == "calibrate" or args.depth == "auto":
                cal = calibrate(
                    spec,
                    anchor,
                    start_depth=args.start_depth,
                    games=args.calibration_games,
                    workers=args.workers,
                    tolerance=args.tolerance,
                    stop=stop,
                )
                print("\n".join(["calibration:", *(f"  {s}" for s in cal.steps)]))
                print(f"chosen: {cal.spec} against depth {cal.depth}")
                if args.command == "calibrate":
                    return 0
                spec, depth = cal.spec, cal.depth
            else:
                depth = int(args.depth)
            records: list[str] = []
            start = time.perf_counter()
            tally = run_match(
                spec,
                anchor,
                depth,
                args.games,
                workers=args.workers,
                skip=args.skip,
                seed=args.seed,
                quiet=args.quiet,
                stop=stop,
                records=records,
            )
        except (OutflankError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    text = table(spec, args.anchor, depth, tally, time.perf_counter() - start)
    if abs(tally.time_ratio - 1) > args.tolerance and tally.games:
        text += f"\nWARNING: the mean times differ by more than {100 * args.tolerance:.0f} %"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "games.ggf").write_text("".join(r.rstrip("\n") + "\n" for r in records))
        (args.out / "result.txt").write_text(text + "\n")
    return EXIT_INTERRUPTED if tally.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
