"""Load the ``default`` evaluator's fitted weights into the C core.

The weights live in ``outflank/data/eval.bin.gz`` (written by
``scripts/train_eval.py``; layout in ``_core/eval_default.h``). The package
loads them once at import; without the file the evaluator keeps its
hand-set weights (``_core.eval_layout()["fitted"]`` is then 0).
"""

from __future__ import annotations

import gzip
from importlib import resources

from outflank import _core

WEIGHT_FILE = "eval.bin.gz"


def load_default_weights() -> bool:
    """Load the packaged weight file; True if it was found and loaded."""
    try:
        blob = resources.files("outflank").joinpath("data", WEIGHT_FILE).read_bytes()
    except FileNotFoundError:
        return False
    _core.eval_load(gzip.decompress(blob))
    return True
