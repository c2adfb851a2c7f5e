"""Publish/subscribe of game events, from any thread to asyncio listeners.

A WebSocket (or a long-polling request) subscribes to one game and receives
its events on an :class:`asyncio.Queue`; the service publishes from request
threads and AI worker threads alike. An event is encoded to JSON once, when
it is published, however many listeners it goes to.

A hub may have a *relay* (``hub.relay = fn``): every event published here is
also handed to it, to reach the other server processes (PostgreSQL
LISTEN/NOTIFY); their events come back through :meth:`Hub.deliver`. The
hub remembers the newest state version it delivered for each game listened
to (:meth:`Hub.watched`), so that a process whose relay was cut off can tell
which games changed meanwhile.

Events published on another thread reach a loop's subscribers through one
inbox per loop: a burst of them (an AI's ``thinking``, ``info`` and
``state``) wakes the loop once, not once per event and listener. Events
published on the loop's own thread are handed over at once, after any that
were waiting in its inbox, so each listener gets a game's events in the
order they were published.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "Hub", "Subscription"]


@dataclass(frozen=True)
class Event:
    """One event of a game: its type, the state's version (for ``state``) and its JSON."""

    kind: str
    text: str
    version: int | None = None


@dataclass(eq=False)
class Subscription:
    """One listener: its event loop and its queue of events."""

    game_id: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Event] = field(default_factory=lambda: asyncio.Queue(maxsize=256))


def _offer(queue: asyncio.Queue[Event], event: Event) -> None:
    # A listener too slow to keep up loses engine info lines, never states:
    # make room by dropping the oldest event.
    while True:
        try:
            queue.put_nowait(event)
            return
        except asyncio.QueueFull:
            with contextlib.suppress(asyncio.QueueEmpty):
                queue.get_nowait()


class _Inbox:
    """Events for the subscribers of one event loop, handed over in batches."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._lock = threading.Lock()
        self._items: list[tuple[asyncio.Queue[Event], Event]] = []
        self._called = False  # a drain() is scheduled on the loop

    def put(self, queue: asyncio.Queue[Event], event: Event) -> None:
        """From any thread: queue an event; wake the loop if it is not due to drain."""
        with self._lock:
            self._items.append((queue, event))
            if self._called:
                return
            self._called = True
        try:
            self.loop.call_soon_threadsafe(self.drain)
        except RuntimeError:  # the loop is closed: nobody listens any more
            with self._lock:
                self._items.clear()
                self._called = False

    def drain(self) -> None:
        """On the loop: hand every waiting event to its queue, oldest first."""
        with self._lock:
            items, self._items = self._items, []
            self._called = False
        for queue, event in items:
            _offer(queue, event)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # not on an event loop's thread
        return None


class Hub:
    """Routes each game's events to its current subscribers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}
        self._inboxes: dict[asyncio.AbstractEventLoop, _Inbox] = {}
        self._delivered: dict[str, int] = {}  # game -> newest state version delivered
        self.relay: Callable[[str, Event], None] | None = None

    def subscribe(self, game_id: str) -> Subscription:
        """Listen to a game; call from a coroutine (it binds the running loop)."""
        sub = Subscription(game_id, asyncio.get_running_loop())
        with self._lock:
            self._subs.setdefault(game_id, set()).add(sub)
            if sub.loop not in self._inboxes:
                self._inboxes = {  # loops that have closed go
                    **{loop: box for loop, box in self._inboxes.items() if not loop.is_closed()},
                    sub.loop: _Inbox(sub.loop),
                }
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Stop listening."""
        with self._lock:
            subs = self._subs.get(sub.game_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.game_id]
                    self._delivered.pop(sub.game_id, None)

    def publish(self, game_id: str, message: dict[str, Any]) -> None:
        """Send an event (a JSON-ready dict with a ``type``) to a game's listeners."""
        self.publish_event(game_id, Event(str(message["type"]), json.dumps(message)))

    def publish_state(self, game_id: str, version: int, state_json: str) -> None:
        """Send a ``state`` event whose state is already JSON."""
        text = '{"type":"state","state":' + state_json + "}"
        self.publish_event(game_id, Event("state", text, version))

    def publish_event(self, game_id: str, event: Event) -> None:
        """Send an event to every local subscriber, and to the relay (thread-safe)."""
        self.deliver(game_id, event)
        if self.relay is not None:
            self.relay(game_id, event)

    def deliver(self, game_id: str, event: Event) -> None:
        """Send an event to this process's subscribers only."""
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
            if subs and event.version is not None:
                self._delivered[game_id] = max(event.version, self._delivered.get(game_id, 0))
        if not subs:
            return
        here = _running_loop()
        inboxes = self._inboxes
        for sub in subs:
            inbox = inboxes.get(sub.loop)
            if inbox is None:  # its loop has closed
                continue
            if sub.loop is here:
                inbox.drain()  # what other threads sent first goes first
                _offer(sub.queue, event)
            else:
                inbox.put(sub.queue, event)

    def watched(self) -> dict[str, int | None]:
        """Every game with a subscriber here, and the newest state version
        delivered to them (None: none since the first subscribed)."""
        with self._lock:
            return {game_id: self._delivered.get(game_id) for game_id in self._subs}

    def listeners(self, game_id: str) -> int:
        """How many subscribers a game has (spectator count)."""
        with self._lock:
            return len(self._subs.get(game_id, ()))
