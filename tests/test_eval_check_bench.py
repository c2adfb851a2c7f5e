"""bench/eval_check.py on a tiny scale: spread, slope, correlation and nodes of weight files."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from conftest import bench_module  # noqa: E402
from outflank import Board, evaldata, evalmodel  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"


def _bench():
    return bench_module("eval_check")


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 positions of 28-40 empties from random games, each game its own
    number (all of them are test games: game % 20 == 0), labelled by the
    packaged evaluation plus noise."""
    rng = random.Random(11)
    boards = []
    while len(boards) < 60:
        board, stop = Board(), rng.randint(28, 40)
        while board.empties > stop and board.legal_moves:
            board.play(rng.choice(board.legal_moves))
        if board.empties == stop and board.legal_moves:
            boards.append(board)
    player = np.array([b.player for b in boards], dtype=np.uint64)
    opponent = np.array([b.opponent for b in boards], dtype=np.uint64)
    value = np.round(evalmodel.scores(player, opponent) * 100)
    noise = np.random.default_rng(3).normal(0, 300, len(boards))
    n = len(boards)
    columns = {
        "player": player, "opponent": opponent, "label": np.clip(value + noise, -6400, 6400),
        "kind": np.zeros(n), "depth": np.full(n, 12), "empties": [b.empties for b in boards],
        "game": np.arange(n) * 20, "ply": [60 - b.empties for b in boards],
        "result": np.zeros(n), "move": np.full(n, -1),
    }  # fmt: skip
    path = tmp_path_factory.mktemp("check") / "positions.npz"
    np.savez(path, **{k: np.asarray(v).astype(evaldata.COLUMNS[k]) for k, v in columns.items()})
    return path


def _rows(table: str) -> dict[str, list[str]]:
    return {
        cells[0]: cells[1:]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith("| weights")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }


def test_a_narrower_file_spreads_less_ranks_alike_and_cuts_less(
    data_file: Path, tmp_path: Path
) -> None:
    """The packaged weights halved: half the spread and the slope, the same
    correlation (a scale does not rank differently), and more nodes to the
    same depth (its shallow searches clear the same margins less often)."""
    wf = evalmodel.read(WEIGHTS)
    half = tmp_path / "half.bin.gz"
    evalmodel.write(replace(wf, patterns=wf.patterns * 0.5, numeric=wf.numeric * 0.5), half)
    bench = _bench()
    table = bench.check(bench.parse_args(
        [str(data_file), "--weights", f"half={half}", "--empties", "28", "40",
         "--depth", "6", "--nodes", "20"]
    ))  # fmt: skip
    assert table.startswith("60 positions of 28-40 empties")
    rows = _rows(table)
    (sd_p, slope_p, corr_p, _, nodes_p, ratio_p), (sd_h, slope_h, corr_h, _, nodes_h, ratio_h) = (
        rows["packaged"],
        rows["half"],
    )
    assert ratio_p == "1.000" and float(ratio_h) > 1.0
    assert float(sd_h) == pytest.approx(float(sd_p) / 2, abs=0.02)
    assert float(slope_h) == pytest.approx(float(slope_p) / 2, abs=0.01)
    assert abs(float(corr_h) - float(corr_p)) <= 0.002
    assert int(nodes_h.replace(",", "")) > int(nodes_p.replace(",", ""))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--weights", "x"], "NAME=FILE"),
        (["--weights", f"packaged={WEIGHTS}"], "NAME=FILE"),
        (["--empties", "50", "60"], "no position with 50-60 empties"),
        (["--empties", "40", "30"], "--empties"),
        (["--count", "1"], "--count"),
        (["--weights", "a=/no/such/file"], "/no/such/file"),
        ([*["--weights", f"a={WEIGHTS}"] * 2], "a name of its own"),
    ],
)
def test_bad_input_ends_in_one_clear_line_and_exit_2(
    data_file: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        raise SystemExit(_bench().main([str(data_file), "--nodes", "0", *args]))
    assert stop.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's usage comes first
    assert message in last and "error" in last
