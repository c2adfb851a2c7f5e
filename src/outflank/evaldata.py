"""Labelled positions for fitting the ``default`` evaluator.

Positions come from varied self-play: every game opens with a random number
of random moves, then each side searches to its own depth (drawn from
``depths``, the "levels"), with a random move now and then (each game draws
its own chance). Every position with ``label_all`` empties or fewer is
labelled, and a share ``sample`` of the others up to ``label_max`` empties
(none with fewer than ``label_min``: a set of midgame labels only), from
the side to move's view, in 1/100 disc:

* with ``exact`` empties or fewer: the exact final disc difference (the
  engine's solver);
* with up to ``probable`` empties: the endgame search with probable cut-offs
  (search mode 3; within a disc or two of the exact score);
* above: a midgame search of ``depth`` plies with probable cut-offs
  (``selective``).

The work is cut into shards of ``games_per_shard`` games; shard ``k`` plays
games ``k * games_per_shard ...`` with seeds derived from ``seed`` and the
game's number, so a shard is the same whoever makes it. Shards run in
worker processes (``backend="local"``) or on a Ray cluster
(``backend="ray"``); each finished shard is written at once (a temporary
file renamed into place), and a new run into the same folder makes only the
missing ones: the job is resumable and can run in time-limited chunks
(``time_limit``). :func:`merge` joins the shards into one columnar ``.npz``
and :func:`datasheet` describes it.

Columns (one row per labelled position): ``player``, ``opponent``
(uint64 bitboards, mover's view), ``label`` (int16, 1/100 disc), ``kind``
(uint8: :data:`EXACT`, :data:`PROBABLE`, :data:`SEARCH`), ``depth`` (uint8,
the search depth of a SEARCH label, else 0), ``empties`` (uint8), ``game``
(uint32), ``ply`` (uint8), ``result`` (int8: the self-play game's final
disc difference from the mover's view), ``move`` (int8: the labelling
search's best move, a1 = 0; -1 if none).
"""

from __future__ import annotations

import functools
import json
import os
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from outflank import _core
from outflank._core import MODE_EXACT, MODE_MID, MODE_PROBABLE  # the core's search modes
from outflank.cluster import ray_cancel, ray_session, ray_wait
from outflank.errors import OutflankError
from outflank.interrupt import Stop, WorkerPool

__all__ = [
    "COLUMNS",
    "EXACT",
    "PROBABLE",
    "SEARCH",
    "DataConfig",
    "asdict",
    "centidiscs",
    "datasheet",
    "game_values",
    "generate",
    "load",
    "make_shard",
    "merge",
    "remove_half_written",
    "shard_files",
    "write_shard_file",
]

EXACT, PROBABLE, SEARCH = 0, 1, 2
KIND_NAMES = {EXACT: "exact", PROBABLE: "probable", SEARCH: "search"}
START_PLAYER, START_OPPONENT = 0x0000000810000000, 0x0000001008000000

#: Column name -> numpy dtype of the data files.
COLUMNS: dict[str, str] = {
    "player": "uint64",
    "opponent": "uint64",
    "label": "int16",
    "kind": "uint8",
    "depth": "uint8",
    "empties": "uint8",
    "game": "uint32",
    "ply": "uint8",
    "result": "int8",
    "move": "int8",
}
CONFIG_FILE = "config.json"
TT_MB = 32


@dataclass(frozen=True)
class DataConfig:
    """How positions are made and labelled (saved with the shards)."""

    seed: int = 1
    games_per_shard: int = 16
    opening_min: int = 2  # random plies at the start of a game, drawn from min..max
    opening_max: int = 20
    depths: tuple[int, ...] = (2, 4, 6, 8)  # each side's search depth, drawn per game
    random_move: float = 0.1  # a game's chance of a random move is drawn from 0..this
    exact: int = 20  # exact labels up to this many empties
    probable: int = 20  # probable-cut endgame labels above exact up to this many
    depth: int = 12  # midgame search depth of the other labels
    selective: float = 1.5  # probable cut-offs of those searches (standard deviations)
    label_all: int = 16  # label every position with this many empties or fewer
    sample: float = 0.35  # and this share of the others
    label_max: int = 60  # label no position with more empties than this
    label_min: int = 0  # nor with fewer
    extra: dict[str, Any] = field(default_factory=dict)  # free-form notes

    def check(self) -> None:
        """Raise OutflankError for settings that cannot work."""
        problems = []
        if self.games_per_shard < 1:
            problems.append("games_per_shard must be >= 1")
        if not 0 <= self.opening_min <= self.opening_max <= 59:
            problems.append("need 0 <= opening_min <= opening_max <= 59")
        if not self.depths or any(not 1 <= d <= 30 for d in self.depths):
            problems.append("depths must be 1..30")
        if not 0 <= self.random_move <= 1:
            problems.append("random_move must be in 0..1")
        if not 0 <= self.exact <= self.probable <= 30:
            problems.append("need 0 <= exact <= probable <= 30")
        if not 1 <= self.depth <= 30:
            problems.append("depth must be 1..30")
        if not 0 <= self.selective <= 10:
            problems.append("selective must be in 0..10")
        if not 0 <= self.sample <= 1:
            problems.append("sample must be in 0..1")
        if not 0 <= self.label_min <= self.label_max <= 60:
            problems.append("need 0 <= label_min <= label_max <= 60")
        if problems:
            raise OutflankError("; ".join(problems))

    @classmethod
    def from_dict(cls, data: dict) -> DataConfig:
        """The inverse of ``dataclasses.asdict`` (lists back to tuples)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "depths" in known:
            known["depths"] = tuple(known["depths"])
        return cls(**known)


# ---------------------------------------------------------------- one shard
_SEARCHER: Any = None


def _searcher() -> Any:
    global _SEARCHER
    if _SEARCHER is None:
        _SEARCHER = _core.Searcher(TT_MB)
    return _SEARCHER


def _play(p: int, o: int, sq: int) -> tuple[int, int]:
    f = _core.flips(p, o, sq)
    return o & ~f, p | f | (1 << sq)


def _squares(moves: int) -> list[int]:
    out = []
    while moves:
        low = moves & -moves
        out.append(low.bit_length() - 1)
        moves ^= low
    return out


def _final(p: int, o: int) -> int:
    a, b = p.bit_count(), o.bit_count()
    e = 64 - a - b
    return a - b + (e if a > b else -e if a < b else 0)


def _self_play(cfg: DataConfig, rng: random.Random) -> tuple[list[tuple[int, int, int]], int]:
    """One game: the positions where the mover has a move, as (player,
    opponent, side) with side 0 for black, and black's final disc difference."""
    searcher = _searcher()
    searcher.clear()
    opening = rng.randint(cfg.opening_min, cfg.opening_max)
    depth = (rng.choice(cfg.depths), rng.choice(cfg.depths))
    chance = rng.uniform(0.0, cfg.random_move)
    selective = round(cfg.selective * 100)
    p, o, side, ply = START_PLAYER, START_OPPONENT, 0, 0
    positions = []
    while True:
        moves = _core.moves(p, o)
        if not moves:
            if not _core.moves(o, p):
                break
            p, o, side = o, p, side ^ 1
            continue
        positions.append((p, o, side))
        squares = _squares(moves)
        if ply < opening or rng.random() < chance or len(squares) == 1:
            sq = rng.choice(squares)
        else:
            sq = searcher.search(p, o, mode=MODE_MID, depth=depth[side], selective=selective)[
                "move"
            ]
        p, o = _play(p, o, sq)
        side ^= 1
        ply += 1
    final = _final(p, o)
    return positions, final if side == 0 else -final


def _label(cfg: DataConfig, p: int, o: int) -> tuple[int, int, int, int]:
    """(label in 1/100 disc, kind, depth, best move) of one position."""
    searcher = _searcher()
    empties = 64 - (p | o).bit_count()
    if empties <= cfg.exact:
        r = searcher.search(p, o, mode=MODE_EXACT)
        return r["score"] * 100, EXACT, 0, r["move"]
    if empties <= cfg.probable:
        r = searcher.search(p, o, mode=MODE_PROBABLE)
        return r["score"] * 100, PROBABLE, 0, r["move"]
    r = searcher.search(p, o, mode=MODE_MID, depth=cfg.depth, selective=round(cfg.selective * 100))
    return max(-6400, min(6400, centidiscs(r["score"]))), SEARCH, cfg.depth, r["move"]


def centidiscs(score: int) -> int:
    """A midgame search's score in 1/100 disc: a game finished within the
    search (``SCORE_WIN`` plus its disc difference) becomes that difference
    times 100; other scores already are."""
    return round(_core.search_discs(score) * 100)


def make_shard(config: dict, index: int) -> dict[str, Any]:
    """Play and label shard ``index`` (run in a worker): the columns as
    numpy arrays plus ``seconds`` (per label kind and for play)."""
    cfg = DataConfig.from_dict(config)
    rows: dict[str, list[int]] = {name: [] for name in COLUMNS}
    seconds = {"play": 0.0, **{name: 0.0 for name in KIND_NAMES.values()}}
    searcher = _searcher()
    for j in range(cfg.games_per_shard):
        game = index * cfg.games_per_shard + j
        rng = random.Random(f"{cfg.seed}:{game}")
        start = time.process_time()
        positions, black = _self_play(cfg, rng)
        seconds["play"] += time.process_time() - start
        # choose before labelling (the labels do not change the choice);
        # label the end first: its solves fill the table the earlier ones use
        chosen = [
            ply
            for ply, (p, o, _) in enumerate(positions)
            if (e := 64 - (p | o).bit_count()) >= cfg.label_min
            and (e <= cfg.label_all or (rng.random() < cfg.sample and e <= cfg.label_max))
        ]
        searcher.clear()
        for ply in reversed(chosen):
            p, o, side = positions[ply]
            start = time.process_time()
            label, kind, depth, move = _label(cfg, p, o)
            seconds[KIND_NAMES[kind]] += time.process_time() - start
            for name, value in (
                ("player", p), ("opponent", o), ("label", label), ("kind", kind),
                ("depth", depth), ("empties", 64 - (p | o).bit_count()), ("game", game),
                ("ply", ply), ("result", black if side == 0 else -black), ("move", move),
            ):  # fmt: skip
                rows[name].append(value)
    out: dict[str, Any] = {
        name: np.array(rows[name], dtype=dtype) for name, dtype in COLUMNS.items()
    }
    out["seconds"] = seconds
    return out


# ------------------------------------------------------------- the job
def _shard_path(folder: Path, index: int) -> Path:
    return folder / f"shard-{index:06d}.npz"


def shard_files(folder: Path) -> list[Path]:
    """A folder's shard files in index order (not the half-written ones)."""
    return sorted(folder.glob("shard-*[0-9].npz"))


def write_shard_file(target: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write a shard file atomically: a reader never sees half a file."""
    tmp = target.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, target)


def remove_half_written(folder: Path) -> None:
    """Delete the temporary files of a run killed while writing a shard."""
    for stale in folder.glob("*.tmp.npz"):
        stale.unlink()


def _save_shard(folder: Path, index: int, shard: dict[str, Any]) -> None:
    arrays = {name: shard[name] for name in COLUMNS}
    arrays["seconds"] = np.array(json.dumps(shard["seconds"]))
    write_shard_file(_shard_path(folder, index), arrays)


def _config_for(folder: Path, cfg: DataConfig) -> None:
    """Save the config in a new folder; in an old one, insist it is the same."""
    path = folder / CONFIG_FILE
    mine = asdict(cfg)
    if path.exists():
        # a setting added since the folder was made has its default there
        theirs = {**json.loads(json.dumps(asdict(DataConfig()))), **json.loads(path.read_text())}
        if theirs != json.loads(json.dumps(mine)):
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise OutflankError(
                f"{folder} holds shards made with other settings ({', '.join(diff)}): "
                "use another folder or the same settings"
            )
        return
    path.write_text(json.dumps(mine, indent=1) + "\n")


def done_shards(folder: Path) -> set[int]:
    """Indices of the shards already written in ``folder``."""
    out = set()
    for path in folder.glob("shard-*.npz"):
        stem = path.name[len("shard-") : -len(".npz")]
        if stem.isdigit():
            out.add(int(stem))
    return out


def generate(
    folder: Path,
    cfg: DataConfig,
    shards: int,
    *,
    workers: int = 2,
    backend: str = "local",
    time_limit: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    stop: Stop | None = None,
) -> int:
    """Make shards 0..shards-1 that ``folder`` lacks; returns how many were
    made in this call. With ``time_limit`` (seconds), no new shard starts
    after that time (the ones running finish and are saved). A ``stop``
    request (:class:`outflank.interrupt.StopSignals`: Ctrl-C) ends the call
    at once: the finished shards are on disk, the ones in progress are
    abandoned (a rerun makes them)."""
    cfg.check()
    if shards < 0 or workers < 1:
        raise OutflankError("need shards >= 0 and workers >= 1")
    if backend not in ("local", "ray"):
        raise OutflankError(f"unknown backend {backend!r} (local or ray)")
    folder.mkdir(parents=True, exist_ok=True)
    _config_for(folder, cfg)
    remove_half_written(folder)
    todo = [i for i in range(shards) if i not in done_shards(folder)]
    deadline = None if time_limit is None else time.monotonic() + time_limit
    config = asdict(cfg)
    made = 0

    def finished(index: int, shard: dict[str, Any]) -> None:
        nonlocal made
        _save_shard(folder, index, shard)
        made += 1
        if progress:
            progress(made, len(todo), len(shard["label"]))

    run = _run_ray if backend == "ray" else _run_local
    run(config, todo, workers, deadline, finished, stop if stop is not None else Stop())
    return made


def _run_local(
    config: dict,
    todo: list[int],
    workers: int,
    deadline: float | None,
    finished: Callable[[int, dict[str, Any]], None],
    stop: Stop,
) -> None:
    """The shards in ``workers`` worker processes (one worker too: a stop
    then ends the shard in progress at once)."""

    def more() -> bool:
        return deadline is None or time.monotonic() < deadline

    with WorkerPool(workers, stop) as pool:
        shards = pool.completed(functools.partial(make_shard, config), todo, workers, more)
        for index, fut in shards:
            finished(index, fut.result())


def _run_ray(
    config: dict,
    todo: list[int],
    workers: int,
    deadline: float | None,
    finished: Callable[[int, dict[str, Any]], None],
    stop: Stop,
) -> None:
    """Shards as Ray tasks (``workers`` is the number kept in flight per
    cluster CPU the driver sees, at least that many)."""
    ray = ray_session()
    remote = ray.remote(make_shard)
    in_flight = max(workers, int(ray.cluster_resources().get("CPU", 1)))
    pending = iter(todo)
    running: dict[Any, int] = {}
    while not stop.requested:
        while len(running) < in_flight and (deadline is None or time.monotonic() < deadline):
            index = next(pending, None)
            if index is None:
                break
            running[remote.remote(config, index)] = index
        if not running:
            break
        ready, _ = ray_wait(ray, running, stop)
        for ref in ready:
            finished(running.pop(ref), ray.get(ref))
    ray_cancel(ray, running)  # after a stop: the shards in progress are abandoned


# ------------------------------------------------------------- reading
def load(paths: Iterable[Path]) -> dict[str, np.ndarray]:
    """The columns of data files and shard folders, concatenated (a folder:
    its shards in index order)."""
    files: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            files += shard_files(path)
        elif path.is_file():
            files.append(path)
        else:
            raise OutflankError(f"{path}: no such file or folder")
    if not files:
        raise OutflankError("no data: no shard or .npz file given")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in COLUMNS}
    for path in files:
        try:
            with np.load(path) as data:
                for name, dtype in COLUMNS.items():
                    parts[name].append(data[name].astype(dtype, copy=False))
        except (OSError, ValueError, KeyError) as exc:
            raise OutflankError(f"{path}: not a data file of this format ({exc})") from None
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def game_values(data: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's game value in 1/100 disc, from the row's mover's view: the
    exact label of the same game's first exactly labelled position (the one
    with the most empties), or NaN where the game has none.

    For a game played without random moves (``random_move=0``) and labelled
    down into the exact range, this is what the players' own play made of
    the position, solved perfectly once it came within reach: a label from
    beyond the labelling search's horizon. Rows of one data set only: the
    game numbers of two sets overlap. The mover is matched by the sign of
    the game's result, and in a drawn game by the parity of the plies (a
    pass before the exact range would flip it; they are rare).
    """
    game = data["game"].astype(np.int64)
    exact = np.flatnonzero(data["kind"] == EXACT)
    values = np.full(len(game), np.nan)
    if not len(exact):
        return values
    # per game, its exact row with the most empties
    order = exact[np.lexsort((-data["empties"][exact].astype(np.int64), game[exact]))]
    games, first = np.unique(game[order], return_index=True)
    reference = order[first]
    slot = np.minimum(np.searchsorted(games, game), len(games) - 1)
    has = games[slot] == game
    ref = reference[slot]
    result = data["result"].astype(np.int64)
    ply = data["ply"].astype(np.int64)
    same = np.where(result != 0, np.sign(result) == np.sign(result[ref]), (ply - ply[ref]) % 2 == 0)
    value = data["label"][ref].astype(np.float64) * np.where(same, 1.0, -1.0)
    values[has] = value[has]
    return values


def shard_seconds(folder: Path) -> dict[str, float]:
    """CPU seconds spent per label kind (and on play) over a folder's shards."""
    total: dict[str, float] = {}
    for path in shard_files(folder):
        with np.load(path) as data:
            for k, v in json.loads(str(data["seconds"])).items():
                total[k] = total.get(k, 0.0) + v
    return total


def merge(folder: Path, target: Path) -> dict[str, np.ndarray]:
    """Join a folder's shards into one compressed ``.npz`` at ``target``."""
    data = load([folder])
    tmp = target.with_name(target.name + ".tmp.npz")
    np.savez_compressed(tmp, **data)
    os.replace(tmp, target)
    return data


def datasheet(data: dict[str, np.ndarray], config: dict | None = None, seconds=None) -> str:
    """A Markdown description of a data set: positions per phase and label kind."""
    n = len(data["label"])
    games = len(np.unique(data["game"])) if n else 0
    lines = ["# Evaluator training data", ""]
    lines.append(f"{n:,} labelled positions from {games:,} self-play games.")
    lines.append("")
    if config:
        lines.append("Settings: " + ", ".join(f"{k}={v}" for k, v in config.items() if v != {}))
        lines.append("")
    if seconds:
        total = sum(seconds.values())
        parts = ", ".join(f"{k} {v / 3600:.2f} h" for k, v in seconds.items())
        lines.append(f"CPU time: {total / 3600:.2f} h ({parts}).")
        lines.append("")
    lines.append(
        "| empties | positions | exact | probable | search (depth) | label spread (discs) |"
    )
    lines.append("|---:|---:|---:|---:|---|---:|")
    for e in range(61):
        sel = data["empties"] == e
        count = int(sel.sum())
        if not count:
            continue
        kinds = np.bincount(data["kind"][sel], minlength=3)
        depths = sorted(set(data["depth"][sel & (data["kind"] == SEARCH)].tolist()))
        search = f"{kinds[SEARCH]:,}" + (f" ({', '.join(map(str, depths))})" if depths else "")
        spread = float(np.std(data["label"][sel] / 100))
        cells = [f"{count:,}", f"{kinds[EXACT]:,}", f"{kinds[PROBABLE]:,}", search, f"{spread:.1f}"]
        lines.append(f"| {e} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
