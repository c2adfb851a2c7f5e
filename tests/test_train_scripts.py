"""The evaluator's training pipeline end to end, on a tiny scale (real
self-play, exact relabelling and fit, each as the script a user runs)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parent.parent


def _proc(*args: str) -> subprocess.CompletedProcess[str]:
    """Run a Python script of the project in a child process, whatever it exits with."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT
    )


def _run(*args: str) -> str:
    proc = _proc(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_self_play_relabel_fit_and_load(tmp_path: Path) -> None:
    games, exact, fitted = tmp_path / "games.npz", tmp_path / "exact.npz", tmp_path / "w.bin.gz"
    _run(
        "scripts/train_eval.py",
        "--games",
        "24",
        "--workers",
        "1",
        "--cache",
        str(games),
        "--dry-run",
        "--no-baseline",
    )
    data = np.load(games)
    assert len(data["label"]) > 24 * 30
    out = _run(
        "scripts/relabel_exact.py",
        str(games),
        str(exact),
        "--min",
        "15",
        "--max",
        "16",
        "--workers",
        "1",
    )
    assert "15 empties" in out and "16 empties" in out
    relabelled = np.load(exact)
    empties = 64 - np.bitwise_count(relabelled["P"] | relabelled["O"])
    # at 15-16 empties the labels are now the solver's; elsewhere unchanged
    outside = (empties < 15) | (empties > 16)
    assert (relabelled["label"][outside] == data["label"][outside]).all()
    sys.path.insert(0, str(ROOT / "src"))
    from outflank import _core

    for i in np.flatnonzero(~outside)[:20]:
        assert relabelled["label"][i] == _core.train_solve(int(data["P"][i]), int(data["O"][i]))[0]
    _run("scripts/train_eval.py", "--cache", str(exact), "--no-baseline", "--out", str(fitted))
    blob = gzip.decompress(fitted.read_bytes())
    assert blob.startswith(b"OFEVAL2\0")
    # loading happens in a child process: this one keeps the packaged weights
    check = (
        "import gzip, sys; from outflank import _core;"
        f"_core.eval_load(gzip.decompress(open({str(fitted)!r}, 'rb').read()));"
        "print(_core.eval_layout()['fitted'],"
        " _core.eval_default(0x0000000810000000, 0x0000001008000000))"
    )
    fitted_flag, score = _run("-c", check).split()
    assert fitted_flag == "1" and abs(int(score)) < 6400


def test_refit_changes_only_the_named_anchors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games, base, refit = tmp_path / "games.npz", tmp_path / "base.bin.gz", tmp_path / "r.bin.gz"
    _run(
        "scripts/train_eval.py", "--games", "16", "--workers", "1", "--cache", str(games),
        "--no-baseline", "--out", str(base),
    )  # fmt: skip
    refit.write_bytes(base.read_bytes())
    _run(
        "scripts/train_eval.py", "--cache", str(games), "--no-baseline", "--damp", "30",
        "--refit", "40,45", "--out", str(refit),
    )  # fmt: skip
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import train_eval

    before, after = train_eval.read_weights(base), train_eval.read_weights(refit)
    refitted = [train_eval.ANCHORS.index(a) for a in (40, 45)]
    kept = [a for a in range(len(train_eval.ANCHORS)) if a not in refitted]
    assert (after[kept] == before[kept]).all()
    assert not (after[refitted] == before[refitted]).all()
    # an anchor the evaluator does not have is refused, and the file is left alone
    proc = _proc(
        "scripts/train_eval.py", "--cache", str(games), "--refit", "7", "--out", str(refit)
    )
    assert proc.returncode == 2 and "--refit anchors must be among" in proc.stderr
    assert (train_eval.read_weights(refit) == after).all()
    with pytest.raises(ValueError, match="not an evaluator weight file"):
        train_eval.read_weights(games)
