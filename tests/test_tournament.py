"""Tournaments: planning, a real parallel tournament, forfeits, Elo, replay."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import INTERRUPTIONS, assert_clean_interrupt, cli_env, interrupt_command
from outflank.board import Board
from outflank.errors import OutflankError
from outflank.ggf import read_ggf_file
from outflank.tournament import (
    OPENINGS,
    GameOutcome,
    elo_ratings,
    plan_games,
    run_tournament,
    standings,
)

BROKEN = Path(__file__).with_name("broken_engine.py")


def test_standings_count_wins_draws_and_losses_from_each_side() -> None:
    def game(number: int, black: str, white: str, margin: int) -> GameOutcome:
        return GameOutcome(number, black, white, "x", margin, None, "", 60, 1.0, "")

    games = [game(1, "a", "b", 10), game(2, "b", "a", 0), game(3, "b", "a", 64)]
    assert [g.black_points for g in games] == [1.0, 0.5, 1.0]
    table = {s.name: s for s in standings(["a", "b"], games)}
    assert (table["a"].wins, table["a"].draws, table["a"].losses) == (1, 1, 1)
    assert (table["b"].wins, table["b"].draws, table["b"].losses) == (1, 1, 1)
    assert (table["a"].discs, table["b"].discs) == (-54, 54)


def test_openings_are_legal_and_distinct() -> None:
    boards = [Board.from_transcript(moves) for moves in OPENINGS.values()]
    assert len({b.transposition_key() for b in boards}) == len(boards)
    for board in boards:
        assert not board.is_game_over()
        assert min(board.score()) >= 3  # no near wipe-out


def test_plan_pairs_every_opening_with_both_colours() -> None:
    tasks = plan_games(["a", "b", "c"], openings=2)
    assert len(tasks) == 3 * 2 * 2
    seen = {(t.black, t.white, t.opening_name) for t in tasks}
    for t in tasks:
        assert (t.white, t.black, t.opening_name) in seen
    gauntlet = plan_games(["a", "b", "c"], gauntlet=True, openings=1, rounds=2)
    assert len(gauntlet) == 2 * 2 * 2
    assert all("a" in (t.black, t.white) for t in gauntlet)


@pytest.mark.parametrize(
    ("players", "kwargs", "message"),
    [
        (["greedy"], {}, "at least two"),
        (["greedy", "greedy"], {}, "only once"),
        (["greedy", "random"], {"openings": 99}, "openings"),
        (["greedy", "random"], {"openings": ["z9z9"]}, "unknown opening 'z9z9'"),
        (["greedy", "random"], {"openings": ["f5f5"]}, "opening 'f5f5': transcript move 2"),
        (["greedy", "random"], {"openings": ["tiger", "f5d6c3d3c4"]}, "given twice"),
        (["greedy", "random"], {"rounds": 0}, "rounds"),
    ],
)
def test_bad_plans_are_refused(players, kwargs, message) -> None:
    with pytest.raises(OutflankError, match=message):
        plan_games(players, **kwargs)


def test_bad_specs_refused_before_playing() -> None:
    with pytest.raises(OutflankError, match="unknown player"):
        run_tournament(["greedy", "grandmaster"])
    with pytest.raises(OutflankError, match="human"):
        run_tournament(["greedy", "human"])
    with pytest.raises(OutflankError, match="workers must be at least 1"):
        run_tournament(["greedy", "random"], workers=0)


def test_three_players_in_parallel_give_a_sane_table(tmp_path: Path) -> None:
    seen: list[int] = []
    result = run_tournament(
        ["greedy", "random:1", "random:2"],
        openings=2,
        workers=2,
        out_dir=tmp_path,
        on_game=lambda g, done, total: seen.append(done),
    )
    assert len(result.games) == 12 and seen == list(range(1, 13))
    by_name = {s.name: s for s in result.standings}
    assert sum(s.games for s in result.standings) == 24
    for s in result.standings:
        assert s.wins + s.draws + s.losses == s.games == 8
    assert sum(s.points for s in result.standings) == 12
    assert sum(s.discs for s in result.standings) == 0
    assert abs(sum(s.elo for s in result.standings)) < 1e-6
    assert result.standings[0].name == "greedy"
    assert by_name["greedy"].score > 0.7
    table = result.table()
    assert table.count("\n") == 4 and "| 1 | greedy |" in table
    records = read_ggf_file(tmp_path / "games.ggf")
    assert len(records) == 12
    assert all(r.board().is_game_over() for r in records)
    assert len(list((tmp_path / "games").glob("*.ggf"))) == 12
    assert (tmp_path / "results.md").read_text().startswith("| # | player")
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_broken_engine_forfeits_and_the_tournament_goes_on(tmp_path: Path) -> None:
    hang = f"nboard:timeout=1 name=hang {sys.executable} {BROKEN} hang"
    garbage = f"nboard:timeout=1 name=garbage {sys.executable} {BROKEN} garbage"
    result = run_tournament(
        ["random:1", hang, garbage], openings=1, workers=2, out_dir=tmp_path, plot=False
    )
    assert len(result.games) == 6
    by_name = {s.name: s for s in result.standings}
    assert by_name["random:1"].wins == 4
    assert by_name["hang"].forfeits + by_name["garbage"].forfeits == 6  # their name= names
    assert result.standings[0].name == "random:1"
    forfeited = [r for r in read_ggf_file(tmp_path / "games.ggf") if "C" in r.tags]
    assert len(forfeited) == 6
    assert any("timed out" in r.tags["C"] for r in forfeited)


def test_elo_orders_players_by_results() -> None:
    games = [GameOutcome(i, "a", "b", "x", 10, None, "", 60, 0.0, "") for i in range(6)] + [
        GameOutcome(10 + i, "b", "c", "x", 4, None, "", 60, 0.0, "") for i in range(4)
    ]
    ratings = elo_ratings(["a", "b", "c"], games)
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]
    assert all(err > 0 for _, err in ratings.values())


def test_tournament_and_replay_commands(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "tournament", "greedy", "random:3",
         "--openings", "tiger", "--workers", "1", "--out", str(out), "--no-plot"],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "| 1 | greedy | 2 |" in proc.stdout
    assert "[2/2]" in proc.stderr
    replay = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(out / "games.ggf"), "--game", "2"],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert "game 2/2: random:3 (black) vs greedy (white)" in replay.stdout
    assert "\n1. black f5" in replay.stdout and "final: black" in replay.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(out / "results.md")],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "error" in bad.stderr


def test_replay_step_mode_reads_enter_and_quits(tmp_path: Path) -> None:
    path = tmp_path / "g.ggf"
    path.write_text("(;GM[Othello]PB[a]PW[b]RE[?]B[f5]W[d6]B[c3];)\n")
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(path), "--step"],
        input="\n\nq\n", capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "1. black f5" in proc.stdout and "2. white d6" in proc.stdout
    assert "3. black c3" not in proc.stdout


def test_ray_backend_without_ray_is_a_clear_error() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        with pytest.raises(OutflankError, match="pip install"):
            run_tournament(["greedy", "random:1"], openings=1, backend="ray")
    else:  # Ray is installed: the backend plays the games
        result = run_tournament(["greedy", "random:1"], openings=1, backend="ray")
        assert len(result.games) == 2
    with pytest.raises(OutflankError, match="unknown backend"):
        run_tournament(["greedy", "random:1"], openings=1, backend="dask")


def test_void_games_are_kept_but_not_rated() -> None:
    from outflank.tournament import Task, TournamentResult, _void, standings

    played = [GameOutcome(i, "a", "b", "x", 10, None, "", 60, 0.0, "") for i in range(3)]
    void = _void(Task(9, "b", "a", "tiger", "f5d6c3d3c4"), "worker died")
    assert void.void and "worker died" in void.ggf
    table = standings(["a", "b"], [*played, void])
    assert {s.name: s.games for s in table} == {"a": 3, "b": 3}
    result = TournamentResult(["a", "b"], [*played, void], table)
    assert "3/3" in result.crosstable() and "0/3" in result.crosstable()


def test_a_reused_folder_holds_only_the_new_games(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    (games / "0099_old_vs_run.ggf").write_text("(;GM[Othello];)\n")
    (games / "notes.txt").write_text("mine\n")
    run_tournament(["greedy", "random:1"], openings=1, out_dir=tmp_path, plot=False)
    assert sorted(p.name for p in games.iterdir()) == [
        "0001_greedy_vs_random_1.ggf",
        "0002_random_1_vs_greedy.ggf",
        "notes.txt",
    ]


def test_a_player_without_rated_games_has_no_rating() -> None:
    """Only void games: no Elo (shown '-'), and the others' mean stays 0."""
    import math

    from outflank.tournament import Task, TournamentResult, _void, standings

    played = [GameOutcome(i, "a", "b", "x", 10, None, "", 60, 0.0, "") for i in range(4)]
    void = _void(Task(9, "c", "a", "tiger", "f5d6c3d3c4"), "worker died")
    table = {s.name: s for s in standings(["a", "b", "c"], [*played, void])}
    assert math.isnan(table["c"].elo)
    assert table["a"].elo > 0 > table["b"].elo and abs(table["a"].elo + table["b"].elo) < 1e-6
    rows = TournamentResult(["a", "b", "c"], [*played, void], list(table.values())).table()
    assert "| - | - |" in rows


def test_an_engines_name_option_names_it_and_bad_options_are_refused(tmp_path: Path) -> None:
    engine = f"{sys.executable} -m outflank nboard"
    with pytest.raises(OutflankError, match="depth='x'"):
        run_tournament(["random:1", f"nboard:depth=x {engine}"], openings=1)
    result = run_tournament(
        ["random:1", f"nboard:depth=1 name=ob {engine}"], openings=1, out_dir=tmp_path, plot=False
    )
    assert sorted(result.players) == ["ob", "random:1"]
    assert {s.name for s in result.standings} == {"ob", "random:1"}
    assert all(g.forfeit is None for g in result.games)
    assert "PW[ob]" in result.games[0].ggf and "| ob |" in result.table()


def test_replay_follows_a_reversi_record_to_its_early_end(tmp_path: Path) -> None:
    """RU[Reversi]: the game ends when the mover cannot move, where Othello
    would pass and go on. The replay used Othello rules and never got to the
    end (no final line)."""
    import random

    from outflank.board import Board, Rules
    from outflank.ggf import GameRecord

    for seed in range(200):  # a game whose end Othello rules would not call an end
        rng, board = random.Random(seed), Board(rules=Rules.REVERSI)
        while not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if Board(board.black, board.white, board.turn).legal_moves:
            break
    path = tmp_path / "r.ggf"
    path.write_text(GameRecord.from_board(board).to_ggf() + "\n")
    replay = subprocess.run(
        [sys.executable, "-m", "outflank", "replay", str(path)],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert "final: " in replay.stdout


def _progress_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("[")]


@pytest.mark.parametrize(("sig", "group", "repeats"), INTERRUPTIONS)
def test_ctrl_c_or_sigterm_saves_the_finished_games(
    tmp_path: Path, sig: int, group: bool, repeats: int
) -> None:
    """Stopped by signals: the games in play are abandoned, the finished
    ones printed as the table and saved as usual, exit 130, one line, no
    worker left. (Before: nothing saved; ten SIGINTs or a SIGTERM hung,
    orphaned workers playing on.)"""
    out = tmp_path / "t"
    cmd = [
        sys.executable, "-m", "outflank", "tournament", "engine:depth=6",
        "engine:depth=5,evaluator=heuristic", "--openings", "xot:100", "--workers", "2",
        "--threads", "1", "--no-plot", "--out", str(out),
    ]  # fmt: skip
    result = interrupt_command(
        cmd, lambda err: len(_progress_lines(err)) >= 2, sig, repeats, group=group
    )
    assert_clean_interrupt(result)
    finished = len(_progress_lines(result.stderr))
    assert 2 <= finished < 200
    assert f"interrupted after {finished} of 200 games" in result.stderr
    assert f"{finished} games saved in {out}/" in result.stdout
    assert result.stdout.startswith("| # | player |")
    games = json.loads((out / "results.json").read_text())["games"]
    records = read_ggf_file(out / "games.ggf")
    assert len(games) == len(records) == len(list((out / "games").glob("*.ggf"))) == finished
    assert all(r.board().is_game_over() for r in records)
