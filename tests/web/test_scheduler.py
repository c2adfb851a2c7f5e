"""The AI scheduler: one move per turn of a thread, people's games first,
games of AI against AI in turns and never on every thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from outflank.web.scheduler import AIScheduler, Next


def _until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_persons_game_gets_a_thread_while_ai_games_search() -> None:
    release = threading.Event()
    ran: list[str] = []

    def step(game_id: str) -> Next | None:
        ran.append(game_id)
        if game_id.startswith("ai"):
            release.wait(10)  # a long search of an AI-against-AI game
            return Next(background=True)
        return None

    scheduler = AIScheduler(2, step)
    try:
        scheduler.submit("ai-1", background=True)
        scheduler.submit("ai-2", background=True)
        _until(lambda: "ai-1" in ran)
        scheduler.submit("person")
        _until(lambda: "person" in ran)
        # the person's move ran while the AI game's search still held its thread,
        # and the second AI game never got the other thread
        assert not release.is_set() and "ai-2" not in ran
    finally:
        release.set()
        scheduler.close()


def test_ai_games_take_turns_one_move_each() -> None:
    ran: list[str] = []
    moves = {"a": 3, "b": 3, "c": 3}

    def step(game_id: str) -> Next | None:
        ran.append(game_id)
        moves[game_id] -= 1
        return Next(background=True) if moves[game_id] else None

    gate = threading.Event()
    scheduler = AIScheduler(1, lambda g: gate.wait(10) and step(g))
    try:
        for game_id in "abc":
            scheduler.submit(game_id, background=True)
        gate.set()
        _until(lambda: len(ran) == 9)
        assert ran == list("abcabcabc")
    finally:
        scheduler.close()


def test_a_person_goes_before_waiting_ai_games() -> None:
    ran: list[str] = []
    gate, started = threading.Event(), threading.Event()

    def step(game_id: str) -> Next | None:
        started.set()
        gate.wait(10)
        ran.append(game_id)
        return None

    scheduler = AIScheduler(1, step)
    try:
        scheduler.submit("ai-1", background=True)  # takes the only thread, waits on the gate
        assert started.wait(10)
        scheduler.submit("ai-2", background=True)
        scheduler.submit("ai-3", background=True)
        scheduler.submit("person")
        gate.set()
        _until(lambda: len(ran) == 4)
        assert ran == ["ai-1", "person", "ai-2", "ai-3"]
    finally:
        scheduler.close()


def test_a_pause_between_ai_moves_holds_no_thread() -> None:
    ran: list[str] = []

    def step(game_id: str) -> Next | None:
        ran.append(game_id)
        return Next(background=True, delay=30.0) if game_id == "ai" else None

    scheduler = AIScheduler(1, step)
    try:
        scheduler.submit("ai", background=True)
        _until(lambda: ran == ["ai"])
        scheduler.submit("person")  # the AI game waits 30 s for its next move, not a thread
        _until(lambda: ran == ["ai", "person"])
        assert scheduler.pending() == 1  # the AI game, still queued for later
    finally:
        scheduler.close()


def test_asking_again_during_a_move_runs_once_more() -> None:
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def step(game_id: str) -> Next | None:
        ran.append(game_id)
        started.set()
        release.wait(10)
        return None

    scheduler = AIScheduler(2, step)
    try:
        scheduler.submit("g")
        started.wait(10)
        scheduler.submit("g")  # e.g. an undo while the AI searched
        scheduler.submit("g")
        release.set()
        _until(lambda: len(ran) == 2 and scheduler.pending() == 0)
        time.sleep(0.05)
        assert ran == ["g", "g"]
    finally:
        scheduler.close()


def test_a_failing_step_keeps_its_thread() -> None:
    ran: list[str] = []

    def step(game_id: str) -> Next | None:
        ran.append(game_id)
        if game_id == "bad":
            raise RuntimeError("boom")
        return None

    scheduler = AIScheduler(1, step)
    try:
        scheduler.submit("bad")
        scheduler.submit("good")
        _until(lambda: ran == ["bad", "good"])
    finally:
        scheduler.close()
