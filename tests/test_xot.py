"""Tournament openings from the XOT list of near-even eight-move openings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from outflank import Board
from outflank.book.symmetry import key_of
from outflank.errors import OutflankError
from outflank.ggf import parse_ggf
from outflank.tournament import XOT_DEFAULT, plan_games, run_tournament, xot_openings


def test_the_xot_list_is_3623_distinct_legal_eight_move_openings() -> None:
    lines = xot_openings()
    assert len(lines) == 3623
    keys = set()
    for line in lines:
        board = Board.from_transcript(line)
        assert board.ply == 8 and not board.is_game_over()
        keys.add(key_of(board.player, board.opponent))
    assert len(keys) == len(lines)  # no two alike, not even up to symmetry
    assert lines[0] == "f5d6c4d3c2b3b4b5"


def test_xot_openings_are_planned_with_both_colours() -> None:
    tasks = plan_games(["a", "b"], openings=["xot"])
    assert len(tasks) == 2 * XOT_DEFAULT
    names = {t.opening_name for t in tasks}
    assert len(names) == XOT_DEFAULT and all(n.startswith("xot#") for n in names)
    for task in tasks:
        number = int(task.opening_name[4:])
        assert task.opening == xot_openings()[number - 1]
    again = plan_games(["a", "b"], openings=["xot"])
    assert [t.opening for t in again] == [t.opening for t in tasks]  # a fixed draw
    five = plan_games(["a", "b"], openings=["xot:5"])
    assert [t.opening for t in five] == [t.opening for t in tasks[:10]]  # the same order
    assert len(plan_games(["a", "b"], openings=["xot:all"])) == 2 * 3623
    mixed = plan_games(["a", "b"], openings=["tiger", "xot:2"])
    assert [t.opening_name for t in mixed][:2] == ["tiger", "tiger"]


@pytest.mark.parametrize("bad", ["xot:0", "xot:3624", "xot:x", "xot:-1"])
def test_bad_xot_counts(bad: str) -> None:
    with pytest.raises(OutflankError, match="xot"):
        plan_games(["a", "b"], openings=[bad])


def test_a_tournament_from_xot_openings(tmp_path: Path) -> None:
    result = run_tournament(["greedy", "random:1"], openings=["xot:2"], out_dir=tmp_path)
    assert len(result.games) == 4
    assert all(g.opening_name.startswith("xot#") for g in result.games)
    planned = {t.number: t.opening for t in plan_games(["greedy", "random:1"], openings=["xot:2"])}
    for game in result.games:  # each game's record begins with its opening
        played = parse_ggf(game.ggf).board().transcript()
        assert played.startswith(planned[game.number]) and len(played) > 16


def test_cli_openings_xot(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "outflank", "tournament", "greedy", "random:1",
         "--openings", "xot:1", "--workers", "1", "--out", str(tmp_path), "--no-plot", "--quiet"],
        env=cli_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "2 games saved" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "outflank", "tournament", "greedy", "random:1",
         "--openings", "xot:0", "--out", str(tmp_path)],
        env=cli_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "xot:N" in bad.stderr
