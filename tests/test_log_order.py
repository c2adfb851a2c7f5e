"""Alpha-beta's two log orders: update-first (seed 002's example) and
test-first (AIMA figure 5.7, the exercise's official samples) search the same
tree; their logs differ only in the window of the lines that cut off."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outflank.board import BLACK, WHITE, Board
from outflank.classic import ORDERS, SearchTrace, alphabeta, check_order
from outflank.classic_eval import fish
from outflank.errors import OutflankError


def played_position(seed: int, plies: int) -> Board:
    """A position of a random game (passes included) after ``plies`` moves."""
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def crowded_position(seed: int, empties: int) -> Board:
    """Random discs on all but ``empties`` squares: one side often has no move."""
    rng = random.Random(seed)
    squares = list(range(64))
    rng.shuffle(squares)
    black = white = 0
    for square in squares[empties:]:
        if rng.random() < 0.5:
            black |= 1 << square
        else:
            white |= 1 << square
    return Board(black, white, rng.choice((BLACK, WHITE)))


def without_logged_window(node: dict[str, Any]) -> dict[str, Any]:
    """A tree node minus the window of its last log line (the one thing the orders change)."""
    rest = {k: v for k, v in node.items() if k not in ("logged_alpha", "logged_beta", "children")}
    rest["children"] = [without_logged_window(child) for child in node["children"]]
    return rest


def has_pass(node: dict[str, Any]) -> bool:
    return node["move"] == "pass" or any(has_pass(child) for child in node["children"])


def check_orders(board: Board, depth: int, evaluate=None) -> tuple[SearchTrace, SearchTrace]:
    update = alphabeta(board, depth, evaluate, order="update-first")
    test = alphabeta(board, depth, evaluate, order="test-first")
    assert (update.order, test.order) == ("update-first", "test-first")
    # The same search: value, chosen move, nodes, cut-offs and tree.
    assert test.value == update.value
    assert test.best_move == update.best_move
    assert (test.nodes, test.cutoffs) == (update.nodes, update.cutoffs)
    assert without_logged_window(test.tree) == without_logged_window(update.tree)
    # The same lines, node for node and value for value...
    assert len(test.log) == len(update.log)
    differ = set()
    for index, (u, t) in enumerate(zip(update.log, test.log, strict=True)):
        assert (t.node, t.depth, t.value) == (u.node, u.depth, u.value)
        if (t.alpha, t.beta) != (u.alpha, u.beta):
            differ.add(index)
            # ...but at a cut-off update-first shows the updated window
            # (alpha >= beta) and test-first the old one, with one bound changed.
            assert u.alpha >= u.beta and t.alpha < t.beta
            assert (t.alpha == u.alpha) != (t.beta == u.beta)
            if t.alpha != u.alpha:  # MAX reached beta: alpha took the value
                assert u.alpha == u.value >= t.beta
            else:  # MIN fell to alpha: beta took the value
                assert u.beta == u.value <= t.alpha
    # ...and exactly the lines that cut off differ.
    assert differ == {i for i, u in enumerate(update.log) if u.alpha >= u.beta}
    assert len(differ) >= update.cutoffs
    return update, test


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60), depth=st.integers(1, 4))
def test_orders_agree_on_positions_of_random_games(seed: int, plies: int, depth: int) -> None:
    board = played_position(seed, plies)
    if depth == 4 and board.empties > 24:
        depth = 3
    check_orders(board, depth)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), empties=st.integers(1, 9), depth=st.integers(1, 5))
def test_orders_agree_on_crowded_boards_with_passes(seed: int, empties: int, depth: int) -> None:
    """Random crowded boards: passes, double passes and wiped-out sides in the tree."""
    check_orders(crowded_position(seed, empties), depth, fish)


def test_the_crowded_boards_do_pass_and_cut_off() -> None:
    """The property above sees what it is about: passes inside trees with cut-offs."""
    both = 0
    for seed in range(200):
        update, _ = check_orders(crowded_position(seed, 1 + seed % 9), 4, fish)
        both += has_pass(update.tree) and update.cutoffs > 0
    assert both >= 20


def test_seed_example_in_both_orders() -> None:
    update, test = check_orders(Board(), 2)
    lines = {(e.node, e.depth, e.alpha, e.beta) for e in update.log}
    assert ("c4", 1, -3, -3) in lines
    lines = {(e.node, e.depth, e.alpha, e.beta) for e in test.log}
    assert ("c4", 1, -3, float("inf")) in lines and ("c4", 1, -3, -3) not in lines
    c4 = next(n for n in test.tree["children"] if n["move"] == "c4")
    assert (c4["cutoff"], c4["logged_alpha"], c4["logged_beta"]) == (True, -3, "Infinity")


def test_orders_by_name() -> None:
    assert ORDERS == ("update-first", "test-first")
    assert check_order(" Test-First ") == "test-first"
    assert alphabeta(Board(), 1).order == "update-first"
    with pytest.raises(OutflankError, match="unknown log order 'sideways'"):
        alphabeta(Board(), 1, order="sideways")  # type: ignore[arg-type]
    with pytest.raises(OutflankError, match="unknown log order"):
        check_order(None)  # type: ignore[arg-type]
    assert alphabeta(Board(), 1).to_dict()["order"] == "update-first"
