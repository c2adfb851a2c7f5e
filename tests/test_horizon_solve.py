"""The midgame search solves its leaves near the end of the game, and
``_core.tune`` changes the search settings a benchmark compares."""

from __future__ import annotations

import pytest

from conftest import random_position
from outflank import Board, _core
from outflank.engine import Engine


def positions(seed: int, empties: int, count: int) -> list[Board]:
    """``count`` positions of random games with ``empties`` empty squares
    whose mover has a move (a forced pass would keep the empties)."""
    boards = (random_position(seed + i, empties) for i in range(1000))
    return [b for b in boards if not b.must_pass()][:count]


def test_the_settings_by_name(search_settings: dict[str, int]) -> None:
    assert search_settings == {
        "time_soft": 40,
        "mid_solve": 8,
        "end_stages": 5,
        "par_spin": 100,
        "inc_eval": int(_core.PATTERN_GATHER != "vbmi"),
        "time_unstable": 60,
        "time_stable": 25,
    }
    assert _core.tune("mid_solve", 0)["mid_solve"] == 0
    assert _core.tune()["mid_solve"] == 0
    with pytest.raises(ValueError, match="unknown search setting 'nope'"):
        _core.tune("nope", 1)
    with pytest.raises(TypeError, match="give a value"):
        _core.tune("mid_solve")
    assert _core.tune()["mid_solve"] == 0  # a refused call changed nothing


def test_a_depth_1_search_at_9_empties_scores_every_move_exactly(
    search_settings: dict[str, int],
) -> None:
    """Every child has 8 empties: solved, so each move's midgame score is
    its exact score (the solver's, in discs); with the horizon solve off the
    same search gives the evaluator's estimates."""
    midgame = Engine(endgame=0, threads=1)
    solver = Engine(endgame=64, threads=1)
    estimated = 0
    for board in positions(46, 9, 12):
        exact = {m.move: m.score for m in solver.analyze(board, time=60.0)}
        _core.tune("mid_solve", 8)
        midgame.clear()
        solved = {m.move: m.score for m in midgame.analyze(board, depth=1)}
        assert solved == exact, board.obf()
        _core.tune("mid_solve", 0)
        midgame.clear()
        guessed = {m.move: m.score for m in midgame.analyze(board, depth=1)}
        estimated += guessed != exact
    assert estimated >= 10  # the evaluator alone rarely gets every move right


def test_searches_with_the_horizon_solve_agree_with_the_solver_on_the_best_score(
    search_settings: dict[str, int],
) -> None:
    """A full-width search to the end from 12 empties passes through the
    horizon (8 empties) on every line: its score is the exact one."""
    midgame = Engine(endgame=0, threads=2)
    solver = Engine(endgame=64, threads=1)
    for board in positions(7, 12, 6):
        result = midgame.search(board, depth=12)
        assert result.score == solver.solve(board).score, board.obf()


def iterations(board: Board, time: float) -> tuple[list[tuple[int, int]], dict]:
    """(depth, score) of each completed iteration of a selective search by a
    fresh one-thread searcher (time 0: no time limit), and its result."""
    searcher = _core.Searcher(16, threads=1)
    done: list[tuple[int, int]] = []
    result = searcher.search(
        board.player, board.opponent, time=time, selective=100,
        callback=lambda depth, score, *_: done.append((depth, score)),
    )  # fmt: skip
    return done, result


def test_a_timed_search_that_reaches_the_end_widens_its_margins(
    search_settings: dict[str, int],
) -> None:
    """Past the end of the game a timed selective search searches the same
    tree again with wider probable cut-off margins; its last stage has none,
    so (every leaf solved) its score is the exact one. The reported depth
    stays the number of empty squares."""
    solver = Engine(endgame=64, threads=1)
    stages = search_settings["end_stages"]
    for board in positions(61, 15, 6):
        done, result = iterations(board, 60.0)
        empties = board.empties
        assert [d for d, _ in done] == list(range(1, empties + 1)) + [empties] * stages
        assert result["depth"] == empties and not result["aborted"]
        exact = solver.solve(board).score
        assert done[-1][1] == result["score"] == round(exact * 100), board.obf()


def test_without_stages_or_a_time_limit_the_search_stops_at_the_end(
    search_settings: dict[str, int],
) -> None:
    boards = positions(62, 15, 3)
    for board in boards:  # no time limit: no stages
        done, _ = iterations(board, 0.0)
        assert [d for d, _ in done] == list(range(1, board.empties + 1))
    _core.tune("end_stages", 0)  # the fixture restores it
    for board in boards:
        done, _ = iterations(board, 60.0)
        assert [d for d, _ in done] == list(range(1, board.empties + 1))
