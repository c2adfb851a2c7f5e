"""The builds of the native core: generic, AVX2 and AVX-512.

`outflank._core` re-exports the build this processor runs fastest; all are
compiled from the same sources and must agree exactly, move for move and
node for node.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_child
from outflank import _core, _core_generic
from outflank.obf import read_obf_file


def _library(name: str) -> str | None:
    """The file of a build of the core, if it is compiled here."""
    spec = importlib.util.find_spec(f"outflank.{name}")
    return spec.origin if spec is not None else None


def _built(name: str, usable: bool) -> ModuleType | None:
    """A build, imported, when it is usable (compiled here and run by this
    processor): importing a build whose instructions the processor lacks may
    execute one at once (an illegal instruction, not an ImportError)."""
    return importlib.import_module(f"outflank.{name}") if usable else None


AVX2_USABLE = _library("_core_avx2") is not None and _core_generic.avx2_usable()
AVX512_USABLE = (
    _library("_core_avx512") is not None and AVX2_USABLE and _core_generic.avx512_usable()
)
_core_avx2 = _built("_core_avx2", AVX2_USABLE)
_core_avx512 = _built("_core_avx512", AVX512_USABLE)

needs_avx2 = pytest.mark.skipif(
    not AVX2_USABLE, reason="the AVX2 build needs an x86-64 processor with AVX2 and BMI2"
)
needs_avx512 = pytest.mark.skipif(
    not AVX512_USABLE,
    reason="the AVX-512 build needs AVX512F, AVX512VL, AVX512CD and AVX512VPOPCNTDQ",
)
# The vector builds this processor runs, each with the environment that
# makes outflank._core choose it in a child interpreter.
VECTOR_BUILDS = [
    pytest.param(_core_avx2, {"OUTFLANK_NO_AVX512": "1"}, marks=needs_avx2, id="avx2"),
    pytest.param(_core_avx512, {}, marks=needs_avx512, id="avx512"),
]


def test_the_fastest_usable_build_is_chosen() -> None:
    expected, module = "generic", _core_generic
    if AVX2_USABLE and os.environ.get("OUTFLANK_NO_AVX2", "0") in ("", "0"):
        expected, module = "avx2", _core_avx2
        if AVX512_USABLE and os.environ.get("OUTFLANK_NO_AVX512", "0") in ("", "0"):
            expected, module = "avx512", _core_avx512
    assert expected == _core.BUILD
    assert _core.native is module
    assert _core.Searcher is _core.native.Searcher


def test_no_avx2_forces_the_generic_build() -> None:
    script = "from outflank import _core; print(_core.BUILD)"
    assert run_child(script, OUTFLANK_NO_AVX2="1") == "generic"
    assert run_child(script, OUTFLANK_NO_AVX2="1", OUTFLANK_NO_AVX512="0") == "generic"


@needs_avx2
def test_no_avx512_stops_at_the_avx2_build() -> None:
    script = "from outflank import _core; print(_core.BUILD)"
    assert run_child(script, OUTFLANK_NO_AVX512="1") == "avx2"


@pytest.mark.parametrize(("build", "env"), VECTOR_BUILDS)
@settings(max_examples=300, deadline=None)
@given(a=st.integers(0, 2**64 - 1), b=st.integers(0, 2**64 - 1), square=st.integers(0, 63))
def test_moves_and_flips_agree(
    build: ModuleType, env: dict[str, str], a: int, b: int, square: int
) -> None:
    player, opponent = a & ~b, b & ~a
    assert build.moves(player, opponent) == _core_generic.moves(player, opponent)
    assert build.moves(opponent, player) == _core_generic.moves(opponent, player)
    assert build.flips(player, opponent, square) == _core_generic.flips(player, opponent, square)
    assert build.flips(opponent, player, square) == _core_generic.flips(opponent, player, square)


@pytest.mark.parametrize(("build", "env"), VECTOR_BUILDS)
def test_flips_agree_on_every_square_of_played_positions(
    build: ModuleType, env: dict[str, str]
) -> None:
    # Positions of real play (random games), every square, both sides: the
    # cases random bitboards rarely reach (long runs closed by a disc).
    rng = random.Random(7)
    for _ in range(40):
        player, opponent = 0x0000000810000000, 0x0000001008000000
        while True:
            moves = _core_generic.moves(player, opponent)
            if not moves:
                player, opponent = opponent, player
                if not _core_generic.moves(player, opponent):
                    break
                continue
            for square in range(64):
                for p, o in ((player, opponent), (opponent, player)):
                    assert build.flips(p, o, square) == _core_generic.flips(p, o, square)
            squares = [sq for sq in range(64) if moves >> sq & 1]
            square = rng.choice(squares)
            flipped = _core_generic.flips(player, opponent, square)
            player, opponent = opponent & ~flipped, player | flipped | 1 << square


@pytest.mark.parametrize(("build", "env"), VECTOR_BUILDS)
def test_perft_agrees(build: ModuleType, env: dict[str, str]) -> None:
    black, white = 0x0000000810000000, 0x0000001008000000
    assert build.perft(black, white, 9) == _core_generic.perft(black, white, 9) == 3005288


@pytest.mark.parametrize(("build", "env"), VECTOR_BUILDS)
def test_a_solve_searches_the_same_tree(
    build: ModuleType, env: dict[str, str], ffo_dir: Path
) -> None:
    # FFO #1-#3 (14 empties): same score, move and node count in every build.
    ffo = ffo_dir / "fforum-1-19.obf"
    script = (
        "from outflank.engine import Engine\n"
        "from outflank.obf import read_obf_file\n"
        f"for e in read_obf_file({str(ffo)!r})[:3]:\n"
        "    r = Engine(tt_mb=16, threads=1).solve(e.board)\n"
        "    print(r.score, r.best_move, r.nodes)\n"
    )
    generic = run_child(script, OUTFLANK_NO_AVX2="1")
    vector = run_child(script, OUTFLANK_NO_AVX2="0", **env)
    assert generic == vector
    listed = [e.best_score for e in read_obf_file(ffo)[:3]]
    assert [float(line.split()[0]) for line in vector.splitlines()] == listed


@pytest.mark.parametrize("module", ["_core_generic", "_core_avx2", "_core_avx512"])
def test_builds_export_only_their_init_function(module: str) -> None:
    """setup.py hides the core's own symbols (-fvisibility=hidden), so calls
    between its files are direct, not through the shared object's PLT."""
    library = _library(module)  # read, not imported: this processor may not run it
    if library is None:
        pytest.skip(f"{module} is not built here")
    if shutil.which("nm") is None:
        pytest.skip("needs nm (binutils)")
    out = subprocess.run(
        ["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True
    ).stdout
    functions = [line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]]
    assert functions == [f"PyInit_{module}"]


@pytest.mark.parametrize(("build", "env"), VECTOR_BUILDS)
def test_a_selective_midgame_search_is_the_same_tree(
    build: ModuleType, env: dict[str, str]
) -> None:
    # probable cut-offs must not depend on the build either
    script = (
        "from outflank.board import Board\n"
        "from outflank.engine import Engine\n"
        "b = Board.from_transcript('f5d6c3d3c4f4f6f3e6e7f7c5')\n"
        "r = Engine(tt_mb=16, selective=1.5, threads=1).search(b, depth=9)\n"
        "print(r.score, r.best_move, r.nodes)\n"
    )
    assert run_child(script, OUTFLANK_NO_AVX2="1") == run_child(script, **env)
