"""Game events across server processes: PostgreSQL ``LISTEN``/``NOTIFY``.

Several ``outflank serve`` processes on one PostgreSQL database each keep
their own listeners (WebSockets, long polls). Every event one process
publishes is also sent as a notification on the ``outflank`` channel; every
other process receives it and hands it to its own listeners. A ``state``
event travels as its game and version only (a state can outgrow the 8000
bytes of a notification): the receiver reads the game from the database.

:class:`PgRelay` runs two threads on two connections of their own: a sender,
which sends the queued events in one statement per batch, and a listener.
Both reconnect after an error (a restarted database server, a killed
backend). No state is lost meanwhile: the sender keeps the newest ``state``
event of each game it could not send and sends them on its next connection
(engine ``info`` and ``thinking`` lines of the past are dropped), and the
listener, once it listens again, calls ``catch_up``: the process reads the
games its clients watch and pushes those that changed while it was deaf.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import socket
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import make_url

__all__ = ["CHANNEL", "PgRelay", "RemoteEvent"]

log = logging.getLogger("outflank.web")

CHANNEL = "outflank"
_PAYLOAD_MAX = 7900  # PostgreSQL's limit is 8000 bytes
_BATCH = 500

#: (game id, event type, version or None, the event's JSON or None)
RemoteEvent = tuple[str, str, "int | None", "str | None"]


def _conninfo(url: str) -> str:
    """A libpq connection URI from a SQLAlchemy URL (the driver name dropped)."""
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


def _newest_states(events: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The newest ``state`` event of each game, in the order they were sent:
    what is worth sending late (a receiver reads the game itself; engine
    lines of the past are not)."""
    newest: dict[str, tuple[str, str, str]] = {}
    for event in events:
        if event[1] == "state":
            newest.pop(event[0], None)
            newest[event[0]] = event
    return list(newest.values())


class PgRelay:
    """Send this process's events to the others and hand theirs to ``receive``.

    ``origin`` names this process: its own notifications come back to it and
    are skipped. ``catch_up`` is called (on the listening thread) each time
    the listener listens again after its connection was lost.
    """

    def __init__(
        self,
        url: str,
        origin: str,
        receive: Callable[[RemoteEvent], None],
        catch_up: Callable[[], None] | None = None,
    ) -> None:
        self.conninfo = _conninfo(url)
        self.origin = origin
        self._receive = receive
        self._catch_up = catch_up
        # (game id, event type, payload), or None: stop
        self._out: queue.SimpleQueue[tuple[str, str, str] | None] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._threads = [
            threading.Thread(target=self._send_loop, name="outflank-notify", daemon=True),
            threading.Thread(target=self._listen_loop, name="outflank-listen", daemon=True),
        ]

    def start(self, timeout: float = 10.0) -> None:
        """Start both threads; returns once this process is listening."""
        for thread in self._threads:
            thread.start()
        if not self._listening.wait(timeout):
            log.warning("not listening to the other processes' events yet")

    def send(self, game_id: str, kind: str, version: int | None, text: str | None) -> None:
        """Queue an event for the other processes (thread-safe, never blocks)."""
        item: dict[str, Any] = {"o": self.origin, "g": game_id, "k": kind}
        if version is not None:
            item["v"] = version
        if kind != "state" and text is not None:
            item["t"] = text
        payload = json.dumps(item, separators=(",", ":"))
        if len(payload.encode()) > _PAYLOAD_MAX:
            if kind != "state" and text is not None:
                log.debug("event of game %s too big to relay: dropped", game_id)
            return
        self._out.put((game_id, kind, payload))

    # ------------------------------------------------------------ threads
    def _connect(self, role: str) -> Any:
        import psycopg

        # named for pg_stat_activity: "outflank-listen <pid> <host>" (63 bytes at most)
        name = f"outflank-{role} {os.getpid()} {socket.gethostname()}"[:63]
        return psycopg.connect(self.conninfo, autocommit=True, application_name=name)

    def _send_loop(self) -> None:
        connection = None
        pending: list[tuple[str, str, str]] = []
        while not self._stop.is_set():
            if not pending:
                try:
                    first = self._out.get(timeout=0.5)
                except queue.Empty:
                    continue
                if first is None:
                    break
                pending.append(first)
            while True:  # everything queued meanwhile
                try:
                    more = self._out.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._stop.set()
                    break
                pending.append(more)
            try:
                if connection is None:
                    connection = self._connect("notify")
                for start in range(0, len(pending), _BATCH):
                    batch = [payload for _, _, payload in pending[start : start + _BATCH]]
                    connection.execute(
                        "SELECT pg_notify(%s, x) FROM unnest(%s::text[]) AS x", (CHANNEL, batch)
                    )
                pending = []
            except Exception as exc:  # the database went away: retry on a new connection
                pending = _newest_states(pending)
                log.warning(
                    "cannot send events to the other processes (%d states kept to send again): %s",
                    len(pending),
                    exc,
                )
                connection = self._close(connection)
                self._stop.wait(1.0)
        self._close(connection)

    def _listen_loop(self) -> None:
        connection = None
        lost = False  # the connection was lost: catch up once listening again
        while not self._stop.is_set():
            try:
                if connection is None:
                    connection = self._connect("listen")
                    connection.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                if lost and self._catch_up is not None:
                    self._catch_up()  # after LISTEN: nothing falls between the two
                lost = False
                for note in connection.notifies(timeout=0.5):
                    self._deliver(note.payload)
            except Exception as exc:
                if self._stop.is_set():
                    break
                log.warning("cannot listen to the other processes' events: %s", exc)
                lost = True
                connection = self._close(connection)
                self._stop.wait(1.0)
        self._close(connection)

    def _deliver(self, payload: str) -> None:
        try:
            item = json.loads(payload)
            if item.get("o") == self.origin:
                return
            event: RemoteEvent = (str(item["g"]), str(item["k"]), item.get("v"), item.get("t"))
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed event on channel %s", CHANNEL)
            return
        try:
            self._receive(event)
        except Exception:  # a listener's error must not stop the listening
            log.exception("relayed event of game %s failed", event[0])

    @staticmethod
    def _close(connection: Any) -> None:
        if connection is not None:
            try:
                connection.close()
            except Exception:  # already broken
                log.debug("closing a broken connection failed", exc_info=True)
        return None

    def close(self) -> None:
        """Stop both threads and close their connections."""
        self._stop.set()
        self._out.put(None)
        for thread in self._threads:
            if thread.is_alive():
                thread.join(5)
