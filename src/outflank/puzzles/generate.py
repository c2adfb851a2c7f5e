"""Making puzzles in bulk: from self-play, from game records, from positions.

The work is cut into jobs: one self-play game (``self-play:K``, played
from seeds derived from the generation's ``seed`` and K, so a job is the
same whoever runs it), one recorded game (``game:HASH``, its start and
moves) or a list of positions (``positions:HASH``, e.g. the mistakes of a
game review: :func:`review_job`). A job examines every position of its game within
``min_empties..max_empties`` by a full exact analysis
(:func:`~outflank.puzzles.examine`) and returns the puzzles found.

The state of a generation is a SQLite database: its parameters, every job
done and every puzzle found (each position once, whatever its symmetry),
committed one job at a time. A run stopped by Ctrl-C, a time limit or a
crash loses at most the jobs in flight; running it again goes on with the
jobs not done. Jobs run in worker processes (``backend="local"``) or as
Ray tasks (``backend="ray"``). :func:`export` picks a graded set from the
database, checks each puzzle again by a new exact analysis, and writes a
puzzle file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from outflank.board import PASS, Board, Color, Move
from outflank.book.symmetry import canonical
from outflank.cluster import ray_cancel, ray_session, ray_wait
from outflank.errors import OutflankError
from outflank.interrupt import Stop, WorkerPool
from outflank.puzzles.find import MAX_EMPTIES, Analyst, examine, verify
from outflank.puzzles.puzzle import GRADES, Puzzle, PuzzleSet, grade_of

__all__ = [
    "MAX_EMPTIES",
    "GenParams",
    "GenStatus",
    "Job",
    "JobResult",
    "PuzzleDB",
    "export",
    "game_job",
    "generate",
    "positions_job",
    "review_job",
    "run_job",
    "select",
    "self_play_jobs",
]

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    key TEXT PRIMARY KEY,           -- self-play:K, game:HASH or positions:HASH
    positions INTEGER NOT NULL,     -- positions examined
    found INTEGER NOT NULL,         -- puzzles found (before removing repeats)
    seconds REAL NOT NULL           -- CPU time of the job
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS puzzles (
    id TEXT PRIMARY KEY,
    canonical BLOB NOT NULL UNIQUE, -- the position in its canonical orientation
    job TEXT NOT NULL,
    rating INTEGER NOT NULL,
    data TEXT NOT NULL              -- the puzzle as JSON (Puzzle.to_dict)
) WITHOUT ROWID;
"""


@dataclass
class GenParams:
    """How puzzles are made (stored with the database; a resumed run must
    use the same): ``margin`` (discs between the solution and every other
    move), the empties examined, and the self-play games: ``opening_min``
    to ``opening_max`` random plies first, then each side searching to a
    depth drawn from ``depths``, with a random move now and then (each
    game draws its chance from 0..``random_move``)."""

    seed: int = 1
    margin: int = 4
    min_empties: int = 6
    max_empties: int = 20
    opening_min: int = 4
    opening_max: int = 20
    depths: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 6])
    random_move: float = 0.15

    def check(self) -> None:
        """Raise :class:`OutflankError` for settings that cannot work."""
        problems = []
        if not 1 <= self.margin <= 64:
            problems.append("margin must be in 1..64 discs")
        if not 1 <= self.min_empties <= self.max_empties <= MAX_EMPTIES:
            problems.append(f"need 1 <= min_empties <= max_empties <= {MAX_EMPTIES}")
        if not 0 <= self.opening_min <= self.opening_max <= 59:
            problems.append("need 0 <= opening_min <= opening_max <= 59")
        if not self.depths or any(not 1 <= d <= 20 for d in self.depths):
            problems.append("depths must be in 1..20")
        if not 0 <= self.random_move <= 1:
            problems.append("random_move must be in 0..1")
        if problems:
            raise OutflankError("; ".join(problems))


@dataclass(frozen=True)
class Job:
    """One unit of work: ``kind`` ``self-play`` (``data``: the game number),
    ``game`` (``data``: start OBF and moves) or ``positions`` (``data``:
    ``[OBF, where]`` pairs); ``source`` names it in the puzzles it makes."""

    key: str
    kind: str
    data: Any
    source: str = ""


@dataclass
class JobResult:
    """What a job found: its puzzles (as dicts), positions examined, CPU s."""

    key: str
    puzzles: list[dict[str, Any]]
    positions: int
    seconds: float


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def self_play_jobs(games: int, start: int = 0) -> Iterator[Job]:
    """Self-play games ``start .. start + games - 1``."""
    for k in range(start, start + games):
        yield Job(f"self-play:{k}", "self-play", k, f"self-play {k}")


def game_job(start: Board, moves: Iterable[Move], source: str = "") -> Job:
    """A recorded game (its start position and moves) as a job."""
    text = " ".join(str(m) for m in moves)
    obf = start.obf()
    return Job(f"game:{_digest(obf + ' ' + text)}", "game", [obf, text], source)


def positions_job(boards: Iterable[Board | tuple[Board, str]], source: str = "") -> Job:
    """Positions as a job (e.g. a review's mistakes: the position before
    each); each may come with where it is from (``(board, "move 34")``)."""
    items = [(b, "") if isinstance(b, Board) else b for b in boards]
    data = [[board.obf(), where or f"position {i}"] for i, (board, where) in enumerate(items, 1)]
    return Job(f"positions:{_digest(json.dumps(data))}", "positions", data, source)


def review_job(review: Any, color: Color | None = None, source: str = "review") -> Job:
    """A game review's mistakes and blunders (of ``color``, or of both
    sides) as a job: the position before each, to be examined like any
    other (most will not be puzzles: a mistake is often one of several
    losing moves beside several good ones). ``review``: an
    :class:`outflank.review.GameReview`."""
    items = [
        (review.board(m.ply), f"move {m.number} ({m.move}, a {m.label.value})")
        for m in review.mistakes
        if color is None or m.color is color
    ]
    return positions_job(items, source)


# ---------------------------------------------------------------- one job
_ANALYST: Analyst | None = None


def _analyst() -> Analyst:
    """This process's engines (one thread each: the workers are the parallelism)."""
    global _ANALYST
    if _ANALYST is None:
        _ANALYST = Analyst.make(threads=1)
    return _ANALYST


def _self_play(params: GenParams, number: int) -> Board:
    """Self-play game ``number``, played out (the board keeps its moves)."""
    from outflank.engine import Engine

    rng = random.Random(f"{params.seed}:{number}")
    opening = rng.randint(params.opening_min, params.opening_max)
    engines = [
        Engine("default", threads=1, tt_mb=8, depth=rng.choice(params.depths), endgame=0)
        for _ in range(2)
    ]
    chance = rng.uniform(0.0, params.random_move)
    board = Board()
    while not board.is_game_over():
        if board.must_pass():
            board.push(PASS)
        elif board.ply < opening or rng.random() < chance:
            board.push(rng.choice(board.legal_moves))
        else:
            board.push(engines[board.ply % 2].search(board).best_move)
    return board


def _replay(start_obf: str, moves: str) -> Board:
    """A recorded game's board (a missing forced pass is put in)."""
    board = Board.from_obf(start_obf)
    for move in moves.split():
        if move != "pass" and board.must_pass():
            board.push(PASS)
        board.push(move)
    return board


def _along(game: Board) -> list[tuple[Board, str]]:
    """Each position of a game, from its start, with the ply it follows."""
    board = game.root()
    out = [(board.copy(stack=False), "ply 0")]
    for move in game.move_stack:
        board.push(move)
        out.append((board.copy(stack=False), f"ply {board.ply}"))
    return out


def run_job(params: dict[str, Any], job: Job) -> JobResult:
    """Run one job (in a worker): examine its positions, return the puzzles."""
    settings = GenParams(**params)
    start = time.process_time()
    if job.kind == "self-play":
        positions = _along(_self_play(settings, int(job.data)))
    elif job.kind == "game":
        positions = _along(_replay(*job.data))
    elif job.kind == "positions":
        positions = [(Board.from_obf(obf), where) for obf, where in job.data]
    else:
        raise OutflankError(f"unknown job kind {job.kind!r}")
    analyst = _analyst()
    analyst.exact.clear()
    found = []
    examined = 0
    # the end first: its solves fill the table that the earlier ones use
    for board, where in reversed(positions):
        if not settings.min_empties <= board.empties <= settings.max_empties:
            continue
        examined += 1
        source = f"{job.source}, {where}" if job.source else where
        puzzle = examine(board, analyst, margin=settings.margin, source=source)
        if puzzle is not None:
            found.append(puzzle.to_dict())
    return JobResult(job.key, found, examined, time.process_time() - start)


# ---------------------------------------------------------------- the database
def _canonical(board: Board) -> bytes:
    p, o, _ = canonical(board.player, board.opponent)
    return p.to_bytes(8, "big") + o.to_bytes(8, "big")


class PuzzleDB:
    """A generation's SQLite database: parameters, jobs done, puzzles found."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path, params: GenParams | None = None) -> PuzzleDB:
        """Open (or create) a database. ``params``: those of this run; a new
        database stores them, an old one must hold the same (else
        :class:`OutflankError`). A file of another kind is refused."""
        path = Path(path)
        if path.is_file():
            with path.open("rb") as f:
                magic = f.read(16)
            if magic and not magic.startswith(b"SQLite format 3"):
                raise OutflankError(f"{path} is not a puzzle database")
        try:
            conn = sqlite3.connect(path, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise OutflankError(f"{path}: not a usable puzzle database ({exc})") from None
        db = cls(conn, path)
        try:
            stored = db.params()
            if params is not None:
                params.check()
                if stored is None:
                    conn.execute(
                        "INSERT INTO meta VALUES ('params', ?)", (json.dumps(asdict(params)),)
                    )
                    conn.commit()
                elif stored != params:
                    mine, theirs = asdict(params), asdict(stored)
                    diff = ", ".join(
                        f"{k} {theirs[k]} (not {mine[k]})" for k in mine if mine[k] != theirs[k]
                    )
                    raise OutflankError(f"{path} was started with {diff}: use the same settings")
        except BaseException:
            conn.close()
            raise
        return db

    @classmethod
    def start(cls, path: str | Path, given: dict[str, Any]) -> PuzzleDB:
        """Open a database for a run with the settings ``given`` (names of
        :class:`GenParams`): a new one takes them over the defaults; an old
        one keeps its own, and any setting given must be the stored one."""
        path = Path(path)
        db = cls.open(path)
        stored = db.params()
        db.close()
        if stored is None:
            return cls.open(path, GenParams(**given))
        return cls.open(path, GenParams(**{**asdict(stored), **given}))

    def params(self) -> GenParams | None:
        row = self.conn.execute("SELECT value FROM meta WHERE name = 'params'").fetchone()
        if row is None:
            return None
        try:
            return GenParams(**json.loads(row[0]))
        except (TypeError, ValueError) as exc:
            raise OutflankError(f"{self.path}: damaged parameters ({exc})") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PuzzleDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done(self) -> set[str]:
        """Keys of the jobs done."""
        return {key for (key,) in self.conn.execute("SELECT key FROM jobs")}

    def add(self, result: JobResult) -> int:
        """Store a job's result in one transaction; returns the puzzles new
        to the database (a position found before, in any symmetry, is kept
        once)."""
        new = 0
        with self.conn:
            for data in result.puzzles:
                puzzle = Puzzle.from_dict(data)
                cursor = self.conn.execute(
                    "INSERT OR IGNORE INTO puzzles VALUES (?, ?, ?, ?, ?)",
                    (puzzle.id, _canonical(puzzle.board), result.key, puzzle.rating,
                     json.dumps(data, separators=(",", ":"))),
                )  # fmt: skip
                new += cursor.rowcount
            self.conn.execute(
                "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?)",
                (result.key, result.positions, len(result.puzzles), result.seconds),
            )
        return new

    def puzzles(self) -> list[tuple[str, Puzzle]]:
        """Every puzzle found, with the key of the job that found it."""
        rows = self.conn.execute("SELECT job, data FROM puzzles ORDER BY id")
        return [(job, Puzzle.from_dict(json.loads(data))) for job, data in rows]

    def summary(self) -> dict[str, Any]:
        """Jobs, positions, puzzles and CPU seconds so far, puzzles by grade."""
        jobs, positions, seconds = self.conn.execute(
            "SELECT COUNT(*), TOTAL(positions), TOTAL(seconds) FROM jobs"
        ).fetchone()
        grades = dict.fromkeys(GRADES, 0)
        for (rating,) in self.conn.execute("SELECT rating FROM puzzles"):
            grades[grade_of(rating)] += 1
        return {
            "jobs": jobs,
            "positions": int(positions),
            "puzzles": sum(grades.values()),
            "seconds": seconds,
            "grades": grades,
        }


# ---------------------------------------------------------------- running
@dataclass
class GenStatus:
    """Progress of a run: jobs done in it, jobs left, puzzles new to the database."""

    done: int
    todo: int
    puzzles: int
    elapsed: float
    interrupted: bool = False


def generate(
    db: PuzzleDB,
    jobs: Iterable[Job],
    *,
    workers: int = 2,
    backend: str = "local",
    max_time: float | None = None,
    stop: Stop | None = None,
    on_progress: Callable[[GenStatus], None] | None = None,
) -> GenStatus:
    """Run the ``jobs`` the database has not done yet; each finished job is
    stored at once. With ``max_time`` (seconds) no job starts after that
    time (those running finish). A ``stop`` request (Ctrl-C through
    :class:`~outflank.interrupt.StopSignals`) ends the run at once: the
    jobs done are kept, those in flight are abandoned (a rerun does them)."""
    params = db.params()
    if params is None:
        raise OutflankError(f"{db.path}: no generation parameters")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OutflankError(f"workers must be at least 1, not {workers!r}")
    if backend not in ("local", "ray"):
        raise OutflankError(f"unknown backend {backend!r} (local or ray)")
    stop = stop if stop is not None else Stop()
    done = db.done()
    todo = [job for job in jobs if job.key not in done]
    begin = time.monotonic()
    status = GenStatus(0, len(todo), 0, 0.0)

    def more() -> bool:
        return max_time is None or time.monotonic() - begin < max_time

    def finished(result: JobResult) -> None:
        status.puzzles += db.add(result)
        status.done += 1
        status.todo -= 1
        status.elapsed = time.monotonic() - begin
        if on_progress is not None:
            on_progress(status)

    run = _run_ray if backend == "ray" else _run_local
    run(_Batch(asdict(params), todo, workers, more, finished, stop))
    status.elapsed = time.monotonic() - begin
    status.interrupted = stop.requested and status.todo > 0
    return status


@dataclass(frozen=True)
class _Batch:
    """What a backend runs: the jobs with their parameters, how many workers,
    whether to start more, where each result goes, and the stop flag."""

    params: dict[str, Any]
    todo: list[Job]
    workers: int
    more: Callable[[], bool]
    finished: Callable[[JobResult], None]
    stop: Stop


def _run_local(batch: _Batch) -> None:
    with WorkerPool(batch.workers, batch.stop) as pool:
        job = functools.partial(run_job, batch.params)
        for _, future in pool.completed(job, batch.todo, 2 * batch.workers, batch.more):
            batch.finished(future.result())


def _run_ray(batch: _Batch) -> None:
    ray = ray_session()
    remote = ray.remote(num_cpus=1)(run_job)
    in_flight = 2 * max(batch.workers, int(ray.cluster_resources().get("CPU", 1)))
    pending = iter(batch.todo)
    running: set[Any] = set()
    while not batch.stop.requested:
        while len(running) < in_flight and batch.more():
            job = next(pending, None)
            if job is None:
                break
            running.add(remote.remote(batch.params, job))
        if not running:
            break
        ready, _ = ray_wait(ray, running, batch.stop)
        for ref in ready:
            running.discard(ref)
            batch.finished(ray.get(ref))
    ray_cancel(ray, running)  # after a stop: the jobs in flight are abandoned


# ---------------------------------------------------------------- export
def select(
    found: list[tuple[str, Puzzle]], count: int, per_job: int = 2, seed: int = 1
) -> list[Puzzle]:
    """Up to ``count`` puzzles spread over the grades (the grades take
    turns, each puzzle drawn at random within its grade) and over the
    jobs (at most ``per_job`` from one game)."""
    rng = random.Random(seed)
    by_grade: dict[int, list[tuple[str, Puzzle]]] = {g: [] for g in GRADES}
    for job, puzzle in sorted(found, key=lambda item: item[1].id):
        by_grade[puzzle.grade].append((job, puzzle))
    for pool in by_grade.values():
        rng.shuffle(pool)
    taken: list[Puzzle] = []
    per: dict[str, int] = {}
    while len(taken) < count and any(by_grade.values()):
        for pool in by_grade.values():
            while pool and len(taken) < count:
                job, puzzle = pool.pop()
                if per.get(job, 0) < per_job:
                    per[job] = per.get(job, 0) + 1
                    taken.append(puzzle)
                    break
    return sorted(taken, key=lambda p: (p.rating, p.id))


def export(
    db: PuzzleDB | Sequence[PuzzleDB],
    path: str | Path,
    count: int,
    *,
    per_job: int = 2,
    seed: int = 1,
    check: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    stop: Stop | None = None,
) -> PuzzleSet:
    """Write a graded set of up to ``count`` puzzles from the database (or
    databases: made with the same margin, e.g. one of short endgames and
    one of longer ones; a position found in several counts once) to a
    puzzle file; with ``check``, each is first verified by a new full exact
    analysis (:func:`~outflank.puzzles.verify`), and a puzzle that fails
    stops the export with :class:`~outflank.puzzles.PuzzleError`."""
    dbs = [db] if isinstance(db, PuzzleDB) else list(db)
    if not dbs:
        raise OutflankError("no puzzle database to export from")
    made = []
    for one in dbs:
        params = one.params()
        if params is None:
            raise OutflankError(f"{one.path}: no generation parameters")
        made.append(params)
    margins = {params.margin for params in made}
    if len(margins) > 1:
        raise OutflankError(f"the databases were made with different margins: {sorted(margins)}")
    margin = margins.pop()
    found: list[tuple[str, Puzzle]] = []
    positions: set[bytes] = set()
    for number, one in enumerate(dbs):
        for job, puzzle in one.puzzles():
            key = _canonical(puzzle.board)
            if key not in positions:  # found again in another database
                positions.add(key)
                found.append((f"{number}:{job}" if len(dbs) > 1 else job, puzzle))
    chosen = select(found, count, per_job, seed)
    if check:
        analyst = Analyst.make(threads=1)
        for i, puzzle in enumerate(chosen, 1):
            if stop is not None and stop.requested:
                raise OutflankError("export interrupted: nothing written")
            analyst.exact.clear()
            verify(puzzle, analyst, margin)
            if on_progress is not None:
                on_progress(i, len(chosen))
    header = {
        "margin": margin,
        "checked": "every puzzle by a full exact analysis" if check else "no",
        "made": asdict(made[0]) if len(made) == 1 else [asdict(p) for p in made],
    }
    out = PuzzleSet(chosen, header)
    out.save(path)
    return out
