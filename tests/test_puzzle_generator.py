"""The puzzle generator: jobs, its resumable database, export, the script
(stopped by real signals) and ``outflank puzzle find``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from conftest import INTERRUPTIONS, assert_clean_interrupt, interrupt_command
from outflank.board import BLACK, WHITE, Board
from outflank.errors import OutflankError
from outflank.ggf import GameRecord, write_ggf_file
from outflank.interrupt import Stop
from outflank.puzzles import PuzzleSet
from outflank.puzzles import generate as gen

ROOT = Path(__file__).resolve().parent.parent
#: quick: the last 12 empties of each game only
TINY = gen.GenParams(seed=5, min_empties=6, max_empties=12)
TINY_ARGS = [
    "--seed", str(TINY.seed),
    "--min-empties", str(TINY.min_empties),
    "--max-empties", str(TINY.max_empties),
]  # fmt: skip


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "scripts/puzzles.py", *args],
        capture_output=True, text=True, env=env, timeout=300, cwd=ROOT,
    )  # fmt: skip


def _ids(db: gen.PuzzleDB) -> list[str]:
    return [p.id for _, p in db.puzzles()]


def test_a_job_is_the_same_whoever_runs_it() -> None:
    job = next(gen.self_play_jobs(1, start=1))
    a = gen.run_job(asdict(TINY), job)
    b = gen.run_job(asdict(TINY), job)
    assert a.puzzles == b.puzzles and a.positions == b.positions == 7
    assert a.puzzles  # the job is chosen so that its game has some
    for data in a.puzzles:
        assert data["source"].startswith("self-play 1, ply ")
        assert 6 <= data["empties"] <= 12


def test_a_generation_resumes_and_keeps_each_position_once(tmp_path: Path) -> None:
    jobs = list(gen.self_play_jobs(6))
    with gen.PuzzleDB.open(tmp_path / "a.db", TINY) as db:
        first = gen.generate(db, jobs[:3], workers=1)
        assert (first.done, first.todo) == (3, 0)
        second = gen.generate(db, jobs, workers=2)
        assert second.done == 3  # only the jobs not done yet
        assert gen.generate(db, jobs, workers=2).done == 0
        ids = _ids(db)
        summary = db.summary()
        assert summary["jobs"] == 6 and summary["puzzles"] == len(ids) > 0
    # all at once elsewhere: the same puzzles
    with gen.PuzzleDB.open(tmp_path / "b.db", TINY) as db:
        gen.generate(db, jobs, workers=2)
        assert _ids(db) == ids
    # a position found again (the same game as another job) is stored once
    with gen.PuzzleDB.open(tmp_path / "a.db", TINY) as db:
        again = gen.run_job(asdict(TINY), jobs[0])
        assert db.add(gen.JobResult("again", again.puzzles, 0, 0.0)) == 0


def test_a_stop_keeps_what_is_done(tmp_path: Path) -> None:
    stop = Stop()
    seen = []

    def progress(status: gen.GenStatus) -> None:
        seen.append(status.done)
        stop.request()

    with gen.PuzzleDB.open(tmp_path / "s.db", TINY) as db:
        status = gen.generate(
            db, gen.self_play_jobs(50), workers=2, stop=stop, on_progress=progress
        )
        assert status.interrupted and 1 <= status.done == len(db.done()) < 50


def test_wrong_settings_and_files_are_clear_errors(tmp_path: Path) -> None:
    with gen.PuzzleDB.open(tmp_path / "p.db", TINY):
        pass
    with pytest.raises(OutflankError, match="started with margin 4 \\(not 6\\)"):
        gen.PuzzleDB.open(tmp_path / "p.db", gen.GenParams(**{**asdict(TINY), "margin": 6}))
    for bad in ({"max_empties": 40}, {"min_empties": 14}, {"margin": 0}, {"depths": []}):
        with pytest.raises(OutflankError):
            gen.PuzzleDB.open(tmp_path / "q.db", gen.GenParams(**{**asdict(TINY), **bad}))
    text = tmp_path / "t.db"
    text.write_text("not a database")
    with pytest.raises(OutflankError, match="not a puzzle database"):
        gen.PuzzleDB.open(text, TINY)
    with gen.PuzzleDB.open(tmp_path / "p.db") as db, pytest.raises(OutflankError):
        gen.generate(db, [], workers=0)


def test_the_ray_backend_without_ray_is_a_clear_error(tmp_path: Path) -> None:
    jobs = list(gen.self_play_jobs(2))
    try:
        import ray  # noqa: F401
    except ImportError:
        with gen.PuzzleDB.open(tmp_path / "r.db", TINY) as db:
            with pytest.raises(OutflankError, match="needs Ray"):
                gen.generate(db, jobs, backend="ray")
            assert db.done() == set()
    else:  # a real (local) Ray: the same puzzles as the local backend
        with gen.PuzzleDB.open(tmp_path / "r.db", TINY) as r:
            gen.generate(r, jobs, backend="ray")
            with gen.PuzzleDB.open(tmp_path / "l.db", TINY) as local:
                gen.generate(local, jobs, workers=1)
                assert _ids(r) == _ids(local)


def _games(n: int) -> list[GameRecord]:
    """Games played out by the generator's own self-play."""
    return [GameRecord.from_board(gen._self_play(TINY, 100 + k)) for k in range(n)]


def test_puzzles_from_game_records_and_positions(tmp_path: Path) -> None:
    records = _games(2)
    jobs = [gen.game_job(r.start, [m.move for m in r.moves], f"g{i}") for i, r in
            enumerate(records)]  # fmt: skip
    boards = [r.board() for r in records]
    late = []
    for board in boards:
        while board.empties < 10:
            board.pop()
        late.append(board.copy(stack=False))
    jobs.append(gen.positions_job(late, "review"))
    with gen.PuzzleDB.open(tmp_path / "g.db", TINY) as db:
        gen.generate(db, jobs, workers=1)
        assert db.done() == {job.key for job in jobs}
        for _job, puzzle in db.puzzles():
            puzzle.check()
            assert puzzle.source.split(",")[0] in {"g0", "g1", "review"}


def test_export_picks_graded_checked_puzzles(tmp_path: Path) -> None:
    with gen.PuzzleDB.open(tmp_path / "e.db", TINY) as db:
        gen.generate(db, gen.self_play_jobs(8), workers=2)
        found = db.puzzles()
        out = gen.export(db, tmp_path / "set.jsonl", 6, per_job=1)
    assert 1 <= len(out) <= 6
    assert len({job for job, p in found if p.id in out}) == len(out)  # one per game
    again = PuzzleSet.load(tmp_path / "set.jsonl")
    assert [p.id for p in again] == [p.id for p in out]
    assert again.header["checked"] == "every puzzle by a full exact analysis"
    assert again.header["margin"] == TINY.margin


def test_select_spreads_over_grades() -> None:
    shipped = list(PuzzleSet.default())
    found = [(f"job{i}", p) for i, p in enumerate(shipped)]
    chosen = gen.select(found, 25, per_job=1)
    grades = {p.grade for p in chosen}
    assert len(chosen) == 25 and len(grades) == 5


@pytest.mark.parametrize(("sig", "group", "repeats"), INTERRUPTIONS)
def test_ctrl_c_or_sigterm_keeps_the_finished_jobs(
    tmp_path: Path, sig: int, group: bool, repeats: int
) -> None:
    """Stopped by signals: the finished jobs stay in the database, exit 130
    with one line, no worker left; a rerun does the rest."""
    db_path = tmp_path / "i.db"
    cmd = [sys.executable, str(ROOT / "scripts" / "puzzles.py"), "generate", str(db_path)]

    def done() -> int:
        if not db_path.exists():
            return 0
        with sqlite3.connect(db_path) as conn:
            try:
                return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])
            except sqlite3.OperationalError:  # not made yet
                return 0

    result = interrupt_command(
        [*cmd, "--games", "1000", *TINY_ARGS, "--workers", "2"],
        lambda _: done() >= 2, sig, repeats, group=group,
    )  # fmt: skip
    assert_clean_interrupt(result)
    finished = done()
    assert 2 <= finished < 1000
    assert f"{1000 - finished} left" in result.stderr
    # jobs 0..N-1 were handed out in order: the first N+2 include every one done
    again = _script("generate", str(db_path), "--games", str(finished + 2), *TINY_ARGS, "--quiet")
    assert again.returncode == 0, again.stderr
    assert "0 left" in again.stdout


def test_the_script_end_to_end_and_its_errors(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    made = _script("generate", str(db), "--games", "4", *TINY_ARGS, "--quiet")
    assert made.returncode == 0 and "4 jobs done, 0 left" in made.stdout, made.stderr
    limited = _script("generate", str(db), "--games", "40", *TINY_ARGS, "--max-time", "0.001")
    assert limited.returncode == 3, limited.stderr  # the time limit left some
    games = tmp_path / "g.ggf"
    write_ggf_file(games, _games(2))
    from_games = _script("generate", str(db), "--ggf", str(games), "--quiet")
    assert from_games.returncode == 0, from_games.stderr
    assert "2 jobs done, 0 left" in from_games.stdout  # the settings stored in the database
    summary = _script("summary", str(db))
    assert summary.returncode == 0 and "puzzles" in summary.stdout
    out = tmp_path / "x.jsonl"
    exported = _script("export", str(db), str(out), "--count", "3")
    assert exported.returncode == 0, exported.stderr
    assert 1 <= len(PuzzleSet.load(out)) <= 3
    for args, message in (
        (["generate", str(db), "--games", "4", "--margin", "6"], "started with margin"),
        (["generate", str(tmp_path / "y.db"), "--max-empties", "40"], "max_empties"),
        (["generate", str(tmp_path / "y.db"), "--games", "-1"], "must not be negative"),
        (["summary", str(tmp_path / "none.db")], "no puzzle database"),
        (["generate", str(db), "--ggf", str(tmp_path / "none.ggf"), *TINY_ARGS], "none.ggf"),
    ):
        bad = _script(*args)
        assert bad.returncode == 2 and message in bad.stderr, (args, bad.stderr)
        assert "Traceback" not in bad.stderr


def test_outflank_puzzle_find_makes_puzzles_of_games(tmp_path: Path) -> None:
    records = _games(2)
    games = tmp_path / "games.ggf"
    write_ggf_file(games, records)
    out = tmp_path / "mine.jsonl"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    run = subprocess.run(
        [sys.executable, "-m", "outflank", "puzzle", "find", str(games), "-o", str(out),
         "--max-empties", "12", "--workers", "1"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    found = PuzzleSet.load(out)
    assert f"{len(found)} puzzles from 2 games" in run.stdout
    for puzzle in found:
        puzzle.check()
        assert puzzle.source.startswith("games.ggf game ")


def _blundered(puzzle: Any) -> Board:
    """A game from a puzzle's position: a wrong move, then its refutation."""
    board = puzzle.board.copy(stack=False)
    wrong = min(puzzle.refutations, key=lambda m: puzzle.scores[m])
    board.push(wrong)
    for move in puzzle.refutations[wrong]:
        board.push(move)
    return board


def _small_puzzle() -> Any:
    return min(PuzzleSet.default(), key=lambda p: (p.empties, p.id))


def test_a_reviews_mistakes_become_puzzles(tmp_path: Path) -> None:
    from outflank.puzzles import Analyst, puzzles_from_review
    from outflank.review import review_game

    puzzle = _small_puzzle()
    review = review_game(_blundered(puzzle))
    assert review.mistakes and review.mistakes[0].ply == 0
    found = puzzles_from_review(review, Analyst.make())
    assert [(p.id, p.solution, p.scores) for p in found] == [
        (puzzle.id, puzzle.solution, puzzle.scores)
    ]
    assert found[0].source.startswith("review, move 1 (")
    other = BLACK if puzzle.board.turn is WHITE else WHITE
    assert puzzles_from_review(review, color=other) == []
    # the same through the generator, verified the same way
    with gen.PuzzleDB.open(tmp_path / "r.db", gen.GenParams(min_empties=1)) as db:
        gen.generate(db, [gen.review_job(review, source="mine")], workers=1)
        assert [p.id for _, p in db.puzzles()] == [puzzle.id]


def test_outflank_puzzle_find_mistakes(tmp_path: Path) -> None:
    puzzle = _small_puzzle()
    games = tmp_path / "mine.ggf"
    write_ggf_file(games, [GameRecord.from_board(_blundered(puzzle))])
    out = tmp_path / "mine.jsonl"
    color = "black" if puzzle.board.turn is BLACK else "white"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    base = [sys.executable, "-m", "outflank", "puzzle", "find", str(games), "-o", str(out),
            "--mistakes", "--workers", "1"]  # fmt: skip
    run = subprocess.run([*base, "--color", color], capture_output=True, text=True, env=env,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert [p.id for p in PuzzleSet.load(out)] == [puzzle.id]
    bad = subprocess.run([*base[:-3], "--color", color], capture_output=True, text=True,
                         env=env, timeout=300)  # fmt: skip
    assert bad.returncode == 2 and "--color goes with --mistakes" in bad.stderr


def test_export_from_two_databases(tmp_path: Path) -> None:
    other = gen.GenParams(**{**asdict(TINY), "seed": 4})
    a = gen.PuzzleDB.open(tmp_path / "a.db", TINY)
    b = gen.PuzzleDB.open(tmp_path / "b.db", other)
    c = gen.PuzzleDB.open(tmp_path / "c.db", gen.GenParams(**{**asdict(TINY), "margin": 6}))
    try:
        gen.generate(a, gen.self_play_jobs(4), workers=2)
        gen.generate(b, gen.self_play_jobs(4), workers=2)
        # a game of a's, recorded and found again in b: its puzzles count once
        job, _ = a.puzzles()[0]
        game = gen._self_play(TINY, int(job.split(":")[1]))
        gen.generate(b, [gen.game_job(game.root(), game.move_stack, "again")], workers=1)
        ids_a, ids_b = set(_ids(a)), set(_ids(b))
        assert ids_a & ids_b
        out = gen.export([a, b], tmp_path / "ab.jsonl", 1000, per_job=100, check=False)
        assert sorted(p.id for p in out) == sorted(ids_a | ids_b)
        assert [m["seed"] for m in out.header["made"]] == [TINY.seed, other.seed]
        with pytest.raises(OutflankError, match="different margins"):
            gen.export([a, c], tmp_path / "ac.jsonl", 10)
        assert not (tmp_path / "ac.jsonl").exists()
    finally:
        for db in (a, b, c):
            db.close()
