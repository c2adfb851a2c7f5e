"""The native core, in the build this processor runs fastest.

The C sources in ``_core/`` are compiled twice (see setup.py):
``_core_generic`` for any processor and, on x86-64, ``_core_avx2`` with
AVX2 and BMI2 (move generation and flips on four directions at once, about
30 % faster endgame solving). This module imports the AVX2 build when the
processor supports it and re-exports its names, so the rest of the package
writes ``from outflank import _core``. ``OUTFLANK_NO_AVX2=1`` forces the
generic build (to test it or compare the two); ``_core.BUILD`` names the
one in use.
"""

from __future__ import annotations

import os
from types import ModuleType

from outflank import _core_generic


def _choose() -> ModuleType:
    if os.environ.get("OUTFLANK_NO_AVX2", "0") not in ("", "0") or not _core_generic.avx2_usable():
        return _core_generic
    try:
        from outflank import _core_avx2
    except ImportError:  # built without it (not x86-64)
        return _core_generic
    return _core_avx2


native = _choose()
globals().update({k: v for k, v in vars(native).items() if not k.startswith("__")})
