"""bench/move_loss.py on a tiny scale: solved positions, losses, paired differences."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"


def _bench():
    spec = importlib.util.spec_from_file_location("move_loss", ROOT / "bench" / "move_loss.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_paired_differences() -> None:
    paired = _bench().paired
    assert paired([1, 2, 3], [1, 2, 3]) == (0.0, 0.0, 0)
    mean, half, differ = paired([2, 0, 4, 0], [0, 0, 0, 0])
    assert mean == 1.5 and differ == 2 and 1.5 < half < 2.5


def test_run_compares_weight_files_paired(tmp_path: Path) -> None:
    bench = _bench()
    obf = tmp_path / "tiny.obf"
    obf.write_text("\n".join(bench.make(3, 8, 10, 7)) + "\n")
    table = bench.run(obf, {"packaged": WEIGHTS, "b": WEIGHTS}, 2, None, 0.0)
    assert "| all | 3 |" in table
    assert "packaged, depth 2" in table and "b, depth 2" in table  # a file may be "packaged"
    # the same weights twice: the same choices, no difference
    assert "| depth 2 | b - packaged | +0.00 +/- 0.00 | 0 |" in table
