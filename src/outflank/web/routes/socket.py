"""The live game over a WebSocket: the server sends ``state``, ``thinking`` and
``info`` events; the client may send ``move``, ``undo``, ``redo`` and ``ping``.

Errors are answered as REST answers them, as ``{"type": "error", "status":
<the REST status>, "error": "<one sentence>"}``, and the socket stays open
(but for a message over :data:`~outflank.web.middleware.MAX_BODY` bytes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.exc import OperationalError

from outflank.web.errors import database_message, quote
from outflank.web.hub import Event
from outflank.web.middleware import MAX_BODY
from outflank.web.routes.common import Service, changing
from outflank.web.service import GameError, GameService
from outflank.web.storage import DatabaseError

__all__ = ["router"]

log = logging.getLogger("outflank.web")
router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def game_socket(
    websocket: WebSocket, game_id: str, service: Service, seat: str | None = None
) -> None:
    """Live game: the server sends ``state``, ``thinking`` and ``info`` events;
    the client may send ``{"type": "move", "move": "d3"}``, ``undo``, ``redo``."""
    await websocket.accept()
    sub = service.hub.subscribe(game_id)
    try:
        try:
            held = service.cached_holder(game_id, seat)  # no thread for a cached game
            state, you = held or await run_in_threadpool(service.get_holder, game_id, seat)
        except GameError as exc:
            await _send_error(websocket, exc.status, exc.message)
            await websocket.close(code=4000 + exc.status)
            return
        opening = '{"type":"state","you":' + json.dumps(you) + ',"state":' + state + "}"
        await websocket.send_text(opening)
        sender = asyncio.create_task(_forward(websocket, sub.queue))
        try:
            await _receive(websocket, service, game_id, seat)
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
    except WebSocketDisconnect:
        pass
    finally:
        service.hub.unsubscribe(sub)


async def _forward(websocket: WebSocket, queue: asyncio.Queue[Event]) -> None:
    """Send the game's events to the client as they come."""
    while True:
        event = await queue.get()
        await websocket.send_text(event.text)


async def _receive(
    websocket: WebSocket, service: GameService, game_id: str, seat: str | None
) -> None:
    """Answer the client's messages until it leaves (WebSocketDisconnect) or
    sends one too big (then the socket is closed)."""
    while True:
        text = await _read_text(websocket)
        if text is None:
            return
        message = _parse(text)
        if message is None:  # 422, as REST answers a malformed body
            await _send_error(websocket, 422, "malformed JSON message")
            continue
        await _answer(websocket, service, game_id, seat, message)


async def _read_text(websocket: WebSocket) -> str | None:
    """The next message's text (a binary frame read as UTF-8, else ""); None
    after answering and closing on a message over MAX_BODY bytes."""
    frame = await websocket.receive()
    if frame["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(frame.get("code", 1000))
    text = frame.get("text")
    data = frame.get("bytes") or b""
    size = len(data) if text is None else len(text.encode("utf-8", "replace"))
    if size > MAX_BODY:  # as REST's 413; uvicorn refuses such a frame before it is read
        await _send_error(websocket, 413, f"a message is over {MAX_BODY} bytes")
        await websocket.close(code=1009)  # "message too big"
        return None
    if text is None:  # a binary frame: accept UTF-8 JSON, refuse anything else
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = ""
    return text


def _parse(text: str) -> dict[str, Any] | None:
    """A message as a JSON object, or None if it is not one."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        return None
    return message if isinstance(message, dict) else None


async def _answer(
    websocket: WebSocket,
    service: GameService,
    game_id: str,
    seat: str | None,
    message: dict[str, Any],
) -> None:
    """Do what one message asks; a refusal is sent back as an error message."""
    kind = message.get("type")
    try:
        if kind == "ping":
            await websocket.send_json({"type": "pong"})
            return
        if not seat:
            raise GameError(403, "spectators may watch but not play")
        if kind == "move":
            move = message.get("move")
            if not isinstance(move, str) or not 1 <= len(move) <= 16:  # as MoveRequest
                raise GameError(
                    422,
                    "a move message needs 'move': a square such as d3 (16 characters or less)",
                )
            with service.people.serving():
                await changing(service, service.play, game_id, seat, move)
        elif kind in ("undo", "redo"):
            with service.people.serving():
                await changing(service, getattr(service, kind), game_id, seat)
        else:
            raise GameError(
                400, f"unknown message type {quote(kind)}: expected move, undo, redo, ping"
            )
    except GameError as exc:
        await _send_error(websocket, exc.status, exc.message)
    except (DatabaseError, OperationalError) as exc:  # as REST answers: 503, and go on
        log.error("database error: %s", exc)
        await _send_error(websocket, 503, database_message(exc))


async def _send_error(websocket: WebSocket, status: int, message: str) -> None:
    await websocket.send_json({"type": "error", "status": status, "error": message})
