"""bench/move_loss.py on a tiny scale: solved positions, losses, paired differences."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import bench_module
from outflank import _core

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"


def _bench():
    return bench_module("move_loss")


def test_paired_differences() -> None:
    paired = _bench().paired
    assert paired([1, 2, 3], [1, 2, 3]) == (0.0, 0.0, 0)
    mean, half, differ = paired([2, 0, 4, 0], [0, 0, 0, 0])
    assert mean == 1.5 and differ == 2 and 1.5 < half < 2.5


def test_run_compares_weight_files_paired(tmp_path: Path) -> None:
    bench = _bench()
    obf = tmp_path / "tiny.obf"
    obf.write_text("\n".join(bench.make(3, 8, 10, 7)) + "\n")
    table = bench.run(obf, {"packaged": WEIGHTS, "b": WEIGHTS}, 2, None, 0.0)
    assert "| all | 3 |" in table
    assert "packaged, depth 2" in table and "b, depth 2" in table  # a file may be "packaged"
    # the same weights twice: the same choices, no difference
    assert "| depth 2 | b - packaged | +0.00 +/- 0.00 | 0 |" in table


def test_move_score_is_the_exact_score_of_the_move() -> None:
    bench = _bench()
    from outflank.engine import Engine

    solver = Engine(endgame=60, threads=1)
    for board in bench.positions(4, 8, 11, 3):
        for scored in solver.analyze(board, depth=60):
            assert bench.move_score(solver, board, scored.move) == scored.score


@pytest.fixture
def evaluator_decides() -> Iterator[None]:
    """The tests' small positions (8-11 empties) are within the midgame
    search's horizon solve (8 empties), where the evaluator decides nothing:
    off while a test compares evaluators there."""
    solve_from = _core.tune()["mid_solve"]
    _core.tune("mid_solve", 0)
    yield
    _core.tune("mid_solve", solve_from)


@pytest.mark.usefixtures("evaluator_decides")
def test_pair_solves_only_differing_choices(tmp_path: Path) -> None:
    bench = _bench()
    from outflank import evalmodel
    from outflank.engine import Engine

    # a deliberately poor evaluator: the packaged weights with their signs turned
    poor = evalmodel.read(WEIGHTS)
    poor.patterns = -poor.patterns
    poor.numeric = -poor.numeric
    evalmodel.write(poor, tmp_path / "poor.bin.gz")
    boards = bench.positions(12, 8, 11, 5)
    same, better, worse = bench.pair(boards, WEIGHTS, WEIGHTS, 2, {})
    assert same == [0.0] * 12 and better == worse == 0
    cache: dict[str, dict[str, int]] = {}
    diffs, better, worse = bench.pair(boards, WEIGHTS, tmp_path / "poor.bin.gz", 2, cache)
    assert worse > better and better + worse == sum(d != 0 for d in diffs)
    assert cache  # some choices differ, and only those positions were solved
    solver = Engine(endgame=60, threads=1)
    for board, diff in zip(boards, diffs, strict=True):
        solved = cache.get(board.obf())
        if solved is None:
            assert diff == 0
            continue
        exact = {str(s.move): s.score for s in solver.analyze(board, depth=60)}
        assert all(exact[m] == v for m, v in solved.items())
        a, b = solved  # A's move first, then B's
        assert diff == exact[a] - exact[b]


@pytest.mark.usefixtures("evaluator_decides")
def test_pair_command_line_keeps_a_cache_and_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    from outflank import evalmodel

    poor = evalmodel.read(WEIGHTS)
    poor.patterns = -poor.patterns
    evalmodel.write(poor, tmp_path / "poor.bin.gz")
    cache = tmp_path / "solved.json"
    args = ["pair", "--count", "6", "--min", "8", "--max", "10", "--depth", "2"]
    weights = ["--weights", f"a={WEIGHTS}", "--weights", f"p={tmp_path / 'poor.bin.gz'}"]
    assert bench.main([*args, *weights, "--cache", str(cache)]) == 0
    table = capsys.readouterr().out
    assert "| 6 | 2 |" in table and "mean loss p - a (95 %)" in table
    solved = json.loads(cache.read_text())
    assert solved and all(isinstance(v, int) for s in solved.values() for v in s.values())
    # a second run on the same positions takes the scores from the cache
    assert bench.main([*args, *weights, "--cache", str(cache)]) == 0
    assert capsys.readouterr().out == table
    # bad input: a clear one-line error, exit 2, the cache left as it was
    assert bench.main([*args, "--weights", f"a={WEIGHTS}", "--cache", str(cache)]) == 2
    assert "exactly two --weights" in capsys.readouterr().err
    assert json.loads(cache.read_text()) == solved
    (tmp_path / "junk.json").write_text("{not json")
    assert bench.main([*args, *weights, "--cache", str(tmp_path / "junk.json")]) == 2
    assert "not a cache" in capsys.readouterr().err
    assert bench.main(["pair", "--min", "12", "--max", "9", *weights]) == 2
