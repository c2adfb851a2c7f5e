"""bench/match.py: a tiny real match in a subprocess, and its spec parser."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, cli_env, interrupt_command, running

sys.path.insert(0, str(ROOT / "bench"))

import match
from outflank.board import Board
from outflank.errors import OutflankError
from outflank.interrupt import Stop


def match_cmd(args: str) -> list[str]:
    """The command line running bench/match.py with these (space-separated) arguments."""
    return [sys.executable, str(Path(ROOT, "bench", "match.py")), *args.split()]


def match_table(out: str) -> dict[str, str]:
    """The result table printed by bench/match.py, row name -> value."""
    rows = (line.split("  ", 1) for line in out.splitlines())
    return {k.strip(): v.strip() for k, v in rows}


def test_parse_spec() -> None:
    spec = match.parse_spec("regions:depth=3,corner=40")
    assert (spec.kind, spec.name, spec.limits, spec.params) == (
        "evaluator",
        "regions",
        {"depth": 3},
        {"corner": 40},
    )
    assert match.parse_spec("level:6").kind == "level"
    assert match.parse_spec("preset:minimax4").name == "minimax4"
    for bad in ("", "default", "level:x", "default:depth", "default:depth=x", "level:"):
        with pytest.raises(OutflankError):
            match.parse_spec(bad)


def test_a_specs_options_and_limits_are_the_engines_own() -> None:
    # random= plays random moves and a level keeps its exact endgame under a
    # depth override, as they do in play (a limit passed to each search
    # used to drop both)
    fish = match.make_engine(match.parse_spec("fish:depth=1,random=1,seed=5"))
    assert (fish.depth, fish.random) == (1, 1.0)
    level = match.make_engine(match.parse_spec("level:11:depth=3"))
    assert (level.depth, level.endgame) == (3, 12)
    board = Board()
    while board.empties > 12:
        board.push(fish.choose_move(board))  # random moves, but a fixed seed
    assert not board.is_game_over() and level.search(board).exact
    start = Board()
    assert {fish.choose_move(start) for _ in range(40)} == set(start.legal_moves)


def test_a_hint_spec_plays_the_first_move_of_the_analysis() -> None:
    # hint=1 measures an analysis engine (hints, analysis panels) by the move
    # it recommends: the top of Engine.analyze, not a search's best move
    match._init_worker("weights:depth=2,hint=1", "weights:depth=2")
    hinted = match._ENGINES["a"]
    assert hinted.depth == 2 and not hasattr(hinted, "hint")
    board = Board()
    for move in ("f5", "d6", "c3", "d3", "c4"):
        board.play(move)
    calls = []
    real = hinted.analyze
    hinted.analyze = lambda b: calls.append(b) or real(b)
    try:
        move = match._choose("a", board)
    finally:
        del hinted.analyze
    assert calls and move == real(board)[0].move
    match._choose("b", board)
    assert len(calls) == 1  # the other side searches as in play


def test_openings_are_distinct_and_deterministic() -> None:
    lines = match.openings(4, 20)
    assert lines == match.openings(4, 20)
    assert len({tuple(line) for line in lines}) == 20
    assert all(len(line) == 4 for line in lines)
    assert match.openings(4, 30)[:20] == lines  # more openings extend the same order


def test_a_match_in_parts_plays_the_openings_of_the_whole() -> None:
    whole = match.run_match("heuristic:depth=1", "default:depth=1", 8, 4, 1, True)
    parts = [match.run_match("heuristic:depth=1", "default:depth=1", 4, 4, 1, True, skip)
             for skip in (0, 2)]  # fmt: skip
    assert (parts[0].disc_sum + parts[1].disc_sum, parts[0].wins + parts[1].wins) == (
        whole.disc_sum, whole.wins,
    )  # fmt: skip
    with pytest.raises(OutflankError, match="skip"):
        match.run_match("heuristic:depth=1", "default:depth=1", 2, 4, 1, True, -1)


def result(wins: int, draws: int, losses: int) -> match.Result:
    res = match.Result()
    for diff in [2] * wins + [0] * draws + [-2] * losses:
        res.add(diff, 0.0, 0.0)
    return res


def test_score_interval_and_likelihood_of_superiority() -> None:
    res = result(6, 2, 2)  # points 1 x6, 0.5 x2, 0 x2: mean 0.7, sample variance 1.6 / 9
    assert res.score == pytest.approx(0.7)
    assert res.score_ci == pytest.approx(1.96 * (1.6 / 9 / 10) ** 0.5)
    assert res.los == pytest.approx(0.5 * (1 + math.erf(4 / math.sqrt(16))))
    even = result(3, 4, 3)
    assert even.los == 0.5 and even.score == 0.5
    assert result(0, 2, 0).los == 0.5 and result(0, 2, 0).score_ci == 0.0
    assert math.isnan(result(1, 0, 0).score_ci)
    assert result(0, 0, 9).los < 0.01 < 0.99 < result(9, 0, 0).los


def test_tiny_match_in_a_subprocess() -> None:
    proc = subprocess.run(
        match_cmd("--a default:depth=1 --b heuristic:depth=1 --games 2 --workers 1 --quiet"),
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    rows = match_table(proc.stdout)
    assert rows["games"] == "2"
    wins, draws, losses = (int(x) for x in rows["A wins / draws / losses"].split(" / "))
    assert wins + draws + losses == 2
    assert rows["A score"].endswith("(95 %)")
    assert rows["A stronger (LOS)"].endswith("%")


def _weights_match(tmp_path: Path, a: str, b: str) -> dict[str, str]:
    proc = subprocess.run(
        match_cmd(f"--a {a} --b {b} --games 8 --workers 2 --quiet"),
        capture_output=True, text=True, env=cli_env(), timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return match_table(proc.stdout)


def test_weights_files_play_each_their_own_side(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from importlib import resources

    from outflank import evalmodel

    packaged = tmp_path / "same.bin.gz"
    packaged.write_bytes(resources.files("outflank").joinpath("data", "eval.bin.gz").read_bytes())
    # the packaged weights from a file against the packaged weights: mirror games
    rows = _weights_match(tmp_path, f"default:depth=2,weights={packaged}", "default:depth=2")
    assert rows["A disc difference"].startswith("+0.00") and rows["A score"].startswith("50.0 %")
    # weights that know nothing (all zero) against the packaged ones: every game lost
    zero = evalmodel.read(packaged)
    zero.patterns[:] = 0
    zero.numeric[:] = 0
    evalmodel.write(zero, tmp_path / "zero.bin.gz")
    rows = _weights_match(tmp_path, f"default:depth=2,weights={tmp_path / 'zero.bin.gz'}",
                          f"default:depth=2,weights={packaged}")  # fmt: skip
    wins, _draws, losses = (int(x) for x in rows["A wins / draws / losses"].split(" / "))
    assert losses >= 6 and wins <= 1
    assert rows["Elo difference (A - B)"].endswith("(95 %)")


def test_bad_arguments_exit_2() -> None:
    proc = subprocess.run(
        match_cmd("--a default --b x:depth=1"),
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert proc.returncode == 2
    assert "search limit" in proc.stderr


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuch:depth=1", "unknown evaluator"),
        ("level:99", "level must be"),
        ("default:depth=1,bogus=1", "no parameter bogus"),
        ("default:depth=0", "depth must be"),
        ("default:depth=1,weights=/no/such/file", "No such file"),
        ("default:depth=1,weights=README.md", "not a weight file"),
    ],
)
def test_a_spec_the_engine_refuses_exits_2_at_once(spec: str, message: str) -> None:
    """Such a spec used to fail in the pool's worker initializer, which the
    pool respawns forever: the match never ended."""
    proc = subprocess.run(
        match_cmd(f"--a {spec} --b default:depth=1 --games 2 --workers 1"),
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert proc.returncode == 2 and message in proc.stderr
    assert proc.stderr.count("\n") == 1  # one line, no worker tracebacks


@pytest.mark.parametrize("repeats", [1, 10])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_match_prints_the_games_played(sig: signal.Signals, repeats: int) -> None:
    """A long match stopped early still reports the finished games and exits.
    Once, in CI, it printed its table and then hung at exit: the handler
    raised KeyboardInterrupt inside concurrent.futures.wait() while it held
    some of the futures' locks, and the pool's manager thread then waited for
    one of them forever. The handler now only sets a plain flag
    (outflank.interrupt, tests/test_interrupt.py); repeated signals used to
    raise again inside the clean-up (and with a threading.Event as the flag,
    deadlocked inside its set())."""
    ended = interrupt_command(
        match_cmd("--a default:depth=3 --b heuristic:depth=3 --games 100000 --workers 1"),
        lambda err: "games" in err,  # the first game is finished
        sig,
        repeats,
    )
    assert ended.returncode == 130  # not a finished match, for a calling script
    assert "Traceback" not in ended.stderr and "Exception ignored" not in ended.stderr
    assert not ended.leftovers  # no worker outlives it
    rows = match_table(ended.stdout)
    played = int(rows["games"].removesuffix(" (interrupted)"))
    assert rows["games"].endswith("(interrupted)") and 1 <= played < 100000
    wins, draws, losses = (int(x) for x in rows["A wins / draws / losses"].split(" / "))
    assert wins + draws + losses == played


def test_a_stop_request_ends_the_match_before_its_first_game() -> None:
    """The loop looks at the stop flag (set by the signal handler, which
    does nothing else: see tests/test_interrupt.py) before it starts a game."""
    stop = Stop()
    stop.request(signal.SIGTERM)
    stop.request(signal.SIGTERM)  # again, as from inside the first
    res = match.run_match("heuristic:depth=1", "default:depth=1", 4, 4, 1, True, stop=stop)
    assert res.interrupted and res.games == 0


def test_a_worker_that_dies_ends_the_match_with_an_error() -> None:
    """Its game was lost and the pool waited for it forever. Killed at the
    wrong moment (holding a queue lock of multiprocessing.Pool), it also
    hung the pool's clean-up: this failed about one run in six until the
    match moved to concurrent.futures."""
    with running(
        match_cmd("--a default:depth=3 --b heuristic:depth=3 --games 100000 --workers 2 --quiet")
    ) as proc:
        time.sleep(3.0)  # the workers are playing
        children = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        assert children
        os.kill(int(children[0]), signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "a worker process died" in err
