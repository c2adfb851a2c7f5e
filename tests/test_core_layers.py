"""The C core's files call each other in one direction only.

Each source file of ``src/outflank/_core`` is compiled on its own and its
object file read with ``nm``: the functions and tables it defines and those
it uses. A file uses another when it uses something the other defines; the
test fails on a circle of such uses (the parallel search's callbacks go
through function pointers, which ``nm`` does not see as uses, by design:
see the top of parallel.c). The order is docs/development.md's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import ROOT

CORE = ROOT / "src" / "outflank" / "_core"
#: The core's files, each above only those before it (docs/development.md).
ORDER = [
    "clock", "bitboard", "memory", "stability", "pybits", "tt", "eval_default", "eval", "train",
    "parallel", "search", "endgame", "eval_bindings", "searcher", "module",
]  # fmt: skip

needs_tools = pytest.mark.skipif(
    not (shutil.which("gcc") and shutil.which("nm")) or sys.platform != "linux",
    reason="needs gcc and nm (Linux)",
)


def uses_between_files(out: Path) -> dict[str, set[str]]:
    """file -> the files whose symbols it uses."""
    include = sysconfig.get_paths()["include"]
    defined: dict[str, set[str]] = {}
    used: dict[str, set[str]] = {}
    for source in sorted(CORE.glob("*.c")):
        obj = out / f"{source.stem}.o"
        subprocess.run(
            ["gcc", "-std=c11", "-O0", "-fPIC", "-pthread", f"-I{include}", "-c", str(source),
             "-o", str(obj)],
            check=True,
        )  # fmt: skip
        names = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True)
        defined[source.stem], used[source.stem] = set(), set()
        for line in names.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRC":
                defined[source.stem].add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                used[source.stem].add(parts[1])
    owner = {symbol: f for f, symbols in defined.items() for symbol in symbols}
    return {f: {owner[s] for s in used[f] if s in owner} - {f} for f in defined}


def upward(uses: dict[str, set[str]], order: list[str]) -> list[tuple[str, str]]:
    """The uses of a file later in ``order``: a circle always has one."""
    return sorted((f, g) for f, targets in uses.items() for g in targets
                  if order.index(g) > order.index(f))  # fmt: skip


@needs_tools
def test_no_file_of_the_core_calls_a_file_above_it(tmp_path: Path) -> None:
    uses = uses_between_files(tmp_path)
    assert set(uses) == set(ORDER), "a new file of the core: place it in ORDER and the docs"
    assert upward(uses, ORDER) == [], "a call to a file above it"
    assert "search" in uses["endgame"] and "endgame" in uses["searcher"]  # read, not empty


def test_the_check_finds_the_circles_of_before() -> None:
    """The core before its layering: search.c called the solver's table
    set-up and eval.c and eval_default.c called each other."""
    before = {f: set() for f in ORDER} | {
        "search": {"endgame", "eval"}, "endgame": {"search"},
        "eval": {"eval_default"}, "eval_default": {"eval"},
    }  # fmt: skip
    assert upward(before, ORDER) == [("eval_default", "eval"), ("search", "endgame")]
