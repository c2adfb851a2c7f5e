"""The web app's ASGI middleware: a bound on request bodies, and the count of
people's requests in progress that AI moves give way to."""

from __future__ import annotations

from typing import Any

from outflank.web.errors import error
from outflank.web.priority import PeopleFirst

__all__ = ["MAX_BODY", "BodyLimit", "CountPeople"]

MAX_BODY = 64 * 1024  # bytes: the largest request (or WebSocket message) the API takes


class BodyLimit:
    """Answer 413 to a request body over MAX_BODY bytes instead of reading it
    all into memory: by its Content-Length at once, or, sent in chunks, as
    soon as the chunks pass the limit."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = error(413, f"the request body is over {MAX_BODY} bytes")
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY:
            await too_big(scope, receive, send)
            return
        received, over = 0, False

        async def limited_receive() -> Any:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    over = True
                    return {"type": "http.disconnect"}  # the app stops reading
            return message

        async def checked_send(message: Any) -> None:
            if not over:  # past the limit, the app's answer is replaced by the 413
                await send(message)

        try:
            await self.app(scope, limited_receive, checked_send)
        except Exception:
            if not over:
                raise
        if over:
            await too_big(scope, receive, send)


class CountPeople:
    """Count each request that changes a game (POST, PATCH) as a person's
    request in progress until its answer is sent: AI moves wait for a lull
    in them, and so does a new game before it is made
    (:class:`outflank.web.priority.PeopleFirst`)."""

    def __init__(self, app: Any, people: PeopleFirst) -> None:
        self.app = app
        self.people = people

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PATCH"):
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/api/games":  # a new game: started games' moves first
            await self.people.wait_turn_async()
        with self.people.serving():
            await self.app(scope, receive, send)
