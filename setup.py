"""Build the C11 core of outflank, once per instruction set.

``outflank._core_generic`` runs on any processor; on x86-64 the same sources
are also built as ``outflank._core_avx2`` with AVX2 and BMI2 (vectorised
move generation and flips) and as ``outflank._core_avx512``, which adds
AVX-512's mask registers and leading-zero counts on 256-bit vectors (a
faster flip) and per-lane popcounts on 512-bit ones (move keys).
``outflank/_core.py`` picks the fastest one the processor runs.

Compiler flags can be extended with the OUTFLANK_CFLAGS environment variable,
for example ``OUTFLANK_CFLAGS="-O1 -g -fsanitize=address,undefined"``.
"""

import os
import platform
import shlex
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# -fvisibility=hidden: only the module's init function is exported, so calls
# between the core's own files are direct rather than through the PLT (and
# the compiler may inline them): 4 % less CPU time on FFO #41-#49.
# -pthread: a search may run on several threads (_core/parallel.c).
cflags = ["-std=c11", "-O3", "-Wall", "-Wextra", "-Wno-unused-function"]
cflags += ["-fvisibility=hidden", "-pthread"]
x86_64 = platform.machine().lower() in {"x86_64", "amd64"}
if x86_64:
    cflags.append("-mpopcnt")
cflags += shlex.split(os.environ.get("OUTFLANK_CFLAGS", ""))
ldflags = ["-pthread", *shlex.split(os.environ.get("OUTFLANK_LDFLAGS", ""))]


def core(name: str, extra: list[str]) -> Extension:
    return Extension(
        f"outflank.{name}",
        sources=sorted(glob("src/outflank/_core/*.c")),
        depends=sorted(glob("src/outflank/_core/*.h")),
        define_macros=[("CORE_MODULE", name)],
        extra_compile_args=cflags + extra,
        extra_link_args=ldflags,
    )


class BuildEachApart(build_ext):
    """Compile each module's objects in its own directory (same sources)."""

    def build_extension(self, ext: Extension) -> None:
        base = self.build_temp
        self.build_temp = os.path.join(base, ext.name)
        try:
            super().build_extension(ext)
        finally:
            self.build_temp = base


AVX2 = ["-mavx2", "-mbmi", "-mbmi2"]
modules = [core("_core_generic", [])]
if x86_64:
    modules.append(core("_core_avx2", AVX2))
    modules.append(
        core("_core_avx512", [*AVX2, "-mavx512f", "-mavx512vl", "-mavx512cd", "-mavx512vpopcntdq"])
    )

setup(ext_modules=modules, cmdclass={"build_ext": BuildEachApart})
