"""Training data for the evaluator: a tiny real run, resumed, merged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from conftest import (  # noqa: E402
    INTERRUPTIONS,
    assert_clean_interrupt,
    interrupt_command,
)
from outflank import _core, evaldata  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# small and quick: shallow labels, exact from 12 empties
TINY = evaldata.DataConfig(
    seed=7, games_per_shard=2, opening_min=2, opening_max=8, depths=(1, 2), random_move=0.2,
    exact=12, probable=14, depth=3, selective=0.0, label_all=10, sample=0.3,
)  # fmt: skip


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "scripts/eval_data.py", *args],
        capture_output=True, text=True, env=env, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_a_shard_is_labelled_as_its_settings_say() -> None:
    shard = evaldata.make_shard(evaldata.asdict(TINY), 3)
    n = len(shard["label"])
    assert n > 2 * 10  # every position of 10 empties or fewer, and some others
    for name, dtype in evaldata.COLUMNS.items():
        assert shard[name].dtype == np.dtype(dtype) and len(shard[name]) == n
    assert set(shard["game"].tolist()) == {6, 7}  # shard 3 of 2 games each
    empties = 64 - np.bitwise_count(shard["player"] | shard["opponent"])
    assert (empties == shard["empties"]).all()
    assert (shard["player"] & shard["opponent"] == 0).all()
    kind = shard["kind"]
    assert (kind[empties <= 12] == evaldata.EXACT).all()
    assert (kind[(empties > 12) & (empties <= 14)] == evaldata.PROBABLE).all()
    assert (kind[empties > 14] == evaldata.SEARCH).all()
    assert (shard["depth"][kind == evaldata.SEARCH] == 3).all()
    for game in (6, 7):  # every position with 10 empties or fewer is there
        mine = shard["game"] == game
        assert set(range(1, 11)) - set(empties[mine].tolist()) <= {1, 2, 3}  # passes skip some
    for i in np.flatnonzero(kind == evaldata.EXACT)[:25]:
        p, o = int(shard["player"][i]), int(shard["opponent"][i])
        assert shard["label"][i] == 100 * _core.train_solve(p, o)[0]
        assert _core.moves(p, o) >> int(shard["move"][i]) & 1  # the solver's move is legal
    assert (np.abs(shard["label"]) <= 6400).all()
    assert (np.abs(shard["result"]) <= 64).all()
    # black's result is the negative of white's within a game
    for game in (6, 7):
        mine = shard["game"] == game
        assert len(set(np.abs(shard["result"][mine]).tolist())) == 1
    assert set(shard["seconds"]) == {"play", "exact", "probable", "search"}
    # the same shard again: the same rows
    again = evaldata.make_shard(evaldata.asdict(TINY), 3)
    for name in evaldata.COLUMNS:
        assert (again[name] == shard[name]).all()


def test_label_min_keeps_only_midgame_positions() -> None:
    cfg = replace(TINY, label_all=0, sample=1.0, label_min=40, label_max=50)
    shard = evaldata.make_shard(evaldata.asdict(cfg), 1)
    empties = shard["empties"]
    assert len(empties) > 4 and ((empties >= 40) & (empties <= 50)).all()
    assert (shard["kind"] == evaldata.SEARCH).all()
    # label_min 0 (the default) labels what it always did
    assert evaldata.asdict(evaldata.DataConfig())["label_min"] == 0


def test_generate_resumes_and_workers_agree(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert evaldata.generate(one, TINY, 2, workers=1) == 2
    first = {p.name: p.read_bytes() for p in one.glob("shard-*.npz")}
    assert len(first) == 2
    # a time limit that has passed makes nothing, and says so by the count
    assert evaldata.generate(one, TINY, 4, workers=1, time_limit=0) == 0
    # resuming makes only the missing shards and leaves the others alone
    assert evaldata.generate(one, TINY, 4, workers=1) == 2
    assert {p.name: p.read_bytes() for p in one.glob("shard-*.npz") if p.name in first} == first
    assert evaldata.done_shards(one) == {0, 1, 2, 3}
    assert evaldata.generate(one, TINY, 4, workers=1) == 0
    # two worker processes make the same data
    assert evaldata.generate(two, TINY, 4, workers=2) == 4
    a, b = evaldata.load([one]), evaldata.load([two])
    for name in evaldata.COLUMNS:
        assert (a[name] == b[name]).all()
    assert sorted(set(a["game"].tolist())) == list(range(8))
    # other settings in the same folder are refused before anything is made
    with pytest.raises(OutflankError, match=r"other settings .*depth"):
        evaldata.generate(one, replace(TINY, depth=4), 5, workers=1)
    assert evaldata.done_shards(one) == {0, 1, 2, 3}


def test_a_half_written_shard_is_not_data(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    evaldata.generate(folder, TINY, 1, workers=1)
    (folder / "shard-000001.tmp.npz").write_bytes(b"half")  # a run killed mid-write
    assert evaldata.done_shards(folder) == {0}
    assert len(evaldata.load([folder])["label"]) > 0
    assert evaldata.generate(folder, TINY, 2, workers=1) == 1
    assert not list(folder.glob("*.tmp.npz"))


def test_the_script_generates_in_chunks_merges_and_describes(tmp_path: Path) -> None:
    folder, merged = tmp_path / "d", tmp_path / "all.npz"
    common = [
        "--games-per-shard", "2", "--opening", "2", "8", "--depths", "1", "2",
        "--exact", "12", "--probable", "14", "--depth", "3", "--selective", "0",
        "--label-all", "10", "--sample", "0.3", "--workers", "1", "--seed", "7", "--quiet",
    ]  # fmt: skip
    proc = _script("generate", str(folder), "--shards", "3", "--time-limit", "0", *common)
    assert proc.returncode == 3 and "3 left" in proc.stdout  # the limit left work: exit 3
    proc = _script("generate", str(folder), "--shards", "3", *common)
    assert proc.returncode == 0, proc.stderr
    assert "made 3 shards" in proc.stdout and "0 left" in proc.stdout
    proc = _script("merge", str(folder), str(merged))
    assert proc.returncode == 0, proc.stderr
    data = evaldata.load([merged])
    assert len(data["label"]) == len(evaldata.load([folder])["label"])
    sheet = merged.with_suffix(".md").read_text()
    assert f"{len(data['label']):,} labelled positions from 6 self-play games" in sheet
    assert "| 10 |" in sheet and "CPU time" in sheet and "exact=12" in sheet
    rows = [line for line in sheet.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert sum(int(r.split("|")[2].replace(",", "")) for r in rows) == len(data["label"])
    config = json.loads((folder / "config.json").read_text())
    assert config["exact"] == 12 and config["depths"] == [1, 2]
    proc = _script("datasheet", str(merged), str(folder))
    assert proc.returncode == 0 and "12 self-play games" not in proc.stdout  # 6 games, twice


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["generate", "X", "--shards", "2", "--exact", "30", "--probable", "40"], "exact"),
        (["generate", "X", "--shards", "2", "--depths", "0"], "depths"),
        (["generate", "X", "--shards", "2", "--sample", "2"], "sample"),
        (["generate", "X", "--shards", "2", "--label-min", "30", "--label-max", "20"], "label_min"),
        (["generate", "X", "--shards", "-1"], "shards"),
        (["datasheet", "NOPE"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    args = [str(tmp_path / a) if a in ("X", "NOPE") else a for a in args]
    proc = _script(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_a_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, something=np.arange(3))
    with pytest.raises(OutflankError, match="not a data file"):
        evaldata.load([bad])


def test_the_ray_backend_without_ray_is_a_clear_error(tmp_path: Path) -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        with pytest.raises(OutflankError, match="needs Ray"):
            evaldata.generate(tmp_path / "r", TINY, 1, backend="ray")
    else:  # a real (local) Ray: the same shards as the local backend
        made = evaldata.generate(tmp_path / "r", TINY, 2, backend="ray")
        evaldata.generate(tmp_path / "l", TINY, 2, workers=1)
        assert made == 2
        a, b = evaldata.load([tmp_path / "r"]), evaldata.load([tmp_path / "l"])
        assert all((a[name] == b[name]).all() for name in evaldata.COLUMNS)


@pytest.mark.parametrize(("sig", "group", "repeats"), INTERRUPTIONS)
def test_ctrl_c_or_sigterm_keeps_the_finished_shards(
    tmp_path: Path, sig: int, group: bool, repeats: int
) -> None:
    """Stopped by signals: the shards in progress are abandoned, the
    finished ones stay on disk, whole and loadable, exit 130, one line, no
    worker left; a rerun makes the rest. (Before: a KeyboardInterrupt
    traceback, and a hang with ten SIGINTs or a SIGTERM.)"""
    folder = tmp_path / "d"
    settings = [
        "--games-per-shard", "1", "--depths", "2", "--depth", "6", "--exact", "12",
        "--probable", "14", "--quiet",
    ]  # fmt: skip
    cmd = [sys.executable, str(ROOT / "scripts" / "eval_data.py"), "generate", str(folder)]

    def ready(_: str) -> bool:
        return len(evaldata.done_shards(folder)) >= 2

    result = interrupt_command(
        [*cmd, "--shards", "1000", *settings, "--workers", "2"], ready, sig, repeats, group=group
    )
    assert_clean_interrupt(result)
    done = evaldata.done_shards(folder)
    assert f"interrupted: made {len(done)} shards" in result.stderr
    assert 2 <= len(done) < 1000 and not list(folder.glob("*.tmp.npz"))
    data = evaldata.load([folder])
    assert sorted(set(data["game"].tolist())) == sorted(done)  # one game a shard
    shards = max(done) + 2  # the rest, holes included
    again = _script("generate", str(folder), "--shards", str(shards), *settings)
    assert again.returncode == 0, again.stderr
    assert evaldata.done_shards(folder) == set(range(shards))


def _rows(**columns: list[int]) -> dict[str, np.ndarray]:
    return {name: np.array(columns[name], dtype=dtype) for name, dtype in evaldata.COLUMNS.items()
            if name in columns}  # fmt: skip


def test_game_values_take_each_games_first_exact_label_from_the_movers_view() -> None:
    E, S = evaldata.EXACT, evaldata.SEARCH
    data = _rows(
        # game 3: black wins by 6; the first exact row (14 empties) is black's, +4
        # game 5: a draw, matched by ply parity; its first exact row is at ply 2
        # game 8: no exact row
        game=[3, 3, 3, 3, 3, 5, 5, 5, 5, 8],
        ply=[0, 1, 2, 3, 4, 0, 1, 2, 3, 0],
        empties=[16, 15, 14, 13, 12, 16, 15, 14, 13, 16],
        kind=[S, S, E, E, E, S, S, E, E, S],
        label=[100, -300, 400, -200, 900, 50, -50, -100, 700, 250],
        result=[6, -6, 6, -6, 6, 0, 0, 0, 0, 2],
    )  # fmt: skip
    values = evaldata.game_values(data)
    assert values[:9].tolist() == [400, -400, 400, -400, 400, -100, 100, -100, 100]
    assert np.isnan(values[9])
    # the order of the rows does not matter
    order = np.array([9, 4, 1, 7, 0, 3, 8, 2, 6, 5])
    shuffled = evaldata.game_values({k: v[order] for k, v in data.items()})
    assert np.array_equal(shuffled[1:], values[order][1:]) and np.isnan(shuffled[0])
    # a set without exact rows has no game values
    assert np.isnan(evaldata.game_values({k: v[:2] for k, v in _rows(
        game=[1, 1], ply=[0, 1], empties=[9, 8], kind=[S, S], label=[1, 2], result=[3, -3],
    ).items()})).all()  # fmt: skip


def test_game_values_of_real_games_are_their_exact_labels() -> None:
    cfg = replace(TINY, random_move=0.0, label_all=60, sample=1.0)
    shard = evaldata.make_shard(evaldata.asdict(cfg), 2)
    values = evaldata.game_values(shard)
    assert not np.isnan(values).any()
    for game in np.unique(shard["game"]):
        mine = shard["game"] == game
        exact = mine & (shard["kind"] == evaldata.EXACT)
        first = np.flatnonzero(exact)[np.argmax(shard["empties"][exact])]
        assert (np.abs(values[mine]) == abs(int(shard["label"][first]))).all()
        assert values[first] == shard["label"][first]


def test_centidiscs_turns_a_finished_games_score_into_discs() -> None:
    win = _core.SCORE_WIN
    assert [evaldata.centidiscs(v) for v in (win + 12, -win - 64, 350, -7, 0)] == [
        1200, -6400, 350, -7, 0,
    ]  # fmt: skip


def test_search_discs_reads_finished_games_and_evaluations_apart() -> None:
    """A score of SCORE_WIN or more is a game the search saw end (its final
    margin, whatever the scale); anything else is an evaluation."""
    win = _core.SCORE_WIN
    assert _core.search_discs(win + 12) == 12.0
    assert _core.search_discs(-win - 64, scale=1000) == -64.0
    assert _core.search_discs(350) == 3.5
    assert _core.search_discs(-350, scale=1000) == -0.35
    assert _core.search_discs(0) == 0.0
