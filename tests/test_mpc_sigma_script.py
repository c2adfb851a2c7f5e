"""scripts/mpc_sigma.py: the probable cut-off's error table, measured with
the packaged weights or with a weight file given on the command line."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from outflank import evalmodel

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "scripts/mpc_sigma.py", *args],
        capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
    )  # fmt: skip


def _sigma_table(*args: str) -> list[int]:
    run = _run("--positions", "6", "--depth", "5", *args)
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("MPC_SIGMA_TABLE"))
    return [int(v) for v in line.split(" ", 1)[1].split(",")]


def test_weights_reach_the_workers(tmp_path: Path) -> None:
    packaged = _sigma_table()
    assert len(packaged) == 3 and all(v > 0 for v in packaged)
    assert _sigma_table("--weights", str(PACKAGED)) == packaged
    # the same weights doubled: the scores double, and the errors about so
    # (the self-play games that give the positions go otherwise too)
    weights = evalmodel.read(PACKAGED)
    doubled = dataclasses.replace(
        weights, patterns=weights.patterns * 2, numeric=weights.numeric * 2
    )
    evalmodel.write(doubled, tmp_path / "doubled.bin.gz")
    scaled = _sigma_table("--weights", str(tmp_path / "doubled.bin.gz"))
    assert 1.5 * sum(packaged) <= sum(scaled) <= 3 * sum(packaged)


def test_a_bad_weight_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"not a weight file")
    for path in (bad, tmp_path / "missing.bin"):
        run = _run("--weights", str(path), timeout=60)
        assert run.returncode == 2
        assert "--weights" in run.stderr and "Traceback" not in run.stderr
