"""bench/anchor.py: equal-time matches against an NBoard engine subprocess.

The anchor here is outflank's own NBoard engine (``outflank nboard``) at a
small depth, a real subprocess speaking the protocol, as NTest does in the
benchmark; NTest itself is for benchmarks only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, cli_env

sys.path.insert(0, str(ROOT / "bench"))

import anchor
from outflank.board import BLACK
from outflank.engine import Engine
from outflank.errors import OutflankError
from outflank.ggf import parse_ggf_games

ANCHOR = [sys.executable, "-m", "outflank", "nboard", "--no-book", "--threads", "1"]


def test_a_paired_match_records_every_game_and_both_sides_times() -> None:
    records: list[str] = []
    tally = anchor.run_match(
        "engine:depth=2,endgame=8", ANCHOR, 1, 4, workers=1, quiet=True, records=records
    )
    assert tally.games == 4 and sum(tally.wdl) == 4
    assert len(tally.discs) == 4 and all(-64 <= d <= 64 for d in tally.discs)
    assert tally.ours and tally.theirs and tally.time_ratio > 0
    games = parse_ggf_games("".join(records))
    assert len(games) == 4
    # paired: each opening twice, outflank black in one game and white in the other
    starts = [g.moves[:8] for g in games]
    assert sum(g.black.startswith("engine:") for g in games) == 2
    assert len({tuple(str(m.move) for m in s) for s in starts}) == 2
    for game in games:  # every searched move has its time; the XOT moves have none
        assert all(m.time is None for m in game.moves[:8])
        assert all(m.time is not None for m in game.moves[8:] if not m.move.is_pass)
        assert game.board().is_game_over()


def test_the_statistics_of_a_tally() -> None:
    tally = anchor.Tally()
    for diff in (10, -4, 0, 6):
        tally.add(diff, [0.01, 0.03], [0.02])
    assert tally.wdl == (2, 1, 1) and tally.score == pytest.approx(0.625)
    assert tally.elo == pytest.approx(-400 * __import__("math").log10(1 / 0.625 - 1))
    assert tally.time_ratio == pytest.approx(1.0)
    lo, hi = tally.elo_interval
    assert lo < tally.elo < hi
    assert anchor.p95([0.1 * i for i in range(1, 21)]) == pytest.approx(2.0)


def test_a_tally_takes_its_intervals_over_the_openings() -> None:
    tally = anchor.Tally()
    for diff, opening in ((4, "a"), (-2, "a"), (6, "b"), (8, "b"), (2, "b"), (-6, "b")):
        tally.add(diff, [0.01], [0.01], opening)
    # opening a: 1 and 0 -> 0.5; opening b: 1, 1, 1, 0 -> 0.75 (each opening counts once)
    assert tally.score == pytest.approx(0.625)
    assert tally.score_ci == pytest.approx(anchor.half_width([0.5, 0.75]))
    assert tally.disc_mean == pytest.approx((1 + 2.5) / 2)
    assert tally.wdl == (4, 0, 2) and tally.games == 6
    assert "6 on 2 openings" in anchor.table("x", "y", None, tally, None)


def test_specs_keep_their_keys_and_swap_their_time() -> None:
    assert anchor.split_spec("engine:preset=default,weights=/x/w.bin.gz,time=0.1") == (
        "engine:preset=default,time=0.1",
        "/x/w.bin.gz",
        {},
    )
    assert anchor.split_spec("level:12") == ("level:12", None, {})
    assert anchor.split_spec("engine:preset=default,tune.mid_solve=0") == (
        "engine:preset=default",
        None,
        {"mid_solve": 0},
    )
    with pytest.raises(OutflankError, match=r"tune\.mid_solve takes a whole number, not 'x'"):
        anchor.split_spec("engine:tune.mid_solve=x")
    with pytest.raises(OutflankError, match=r"unknown search settings \['nope'\]"):
        anchor.check_tuning({"nope": 1})
    assert anchor.with_time("engine:preset=default,time=0.1", 0.05) == (
        "engine:preset=default,time=0.05"
    )
    assert anchor.time_of("engine:preset=default,time=0.25") == 0.25
    assert anchor.time_of("engine:depth=3") is None
    player = anchor.make_outflank("engine:preset=default,time=0.1")
    assert player.engine.threads == 1 and player.engine.time == 0.1
    assert player.engine.selective == 0.8 and player.engine.endgame == 18


def test_calibration_finds_the_depth_nearest_in_time() -> None:
    """With a model of the two engines (the anchor's time grows 1.5 times a
    ply, outflank's is its time limit times 0.4): the nearest depth in log
    ratio, then outflank's time scaled until the two are within 15 %."""

    def model(spec: str, depth: int) -> tuple[float, float]:
        return 400 * (anchor.time_of(spec) or 0), 2.0 * 1.5**depth

    cal = anchor.calibrate("engine:preset=default,time=0.1", ANCHOR, start_depth=4, measure=model)
    # 40 ms: 1.5**d * 2 is 34.2 ms at d=7 and 51.3 at d=8; 7 is nearer in log ratio
    assert cal.depth == 7
    assert abs(cal.ours_ms / cal.theirs_ms - 1) <= anchor.DEFAULT_TOLERANCE
    assert anchor.time_of(cal.spec) == pytest.approx(0.1 * 34.17 / 40, rel=1e-3)
    assert len(cal.steps) == 6  # depths 4, 5, 6, 7, 8, then the scaled time at 7
    down = anchor.calibrate("engine:depth=9", ANCHOR, start_depth=12, measure=model)
    assert down.depth == 1 and down.spec == "engine:depth=9"  # no time= to scale: kept


def test_calibration_by_real_short_matches() -> None:
    cal = anchor.calibrate("engine:depth=2,endgame=6", ANCHOR, start_depth=1, games=2, workers=1)
    assert cal.depth >= 1 and cal.ours_ms > 0 and cal.theirs_ms > 0
    assert cal.steps[0].startswith("engine:depth=2,endgame=6 vs depth 1:")


def test_where_the_discs_go_matches_the_solver(tmp_path: Path) -> None:
    records: list[str] = []
    anchor.run_match("engine:depth=1,endgame=6", ANCHOR, 1, 2, workers=1, quiet=True,
                     records=records)  # fmt: skip
    path = tmp_path / "games.ggf"
    path.write_text("".join(records))
    text = anchor.where([path], "engine:", [12], threads=1)
    assert "games: 2" in text
    engine = Engine(threads=1)
    expected = []
    for game in parse_ggf_games(records[0] + records[1]):
        sign = 1 if game.black.startswith("engine:") else -1
        board = game.start.copy()
        for record in game.moves:
            if board.empties == 12 and not board.is_game_over():
                value = engine.solve(board).score
                expected.append(value if (board.turn == BLACK) == (sign == 1) else -value)
                break
            board.push(record.move)
    mean = sum(expected) / len(expected)
    assert f"exact value at 12 empties: {mean:+.2f}" in text
    score = anchor.perfect_score(expected)
    assert f"score with perfect play from here: {100 * score:.1f} %" in text


def test_perfect_score_counts_wins_draws_and_losses() -> None:
    assert anchor.perfect_score([3, 0, -2, 64]) == 0.625
    assert anchor.perfect_score([]) == 0.0


def test_the_command_line_refuses_bad_input_with_a_clear_error(tmp_path: Path) -> None:
    script = str(ROOT / "bench" / "anchor.py")
    for args, message in (
        (["--engine", "level:99", "--depth", "1"], "level"),
        (["--engine", "engine:depth=2", "--depth", "1", "--games", "3"], "even"),
    ):
        done = subprocess.run(
            [sys.executable, script, "match", "--anchor", " ".join(ANCHOR), *args],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(OutflankError):
        anchor.run_match("engine:depth=1", ANCHOR, 1, 0, workers=1, quiet=True)


def test_where_refuses_a_missing_file_or_bad_threads_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "none.ggf")
    assert anchor.main(["where", missing]) == 2
    assert "No such file" in capsys.readouterr().err
    games = tmp_path / "games.ggf"
    games.write_text("")
    assert anchor.main(["where", str(games), "--threads", "0"]) == 2
    assert "threads must be" in capsys.readouterr().err


def test_compare_pairs_two_matches_by_opening(tmp_path: Path) -> None:
    def match(name: str, spec: str, games: int) -> tuple[Path, list[str]]:
        records: list[str] = []
        anchor.run_match(spec, ANCHOR, 1, games, workers=1, quiet=True, records=records)
        path = tmp_path / f"{name}.ggf"
        path.write_text("".join(records))
        return path, records

    first, records = match("a", "engine:depth=1,endgame=6", 4)
    again, _ = match("b", "engine:depth=1,endgame=6", 4)  # fixed depth: the same games
    other, _ = match("c", "engine:depth=2,endgame=6", 2)  # the first opening only
    text = anchor.compare(first, again, "engine:")
    assert "openings in common      2" in text
    assert "second - first          +0.0 points +/- 0.0" in text
    # by hand: outflank's mean points over the four games (two an opening)
    points = []
    for game in parse_ggf_games("".join(records)):
        margin = game.board().outcome().margin
        margin = margin if game.black.startswith("engine:") else -margin
        points.append(1.0 if margin > 0 else 0.5 if margin == 0 else 0.0)
    assert f"first                   {first}: {100 * sum(points) / 4:.1f} % (4 games)" in text
    pooled = anchor.read_matches([first, again], "engine:")
    assert pooled.games == 8 and pooled.score == pytest.approx(sum(points) / 4)
    assert "8 on 2 openings" in anchor.table("both", "anchor", None, pooled, None)
    with pytest.raises(OutflankError, match="share 1 opening"):
        anchor.compare(first, other, "engine:")
    script = str(ROOT / "bench" / "anchor.py")
    done = subprocess.run(
        [sys.executable, script, "compare", str(first), str(tmp_path / "nope.ggf")],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "nope.ggf" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, script, "pool", str(first), str(again)],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "8 on 2 openings" in done.stdout, done.stderr
    with pytest.raises(OutflankError, match="no games"):
        anchor.read_matches([first], "nobody")
