"""Show a search tree to a learner: an indented outline and the node savings.

>>> from outflank.board import Board
>>> report = explain(Board(), 1)
>>> print(report.outline())  # doctest: +NORMALIZE_WHITESPACE
root  MAX X  [-inf, +inf]  = 4  best d3
  d3  leaf   [-inf, +inf]  = 4  *
  c4  leaf   [4, +inf]     = 4
  f5  leaf   [4, +inf]     = 4
  e6  leaf   [4, +inf]     = 4
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from outflank.board import Board
from outflank.classic import ORDERS, LogOrder, SearchTrace, alphabeta, check_order, minimax
from outflank.classic_eval import EVALUATORS, get_evaluator
from outflank.errors import OutflankError, SearchLimitError

__all__ = ["ORDER_NOTES", "Explanation", "explain", "render_tree"]

DEFAULT_MAX_NODES = 200_000
"""Searches bigger than this are not finished (pure Python is slow)."""


def _number(value: int | float | str | None) -> str:
    """A tree value for reading: ``+inf``/``-inf`` for the infinities."""
    if value is None:
        return "?"
    if value == "Infinity" or (isinstance(value, float) and value == math.inf):
        return "+inf"
    if value == "-Infinity" or (isinstance(value, float) and value == -math.inf):
        return "-inf"
    return str(value)


ORDER_NOTES: dict[str, str] = {
    "update-first": "log order update-first (seed 002's example): after a child returns,"
    " alpha (MAX) or beta (MIN) takes its value before the line is logged, so a node that"
    " cuts off is logged with alpha >= beta; test-first logs it with its old alpha and beta.",
    "test-first": "log order test-first (AIMA figure 5.7): after a child returns, the"
    " cut-off is tested first, so a node that cuts off is logged with its old alpha and"
    " beta; update-first logs it with the updated window (alpha >= beta).",
}
"""One sentence per log order: what it logs, and what the other order logs instead."""

_RELATION = {"exact": "=", "lower": ">=", "upper": "<="}
"""How a node's value relates to its true (minimax) value."""


def _visited_below(node: dict[str, Any]) -> int:
    """Nodes the search visited under ``node`` (pruned ones are not visited)."""
    return sum(1 + _visited_below(child) for child in node["children"] if not child["pruned"])


def _lines(
    node: dict[str, Any],
    indent: int,
    rows: list[tuple[str, str, str, str, str]],
    max_ply: int | None = None,
) -> None:
    name = "  " * indent + node["move"]
    if node["pruned"]:
        rows.append((name, "pruned", "", "", ""))
        return
    kind = "leaf"
    if node["children"]:
        kind = ("MAX " if node["maximizing"] else "MIN ") + node["turn"]
    window = ""
    if node["alpha"] is not None:
        window = f"[{_number(node['alpha'])}, {_number(node['beta'])}]"
    notes = []
    if node["best"]:
        notes.append("*")
    value = _number(node["value"])
    if node["cutoff"]:
        skipped = sum(1 for child in node["children"] if child["pruned"])
        reason = (
            f"{value} >= beta {_number(node['beta'])}"
            if node["maximizing"]
            else f"{value} <= alpha {_number(node['alpha'])}"
        )
        logged = f"[{_number(node.get('logged_alpha'))}, {_number(node.get('logged_beta'))}]"
        notes.append(f"cut-off ({reason}): {skipped} pruned, logged {logged}")
    relation = _RELATION[node.get("bound", "exact")]
    folded = max_ply is not None and indent >= max_ply and node["children"]
    if folded:
        below = _visited_below(node)
        notes.append(f"[{below} node{'' if below == 1 else 's'} below, folded]")
    rows.append((name, kind, window, f"{relation} {value}", "  ".join(notes)))
    if not folded:
        for child in node["children"]:
            _lines(child, indent + 1, rows, max_ply)


def render_tree(
    tree: dict[str, Any], best_move: str | None = None, max_ply: int | None = None
) -> str:
    """The tree (``SearchTrace.tree``) as an indented outline, one node a line.

    Columns: the move (``root``, a square or ``pass``), the node kind (``MAX``
    or ``MIN`` and the side to move, or ``leaf``), the alpha-beta window the
    node was searched with, its value (``= v`` exact; ``>= v`` or ``<= v``
    when the search only proved a bound, outside the window), and notes:
    ``*`` marks the child that gave its parent its value, ``cut-off`` a node
    that stopped early (and why: MAX reached beta, or MIN fell to alpha; and
    the window its traverse-log line shows, which depends on the log order),
    and ``pruned`` the children it never looked at. With ``max_ply``, nodes that
    many plies below the root stand for their whole subtree (``[n nodes
    below, folded]``): a deep search is a long read.
    """
    rows: list[tuple[str, str, str, str, str]] = []
    _lines(tree, 0, rows, max_ply)
    if best_move is not None:
        first = rows[0]
        rows[0] = (*first[:4], f"best {best_move}")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    out = []
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4) if widths[i]] + [row[4]]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


@dataclass(slots=True)
class Explanation:
    """A search of one position, with the node counts of both algorithms.

    ``minimax_nodes`` is ``None`` when minimax would visit more than
    ``max_nodes`` nodes (it is then not run to the end).
    """

    board: Board
    evaluation: str
    trace: SearchTrace
    minimax_nodes: int | None
    alphabeta_nodes: int
    cutoffs: int
    max_nodes: int = DEFAULT_MAX_NODES

    @property
    def saved_percent(self) -> float | None:
        """How many fewer nodes alpha-beta visits than minimax, in percent."""
        if self.minimax_nodes is None:
            return None
        return 100.0 * (self.minimax_nodes - self.alphabeta_nodes) / self.minimax_nodes

    def outline(self, max_ply: int | None = None) -> str:
        """The tree as text (see :func:`render_tree`), folded below ``max_ply`` plies."""
        best = None if self.trace.best_move is None else str(self.trace.best_move)
        return render_tree(self.trace.tree, best, max_ply)

    def summary(self) -> str:
        cutoffs = f"{self.cutoffs} cut-off{'' if self.cutoffs == 1 else 's'}"
        if self.minimax_nodes is None or self.saved_percent is None:
            return (
                f"nodes visited: minimax more than {self.max_nodes} (stopped),"
                f" alpha-beta {self.alphabeta_nodes} ({cutoffs})"
            )
        saved = self.minimax_nodes - self.alphabeta_nodes
        return (
            f"nodes visited: minimax {self.minimax_nodes}, alpha-beta {self.alphabeta_nodes}"
            f" ({saved} fewer, {self.saved_percent:.1f}% saved; {cutoffs})"
        )

    def render(self, max_ply: int | None = None) -> str:
        """The whole explanation as text: header, outline (folded below
        ``max_ply`` plies), result, node counts."""
        name = "alpha-beta" if self.trace.algorithm == "alphabeta" else "minimax"
        player = self.trace.player
        best = "none (the root is a leaf)" if self.trace.best_move is None else self.trace.best_move
        lines = [
            f"{name} search, depth {self.trace.depth}, evaluation {self.evaluation!r}"
            f" from {player.letter}'s view ({player.name.lower()} to move)",
            f"position: {self.board.obf()}",
        ]
        if self.trace.order is not None:
            lines.append(textwrap.fill(ORDER_NOTES[self.trace.order], width=79))
        lines += [
            "",
            self.outline(max_ply),
            "",
            f"value {_number(self.trace.value)}, best move {best}",
            self.summary(),
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the trace (see :meth:`SearchTrace.to_dict`) and the comparison."""
        data = self.trace.to_dict()
        data["position"] = self.board.obf()
        data["evaluation"] = self.evaluation
        data["comparison"] = {
            "minimax_nodes": self.minimax_nodes,
            "alphabeta_nodes": self.alphabeta_nodes,
            "alphabeta_cutoffs": self.cutoffs,
            "saved_percent": None if self.saved_percent is None else round(self.saved_percent, 2),
        }
        return data


def explain(
    board: Board,
    depth: int,
    algorithm: str = "alphabeta",
    evaluation: str = "weights",
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    order: LogOrder = ORDERS[0],
) -> Explanation:
    """Search ``board`` with ``algorithm`` and count what the other one would visit.

    ``order`` is alpha-beta's log order (``update-first`` or ``test-first``,
    see :mod:`outflank.classic`): the same tree, a different window on the
    log lines of the nodes that cut off. Raises :class:`OutflankError` for an
    unknown algorithm, evaluation or order, and :class:`SearchLimitError`
    when the search to show would pass ``max_nodes`` nodes (a minimax run
    only for its count just reports "more than").
    """
    if algorithm not in ("alphabeta", "minimax"):
        raise OutflankError(f"unknown algorithm {algorithm!r}: choose minimax or alphabeta")
    order = check_order(order)
    evaluate = get_evaluator(evaluation)
    pruned = alphabeta(board, depth, evaluate, max_nodes=max_nodes, order=order)
    full: SearchTrace | None = None
    try:
        full = minimax(board, depth, evaluate, max_nodes=max_nodes)
    except SearchLimitError:
        if algorithm == "minimax":
            raise
    return Explanation(
        board=board.copy(stack=False),
        evaluation=evaluation.strip().lower(),
        trace=pruned if full is None or algorithm == "alphabeta" else full,
        minimax_nodes=None if full is None else full.nodes,
        alphabeta_nodes=pruned.nodes,
        cutoffs=pruned.cutoffs,
        max_nodes=max_nodes,
    )


EVALUATION_NAMES = tuple(EVALUATORS)
