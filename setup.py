"""Build the C11 extension module ``outflank._core``.

Compiler flags can be extended with the OUTFLANK_CFLAGS environment variable,
for example ``OUTFLANK_CFLAGS="-O1 -g -fsanitize=address,undefined"``.
"""

import os
import platform
import shlex
from glob import glob

from setuptools import Extension, setup

cflags = ["-std=c11", "-O3", "-Wall", "-Wextra", "-Wno-unused-function"]
if platform.machine().lower() in {"x86_64", "amd64"}:
    cflags.append("-mpopcnt")
cflags += shlex.split(os.environ.get("OUTFLANK_CFLAGS", ""))
ldflags = shlex.split(os.environ.get("OUTFLANK_LDFLAGS", ""))

core = Extension(
    "outflank._core",
    sources=sorted(glob("src/outflank/_core/*.c")),
    depends=sorted(glob("src/outflank/_core/*.h")),
    extra_compile_args=cflags,
    extra_link_args=ldflags,
)

setup(ext_modules=[core])
