"""Engine-versus-engine matches: paired games from varied openings.

    python bench/match.py --a default:depth=4 --b heuristic:depth=4 --games 200
    python bench/match.py --a level:6 --b level:5 --games 100 --workers 2

A player spec is one of
    EVALUATOR[:key=value,...]   an Engine(evaluator=EVALUATOR, ...) with a search
                                limit (depth, time in seconds or nodes); every key
                                is passed to Engine() (tt_mb [default 16], endgame,
                                random, seed, corner=..), but weights=FILE (that
                                weight file of the default evaluator) and
                                tune.NAME=N (a search setting of outflank._core.tune)
    level:N[:key=value,...]     Engine.level(N) with its own settings (or the given ones)
    preset:NAME[:key=value,...] Engine.preset(NAME)
Every move is the engine's choose_move, so random= and a level's exact
endgame apply as they do in play; with hint=1 it is instead the first move
of Engine.analyze (every move scored, as hints and the analysis panels
show them), which measures an analysis engine by the moves it recommends.
Openings: the distinct positions (up to the 8 board symmetries) reached after
--plies moves from the start, in a fixed pseudo-random order; each opening is
played twice, once with each engine as black, so an unbalanced opening favours
nobody (6 plies give 1,773 distinct openings; beyond that they repeat).
Games run in --workers processes; each engine search runs on the cores
divided by --workers (at least 1; a spec's threads= wins, e.g.
default:time=0.2,threads=2). The table reports A's results. --skip N
leaves out the first N openings (a long match in chunks: --games 40 --skip 0,
then --skip 20, ...; each chunk's table, summed, is the whole match's). Ctrl-C
(SIGINT) or SIGTERM ends a long match early and still prints the table of
the games finished so far, marked as interrupted.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

# this checkout's package, not an installed one from another tree
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from outflank.board import BLACK, PASS, Board, Move
from outflank.errors import OutflankError
from outflank.interrupt import EXIT_INTERRUPTED, Stop, StopSignals, WorkerPool
from outflank.threads import share

LIMIT_KEYS = {"depth": int, "time": float, "nodes": int}
DEFAULT_TT_MB = 16  # per engine; two engines per worker


@dataclass(frozen=True)
class Spec:
    """A parsed player spec."""

    text: str
    kind: str  # "evaluator", "level" or "preset"
    name: str
    limits: dict
    params: dict


def _value(text: str) -> object:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_spec(text: str) -> Spec:
    """Parse ``default:depth=4``, ``level:6``, ``preset:minimax4`` ..."""
    parts = text.split(":")
    head = parts[0].strip()
    if not head:
        raise OutflankError(f"empty player spec: {text!r}")
    kind, name, rest = "evaluator", head, parts[1:]
    if head in ("level", "preset"):
        if len(parts) < 2 or not parts[1]:
            raise OutflankError(
                f"{head} needs a value, e.g. {head}:{'6' if head == 'level' else 'weights'}"
            )
        kind, name, rest = head, parts[1], parts[2:]
        if kind == "level" and not name.isdigit():
            raise OutflankError(f"level must be a number, not {name!r}")
    limits: dict = {}
    params: dict = {}
    for chunk in ",".join(rest).split(","):
        if not chunk.strip():
            continue
        if "=" not in chunk:
            raise OutflankError(f"bad option {chunk!r} in {text!r} (expected key=value)")
        key, raw = (s.strip() for s in chunk.split("=", 1))
        if key in LIMIT_KEYS:
            try:
                limits[key] = LIMIT_KEYS[key](raw)
            except ValueError:
                raise OutflankError(f"bad {key} {raw!r} in {text!r}") from None
        else:
            params[key] = _value(raw)
    if kind == "evaluator" and not limits:
        raise OutflankError(f"{text!r}: give a search limit, e.g. {head}:depth=4")
    return Spec(text, kind, name, limits, params)


def make_engine(spec: Spec, threads: int | None = None):
    """The Engine a spec describes; ``threads`` per search unless the spec
    says (``threads=``). Its weights= apart: see _load_weights."""
    from outflank.engine import Engine

    # the limits become the engine's own, so its other settings (a level's
    # exact endgame, random=) apply as they do in play
    own = {
        k: v
        for k, v in spec.params.items()
        if k not in ("weights", "hint") and not k.startswith("tune.")
    }
    params = {"tt_mb": DEFAULT_TT_MB, "threads": threads, **own, **spec.limits}
    if spec.kind == "level":
        return Engine.level(int(spec.name), **params)
    if spec.kind == "preset":
        return Engine.preset(spec.name, **params)
    return Engine(evaluator=spec.name, **params)


def _canonical(board: Board) -> tuple[int, int, int]:
    """A key equal for positions that are images under the 8 symmetries."""
    keys = []
    for t in range(8):
        keys.append((_transform(board.black, t), _transform(board.white, t), int(board.turn)))
    return min(keys)


def _transform(bits: int, t: int) -> int:
    out = 0
    while bits:
        low = bits & -bits
        r, c = divmod(low.bit_length() - 1, 8)
        if t & 1:
            c = 7 - c
        if t & 2:
            r = 7 - r
        if t & 4:
            r, c = c, r
        out |= 1 << (r * 8 + c)
        bits ^= low
    return out


def openings(plies: int, count: int, seed: int = 2024) -> list[list[str]]:
    """``count`` distinct openings of ``plies`` moves, deterministic order."""
    if not 0 <= plies <= 10:
        raise OutflankError("--plies must be in 0..10")
    found: dict[tuple, list[str]] = {}

    def walk(board: Board, line: list[str]) -> None:
        if len(line) == plies:
            key = _canonical(board)
            if key not in found and not board.is_game_over():
                found[key] = list(line)
            return
        for move in board.legal_moves:
            board.push(move)
            line.append(str(move))
            walk(board, line)
            line.pop()
            board.pop()

    walk(Board(), [])
    lines = sorted(found.values())
    random.Random(seed).shuffle(lines)
    if count > len(lines):
        lines = (lines * (count // len(lines) + 1))[:count]
    return lines[:count]


# ------------------------------------------------------------------ workers
_ENGINES: dict[str, object] = {}
_SPECS: dict[str, Spec] = {}
_SLOTS: dict[str, int] = {}  # the evaluator model each side plays with
_TUNING: dict[str, dict[str, int]] = {}  # each side's search settings (tune.NAME=VALUE)


def tuning_of(spec: Spec) -> dict[str, int]:
    """A spec's ``tune.NAME=VALUE`` keys: the core's search settings for that
    side (``_core.tune``), the others left at their defaults."""
    from outflank import _core

    defaults = _core.tune()
    wanted = {k[len("tune.") :]: v for k, v in spec.params.items() if k.startswith("tune.")}
    unknown = sorted(set(wanted) - set(defaults))
    if unknown:
        raise OutflankError(f"unknown search settings {unknown}; known: {sorted(defaults)}")
    bad = [k for k, v in wanted.items() if isinstance(v, bool) or not isinstance(v, int)]
    if bad:
        raise OutflankError(f"search settings take whole numbers: {bad}")
    return {**defaults, **wanted}


def _load_weights(key: str, spec: Spec) -> int:
    """A spec's weights=FILE loaded into a core slot (1 for A, 2 for B);
    slot 0 (the packaged weights) without one."""
    if "weights" not in spec.params:
        return 0
    from outflank import evalmodel

    slot = 1 if key == "a" else 2
    evalmodel.load_into(Path(str(spec.params["weights"])), slot)
    return slot


def _init_worker(spec_a: str, spec_b: str, threads: int | None = None) -> None:
    for key, text in (("a", spec_a), ("b", spec_b)):
        _SPECS[key] = parse_spec(text)
        _ENGINES[key] = make_engine(_SPECS[key], threads)
        _SLOTS[key] = _load_weights(key, _SPECS[key])
        _TUNING[key] = tuning_of(_SPECS[key])


def _choose(key: str, board: Board) -> Move:
    from outflank import _core

    if _SLOTS.get("a") or _SLOTS.get("b"):  # one process, two weight files: switch
        _core.eval_use(_SLOTS[key])
    if _TUNING.get("a") != _TUNING.get("b"):  # one process, two search settings: switch
        for name, value in _TUNING[key].items():
            _core.tune(name, value)
    if _SPECS[key].params.get("hint"):
        return _ENGINES[key].analyze(board)[0].move
    return _ENGINES[key].choose_move(board)


def play_game(job: tuple[int, list[str], bool]) -> tuple[int, int, float, float]:
    """Play one game; returns (index, A's disc difference, A's and B's seconds)."""
    index, line, a_black = job
    board = Board()
    for move in line:
        board.play(move)
    for eng in _ENGINES.values():
        eng.clear()  # each game starts from an empty table: reproducible
    used = {"a": 0.0, "b": 0.0}
    while not board.is_game_over():
        if board.must_pass():
            board.play(PASS)
            continue
        key = "a" if (board.turn == BLACK) == a_black else "b"
        start = time.perf_counter()
        move = _choose(key, board)
        used[key] += time.perf_counter() - start
        if move.is_pass or not board.is_legal(move):
            raise OutflankError(f"engine {_SPECS[key].text} chose an illegal move {move}")
        board.play(move)
    black, white = board.score()
    empty = 64 - black - white
    diff = black - white
    diff += empty if diff > 0 else -empty if diff < 0 else 0
    return index, diff if a_black else -diff, used["a"], used["b"]


# ------------------------------------------------------------------ report
def _half_width_95(total: float, total_sq: float, n: int) -> float:
    """Half-width of a 95 % confidence interval of a mean, from n values'
    sum and sum of squares (nan below two values)."""
    if n < 2:
        return float("nan")
    var = (total_sq - total * total / n) / (n - 1)
    return 1.96 * math.sqrt(max(var, 0.0) / n)


@dataclass
class Result:
    """A's results over a match."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    disc_sum: int = 0
    disc_sq: int = 0
    time_a: float = 0.0
    time_b: float = 0.0
    interrupted: bool = False

    def add(self, diff: int, ta: float, tb: float) -> None:
        self.games += 1
        self.wins += diff > 0
        self.draws += diff == 0
        self.losses += diff < 0
        self.disc_sum += diff
        self.disc_sq += diff * diff
        self.time_a += ta
        self.time_b += tb

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def disc_mean(self) -> float:
        return self.disc_sum / self.games if self.games else 0.0

    @property
    def disc_ci(self) -> float:
        """Half-width of a 95 % confidence interval of the mean disc difference."""
        return _half_width_95(self.disc_sum, self.disc_sq, self.games)

    @property
    def score_ci(self) -> float:
        """Half-width of a 95 % confidence interval of the score (a fraction)."""
        points = self.wins + 0.5 * self.draws
        return _half_width_95(points, self.wins + 0.25 * self.draws, self.games)

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance that A is the stronger, from wins and losses."""
        decisive = self.wins + self.losses
        if not decisive:
            return 0.5
        return 0.5 * (1 + math.erf((self.wins - self.losses) / math.sqrt(2 * decisive)))

    @property
    def elo(self) -> float:
        return _elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The Elo difference at both ends of the score's 95 % interval."""
        ci = self.score_ci if self.games >= 2 else 0.5
        return _elo(self.score - ci), _elo(self.score + ci)


def _elo(score: float) -> float:
    s = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)


def table(spec_a: str, spec_b: str, res: Result, seconds: float) -> str:
    """The result table (A's view)."""
    rows = [
        ("A", spec_a),
        ("B", spec_b),
        ("games", f"{res.games} (interrupted)" if res.interrupted else str(res.games)),
        ("A wins / draws / losses", f"{res.wins} / {res.draws} / {res.losses}"),
        ("A score", f"{100 * res.score:.1f} % +/- {100 * res.score_ci:.1f} (95 %)"),
        ("A stronger (LOS)", f"{100 * res.los:.1f} %"),
        ("A disc difference", f"{res.disc_mean:+.2f} +/- {res.disc_ci:.2f} (95 %)"),
        (
            "Elo difference (A - B)",
            f"{round(res.elo):+d} [{round(res.elo_interval[0]):+d}, "
            f"{round(res.elo_interval[1]):+d}] (95 %)",
        ),  # no "-0"
        (
            "seconds per game A / B",
            f"{res.time_a / max(res.games, 1):.3f} / {res.time_b / max(res.games, 1):.3f}",
        ),
        ("wall time", f"{seconds:.1f} s"),
        ("games/s", f"{res.games / seconds:.2f}" if seconds > 0 else "inf"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def run_match(
    spec_a: str,
    spec_b: str,
    games: int,
    plies: int,
    workers: int,
    quiet: bool,
    skip: int = 0,
    stop: Stop | None = None,
) -> Result:
    """Play the match and return A's results; a ``stop`` request (Ctrl-C,
    see ``main``) ends it early with the games finished so far."""
    if games < 2 or games % 2:
        raise OutflankError("--games must be an even number >= 2 (paired games)")
    if workers < 1:
        raise OutflankError("--workers must be >= 1")
    for key, text in (("a", spec_a), ("b", spec_b)):  # fail here, not in every worker
        try:
            spec = parse_spec(text)
            make_engine(spec)  # forever respawned by the pool
            tuning_of(spec)
            if _load_weights(key, spec):
                from outflank import _core

                _core.eval_use(0)
        except (TypeError, ValueError, OSError) as exc:  # OutflankError is a ValueError
            raise OutflankError(f"player {text!r}: {exc}") from None
    if skip < 0:
        raise OutflankError("--skip must be >= 0")
    lines = openings(plies, skip + games // 2)[skip:]
    jobs = [(i, lines[i // 2], i % 2 == 0) for i in range(games)]
    res = Result()
    start = time.perf_counter()
    # concurrent.futures rather than multiprocessing.Pool: a worker killed
    # while it held one of Pool's queue locks left Pool.terminate() waiting
    # for that lock forever; the executor notices a dead worker and fails
    # the games it had (BrokenProcessPool). The WorkerPool stops waiting
    # when a stop is requested and terminates the games in play.
    # the games played at once share the cores (a spec's threads= wins)
    stop = stop if stop is not None else Stop()
    threads = share(workers)
    try:
        with WorkerPool(
            workers, stop, initializer=_init_worker, initargs=(spec_a, spec_b, threads)
        ) as pool:
            # keep every worker busy, two games queued each
            for _job, future in pool.completed(play_game, jobs, 2 * workers):
                _i, diff, ta, tb = future.result()
                res.add(diff, ta, tb)
                if not quiet:
                    print(
                        f"\r{res.games}/{games} games  A {res.wins}-{res.draws}-{res.losses}"
                        f"  score {100 * res.score:.1f} %",
                        end="",
                        file=sys.stderr,
                        flush=True,
                    )
    except BrokenProcessPool:  # killed, out of memory, a crash in the core
        raise OutflankError("a worker process died: its game is lost") from None
    res.interrupted = stop.requested and res.games < games
    if not quiet:
        print(file=sys.stderr)
    res.seconds = time.perf_counter() - start  # type: ignore[attr-defined]
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--a", required=True, help="player A, e.g. default:depth=4")
    ap.add_argument("--b", required=True, help="player B, e.g. heuristic:depth=4")
    ap.add_argument("--games", type=int, default=100, help="number of games (even)")
    ap.add_argument("--plies", type=int, default=6, help="opening length in plies")
    ap.add_argument("--workers", type=int, default=2, help="worker processes")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N openings")
    args = ap.parse_args(argv)
    # Ctrl-C (SIGINT) or SIGTERM only asks the match to stop: it prints the
    # games played; further signals are ignored while it does
    with StopSignals() as stop:
        try:
            res = run_match(
                args.a, args.b, args.games, args.plies, args.workers, args.quiet, args.skip, stop
            )
        except OutflankError as exc:
            print(f"match.py: error: {exc}", file=sys.stderr)
            return 2
        if res.interrupted and res.games == 0:
            print("match.py: interrupted before any game was finished", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(table(args.a, args.b, res, res.seconds))  # type: ignore[attr-defined]
    return EXIT_INTERRUPTED if res.interrupted else 0


if __name__ == "__main__":
    raise SystemExit(main())
