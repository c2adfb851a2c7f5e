"""The readable search: seed 002's example, passes and game ends by hand, and
minimax against alpha-beta on random positions."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outflank.assignment import format_log
from outflank.board import BLACK, PASS, WHITE, Board, Move, Rules
from outflank.classic import alphabeta, encode_number, greedy, minimax, successors
from outflank.classic_eval import discs, fish, get_evaluator, weights
from outflank.errors import OutflankError, SearchLimitError

SEED_LOG = """\
Node,Depth,Value,Alpha,Beta
root,0,-Infinity,-Infinity,Infinity
d3,1,Infinity,-Infinity,Infinity
c3,2,-3,-Infinity,Infinity
d3,1,-3,-Infinity,-3
e3,2,0,-Infinity,-3
d3,1,-3,-Infinity,-3
c5,2,0,-Infinity,-3
d3,1,-3,-Infinity,-3
root,0,-3,-3,Infinity
c4,1,Infinity,-3,Infinity
c3,2,-3,-3,Infinity
c4,1,-3,-3,-3
root,0,-3,-3,Infinity
f5,1,Infinity,-3,Infinity
f4,2,0,-3,Infinity
f5,1,0,-3,0
d6,2,0,-3,0
f5,1,0,-3,0
f6,2,-3,-3,0
f5,1,-3,-3,-3
root,0,-3,-3,Infinity
e6,1,Infinity,-3,Infinity
f4,2,0,-3,Infinity
e6,1,0,-3,0
d6,2,0,-3,0
e6,1,0,-3,0
f6,2,-3,-3,0
e6,1,-3,-3,-3
root,0,-3,-3,Infinity
"""


def board_from_rows(rows: str, turn=BLACK) -> Board:
    return Board.from_ascii(rows, turn=turn)


# --------------------------------------------------------------------- seed 002
def test_seed_example_log_and_move() -> None:
    trace = alphabeta(Board(), 2)
    assert format_log(trace.log) == SEED_LOG
    assert trace.value == -3
    assert trace.best_move == Move.from_str("d3")  # ties: d3 is first in positional order
    # c4's first reply already reaches alpha: e3 and c5 are pruned.
    assert trace.cutoffs == 1
    assert trace.nodes == 15
    assert minimax(Board(), 2).nodes == 17


def test_minimax_log_of_seed_example() -> None:
    """Minimax logs every node on entry and after each child, like alpha-beta."""
    trace = minimax(Board(), 2)
    lines = format_log(trace.log, with_window=False).splitlines()
    assert lines[:4] == ["Node,Depth,Value", "root,0,-Infinity", "d3,1,Infinity", "c3,2,-3"]
    assert lines[-1] == "root,0,-3"
    # header, root entry, 4 x (entry, 3 leaves, 3 updates), 4 root updates
    assert len(lines) == 1 + 1 + 4 * (1 + 2 * 3) + 4
    assert trace.value == -3 and str(trace.best_move) == "d3"


def test_depth_zero_root_is_a_leaf() -> None:
    trace = alphabeta(Board.from_transcript("f5"), 0)
    # White to move after f5: from its view the position is worth -(4+0+0+0) = -4.
    assert format_log(trace.log).splitlines()[1:] == ["root,0,-4,-Infinity,Infinity"]
    assert trace.best_move is None and trace.nodes == 1


# ------------------------------------------------------------ passes by hand
# Weights used below: a1 99, b1 -8, c1 8, h5 6, h6 8, h7 -8, h8 99.
TWO_CORNERS = """
X O * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * X
* * * * * * * O
* * * * * * * *
"""


def test_pass_inside_the_tree_depth_3() -> None:
    """X (MAX) has two moves, c1 and h8, in positional order.

    c1 flips b1. O answers h5 (flipping h6), after which neither side can
    move; at depth 2 that is not a leaf yet: X must pass, and the pass node at
    depth 3 is a leaf by depth. X: a1 b1 c1 = 99-8+8 = 99; O: h5 h6 h7 =
    6+8-8 = 6; value 93.

    h8 flips h7. O has no move and passes (depth 2, X to move again, a MAX
    node); X plays c1 (depth 3, leaf): X owns a1 b1 c1 h6 h7 h8 = 198, O has
    nothing: 198. So h8 is best; no cut-off happens since h8's window is
    [93, +inf] and its only line returns 198.
    """
    board = board_from_rows(TWO_CORNERS)
    trace = alphabeta(board, 3)
    assert format_log(trace.log) == (
        "Node,Depth,Value,Alpha,Beta\n"
        "root,0,-Infinity,-Infinity,Infinity\n"
        "c1,1,Infinity,-Infinity,Infinity\n"
        "h5,2,-Infinity,-Infinity,Infinity\n"
        "pass,3,93,-Infinity,Infinity\n"
        "h5,2,93,93,Infinity\n"
        "c1,1,93,-Infinity,93\n"
        "root,0,93,93,Infinity\n"
        "h8,1,Infinity,93,Infinity\n"
        "pass,2,-Infinity,93,Infinity\n"
        "c1,3,198,93,Infinity\n"
        "pass,2,198,198,Infinity\n"
        "h8,1,198,93,198\n"
        "root,0,198,198,Infinity\n"
    )
    assert str(trace.best_move) == "h8" and trace.value == 198
    assert minimax(board, 3).value == 198


def test_game_end_is_two_passes_depth_4() -> None:
    """The same position one move deeper.

    After c1 h5 neither side can move. X passes (pass, depth 3, O to move);
    O cannot move either and passes too (pass, depth 4): two passes in a row
    end the game, and that second pass node is the leaf, valued 93 by the
    weights (a finished game is scored like any other leaf).

    After h8 pass c1, O has no disc left: at depth 3 O must pass and the pass
    node at depth 4 is a leaf by depth (only one pass so far): 198.
    """
    trace = alphabeta(board_from_rows(TWO_CORNERS), 4)
    assert format_log(trace.log) == (
        "Node,Depth,Value,Alpha,Beta\n"
        "root,0,-Infinity,-Infinity,Infinity\n"
        "c1,1,Infinity,-Infinity,Infinity\n"
        "h5,2,-Infinity,-Infinity,Infinity\n"
        "pass,3,Infinity,-Infinity,Infinity\n"
        "pass,4,93,-Infinity,Infinity\n"
        "pass,3,93,-Infinity,93\n"
        "h5,2,93,93,Infinity\n"
        "c1,1,93,-Infinity,93\n"
        "root,0,93,93,Infinity\n"
        "h8,1,Infinity,93,Infinity\n"
        "pass,2,-Infinity,93,Infinity\n"
        "c1,3,Infinity,93,Infinity\n"
        "pass,4,198,93,Infinity\n"
        "c1,3,198,93,198\n"
        "pass,2,198,198,Infinity\n"
        "h8,1,198,93,198\n"
        "root,0,198,198,Infinity\n"
    )


def test_game_end_inside_the_tree_is_not_expanded_further() -> None:
    """With depth 6 the finished games still stop at their second pass."""
    trace = alphabeta(board_from_rows(TWO_CORNERS), 6)
    # c1 h5 pass pass (leaf at 4); h8 pass c1 pass pass (leaf at 5).
    depths = [entry.depth for entry in trace.log if entry.node == "pass"]
    assert max(depths) == 5
    assert trace.nodes == 1 + 4 + 5  # root, c1 h5 pass pass, h8 pass c1 pass pass


FINISHED = """
X * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
"""


def test_finished_game_at_the_root() -> None:
    """Only X's a1 disc: nobody can move. The root passes, O passes: leaf (99)."""
    trace = alphabeta(board_from_rows(FINISHED), 3)
    assert format_log(trace.log) == (
        "Node,Depth,Value,Alpha,Beta\n"
        "root,0,-Infinity,-Infinity,Infinity\n"
        "pass,1,Infinity,-Infinity,Infinity\n"
        "pass,2,99,-Infinity,Infinity\n"
        "pass,1,99,-Infinity,99\n"
        "root,0,99,99,Infinity\n"
    )
    assert trace.best_move == PASS


def test_finished_game_at_the_root_depth_1() -> None:
    """Depth 1: the first pass node is already a leaf by depth."""
    trace = alphabeta(board_from_rows(FINISHED), 1)
    assert [(e.node, e.depth, e.value) for e in trace.log] == [
        ("root", 0, -math.inf),
        ("pass", 1, 99),
        ("root", 0, 99),
    ]


FORCED_PASS = """
O X * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
* * * * * * * *
"""


def test_forced_pass_at_the_root() -> None:
    """X to move with b1 only: it can flip nothing, so X passes (depth 1).

    O plays c1 (depth 2, flips b1; X has no disc left), X must pass again
    (depth 3, leaf by depth). O owns a1 b1 c1: -(99-8+8) = -99 for X.
    """
    trace = alphabeta(board_from_rows(FORCED_PASS), 3)
    assert format_log(trace.log) == (
        "Node,Depth,Value,Alpha,Beta\n"
        "root,0,-Infinity,-Infinity,Infinity\n"
        "pass,1,Infinity,-Infinity,Infinity\n"
        "c1,2,-Infinity,-Infinity,Infinity\n"
        "pass,3,-99,-Infinity,Infinity\n"
        "c1,2,-99,-99,Infinity\n"
        "pass,1,-99,-Infinity,-99\n"
        "root,0,-99,-99,Infinity\n"
    )
    assert trace.best_move == PASS
    assert minimax(board_from_rows(FORCED_PASS), 3).value == -99


def test_white_root_player_values_from_whites_view() -> None:
    """The same discs with O to move: O (MAX) has only h5 (flipping h6).

    X (MIN) then has only c1 (flipping b1), a leaf at depth 2. From O's side:
    O owns h5 h6 h7 = 6+8-8 = 6, X owns a1 b1 c1 = 99: 6 - 99 = -93.
    """
    trace = alphabeta(board_from_rows(TWO_CORNERS, turn=WHITE), 2)
    assert format_log(trace.log) == (
        "Node,Depth,Value,Alpha,Beta\n"
        "root,0,-Infinity,-Infinity,Infinity\n"
        "h5,1,Infinity,-Infinity,Infinity\n"
        "c1,2,-93,-Infinity,Infinity\n"
        "h5,1,-93,-Infinity,-93\n"
        "root,0,-93,-93,Infinity\n"
    )


def test_reversi_rules_end_when_the_mover_cannot_move() -> None:
    """Seed 000's pygame rule: X cannot move, so the game is over at the root."""
    othello = board_from_rows(FORCED_PASS)
    board = Board(othello.black, othello.white, BLACK, Rules.REVERSI)
    trace = alphabeta(board, 3)
    assert [(e.node, e.depth) for e in trace.log] == [("root", 0)]


# ------------------------------------------------------------ the tree
def test_tree_is_json_and_marks_pruned_branches() -> None:
    trace = alphabeta(Board(), 2)
    data = json.loads(json.dumps(trace.to_dict()))
    root = data["tree"]
    assert root["move"] == "root" and root["alpha"] == "-Infinity" and root["beta"] == "Infinity"
    assert [child["move"] for child in root["children"]] == ["d3", "c4", "f5", "e6"]
    c4 = root["children"][1]
    assert c4["cutoff"] is True
    assert [(c["move"], c["pruned"]) for c in c4["children"]] == [
        ("c3", False),
        ("e3", True),
        ("c5", True),
    ]
    assert root["children"][0]["best"] is True and not any(c["best"] for c in root["children"][1:])
    assert data["best_move"] == "d3" and data["value"] == -3 and data["nodes"] == 15
    assert data["log"][0] == {
        "node": "root",
        "depth": 0,
        "value": "-Infinity",
        "alpha": "-Infinity",
        "beta": "Infinity",
    }


def count_visited(node: dict) -> int:
    if node["pruned"]:
        return 0
    return 1 + sum(count_visited(child) for child in node["children"])


def test_tree_node_count_matches() -> None:
    board = Board.from_transcript("f5d6c3d3c4")
    for search in (minimax, alphabeta):
        trace = search(board, 3)
        assert count_visited(trace.tree) == trace.nodes


def test_encode_number() -> None:
    assert encode_number(math.inf) == "Infinity"
    assert encode_number(-math.inf) == "-Infinity"
    assert encode_number(3.0) == 3 and isinstance(encode_number(3.0), int)
    assert encode_number(2.5) == 2.5
    assert encode_number(None) is None


def test_max_nodes_stops_the_search() -> None:
    with pytest.raises(SearchLimitError, match="100 nodes"):
        minimax(Board(), 4, max_nodes=100)


def test_negative_depth_is_refused() -> None:
    with pytest.raises(SearchLimitError):
        alphabeta(Board(), -1)


def test_successors_in_positional_order() -> None:
    assert [str(m) for m, _ in successors(Board())] == ["d3", "c4", "f5", "e6"]


# ------------------------------------------------------------ evaluators
def test_weights_after_d3() -> None:
    board = Board.from_transcript("d3")
    assert weights(board, BLACK) == 4 and weights(board, WHITE) == -4  # seed 002's figure


def test_fish_values_by_hand() -> None:
    # X: a1 corner 25, b1 next to a corner X owns 3, d1 edge 3, d4 ordinary 1 = 32
    # O: h2 next to h1, which O does not own: -5; e5 ordinary 1 = -4
    board = Board.from_ascii(
        """
        X X * X * * * *
        * * * * * * * O
        * * * * * * * *
        * * * X * * * *
        * * * * O * * *
        * * * * * * * *
        * * * * * * * *
        * * * * * * * *
        """
    )
    assert fish(board, BLACK) == 32 - (-4)
    assert fish(board, WHITE) == -36


def test_fish_corner_groups() -> None:
    """Each corner's three neighbours follow that corner (a8's group: a7 b7 b8)."""
    lone_b7 = Board(1 << 49, 0, BLACK)
    with_a8 = Board(1 << 49 | 1 << 56, 0, BLACK)
    with_h1 = Board(1 << 49 | 1 << 7, 0, BLACK)
    assert fish(lone_b7, BLACK) == -5
    assert fish(with_a8, BLACK) == 3 + 25
    assert fish(with_h1, BLACK) == -5 + 25


def test_discs_and_lookup() -> None:
    assert discs(Board.from_transcript("f5"), BLACK) == 3
    assert get_evaluator(" Fish ") is fish
    with pytest.raises(OutflankError, match="unknown evaluation"):
        get_evaluator("magic")


def test_greedy_is_one_ply_fish() -> None:
    board = Board.from_transcript("f5d6c3d3c4")
    trace = greedy(board)
    best = max(successors(board), key=lambda item: fish(item[1], board.turn))
    assert trace.value == fish(best[1], board.turn)
    assert trace.best_move == best[0]  # max() keeps the first of equals, like greedy
    assert trace.algorithm == "greedy"


# ------------------------------------------------------------ minimax == alpha-beta
def random_position(seed: int, plies: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def check_agreement(board: Board, depth: int, evaluate=None) -> None:
    mm = minimax(board, depth, evaluate)
    ab = alphabeta(board, depth, evaluate)
    assert ab.value == mm.value
    assert ab.best_move == mm.best_move
    assert ab.nodes <= mm.nodes
    assert (ab.nodes < mm.nodes) == (ab.cutoffs > 0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60), depth=st.integers(1, 3))
def test_alphabeta_agrees_with_minimax(seed: int, plies: int, depth: int) -> None:
    check_agreement(random_position(seed, plies), depth)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(34, 60))
def test_alphabeta_agrees_with_minimax_depth_4(seed: int, plies: int) -> None:
    check_agreement(random_position(seed, plies), 4)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(40, 60), depth=st.integers(1, 3))
def test_agreement_with_fish_near_the_end(seed: int, plies: int, depth: int) -> None:
    """Late positions: passes and finished games inside the tree are common."""
    check_agreement(random_position(seed, plies), depth, fish)


def _true_values(node: dict, path: tuple[str, ...], out: dict) -> None:
    out[path] = node["value"]
    for child in node["children"]:
        _true_values(child, (*path, child["move"]), out)


def _check_bounds(node: dict, path: tuple[str, ...], truth: dict) -> int:
    """Every searched node's value against the minimax value at its path."""
    if node["pruned"]:
        return 0
    value, true = node["value"], truth[path]
    relation = {"exact": true == value, "lower": true >= value, "upper": true <= value}
    assert relation[node["bound"]], (path, node["bound"], value, true)
    return (node["bound"] != "exact") + sum(
        _check_bounds(child, (*path, child["move"]), truth) for child in node["children"]
    )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60), depth=st.integers(2, 4))
def test_alphabeta_marks_what_is_only_a_bound(seed: int, plies: int, depth: int) -> None:
    """A node's value is marked exact only when it is the minimax value of
    that node; otherwise it is marked as the lower or upper bound it is."""
    board = random_position(seed, plies)
    if depth == 4 and board.empties > 26:
        depth = 3
    truth: dict = {}
    _true_values(minimax(board, depth).tree, (), truth)
    trace = alphabeta(board, depth)
    _check_bounds(trace.tree, (), truth)
    assert trace.tree["bound"] == "exact"


def test_bounds_in_the_seed_example() -> None:
    """After d3 (-3), MIN's c3 = -3 under c4 proves only c4 <= -3; f5 and e6
    are searched whole: exact."""
    tree = alphabeta(Board(), 2).tree
    bounds = {child["move"]: child["bound"] for child in tree["children"]}
    assert bounds == {"d3": "exact", "c4": "upper", "f5": "exact", "e6": "exact"}
