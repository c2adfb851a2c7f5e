"""Deeper labels for made data: a tiny real folder relabelled, resumed, refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from outflank import _core, evaldata, evalrelabel  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# depth-1 labels from 13 empties on, exact below
TINY = evaldata.DataConfig(
    seed=11, games_per_shard=2, opening_min=2, opening_max=8, depths=(1, 2), random_move=0.2,
    exact=12, probable=12, depth=1, selective=0.0, label_all=60, sample=1.0,
)  # fmt: skip
LOW, HIGH, DEPTH = 30, 40, 4


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("made") / "d"
    assert evaldata.generate(folder, TINY, 3, workers=1) == 3
    return folder


def _columns(path: Path) -> dict[str, np.ndarray]:
    return evaldata.load([path])


def test_the_chosen_rows_get_deeper_searches_and_the_rest_stays(made: Path, tmp_path: Path) -> None:
    target = tmp_path / "r"
    assert evalrelabel.relabel(made, target, depth=DEPTH, empties=(LOW, HIGH), workers=1) == (3, 0)
    old, new = _columns(made), _columns(target)
    assert len(new["label"]) == len(old["label"])
    for name in ("player", "opponent", "empties", "game", "ply", "result"):
        assert (new[name] == old[name]).all(), name
    chosen = (old["empties"] >= LOW) & (old["empties"] <= HIGH)
    assert chosen.sum() > 20 and (~chosen).sum() > 20
    for name in ("label", "kind", "depth", "move"):
        assert (new[name][~chosen] == old[name][~chosen]).all(), name
    assert (new["depth"][chosen] == DEPTH).all() and (new["kind"][chosen] == evaldata.SEARCH).all()
    assert (new["label"][chosen] != old["label"][chosen]).any()
    # each game's first search (its fewest empties, after the table is
    # cleared) is what a fresh search of that depth finds; the others saw
    # the table of the game's later positions
    searcher = _core.Searcher(8)
    for game in np.unique(new["game"][chosen])[:4]:
        rows = np.flatnonzero(chosen & (new["game"] == game))
        first = rows[np.argmin(new["empties"][rows])]
        searcher.clear()
        r = searcher.search(
            int(new["player"][first]), int(new["opponent"][first]),
            mode=evaldata.MODE_MID, depth=DEPTH, selective=100,
        )  # fmt: skip
        assert new["label"][first] == evaldata.centidiscs(r["score"])
        assert new["move"][first] == r["move"]
    for i in np.flatnonzero(chosen):
        legal = _core.moves(int(new["player"][i]), int(new["opponent"][i]))
        assert new["move"][i] in _squares(legal)
    record = json.loads((target / evalrelabel.RECORD_FILE).read_text())
    assert record["depth"] == DEPTH and len(record["relabelled"]) == 3
    assert (target / evaldata.CONFIG_FILE).read_text() == (made / evaldata.CONFIG_FILE).read_text()


def _squares(moves: int) -> list[int]:
    return [sq for sq in range(64) if moves >> sq & 1]


def test_a_part_then_the_rest_same_as_all_at_once(made: Path, tmp_path: Path) -> None:
    part = tmp_path / "part"
    assert evalrelabel.relabel(made, part, depth=2, empties=(LOW, HIGH), shards=1, workers=1) == (
        1,
        0,
    )
    record = json.loads((part / evalrelabel.RECORD_FILE).read_text())
    assert len(record["relabelled"]) == 1
    assert len(list(part.glob("shard-*.npz"))) == 3  # the other two copied as they are
    assert evalrelabel.relabel(made, part, depth=2, empties=(LOW, HIGH), workers=1) == (2, 0)
    whole = tmp_path / "whole"
    assert evalrelabel.relabel(made, whole, depth=2, empties=(LOW, HIGH), workers=2) == (3, 0)
    a, b = _columns(part), _columns(whole)
    assert all((a[name] == b[name]).all() for name in evaldata.COLUMNS)
    # a time limit of 0 starts nothing; the copy is the old data
    idle = tmp_path / "idle"
    assert evalrelabel.relabel(made, idle, depth=2, workers=1, time_limit=0) == (0, 3)
    assert (_columns(idle)["label"] == _columns(made)["label"]).all()


def test_bad_requests_are_refused_and_lose_nothing(made: Path, tmp_path: Path) -> None:
    target = tmp_path / "r"
    evalrelabel.relabel(made, target, depth=2, empties=(LOW, HIGH), shards=1, workers=1)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(OutflankError, match="other settings"):
        evalrelabel.relabel(made, target, depth=3, empties=(LOW, HIGH), workers=1)
    with pytest.raises(OutflankError, match="another folder"):
        evalrelabel.relabel(made, made, depth=2)
    for kwargs, message in (
        ({"depth": 0}, "depth"),
        ({"depth": 2, "selective": 0}, "selective"),
        ({"depth": 2, "empties": (40, 30)}, "empties"),
        ({"depth": 2, "shards": -1}, "shards"),
    ):
        with pytest.raises(OutflankError, match=message):
            evalrelabel.relabel(made, target, **kwargs)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    with pytest.raises(OutflankError, match="not empty"):
        evalrelabel.relabel(made, stranger, depth=2)
    with pytest.raises(OutflankError, match="no shard folder"):
        evalrelabel.relabel(tmp_path / "nope", tmp_path / "new", depth=2)


def test_the_script_relabels_and_says_what_is_left(made: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))

    def script(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "scripts/eval_data.py", "relabel", str(made), str(tmp_path / "r"),
             *args, "--workers", "1", "--quiet"],
            capture_output=True, text=True, env=env, timeout=300, cwd=ROOT,
        )  # fmt: skip

    proc = script("--depth", "2", "--time-limit", "0")
    assert proc.returncode == 3 and "3 left" in proc.stdout, proc.stderr
    proc = script("--depth", "2")
    assert proc.returncode == 0 and "relabelled 3 shards" in proc.stdout, proc.stderr
    proc = script("--depth", "5")
    assert proc.returncode == 2 and "other settings" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
