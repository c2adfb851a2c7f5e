"""``outflank explain``: the outline, the node counts, JSON, errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from outflank.board import Board
from outflank.errors import OutflankError, SearchLimitError
from outflank.explain import explain, render_tree


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", "explain", *args],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent,
    )


def test_outline_of_the_seed_example() -> None:
    report = explain(Board(), 2)
    lines = report.outline().splitlines()
    assert lines[0].split() == ["root", "MAX", "X", "[-inf,", "+inf]", "=", "-3", "best", "d3"]
    assert lines[1].split() == ["d3", "MIN", "O", "[-inf,", "+inf]", "=", "-3", "*"]
    # only a bound is known of c4, and the note says why the search stopped
    assert lines[5].split() == [
        "c4", "MIN", "O", "[-3,", "+inf]", "<=", "-3",
        "cut-off", "(-3", "<=", "alpha", "-3):", "2", "pruned,", "logged", "[-3,", "-3]",
    ]  # fmt: skip
    assert lines[9].split()[:7] == ["f5", "MIN", "O", "[-3,", "+inf]", "=", "-3"]
    assert lines[7].split() == ["e3", "pruned"] and lines[8].split() == ["c5", "pruned"]
    assert lines[7].startswith("    e3")  # depth 2: indented twice
    assert len(lines) == 17  # root, 4 replies, 12 grandchildren (2 of them pruned)
    assert report.minimax_nodes == 17 and report.alphabeta_nodes == 15 and report.cutoffs == 1
    assert "minimax 17, alpha-beta 15 (2 fewer, 11.8% saved; 1 cut-off)" in report.render()


def test_test_first_order_logs_the_old_window_at_the_cut_off() -> None:
    """Only the cut-off's logged window changes: c4 is logged as [-3, +inf]."""
    update, test = explain(Board(), 2), explain(Board(), 2, order="test-first")
    differ = [
        (u, t)
        for u, t in zip(update.outline().splitlines(), test.outline().splitlines(), strict=True)
        if u != t
    ]
    assert [t.split()[-3:] for _, t in differ] == [["logged", "[-3,", "+inf]"]]
    assert [u.split()[-3:] for u, _ in differ] == [["logged", "[-3,", "-3]"]]
    assert "log order update-first (seed 002's example)" in update.render()
    assert "log order test-first (AIMA figure 5.7)" in test.render()
    assert test.to_dict()["order"] == "test-first"
    assert "log order" not in explain(Board(), 2, "minimax").render()
    with pytest.raises(OutflankError, match="unknown log order"):
        explain(Board(), 2, order="aima")  # type: ignore[arg-type]


def test_cli_order() -> None:
    done = run_cli("start", "--depth", "2", "--order", "test-first")
    assert done.returncode == 0, done.stderr
    assert "logged [-3, +inf]" in done.stdout and "log order test-first" in done.stdout
    data = json.loads(run_cli("start", "--depth", "2", "--order", "test-first", "--json").stdout)
    assert data["order"] == "test-first"
    assert ["c4", 1, -3, -3, "Infinity"] in [list(entry.values()) for entry in data["log"]]


def test_minimax_outline_has_no_window() -> None:
    report = explain(Board(), 1, "minimax", "discs")
    first = report.outline().splitlines()[0]
    assert "[" not in first and first.split()[:3] == ["root", "MAX", "X"]
    assert report.trace.algorithm == "minimax"
    assert report.alphabeta_nodes == report.minimax_nodes == 5


def test_render_tree_marks_leaves() -> None:
    tree = explain(Board(), 1).trace.tree
    assert all(" leaf " in line for line in render_tree(tree).splitlines()[1:])


def test_bad_arguments() -> None:
    with pytest.raises(OutflankError, match="unknown algorithm"):
        explain(Board(), 2, "negascout")
    with pytest.raises(OutflankError, match="unknown evaluation"):
        explain(Board(), 2, evaluation="vibes")
    with pytest.raises(SearchLimitError):
        explain(Board(), 4, max_nodes=50)  # even alpha-beta needs 119 nodes
    with pytest.raises(SearchLimitError):
        explain(Board(), 4, "minimax", max_nodes=200)  # minimax needs 317


def test_minimax_too_big_only_for_its_count() -> None:
    report = explain(Board(), 4, max_nodes=200)  # alpha-beta: 119 nodes, minimax 317
    assert report.minimax_nodes is None and report.saved_percent is None
    assert "minimax more than 200 (stopped), alpha-beta 119" in report.render()
    assert report.to_dict()["comparison"]["minimax_nodes"] is None


def test_cli_outline_and_counts() -> None:
    done = run_cli("f5d6c3d3c4", "--depth", "3")
    assert done.returncode == 0, done.stderr
    assert "alpha-beta search, depth 3" in done.stdout
    assert "nodes visited: minimax" in done.stdout and "pruned" in done.stdout


def test_a_deep_tree_folds_below_the_plies_shown() -> None:
    """Folded nodes carry their subtree's visited nodes, so the shown lines
    and the folded counts still add up to the whole search."""
    report = explain(Board.from_transcript("f5d6c3"), 5)
    whole = report.outline()
    for plies in (1, 2, 3, 4):
        lines = report.outline(plies).splitlines()
        assert max(len(line) - len(line.lstrip()) for line in lines) == 2 * plies
        visited = sum(1 for line in lines if line.split()[1] != "pruned")
        folded = sum(
            int(n) for n in re.findall(r"\[(\d+) nodes? below, folded\]", "\n".join(lines))
        )
        assert visited + folded == report.trace.nodes
    assert report.outline(5) == whole and "folded" not in whole
    shown = run_cli("f5d6c3", "--depth", "5", "--show", "2")
    assert shown.returncode == 0, shown.stderr
    assert report.outline(2) in shown.stdout
    assert run_cli("f5d6c3", "--depth", "5").stdout.count("\n") < whole.count("\n")


def test_cli_json_is_the_trace() -> None:
    obf = Board.from_transcript("f5d6").obf()
    done = run_cli(obf, "--depth", "2", "--json", "--algorithm", "minimax")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["algorithm"] == "minimax" and data["position"] == obf
    assert data["tree"]["move"] == "root" and data["tree"]["alpha"] is None
    assert data["comparison"]["minimax_nodes"] == data["nodes"]
    assert data["comparison"]["alphabeta_nodes"] <= data["nodes"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["f5z9", "--depth", "2"], "transcript move 2"),
        (["start", "--depth", "9"], "--depth must be in 0..8"),
        (["start", "--show", "0"], "--show must be at least 1"),
        (["start", "--algorithm", "minimax", "--order", "test-first"], "--order applies to"),
        (["start", "--order", "aima"], "invalid choice: 'aima'"),
    ],
)
def test_cli_errors(args: list[str], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_docstring_examples_of_the_teaching_modules() -> None:
    import doctest

    import outflank.classic
    import outflank.classic_eval
    import outflank.explain

    for module in (outflank.classic, outflank.classic_eval, outflank.explain):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_the_teaching_page_shows_the_real_output() -> None:
    """docs/teaching.md's example is what `outflank explain start --depth 2` prints."""
    page = (Path(__file__).parents[1] / "docs" / "teaching.md").read_text(encoding="utf-8")
    printed = run_cli("start", "--depth", "2").stdout.strip()
    assert printed in page
