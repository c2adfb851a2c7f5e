"""Weight files of the ``default`` evaluator: read, write, load into the core.

A weight file (``outflank/data/eval.bin.gz``, gzip-compressed; layout in
``_core/eval_default.h``) holds the evaluator's pattern types (square masks
in the a1 corner's orientation), its anchor phases (numbers of empties) and,
per anchor, one weight per canonical pattern configuration (then, for a
model with count tables, one per value of each side's legal moves and
potential mobility) plus the weights of the numeric features and a
constant, all in 1/100 disc. The core interpolates linearly between
anchors. Version 2 files (the first fitted evaluator) name no pattern
types: they imply :data:`LEGACY_MASKS`; version 4 files say whether the
model has count tables (version 3: it has none).

The core holds up to four models at once (slots 0-3); the engine's
``default`` evaluator scores with the active one (slot 0, loaded at
import). :func:`load_into` and :func:`use` let a benchmark compare two
weight files in one process; :func:`scores` evaluates many positions with
any loaded slot.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from outflank import _core
from outflank.errors import OutflankError

__all__ = [
    "LEGACY_MASKS",
    "NUMERIC",
    "WeightFile",
    "load_into",
    "read",
    "scores",
    "use",
    "write",
]

MAGIC2 = b"OFEVAL2\0"
MAGIC3 = b"OFEVAL3\0"
MAGIC4 = b"OFEVAL4\0"
#: The numeric features, in the file's order (then the constant).
NUMERIC = ("mobility", "potential mobility", "stable discs", "discs", "parity", "corners")
#: The pattern types a version-2 file implies (eval_default.h).
LEGACY_MASKS = (
    0x0000000000070707,  # corner 3x3
    0x00000000000042FF,  # edge + 2 X
    0x0000000000001F1F,  # corner 2x5
    0x000000000000FF00,  # row 2
    0x0000000000FF0000,  # row 3
    0x00000000FF000000,  # row 4
    0x8040201008040201,  # diagonal 8
    0x0080402010080402,  # diagonal 7
    0x0000804020100804,  # diagonal 6
    0x0000008040201008,  # diagonal 5
    0x0000000080402010,  # diagonal 4
)


@dataclass
class WeightFile:
    """The contents of a weight file, weights in discs (floats)."""

    masks: tuple[int, ...]
    anchors: tuple[int, ...]
    patterns: np.ndarray  # [anchors, pattern weights (then the count tables')]
    numeric: np.ndarray  # [anchors, len(NUMERIC) + 1]: numeric weights, then the constant
    tables: bool = False  # the model has count tables (their weights end each patterns row)

    def scaled(self, factor: float, low: int = 0, high: int = 60) -> WeightFile:
        """These weights with every anchor of ``low`` to ``high`` empties
        multiplied by ``factor`` (its values, and so their spread, times it)."""
        anchors = np.array(self.anchors)
        rows = (anchors >= low) & (anchors <= high)
        patterns, numeric = self.patterns.copy(), self.numeric.copy()
        patterns[rows] *= factor
        numeric[rows] *= factor
        return replace(self, patterns=patterns, numeric=numeric)

    def to_bytes(self) -> bytes:
        """The uncompressed file (version 3, or 4 with count tables),
        weights rounded to 1/100 disc."""
        a = len(self.anchors)
        if self.patterns.shape[0] != a or self.numeric.shape != (a, len(NUMERIC) + 1):
            raise OutflankError("weight arrays do not match the anchors")
        head = (MAGIC4 if self.tables else MAGIC3) + np.array([len(self.masks)], "<i4").tobytes()
        head += np.array(self.masks, dtype="<u8").tobytes()
        if self.tables:
            head += np.array([1], "<i4").tobytes()
        head += np.array([a, self.patterns.shape[1], len(NUMERIC)], "<i4").tobytes()
        pat = np.clip(np.rint(self.patterns * 100), -32000, 32000).astype("<i2")
        num = np.clip(np.rint(self.numeric * 100), -(2**31), 2**31 - 1).astype("<i4")
        return head + np.array(self.anchors, "<i4").tobytes() + pat.tobytes() + num.tobytes()


def parse(blob: bytes) -> WeightFile:
    """A weight file's uncompressed bytes, read (version 2, 3 or 4)."""
    tables = False
    try:
        if blob.startswith(MAGIC2):
            masks, at = LEGACY_MASKS, 8
        elif blob.startswith((MAGIC3, MAGIC4)):
            (n,) = np.frombuffer(blob[8:12], "<i4")
            masks = tuple(int(m) for m in np.frombuffer(blob[12 : 12 + 8 * n], "<u8"))
            at = 12 + 8 * int(n)
            if blob.startswith(MAGIC4):
                (flag,) = np.frombuffer(blob[at : at + 4], "<i4")
                if flag not in (0, 1):
                    raise ValueError(f"count tables flag {flag}")
                tables, at = bool(flag), at + 4
        else:
            raise ValueError("no weight file header")
        a, w, k = (int(v) for v in np.frombuffer(blob[at : at + 12], "<i4"))
        at += 12
        anchors = tuple(int(v) for v in np.frombuffer(blob[at : at + 4 * a], "<i4"))
        at += 4 * a
        pat = np.frombuffer(blob[at : at + 2 * a * w], "<i2").reshape(a, w)
        at += 2 * a * w
        num = np.frombuffer(blob[at:], "<i4").reshape(a, k + 1)
    except ValueError as exc:
        raise OutflankError(f"not an evaluator weight file ({exc})") from None
    return WeightFile(masks, anchors, pat.astype(float) / 100, num.astype(float) / 100, tables)


def read(path: Path) -> WeightFile:
    """A weight file (gzip-compressed or not)."""
    blob = Path(path).read_bytes()
    if blob[:2] == b"\x1f\x8b":
        try:
            blob = gzip.decompress(blob)
        except (OSError, EOFError) as exc:
            raise OutflankError(f"{path}: not an evaluator weight file ({exc})") from None
    try:
        return parse(blob)
    except OutflankError as exc:
        raise OutflankError(f"{path}: {exc}") from None


def write(weights: WeightFile, path: Path) -> int:
    """Write a gzip-compressed weight file; returns its size in bytes."""
    data = gzip.compress(weights.to_bytes(), 9, mtime=0)
    Path(path).write_bytes(data)
    return len(data)


def load_into(path: Path, slot: int) -> None:
    """Load a weight file into one of the core's model slots (0-3)."""
    blob = Path(path).read_bytes()
    if blob[:2] == b"\x1f\x8b":
        blob = gzip.decompress(blob)
    try:
        _core.eval_load(blob, slot)
    except ValueError as exc:
        raise OutflankError(f"{path}: {exc}") from None


def scores(player: np.ndarray, opponent: np.ndarray, slot: int = 0) -> np.ndarray:
    """The evaluation (discs, the mover's view) of many positions (uint64
    arrays of the mover's and the opponent's discs) by the model in ``slot``."""
    raw = _core.eval_scores(player.tobytes(), opponent.tobytes(), slot)
    return np.frombuffer(raw, dtype=np.int32) / 100


def use(slot: int) -> None:
    """Make a loaded slot the model the engine's ``default`` evaluator uses."""
    try:
        _core.eval_use(slot)
    except ValueError as exc:
        raise OutflankError(str(exc)) from None
