"""One search on several threads (the core's Young Brothers Wait split points):
exact results whatever the number of threads, limits and stop() for all of a
search's threads, no thread or memory left behind. (The core's race-freedom
is checked by ThreadSanitizer: ``scripts/sanitize.sh --thread``.)"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import random_position, resident_kib, stop_during
from outflank import Board, _core
from outflank.engine import MODE_MID, Engine, SearchResult
from outflank.errors import OutflankError
from outflank.obf import read_obf_file
from outflank.threads import (
    MAX_THREADS,
    available_cores,
    check_threads,
    default_threads,
    share,
    thread_counts,
)


def _engine(threads: int, **settings: object) -> Engine:
    """An engine that really runs ``threads`` threads, even beyond the cores
    (an engine runs at most as many threads as the machine has cores)."""
    engine = Engine(threads=threads, **settings)  # type: ignore[arg-type]
    engine._searcher.set_threads(threads, oversubscribe=True)
    return engine


@pytest.mark.parametrize("threads", [2, 4])
@pytest.mark.parametrize("name", ["fforum-1-19.obf", "fforum-20-39.obf"])
def test_ffo_scores_with_threads(ffo_dir: Path, name: str, threads: int) -> None:
    engine = _engine(threads, tt_mb=16)
    for entry in read_obf_file(ffo_dir / name):
        engine.clear()
        result = engine.solve(entry.board)
        assert result.exact and result.score == entry.best_score, entry.line
        assert result.best_move in entry.board.legal_moves


SAMPLE = [(seed, 14 + seed % 7) for seed in range(14)]  # 14-20 empties


@pytest.mark.parametrize(("seed", "empties"), SAMPLE)
def test_random_positions_solve_alike_on_1_2_and_4_threads(seed: int, empties: int) -> None:
    board = random_position(seed, empties)
    results = [_engine(n, tt_mb=8).solve(board) for n in (1, 2, 4)]
    assert all(r.exact for r in results)
    assert len({r.score for r in results}) == 1
    for r in results:  # the move may differ, its score may not
        assert r.best_move in board.legal_moves


@pytest.mark.parametrize("spin", [0, 5000])
def test_idle_threads_that_sleep_at_once_or_poll_long_solve_alike(spin: int) -> None:
    """par_spin: idle threads poll (microseconds) before they sleep; 0
    sleeps at once, 5000 makes nearly every wait a poll (the default, 100,
    is what the other tests run)."""
    before = _core.tune()["par_spin"]
    _core.tune("par_spin", spin)
    try:
        for seed, empties in SAMPLE[:4]:
            board = random_position(seed, empties)
            one, four = (_engine(n, tt_mb=8).solve(board) for n in (1, 4))
            assert four.exact and four.score == one.score
        engine = _engine(2, tt_mb=8)
        result = engine.search(random_position(5, 40), time=0.05)
        assert result.elapsed < 0.5 and result.depth >= 4
    finally:
        _core.tune("par_spin", before)


@pytest.mark.parametrize("seed", [3, 8])
def test_every_moves_exact_score_alike_on_1_and_3_threads(seed: int) -> None:
    board = random_position(seed, 18)
    one, three = (_engine(n, tt_mb=8).analyze(board) for n in (1, 3))
    assert {(m.move, m.score) for m in one} == {(m.move, m.score) for m in three}
    assert all(m.exact for m in three)


def test_a_parallel_midgame_search_and_analysis() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    engine = Engine(threads=2, depth=9)
    result = engine.search(board)
    assert result.depth == 9 and result.best_move in board.legal_moves
    scores = engine.analyze(board, depth=7)
    assert {m.move for m in scores} == set(board.legal_moves)
    assert all(m.depth == 7 and not m.exact for m in scores)
    assert [m.score for m in scores] == sorted((m.score for m in scores), reverse=True)


# 12 empties: a depth-12 search passes the horizon solve (8 empties) on
# every line, so its score is the exact one, +18 (1800 in 1/100 disc).
THROUGH_THE_HORIZON = "OOOO-O--X-OOXO---OOXXOO-OOXOXO--OXOXXXO-XXXXOOOOXXOOXXO-XXXXXXXO X"


@pytest.mark.parametrize("threads", [2, 4])
def test_parallel_searches_through_the_horizon_solve_all_score_exactly(threads: int) -> None:
    """A regression: a helper joining a split point copied the settings of
    its master of the moment, which might be inside a horizon solve (the
    solver's evaluator tag: no horizon solve below, terminal scores on
    another scale). About 1 search in 100 then scored 22 or 28, or a win
    in the midgame's scale; each thread now works under the mode of the
    split point it joins."""
    board = Board.from_obf(THROUGH_THE_HORIZON)
    searcher = _core.Searcher(16, threads=threads, oversubscribe=True)
    scores = []
    for _ in range(1000):
        searcher.clear()
        raw = searcher.search(board.player, board.opponent, mode=MODE_MID, depth=12)
        scores.append(raw["score"])
    assert Counter(scores) == {1800: 1000}


def test_a_node_limit_holds_for_all_threads_together(ffo_dir: Path) -> None:
    board = read_obf_file(ffo_dir / "fforum-40-59.obf")[0].board
    for threads in (2, 4):
        result = _engine(threads, tt_mb=8).solve(board, nodes=300_000)
        assert not result.exact
        assert result.nodes <= 300_000 + 4096 * threads


@pytest.mark.parametrize("threads", [2, 4])
def test_stop_ends_a_parallel_solve_and_the_next_search_works(ffo_dir: Path, threads: int) -> None:
    entries = read_obf_file(ffo_dir / "fforum-40-59.obf")
    engine = _engine(threads, tt_mb=16)
    board = entries[54 - 40].board  # 28 empties
    result, latency = stop_during(engine, lambda: engine.solve(board), after=0.4, wait=10)
    assert isinstance(result, SearchResult)
    assert not result.exact and result.best_move in entries[54 - 40].board.legal_moves
    assert latency < 0.25  # well within it on a loaded machine: the core polls every 4096 nodes
    small = read_obf_file(ffo_dir / "fforum-20-39.obf")[29 - 20]
    again = engine.solve(small.board)
    assert again.exact and again.score == small.best_score


def _threads() -> frozenset[str]:
    """The ids of the process's threads."""
    return frozenset(os.listdir("/proc/self/task"))


def _new_threads(before: frozenset[str]) -> frozenset[str]:
    """The process's threads that were not among ``before``, after waiting
    up to a second for them to go: a joined thread leaves /proc a moment
    after pthread_join returns, on a busy machine a few milliseconds.
    Threads of ``before`` that end meanwhile (another test's server, say)
    do not count."""
    deadline = time.monotonic() + 1.0
    while (new := _threads() - before) and time.monotonic() < deadline:
        time.sleep(0.001)
    return new


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_many_short_parallel_searches_leave_no_thread_or_memory() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4f6")
    end = random_position(1, 16)
    engine = _engine(4, tt_mb=4)
    for _ in range(5):  # the table's pages, the helpers' states: allocated once
        engine.search(board, depth=7)
        engine.solve(end)
    threads, rss = _threads(), resident_kib()
    for i in range(120):
        engine.search(board, depth=6 + i % 3)
        if i % 10 == 0:
            engine.solve(end)
        assert not _new_threads(threads)  # the helpers end with their search
    assert resident_kib() - rss < 4096
    for _ in range(20):  # engines made and dropped: their threads and tables go too
        _engine(3, tt_mb=4).search(board, depth=6)
    assert not _new_threads(threads)


def test_thread_counts_for_comparisons() -> None:
    assert thread_counts("1,2") == [1, 2]
    assert thread_counts(f" 4 ,{MAX_THREADS}") == [4, MAX_THREADS]
    for bad in ("", ",", "0", "1,x", f"2,{MAX_THREADS + 1}", "1.5"):
        with pytest.raises(OutflankError, match="thread counts are"):
            thread_counts(bad)


def test_thread_settings() -> None:
    assert default_threads() == min(available_cores(), MAX_THREADS) >= 1
    assert Engine().threads == default_threads()
    engine = Engine(threads=3)
    assert engine.threads == 3
    engine.configure(threads=1)
    assert engine.threads == 1
    for bad in (0, -1, MAX_THREADS + 1, 2.0, True, "2"):
        with pytest.raises(OutflankError, match="threads"):
            Engine(threads=bad)  # type: ignore[arg-type]
        with pytest.raises(OutflankError, match="threads"):
            engine.configure(threads=bad)
        with pytest.raises(OutflankError, match="threads"):
            check_threads(bad)
    assert engine.threads == 1  # a bad value changes nothing
    with pytest.raises(ValueError, match="threads"):
        _core.Searcher(4, threads=0)
    # no more threads run than the process has cores, unless asked to
    board = Board.from_transcript("f5d6c3d3c4f4f6")
    searcher = _core.Searcher(4, threads=MAX_THREADS)
    assert searcher.search(board.player, board.opponent, depth=7)["threads"] == min(
        MAX_THREADS, available_cores()
    )
    searcher.set_threads(5, oversubscribe=True)
    assert searcher.search(board.player, board.opponent, depth=7)["threads"] == 5
    assert share(1, cores=8) == 8 and share(3, cores=8) == 2 and share(16, cores=8) == 1


ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "outflank" / "_core"
DRIVER_SOURCES = ("bitboard", "clock", "endgame", "eval", "eval_default", "memory", "parallel")
DRIVER_SOURCES += ("search", "stability", "tt")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc (as the install does)")
def test_the_thread_sanitizer_driver_builds_and_passes_without_the_sanitizer(
    tmp_path: Path,
) -> None:
    """tests/c/parallel_search.c (what ``scripts/sanitize.sh --thread`` runs
    under ThreadSanitizer) compiles warning-free against today's core and
    its checks pass on 3 threads: an API change cannot break it unseen."""
    exe = tmp_path / "parallel_search"
    sources = [str(CORE / f"{name}.c") for name in DRIVER_SOURCES]
    flags = ["-std=c11", "-O2", "-pthread", "-mpopcnt", "-Wall", "-Wextra", "-Wno-unused-function"]
    driver = str(ROOT / "tests" / "c" / "parallel_search.c")
    build = subprocess.run(
        ["gcc", *flags, "-Werror", f"-I{CORE}", driver, *sources, "-o", str(exe), "-lm"],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    weights = tmp_path / "eval.bin"
    weights.write_bytes(gzip.decompress((ROOT / "src/outflank/data/eval.bin.gz").read_bytes()))
    run = subprocess.run([str(exe), str(weights), "3"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.rstrip().endswith("all good")
