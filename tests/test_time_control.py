"""When a timed midgame search starts no new iteration: ``_core.tune``'s
``time_soft`` (the share of the budget), ``time_unstable`` (more of it
after an iteration that changed the best move) and ``time_stable`` (less
once the best move has held for two iterations). The defaults are
checked with the other settings in test_horizon_solve.py."""

from __future__ import annotations

import pytest

from conftest import random_position
from outflank import _core


def iterations(seed: int, empties: int, depth: int = 60) -> tuple[list[int], dict[str, object]]:
    """The best move of each completed iteration of a timed search with a
    generous budget (30 s), and the search's result."""
    board = random_position(seed, empties)
    best: list[int] = []
    result = _core.Searcher(16).search(
        board.player, board.opponent, mode=_core.MODE_MID, depth=depth, time=30.0,
        selective=80, callback=lambda depth, score, nodes, elapsed, pv: best.append(pv[0]),
    )  # fmt: skip
    return best, result


def held(best: list[int], depth: int) -> bool:
    """Whether the best move of iteration ``depth`` is that of the two before."""
    return depth >= 4 and best[depth - 1] == best[depth - 2] == best[depth - 3]


@pytest.mark.parametrize("seed", range(6))
def test_a_search_stops_once_its_best_move_has_held(
    seed: int, search_settings: dict[str, int]
) -> None:
    """With the whole budget to use (time_soft 100) but none of it once the
    best move holds (time_stable 100), the search ends at the first
    iteration from depth 4 whose best move is the two before's."""
    _core.tune("time_soft", 100)
    _core.tune("time_stable", 100)
    best, result = iterations(seed, 40)
    last = len(best)
    assert not result["aborted"] and result["depth"] == last
    assert held(best, last)
    assert not any(held(best, depth) for depth in range(4, last))
    assert result["elapsed"] < 30.0


def test_without_the_instability_rule_the_budget_share_is_flat(
    search_settings: dict[str, int],
) -> None:
    """time_unstable and time_stable at 0 leave time_soft alone: at 100 % a
    search runs to its depth limit even where its best move held early."""
    _core.tune("time_soft", 100)
    _core.tune("time_unstable", 0)
    _core.tune("time_stable", 0)
    early = 0
    for seed in range(6):
        best, result = iterations(seed, 40, depth=9)
        assert len(best) == result["depth"] == 9
        early += any(held(best, depth) for depth in range(4, 9))
    assert early >= 3  # so the rule above would have stopped those searches
