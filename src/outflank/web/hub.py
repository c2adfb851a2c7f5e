"""Publish/subscribe of game events, from any thread to asyncio listeners.

A WebSocket (or a long-polling request) subscribes to one game and receives
its events on an :class:`asyncio.Queue`; the service publishes from request
threads and AI worker threads alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Hub", "Subscription"]


@dataclass(eq=False)
class Subscription:
    """One listener: its event loop and its queue of events."""

    game_id: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=lambda: asyncio.Queue(maxsize=256))


def _offer(queue: asyncio.Queue[dict[str, Any]], message: dict[str, Any]) -> None:
    # A listener too slow to keep up loses engine info lines, never states:
    # make room by dropping the oldest event.
    while True:
        try:
            queue.put_nowait(message)
            return
        except asyncio.QueueFull:
            with contextlib.suppress(asyncio.QueueEmpty):
                queue.get_nowait()


class Hub:
    """Routes each game's events to its current subscribers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}

    def subscribe(self, game_id: str) -> Subscription:
        """Listen to a game; call from a coroutine (it binds the running loop)."""
        sub = Subscription(game_id, asyncio.get_running_loop())
        with self._lock:
            self._subs.setdefault(game_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Stop listening."""
        with self._lock:
            subs = self._subs.get(sub.game_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.game_id]

    def publish(self, game_id: str, message: dict[str, Any]) -> None:
        """Send an event to every subscriber of a game (thread-safe)."""
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
        for sub in subs:
            with contextlib.suppress(RuntimeError):  # loop already closed
                sub.loop.call_soon_threadsafe(_offer, sub.queue, message)

    def listeners(self, game_id: str) -> int:
        """How many subscribers a game has (spectator count)."""
        with self._lock:
            return len(self._subs.get(game_id, ()))
