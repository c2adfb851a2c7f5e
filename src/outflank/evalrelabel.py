"""Deeper labels for data already made: relabel a shard folder's midgame
positions with searches of more plies.

:func:`outflank.evaldata.generate` labels its midgame positions with
searches of ``depth`` plies (8 for the packaged weights). :func:`relabel`
copies such a folder into a new one, searching again the positions whose
number of empties is in a range, ``depth`` plies deep with probable
cut-offs at ``selective`` standard deviations, in some or all of its
shards (chosen at random by ``seed``, up to ``shards`` of them or until
``time_limit`` seconds have passed). A relabelled row keeps its position
and game and takes the new label, depth and best move; the other rows and
shards are copied as they are, so the new folder is the old data with
deeper labels where they were made, ready for ``scripts/train_eval.py``.
Each game's positions are searched from its end backwards with one table,
so the later positions' searches help the earlier ones'.

The folder's ``relabel.json`` records the settings and the shards
relabelled; a new run into the same folder with the same settings goes on
where the last stopped (a shard is written at once when it is done: a
temporary file renamed into place).
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from outflank.errors import OutflankError
from outflank.evaldata import (
    COLUMNS,
    CONFIG_FILE,
    MODE_MID,
    SEARCH,
    _searcher,  # the worker process's one search table
    centidiscs,
    remove_half_written,
    shard_files,
    write_shard_file,
)
from outflank.interrupt import Stop, WorkerPool

__all__ = ["RECORD_FILE", "relabel", "relabel_shard"]

#: The file in a relabelled folder that records how it was made.
RECORD_FILE = "relabel.json"


def relabel_shard(
    source: Path, target: Path, depth: int, selective: float, empties: tuple[int, int]
) -> int:
    """Write ``source`` to ``target`` with its positions of ``empties``
    (lowest, highest) searched again ``depth`` plies deep; returns how many
    were. Runs in a worker process (its own search table)."""
    with np.load(source) as data:
        arrays = {name: data[name] for name in data.files}
    missing = [name for name in COLUMNS if name not in arrays]
    if missing:
        raise OutflankError(f"{source}: not a data file of this format (no {', '.join(missing)})")
    label, kind = arrays["label"].copy(), arrays["kind"].copy()
    made_depth, move = arrays["depth"].copy(), arrays["move"].copy()
    low, high = empties
    chosen = (arrays["empties"] >= low) & (arrays["empties"] <= high)
    searcher = _searcher()
    count = 0
    for game in np.unique(arrays["game"][chosen]):
        rows = np.flatnonzero(chosen & (arrays["game"] == game))
        searcher.clear()
        for i in rows[np.argsort(arrays["empties"][rows], kind="stable")]:
            r = searcher.search(
                int(arrays["player"][i]), int(arrays["opponent"][i]),
                mode=MODE_MID, depth=depth, selective=round(selective * 100),
            )  # fmt: skip
            label[i] = max(-6400, min(6400, centidiscs(r["score"])))
            kind[i], made_depth[i], move[i] = SEARCH, depth, r["move"]
            count += 1
    arrays.update(label=label, kind=kind, depth=made_depth, move=move)
    write_shard_file(target, arrays)
    return count


def _settings(source: Path, depth: int, selective: float, empties: tuple[int, int]) -> dict:
    return {
        "source": str(source.resolve()),
        "depth": depth,
        "selective": selective,
        "empties": list(empties),
    }


def _record(target: Path, settings: dict) -> list[str]:
    """The shards already relabelled by an earlier run with the same
    settings (none in a new folder); another run's folder is refused."""
    path = target / RECORD_FILE
    if not path.exists():
        if target.exists() and any(target.iterdir()):
            raise OutflankError(f"{target} is not empty and not a relabelled folder")
        return []
    record = json.loads(path.read_text())
    theirs = {key: record.get(key) for key in settings}
    if theirs != settings:
        diff = sorted(key for key in settings if theirs[key] != settings[key])
        raise OutflankError(
            f"{target} was relabelled with other settings ({', '.join(diff)}): "
            "use another folder or the same settings"
        )
    return list(record.get("relabelled", []))


def relabel(
    source: Path,
    target: Path,
    *,
    depth: int,
    selective: float = 1.0,
    empties: tuple[int, int] = (24, 40),
    shards: int | None = None,
    seed: int = 0,
    workers: int = 2,
    time_limit: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    stop: Stop | None = None,
) -> tuple[int, int]:
    """Copy the shard folder ``source`` to ``target`` with deeper labels
    (see the module doc); returns how many shards this call relabelled and
    how many of those chosen are left (after a time limit or a stop).
    ``progress(done, todo, labels)`` is called as each shard is written."""
    source, target = Path(source), Path(target)
    low, high = empties
    if not 1 <= depth <= 60:
        raise OutflankError(f"depth must be in 1..60, not {depth}")
    if not 0 < selective <= 10:
        raise OutflankError(f"selective must be in (0, 10] standard deviations, not {selective}")
    if not 0 <= low <= high <= 60:
        raise OutflankError(f"need 0 <= lowest <= highest <= 60 empties, not {low}..{high}")
    if workers < 1 or (shards is not None and shards < 0):
        raise OutflankError("need workers >= 1 and shards >= 0")
    if source.resolve() == target.resolve():
        raise OutflankError("the target must be another folder than the source")
    found = shard_files(source) if source.is_dir() else []
    if not found:
        raise OutflankError(f"{source}: no shard folder of scripts/eval_data.py")
    settings = _settings(source, depth, selective, (low, high))
    done = _record(target, settings)
    target.mkdir(parents=True, exist_ok=True)
    remove_half_written(target)
    if (source / CONFIG_FILE).exists():
        shutil.copyfile(source / CONFIG_FILE, target / CONFIG_FILE)
    order = [path.name for path in found]
    random.Random(seed).shuffle(order)
    chosen = order if shards is None else order[:shards]
    todo = [name for name in chosen if name not in done]

    def save_record() -> None:
        tmp = target / (RECORD_FILE + ".tmp")
        tmp.write_text(json.dumps({**settings, "relabelled": sorted(done)}, indent=1) + "\n")
        os.replace(tmp, target / RECORD_FILE)

    save_record()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    work = functools.partial(_relabel_job, source, target, depth, selective, (low, high))
    made = 0
    with WorkerPool(workers, stop if stop is not None else Stop()) as pool:

        def more() -> bool:
            return deadline is None or time.monotonic() < deadline

        for name, future in pool.completed(work, todo, workers, more):
            count = future.result()
            done.append(name)
            made += 1
            save_record()
            if progress:
                progress(made, len(todo), count)
    # the shards not (yet) relabelled, as they are
    for path in found:
        copy = target / path.name
        if path.name not in done:
            shutil.copyfile(path, copy)
    return made, len([name for name in chosen if name not in done])


def _relabel_job(
    source: Path, target: Path, depth: int, selective: float, empties: tuple[int, int], name: str
) -> int:
    return relabel_shard(source / name, target / name, depth, selective, empties)
