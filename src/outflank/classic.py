"""Minimax and alpha-beta in plain Python, with a trace of every step.

This module is the readable version of game-tree search, written to be read
next to the lessons it comes from: minimax as in the usual pseudo-code, and
alpha-beta as in AIMA (3rd edition), figure 5.7. The fast engine lives in
:mod:`outflank.engine`; this one is for learning and for checking it.

The game tree
    The root is the position to analyse; its side to move is MAX, the other
    side MIN. A node's children are its legal moves in positional order (upper
    rows first, then left to right: a1, b1, ..., h8), which also breaks ties:
    the first best move wins. A side with no legal move *passes*: the node
    then has one child, named ``"pass"``, with the same discs and the other
    side to move. A pass is a move like any other: it uses one level of depth.
    The game ends when both sides have passed in a row, so the node reached by
    the second pass is a leaf (a finished game appears as ``... pass, pass``).

Leaves
    A node is a leaf when it is ``depth`` moves below the root or when the
    game has ended there. Every leaf, finished games included, is scored by
    the evaluation function from MAX's point of view (seed 002's rule).

The trace
    Every search returns a :class:`SearchTrace`: the value and best move, the
    number of nodes visited and of cut-offs, the traverse log (seed 002: a
    node is logged when it is entered and again after each child returns) and
    the whole tree as plain JSON-ready dicts, pruned branches included and
    marked, for drawing.

The log order of alpha-beta
    Two orders of the same algorithm are published for the traverse log,
    and ``order`` chooses one. They search the same nodes and find the same
    value and move; they differ only in the window logged on the line of a
    node that cuts off.

    ``"update-first"`` (the default; seed 002's example)
        after a child returns, alpha (at MAX) or beta (at MIN) takes the new
        value, the node's line is logged, then the cut-off is tested:
        ``c4,1,-3,-3,-3``.
    ``"test-first"`` (AIMA figure 5.7; the exercise's official samples)
        after a child returns, the cut-off is tested first; a node that cuts
        off is logged with its old alpha and beta and returns:
        ``c4,1,-3,-3,Infinity``.

>>> from outflank.board import Board
>>> trace = alphabeta(Board(), 2)
>>> trace.value, str(trace.best_move), trace.nodes, minimax(Board(), 2).nodes
(-3, 'd3', 15, 17)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final, Literal

from outflank.board import PASS, Board, Color, Move, Rules
from outflank.classic_eval import Evaluator, fish, weights
from outflank.errors import OutflankError, SearchLimitError

__all__ = [
    "INF",
    "ORDERS",
    "LogOrder",
    "SearchTrace",
    "TraceEntry",
    "alphabeta",
    "check_order",
    "encode_number",
    "greedy",
    "minimax",
    "successors",
]

INF = math.inf

LogOrder = Literal["update-first", "test-first"]
"""When alpha-beta logs a node after a child returns: see the module's text."""

ORDERS: Final[tuple[LogOrder, ...]] = ("update-first", "test-first")
"""The log orders, the default first."""

Node = dict[str, Any]
"""A node of the search tree as plain JSON-ready data (see :class:`SearchTrace`)."""


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One line of the traverse log: a node and its state at that moment.

    ``alpha`` and ``beta`` are ``None`` in a minimax log.
    """

    node: str
    depth: int
    value: float
    alpha: float | None = None
    beta: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "depth": self.depth,
            "value": encode_number(self.value),
            "alpha": encode_number(self.alpha),
            "beta": encode_number(self.beta),
        }


@dataclass(slots=True)
class SearchTrace:
    """What a search found and how it got there.

    ``best_move`` is ``None`` when the root itself is a leaf (depth 0).
    ``nodes`` counts every node visited (root and leaves included);
    ``cutoffs`` counts the nodes where alpha-beta skipped at least one child.
    ``tree`` is the root of the nested tree (see :func:`encode_number` for
    how infinities are written). ``order`` is alpha-beta's log order
    (``None`` for the other algorithms).
    """

    algorithm: str
    depth: int
    player: Color
    value: float
    best_move: Move | None
    nodes: int
    cutoffs: int
    log: list[TraceEntry]
    tree: Node
    order: LogOrder | None = None

    def to_dict(self) -> dict[str, Any]:
        """The trace as JSON-serialisable data."""
        return {
            "algorithm": self.algorithm,
            "depth": self.depth,
            "player": self.player.letter,
            "value": encode_number(self.value),
            "best_move": None if self.best_move is None else str(self.best_move),
            "nodes": self.nodes,
            "cutoffs": self.cutoffs,
            "order": self.order,
            "log": [entry.to_dict() for entry in self.log],
            "tree": self.tree,
        }


def encode_number(value: float | None) -> int | float | str | None:
    """A value for JSON: ``"Infinity"``/``"-Infinity"``, whole numbers as ints."""
    if value is None:
        return None
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if float(value).is_integer():
        return int(value)
    return value


def successors(board: Board) -> list[tuple[Move, Board]]:
    """The children of a position: ``(move, position after it)`` in positional order.

    With no legal square the side to move passes: one child, ``PASS``, with
    the same discs and the other side to move. (The search may pass even in
    a finished game; :func:`_game_over` stops it after the second pass.)
    """
    moves = [move for move in board.legal_moves if not move.is_pass]
    if not moves:
        return [(PASS, Board(board.black, board.white, board.turn.other, board.rules))]
    children = []
    for move in moves:
        child = board.copy(stack=False)
        child.push(move)
        children.append((move, child))
    return children


def _game_over(board: Board, passes: int) -> bool:
    """Has the game ended at this node? ``passes``: passes in a row that led here."""
    if board.rules is Rules.REVERSI:  # Reversi: a side that cannot move loses its turn for good
        return board.is_game_over()
    return passes >= 2  # Othello: both sides have passed, one after the other


class _Search:
    """One search: its settings, its counters, its log. Not part of the API."""

    def __init__(self, root: Board, depth: int, evaluate: Evaluator, max_nodes: int | None):
        if depth < 0:
            raise SearchLimitError(f"the depth must be 0 or more, not {depth}")
        self.max_player = root.turn  # MAX: the side to move at the root
        self.limit = depth
        self.evaluate = evaluate
        self.max_nodes = max_nodes
        self.nodes = 0
        self.cutoffs = 0
        self.log: list[TraceEntry] = []
        self.root: Node = {}  # the tree, filled in as the search goes

    # -- bookkeeping shared by both algorithms -------------------------------
    def record(self, name: str, depth: int, board: Board, *, pruned: bool = False) -> Node:
        """A node of the tree, as plain data (filled in as the search goes)."""
        return {
            "move": name,
            "depth": depth,
            "turn": board.turn.letter,
            "maximizing": board.turn == self.max_player,
            "value": None,
            "bound": "exact",  # or "lower"/"upper": the true value is >= / <= value
            "alpha": None,
            "beta": None,
            "logged_alpha": None,  # the window of the node's last log line
            "logged_beta": None,
            "pruned": pruned,
            "cutoff": False,
            "best": False,
            "children": [],
        }

    def enter(
        self,
        parent: Node | None,
        name: str,
        depth: int,
        board: Board,
        alpha: float | None = None,
        beta: float | None = None,
    ) -> Node:
        """Count a node as visited and hang its record under its parent's."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchLimitError(
                f"search stopped after {self.max_nodes} nodes: ask for a smaller depth"
            )
        node = self.record(name, depth, board)
        node["alpha"], node["beta"] = encode_number(alpha), encode_number(beta)
        if parent is None:
            self.root = node
        else:
            parent["children"].append(node)
        return node

    def is_leaf(self, board: Board, depth: int, passes: int) -> bool:
        return depth >= self.limit or _game_over(board, passes)

    def write(self, node: Node, value: float, alpha: float | None, beta: float | None) -> None:
        """Append a traverse-log line for ``node`` and note its current value and window."""
        node["value"] = encode_number(value)
        node["logged_alpha"], node["logged_beta"] = encode_number(alpha), encode_number(beta)
        self.log.append(TraceEntry(node["move"], node["depth"], value, alpha, beta))

    def mark_pruned(self, node: Node, skipped: list[tuple[Move, Board]]) -> None:
        """Record the children alpha-beta will never look at."""
        if not skipped:
            return
        self.cutoffs += 1
        node["cutoff"] = True
        for move, child in skipped:
            node["children"].append(self.record(str(move), node["depth"] + 1, child, pruned=True))

    # -- minimax ---------------------------------------------------------------
    def minimax(
        self, parent: Node | None, board: Board, name: str, depth: int, passes: int
    ) -> tuple[float, int]:
        """The minimax value of ``board``; returns ``(value, index of the best child)``.

        ``passes``: how many passes in a row led to this node.
        """
        node = self.enter(parent, name, depth, board)
        if self.is_leaf(board, depth, passes):
            value = self.evaluate(board, self.max_player)
            self.write(node, value, None, None)
            return value, -1

        maximizing = board.turn == self.max_player
        value = -INF if maximizing else INF  # the worst possible, for now
        self.write(node, value, None, None)
        best = -1
        for index, (move, child) in enumerate(successors(board)):
            child_value, _ = self.minimax(
                node, child, str(move), depth + 1, passes + 1 if move.is_pass else 0
            )
            # MAX keeps the largest child value, MIN the smallest; a tie keeps
            # the earlier child (positional order).
            if (child_value > value) if maximizing else (child_value < value):
                value, best = child_value, index
            self.write(node, value, None, None)
        node["children"][best]["best"] = True
        return value, best

    # -- alpha-beta (AIMA figure 5.7) -------------------------------------------
    def alphabeta(
        self,
        parent: Node | None,
        board: Board,
        name: str,
        depth: int,
        alpha: float,
        beta: float,
        passes: int,
        order: LogOrder = "update-first",
    ) -> tuple[float, int]:
        """The alpha-beta value of ``board`` in the window ``(alpha, beta)``.

        alpha: the best value MAX is already sure of on the path to the root;
        beta: the best value MIN is already sure of. Once ``alpha >= beta``
        the players would never let the game reach this node: stop looking.
        ``order``: when a node is logged after a child returns (module text).
        """
        node = self.enter(parent, name, depth, board, alpha, beta)
        if self.is_leaf(board, depth, passes):
            value = self.evaluate(board, self.max_player)
            self.write(node, value, alpha, beta)
            return value, -1

        maximizing = board.turn == self.max_player
        value = -INF if maximizing else INF
        self.write(node, value, alpha, beta)
        best = -1
        lows: list[float] = []  # per child: the least its true value can be
        highs: list[float] = []  # and the most
        children = successors(board)
        for index, (move, child) in enumerate(children):
            child_value, _ = self.alphabeta(
                node,
                child,
                str(move),
                depth + 1,
                alpha,
                beta,
                passes + 1 if move.is_pass else 0,
                order,
            )
            bound = node["children"][-1]["bound"]
            lows.append(-INF if bound == "upper" else child_value)
            highs.append(INF if bound == "lower" else child_value)
            if (child_value > value) if maximizing else (child_value < value):
                value, best = child_value, index
            if order == "test-first" and (value >= beta if maximizing else value <= alpha):
                # AIMA tests "v >= beta" in MAX-VALUE and "v <= alpha" in
                # MIN-VALUE first and returns at once: the old window is logged.
                self.write(node, value, alpha, beta)
                cut = True
            else:
                if maximizing:
                    alpha = max(alpha, value)  # MAX can count on at least this
                else:
                    beta = min(beta, value)  # MIN can hold MAX to at most this
                # Seed 002's example logs the window after the update, then
                # tests the cut-off: AIMA's two tests both read "alpha >= beta".
                self.write(node, value, alpha, beta)
                cut = alpha >= beta
            if cut:
                self.mark_pruned(node, children[index + 1 :])
                if index + 1 < len(children):  # unseen children: any value at all
                    lows.append(-INF)
                    highs.append(INF)
                break
        node["children"][best]["best"] = True
        # Is the value the node's minimax value, or only a bound on it? The
        # true value lies between the best of the children's least values and
        # the best of their most (a cut-off leaves children unseen, and a
        # child may itself be only a bound).
        pick = max if maximizing else min
        low, high = pick(lows), pick(highs)
        if low != high:
            node["bound"] = "lower" if low == value else "upper"
        return value, best

    # -- the answer -----------------------------------------------------------
    def result(self, algorithm: str, value: float, best: int, board: Board) -> SearchTrace:
        best_move = None if best < 0 else successors(board)[best][0]
        return SearchTrace(
            algorithm=algorithm,
            depth=self.limit,
            player=self.max_player,
            value=value,
            best_move=best_move,
            nodes=self.nodes,
            cutoffs=self.cutoffs,
            log=self.log,
            tree=self.root,
        )


def minimax(
    board: Board, depth: int, evaluate: Evaluator | None = None, *, max_nodes: int | None = None
) -> SearchTrace:
    """Plain minimax to ``depth`` moves; ``evaluate`` defaults to seed 002's weights.

    Raises :class:`SearchLimitError` if more than ``max_nodes`` nodes would be visited.
    """
    search = _Search(board, depth, evaluate or weights, max_nodes)
    value, best = search.minimax(None, board, "root", 0, 0)
    return search.result("minimax", value, best, board)


def alphabeta(
    board: Board,
    depth: int,
    evaluate: Evaluator | None = None,
    *,
    max_nodes: int | None = None,
    order: LogOrder = "update-first",
) -> SearchTrace:
    """Alpha-beta to ``depth`` moves: minimax's value and move, usually far fewer nodes.

    ``evaluate`` defaults to seed 002's weights. ``order`` is the traverse
    log's order (see the module's text): ``"update-first"`` (seed 002's
    example) or ``"test-first"`` (AIMA figure 5.7); both search the same tree.
    Raises :class:`SearchLimitError` if more than ``max_nodes`` nodes would be
    visited, and :class:`OutflankError` for an unknown order.
    """
    order = check_order(order)
    search = _Search(board, depth, evaluate or weights, max_nodes)
    value, best = search.alphabeta(None, board, "root", 0, -INF, INF, 0, order)
    trace = search.result("alphabeta", value, best, board)
    trace.order = order
    return trace


def check_order(order: str) -> LogOrder:
    """``order`` if it names a log order (case and spaces ignored), else :class:`OutflankError`."""
    name = order.strip().lower() if isinstance(order, str) else order
    for known in ORDERS:
        if name == known:
            return known
    raise OutflankError(f"unknown log order {order!r}: choose update-first or test-first")


def greedy(board: Board, evaluate: Evaluator | None = None) -> SearchTrace:
    """Seed 000's ``getComputerMove``: play each move, keep the best-scoring one.

    That is minimax one move deep. ``evaluate`` defaults to seed 000's
    ``fish`` heuristic; ties go to the first move in positional order.
    """
    trace = minimax(board, 1, evaluate or fish)
    trace.algorithm = "greedy"
    return trace
