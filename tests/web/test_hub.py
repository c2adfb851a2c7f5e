"""The hub: events from worker threads and from the loop reach each listener
in the order they were published, and a burst wakes the loop once."""

from __future__ import annotations

import asyncio
import threading

from outflank.web.hub import Hub


def test_events_keep_their_order_across_threads() -> None:
    async def scenario() -> list[str]:
        hub = Hub()
        sub = hub.subscribe("g")
        wakeups = 0
        loop = asyncio.get_running_loop()
        original = loop.call_soon_threadsafe

        def counted(*args: object, **kwargs: object) -> object:
            nonlocal wakeups
            wakeups += 1
            return original(*args, **kwargs)  # type: ignore[arg-type]

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]

        def worker() -> None:  # an AI's burst: thinking, info lines, state
            hub.publish("g", {"type": "thinking", "color": "white"})
            for depth in range(1, 4):
                hub.publish("g", {"type": "info", "depth": depth})
            hub.publish_state("g", 2, '{"version":2}')

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert wakeups == 1  # the loop was busy here: one wake-up for the burst
        hub.publish_state("g", 3, '{"version":3}')  # on the loop, after the burst
        received = []
        while not sub.queue.empty():
            received.append(sub.queue.get_nowait().kind)
        hub.unsubscribe(sub)
        return received

    kinds = asyncio.run(scenario())
    assert kinds == ["thinking", "info", "info", "info", "state", "state"]


def test_a_listener_of_a_closed_loop_is_skipped() -> None:
    hub = Hub()

    async def listen() -> None:
        hub.subscribe("g")  # never unsubscribed: its loop closes

    asyncio.run(listen())
    hub.publish("g", {"type": "info"})  # no error, nobody to tell
    assert hub.listeners("g") == 1
