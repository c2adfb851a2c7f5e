"""People before AI moves when the server is busy.

A person who plays a move waits on the answer; an AI's reply can come a
moment later without anyone noticing. :class:`PeopleFirst` counts the
requests of people in progress (a move, an undo, a new game: whatever
changes a game, over HTTP or a WebSocket), and an AI worker about to make
a move first waits until fewer than ``room`` of them are in progress, or
at most ``patience`` seconds (so AI moves are never starved). When the
server has spare time nothing waits; when it is saturated the queue forms
among the AI moves, not among the people's requests. A request that has
reached a busy server may not have been read by its event loop yet, so the
worker first lets the loop run two rounds (:meth:`PeopleFirst.watch`).

A new game waits the same way, on the event loop, before it is made
(:meth:`PeopleFirst.wait_turn_async`): when many players arrive at once,
the moves of the games already started go first, and the new games are let
in a few at a time instead of all in the same moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

__all__ = ["PeopleFirst"]


class PeopleFirst:
    """Requests of people in progress, and a wait for a lull in them."""

    def __init__(self, room: int = 8, patience: float = 0.5) -> None:
        if room < 1:
            raise ValueError("room must be at least 1")
        if not patience >= 0:
            raise ValueError("patience must be at least 0 seconds")
        self.room = room
        self.patience = patience
        self._busy = 0
        self._cond = threading.Condition()
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def in_progress(self) -> int:
        """How many people's requests are being served now."""
        return self._busy

    def _has_room(self) -> bool:
        return self._busy < self.room

    def begin(self) -> None:
        """A person's request starts (pair it with :meth:`end`)."""
        with self._cond:
            self._busy += 1

    def end(self) -> None:
        """A person's request has been answered."""
        with self._cond:
            self._busy -= 1
            if self._has_room():
                self._cond.notify_all()

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Count the ``with`` block as a person's request."""
        self.begin()
        try:
            yield
        finally:
            self.end()

    async def wait_turn_async(self) -> None:
        """:meth:`wait_turn` for a coroutine on the event loop: wait (polling
        every 2 ms) until fewer than ``room`` requests are in progress, at most
        ``patience`` seconds."""
        deadline = time.monotonic() + self.patience
        while not self._has_room() and time.monotonic() < deadline:
            await asyncio.sleep(0.002)

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve the requests on ``loop``: :meth:`wait_turn` first lets it read
        the requests that have arrived (a busy loop may not have yet)."""
        self.loop = loop

    def _loop_caught_up(self, timeout: float) -> None:
        """Wait until the event loop has run two rounds: requests that had
        arrived by now have been read and counted."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        done = threading.Event()
        try:
            loop.call_soon_threadsafe(loop.call_soon, done.set)
        except RuntimeError:  # the loop has closed meanwhile
            return
        done.wait(timeout)

    def wait_turn(self) -> float:
        """Block until fewer than ``room`` people's requests are in progress,
        or ``patience`` seconds have passed; returns the seconds waited."""
        started = time.monotonic()
        self._loop_caught_up(self.patience)
        with self._cond:
            self._cond.wait_for(self._has_room, self.patience)
        return time.monotonic() - started
