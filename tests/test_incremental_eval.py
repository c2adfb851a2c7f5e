"""The midgame search's incremental evaluation (``_core.tune("inc_eval")``):
pattern codes updated move by move must give exactly the scores of the
evaluation read from the board, so every search, with any model, visits
the same nodes and returns the same scores and lines either way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import random_position, run_child
from outflank import Board, _core
from outflank.engine import Engine
from test_eval_default import OTHER_TYPES, _mask, _random_weights


@pytest.fixture
def restore(search_settings: dict[str, int]) -> Iterator[None]:
    """The search settings (conftest's ``search_settings``) and the active
    model as they were."""
    yield
    _core.eval_use(0)


def record(engine: Engine, board: Board, **limits: int) -> tuple:
    """What a search and an analysis of the position give."""
    engine.clear()
    found = engine.search(board, **limits)
    engine.clear()
    scores = [(str(m.move), m.score) for m in engine.analyze(board, **limits)]
    return found.nodes, found.score, [str(m) for m in found.pv], scores


def both_ways(engine: Engine, board: Board, **limits: int) -> tuple[tuple, tuple]:
    _core.tune("inc_eval", 1)
    kept = record(engine, board, **limits)
    _core.tune("inc_eval", 0)
    read = record(engine, board, **limits)
    return kept, read


def positions(seed: int, empties: range, count: int) -> list[Board]:
    """Positions of random games whose mover has a move."""
    found = []
    for i in range(1000):
        board = random_position(seed + i, empties[i % len(empties)])
        if not board.must_pass():
            found.append(board)
        if len(found) == count:
            return found
    raise AssertionError("too few positions")


def test_the_codes_are_kept_unless_the_patterns_are_read_with_vbmi(restore: None) -> None:
    """VBMI reads a board's patterns faster than the kept codes save
    (docs/engine.md, "How it searches"); every other reader is slower."""
    assert _core.PATTERN_GATHER in ("vbmi", "pext", "portable")
    assert _core.tune()["inc_eval"] == (_core.PATTERN_GATHER != "vbmi")


@pytest.mark.parametrize(
    ("variables", "gather"),
    [
        ({"OUTFLANK_NO_VBMI": "1"}, "pext"),
        ({"OUTFLANK_NO_VBMI": "1", "OUTFLANK_NO_BMI2": "1"}, "portable"),
    ],
)
def test_without_vbmi_the_codes_are_kept(variables: dict[str, str], gather: str) -> None:
    """In a process told not to use VBMI (or BMI2 either) the default follows."""
    script = "from outflank import _core; print(_core.PATTERN_GATHER, _core.tune()['inc_eval'])"
    found_gather, inc_eval = run_child(script, **variables).split()
    if _core.PATTERN_GATHER == "portable":  # no BMI2 here: nothing faster to turn off
        gather = "portable"
    assert (found_gather, inc_eval) == (gather, "1")


@pytest.mark.parametrize("board", positions(70, range(24, 50, 5), 8), ids=lambda b: b.obf())
def test_the_preset_searches_the_same_tree(restore: None, board: Board) -> None:
    """The preset's probable cut-offs, table and ordering, at depth 9."""
    kept, read = both_ways(Engine.preset("default", threads=1), board, depth=9)
    assert kept == read


def test_passes_and_the_horizon_solve_search_the_same_tree(restore: None) -> None:
    """Near the end the tree passes and hands its leaves to the solver."""
    engine = Engine(endgame=0, threads=1)
    for board in positions(90, range(13, 19), 10):
        kept, read = both_ways(engine, board, depth=10)
        assert kept == read, board.obf()


def test_a_pass_at_the_root_searches_the_same_tree(restore: None) -> None:
    """The root's only move is a pass: the views swap there too."""
    engine = Engine(endgame=0, threads=1)
    for seed, empties in ((401, 10), (565, 10), (1212, 12)):
        board = random_position(seed, empties)
        assert board.must_pass() and not board.is_game_over()
        kept, read = both_ways(engine, board, depth=8)
        assert kept == read, board.obf()


def test_the_solvers_probable_passes_search_the_same_tree(restore: None) -> None:
    """The solver's selective passes call the midgame search below them."""
    engine = Engine.preset("default", threads=1)
    for board in positions(110, range(20, 23), 3):
        _core.tune("inc_eval", 1)
        engine.clear()
        kept = engine.solve(board)
        _core.tune("inc_eval", 0)
        engine.clear()
        read = engine.solve(board)
        assert (kept.nodes, kept.score, kept.pv) == (read.nodes, read.score, read.pv)


@pytest.mark.parametrize(
    "masks",
    [
        [_mask(spec) for spec in OTHER_TYPES],  # 24 instances, other shapes
        [_mask("a1 c2 e5 h3 b7")] * 9,  # 72 instances: read from the board
    ],
    ids=["other-types", "too-many-instances"],
)
def test_other_models_search_the_same_tree(restore: None, masks: list[int]) -> None:
    weights = _random_weights(masks, (0, 12, 33, 60), seed=8, tables=True)
    _core.eval_load(weights.to_bytes(), 2)
    _core.eval_use(2)
    engine = Engine(endgame=0, threads=1)
    for board in positions(130, range(20, 50, 7), 5):
        kept, read = both_ways(engine, board, depth=6)
        assert kept == read, board.obf()
