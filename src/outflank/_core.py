"""The native core, in the build this processor runs fastest.

The C sources in ``_core/`` are compiled up to three times (see setup.py):
``_core_generic`` for any processor and, on x86-64, ``_core_avx2`` with
AVX2 and BMI2 (move generation and flips on four directions at once, about
30 % faster endgame solving than generic) and ``_core_avx512``, which adds
AVX-512's mask registers, per-lane leading-zero counts and popcounts (a
flip of twice the throughput and the move keys of eight children at once,
about 18 % less solving time than AVX2). This module imports
the fastest build the processor supports and re-exports its names, so the
rest of the package writes ``from outflank import _core``.
``OUTFLANK_NO_AVX512=1`` stops at the AVX2 build and ``OUTFLANK_NO_AVX2=1``
forces the generic one (to test them or compare); ``_core.BUILD`` names the
one in use, and ``_core.PATTERN_GATHER`` how the evaluation reads a board's
patterns on this processor (``"vbmi"``, ``"pext"`` or ``"portable"``).
"""

from __future__ import annotations

import os
from types import ModuleType

from outflank import _core_generic


def _refused(variable: str) -> bool:
    return os.environ.get(variable, "0") not in ("", "0")


def _choose() -> ModuleType:
    if _refused("OUTFLANK_NO_AVX2") or not _core_generic.avx2_usable():
        return _core_generic
    if not _refused("OUTFLANK_NO_AVX512") and _core_generic.avx512_usable():
        try:
            from outflank import _core_avx512
        except ImportError:  # built without it
            pass
        else:
            return _core_avx512
    try:
        from outflank import _core_avx2
    except ImportError:  # built without it (not x86-64)
        return _core_generic
    return _core_avx2


native = _choose()
globals().update({k: v for k, v in vars(native).items() if not k.startswith("__")})


def finished_discs(score: int) -> int:
    """The final disc difference of a game that a midgame search saw end:
    its score is ``SCORE_WIN`` plus the margin (minus for a loss), 0 for a
    draw."""
    win = native.SCORE_WIN
    return score - win if score >= win else score + win if score <= -win else 0


def search_discs(score: int, scale: float = 100) -> float:
    """A midgame search's score in discs: a game the search saw end is its
    final margin (:func:`finished_discs`), any other score an evaluation in
    1/``scale`` disc."""
    if abs(score) >= native.SCORE_WIN:
        return float(finished_discs(score))
    return score / scale
