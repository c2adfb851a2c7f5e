"""The two builds of the native core: the generic one and the AVX2 one.

`outflank._core` re-exports the build this processor runs fastest; both are
compiled from the same sources and must agree exactly, move for move and
node for node.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import outflank
from outflank import _core, _core_generic
from outflank.obf import read_obf_file

try:
    from outflank import _core_avx2
except ImportError:  # not built on this platform
    _core_avx2 = None

needs_avx2 = pytest.mark.skipif(
    _core_avx2 is None or not _core_generic.avx2_usable(),
    reason="the AVX2 build needs an x86-64 processor with AVX2 and BMI2",
)


def _run_child(script: str, **env: str) -> str:
    """Run script in a new interpreter importing this same outflank."""
    package_root = str(Path(outflank.__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=path, **env),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_fastest_usable_build_is_chosen() -> None:
    usable = _core_avx2 is not None and _core_generic.avx2_usable()
    if os.environ.get("OUTFLANK_NO_AVX2", "0") not in ("", "0"):
        usable = False
    expected = "avx2" if usable else "generic"
    assert expected == _core.BUILD
    assert _core.native is (_core_avx2 if usable else _core_generic)
    assert _core.Searcher is _core.native.Searcher


def test_no_avx2_forces_the_generic_build() -> None:
    script = "from outflank import _core; print(_core.BUILD)"
    assert _run_child(script, OUTFLANK_NO_AVX2="1") == "generic"


@needs_avx2
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 63))
def test_moves_and_flips_agree(a: int, b: int, square: int) -> None:
    player, opponent = a & ~b, b & ~a
    assert _core_avx2.moves(player, opponent) == _core_generic.moves(player, opponent)
    assert _core_avx2.moves(opponent, player) == _core_generic.moves(opponent, player)
    assert _core_avx2.flips(player, opponent, square) == _core_generic.flips(
        player, opponent, square
    )


@needs_avx2
def test_perft_agrees() -> None:
    black, white = 0x0000000810000000, 0x0000001008000000
    assert _core_avx2.perft(black, white, 9) == _core_generic.perft(black, white, 9) == 3005288


@needs_avx2
def test_a_solve_searches_the_same_tree(ffo_dir: Path) -> None:
    # FFO #1-#3 (14 empties): same score, move and node count in both builds.
    ffo = ffo_dir / "fforum-1-19.obf"
    script = (
        "from outflank.engine import Engine\n"
        "from outflank.obf import read_obf_file\n"
        f"for e in read_obf_file({str(ffo)!r})[:3]:\n"
        "    r = Engine(tt_mb=16).solve(e.board)\n"
        "    print(r.score, r.best_move, r.nodes)\n"
    )
    generic = _run_child(script, OUTFLANK_NO_AVX2="1")
    avx2 = _run_child(script, OUTFLANK_NO_AVX2="0")
    assert generic == avx2
    listed = [e.best_score for e in read_obf_file(ffo)[:3]]
    assert [float(line.split()[0]) for line in avx2.splitlines()] == listed


@pytest.mark.parametrize("module", ["_core_generic", "_core_avx2"])
def test_builds_export_only_their_init_function(module: str) -> None:
    """setup.py hides the core's own symbols (-fvisibility=hidden), so calls
    between its files are direct, not through the shared object's PLT."""
    mod = {"_core_generic": _core_generic, "_core_avx2": _core_avx2}[module]
    if mod is None:
        pytest.skip(f"{module} is not built here")
    if shutil.which("nm") is None:
        pytest.skip("needs nm (binutils)")
    out = subprocess.run(
        ["nm", "-D", "--defined-only", mod.__file__], capture_output=True, text=True, check=True
    ).stdout
    functions = [line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]]
    assert functions == [f"PyInit_{module}"]


def test_a_selective_midgame_search_is_the_same_tree() -> None:
    # probable cut-offs must not depend on the build either
    script = (
        "from outflank.board import Board\n"
        "from outflank.engine import Engine\n"
        "b = Board.from_transcript('f5d6c3d3c4f4f6f3e6e7f7c5')\n"
        "r = Engine(tt_mb=16, selective=1.5).search(b, depth=9)\n"
        "print(r.score, r.best_move, r.nodes)\n"
    )
    assert _run_child(script, OUTFLANK_NO_AVX2="1") == _run_child(script, OUTFLANK_NO_AVX2="0")
