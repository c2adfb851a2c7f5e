"""The quiet collector: survivors frozen, cycles still collected by the
periodic full pass, everything unfrozen when it stops."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from outflank.web.app import create_app
from outflank.web.collector import QuietCollector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_survivors_are_frozen_and_cycles_still_collected() -> None:
    collector = QuietCollector(freeze_every=0.02, full_every=0.5)
    collector.start()
    try:
        assert gc.get_freeze_count() > 0
        kept = [_Node() for _ in range(100)]
        before = gc.get_freeze_count()
        _until(lambda: gc.get_freeze_count() >= before + 100)  # the new survivors too
        gc.disable()  # only the collector's own full pass may find the cycle
        try:
            dead = _cycle()
            gc.freeze()  # as if frozen while alive: only a full pass frees it
            _until(lambda: dead() is None)
        finally:
            gc.enable()
        _until(lambda: collector.full_passes >= 1)
        del kept
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0


def test_bad_periods_are_refused() -> None:
    with pytest.raises(ValueError):
        QuietCollector(freeze_every=0)
    with pytest.raises(ValueError):
        QuietCollector(freeze_every=2, full_every=1)


def test_the_app_runs_it_while_serving_if_asked(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "games.db"), quiet_gc=True)
    with TestClient(app) as client:
        assert client.get("/api/info").status_code == 200
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    with TestClient(create_app(str(tmp_path / "other.db"))):
        assert gc.get_freeze_count() == 0  # not asked: the process's collector is left alone
