"""The FastAPI application: REST API, a WebSocket per game, and the static page.

``create_app(db_url)`` builds an app on a database (a SQLite path or any
SQLAlchemy URL). Every error a client can cause is answered with a 4xx and a
JSON body ``{"error": "<one clear sentence>"}``; the game is left unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from outflank import __version__
from outflank.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from outflank.web.ai import OPPONENTS, engine_available
from outflank.web.collector import QuietCollector
from outflank.web.hub import Event, Hub
from outflank.web.priority import PeopleFirst
from outflank.web.schemas import MoveRequest, NewGame, PlayerUpdate, SeatRequest
from outflank.web.service import GameError, GameService
from outflank.web.storage import DatabaseError, Storage

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("outflank.web")


MAX_BODY = 64 * 1024  # bytes: the largest request (or WebSocket message) the API takes
QUOTE = 32  # characters of a client's input an error message may quote


def _json(text: str, status: int = 200) -> Response:
    """A JSON answer already encoded (the service encodes a state once per version)."""
    return Response(text, status_code=status, media_type="application/json")


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _quote(value: Any) -> str:
    """A client's input for an error message: its repr, cut to a short prefix."""
    text = repr(value)
    return text if len(text) <= QUOTE else text[: QUOTE - 1] + "…"


def _database_message(exc: Exception) -> str:
    """What a client is told when the database fails (503)."""
    if isinstance(exc, OperationalError):
        # a read-only file, a lock held too long, a full disk: the database's own words
        reason = str(exc.orig).splitlines()[0] if exc.orig else "unavailable"
        return f"the database cannot be used now ({reason}); the game is unchanged"
    return str(exc)


class _BodyLimit:
    """Answer 413 to a request body over MAX_BODY bytes instead of reading it
    all into memory: by its Content-Length at once, or, sent in chunks, as
    soon as the chunks pass the limit."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = _error(413, f"the request body is over {MAX_BODY} bytes")
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


class _CountPeople:
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


_UNPARSED = "There was an error parsing the body"  # FastAPI's words for a parser failure


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        if tuple(err.get("loc", ())) == ("body",) and err.get("type") in (
            "model_attributes_type",
            "dict_type",
        ):
            return "the request body must be a JSON object"
        where = ".".join(
            str(p)[:QUOTE] for p in err.get("loc", ()) if p != "body"
        )  # a field name is the client's input: keep it short
        if err.get("type") == "json_invalid":
            return "malformed JSON in the request body"
        parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
    return "bad request: " + "; ".join(parts)


def _threads_per_search(ai_workers: int, threads: int | None) -> int:
    """The threads of each search: as given (checked), else the cores shared
    out between the searches that may run at once (1 without the engine)."""
    try:
        from outflank.threads import check_threads, share
    except ImportError:  # no native core in this build: no search either
        return threads or 1
    return share(ai_workers) if threads is None else check_threads(threads)


def create_app(
    db_url: str = "outflank.db",
    *,
    ai_workers: int = 2,
    ai_delay: float = 0.4,
    time_cap: float = 10.0,
    analysts: int = 2,
    analysis_limit: int = 8,
    analysis_timeout: float = 30.0,
    ai_games_per_client: int = 3,
    threads: int | None = None,
    quiet_gc: bool = False,
) -> FastAPI:
    """Build the web app on a database (SQLite path or SQLAlchemy URL).

    ``ai_workers`` threads search AI moves, one move at a time and people's
    games first; ``ai_delay`` spaces the moves of two AIs playing each other,
    and a client may have ``ai_games_per_client`` such games playing at once;
    ``time_cap`` bounds any single search. ``analysts`` threads answer hints,
    evaluations and Learn mode, at most ``analysis_limit`` at once (then 503)
    and each within ``analysis_timeout`` seconds (else cancelled, 503).
    ``threads`` is how many threads each search uses (default: the cores
    shared out between the ``ai_workers`` searches that may run at once).
    ``quiet_gc``: keep the garbage collector's passes short while serving
    (:class:`outflank.web.collector.QuietCollector`; it acts on the whole
    process, so ``outflank serve`` asks for it and embedders choose).
    """
    threads = _threads_per_search(ai_workers, threads)
    storage = Storage(db_url)
    hub = Hub()
    service = GameService(
        storage,
        hub,
        workers=ai_workers,
        analysts=analysts,
        ai_delay=ai_delay,
        time_cap=time_cap,
        analysis_limit=analysis_limit,
        analysis_timeout=analysis_timeout,
        ai_games_per_client=ai_games_per_client,
        threads=threads,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.people.watch(asyncio.get_running_loop())
        await run_in_threadpool(service.start)
        resumed = service.resume()
        if resumed:
            log.info("resumed %d unfinished games", resumed)
        collector = QuietCollector() if quiet_gc else None
        if collector is not None:
            collector.start()
        yield
        if collector is not None:
            collector.stop()
        await run_in_threadpool(service.close)
        storage.close()

    app = FastAPI(title="outflank", version=__version__, lifespan=lifespan)
    app.add_middleware(_BodyLimit)
    app.add_middleware(_CountPeople, people=service.people)
    app.state.service = service
    app.state.storage = storage

    # ---------------------------------------------------------------- errors
    @app.exception_handler(GameError)
    async def _game_error(_request: Request, exc: GameError) -> JSONResponse:
        headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        return _error(exc.status, exc.message, headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, _describe_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == _UNPARSED:
            # what FastAPI says when the JSON parser itself fails (nested too deep)
            return _error(422, "malformed JSON in the request body")
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(DatabaseError)
    @app.exception_handler(OperationalError)
    async def _database_error(_request: Request, exc: Exception) -> JSONResponse:
        log.error("database error: %s", exc)
        return _error(503, _database_message(exc))

    @app.exception_handler(Exception)
    async def _server_error(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return _error(500, "internal error: the game is unchanged")

    # ---------------------------------------------------------------- page
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    page = {"methods": ["GET", "HEAD"], "include_in_schema": False}
    app.api_route("/", **page)(index)
    app.api_route("/game/{game_id}", **page)(lambda game_id: index())
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ---------------------------------------------------------------- REST
    @app.get("/api/info")
    def info() -> dict[str, Any]:
        """Server version, the opponents it offers and the engine's level scale."""
        return {
            "version": __version__,
            "engine": engine_available(),
            "opponents": [{"ai": key, "name": name} for key, name in OPPONENTS.items()],
            "levels": {"min": MIN_LEVEL, "max": MAX_LEVEL, "default": DEFAULT_LEVEL},
            "threads": {"per_search": threads, "searches": ai_workers},
        }

    @app.post("/api/games", status_code=201)
    def create_game(spec: NewGame, request: Request) -> Response:
        """Start a game. The answer holds the seats' secrets: keep them, share one."""
        client = request.client.host if request.client else None
        return _json(service.create(spec, client), 201)

    @app.get("/api/games")
    def list_games(
        limit: int = Query(20, ge=1, le=200), offset: int = Query(0, ge=0, le=10**9)
    ) -> dict[str, Any]:
        """Recently played games, newest first; ``offset`` pages back."""
        return {"games": service.list_games(limit, offset)}

    @app.get("/api/games/{game_id}")
    async def get_game(
        game_id: str,
        seat: str | None = None,
        since: int | None = Query(None, ge=0),
        wait: float = Query(0, ge=0, le=60),
    ) -> Response:
        """A game's state; with ``since`` and ``wait``, waits for a newer version (REST
        fallback of the WebSocket: long polling)."""
        if since is not None and wait > 0:
            sub = hub.subscribe(game_id)
            try:
                version = await run_in_threadpool(service.version, game_id)
                loop = asyncio.get_running_loop()
                deadline = loop.time() + wait
                while version <= since:
                    left = deadline - loop.time()
                    if left <= 0:
                        break
                    try:
                        event = await asyncio.wait_for(sub.queue.get(), left)
                    except TimeoutError:
                        break
                    if event.kind == "state" and event.version is not None:
                        version = event.version
            finally:
                hub.unsubscribe(sub)
        return _json(await run_in_threadpool(service.get, game_id, seat))

    @app.post("/api/games/{game_id}/moves")
    def play(game_id: str, body: MoveRequest) -> Response:
        """Play a move for the seat whose secret is given."""
        return _json(service.play(game_id, body.seat, body.move))

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str, body: SeatRequest) -> Response:
        """Take back moves until the seat holder is to move again."""
        return _json(service.undo(game_id, body.seat))

    @app.post("/api/games/{game_id}/redo")
    def redo(game_id: str, body: SeatRequest) -> Response:
        """Replay taken-back moves up to the seat holder's next turn."""
        return _json(service.redo(game_id, body.seat))

    @app.patch("/api/games/{game_id}/players/{color}")
    def update_player(game_id: str, color: str, body: PlayerUpdate) -> Response:
        """New settings for an AI seat (level, region biases, look-ahead) mid-game."""
        return _json(service.update_player(game_id, body.seat, color, body.player))

    @app.get("/api/games/{game_id}/hints")
    def hints(
        game_id: str,
        ply: int | None = Query(None, ge=0),
        depth: int | None = Query(None, ge=1, le=30),
    ) -> dict[str, Any]:
        """Every legal move's score (side-to-move view, discs), best first."""
        return service.hints(game_id, ply, depth)

    @app.get("/api/games/{game_id}/evaluations")
    def evaluations(game_id: str) -> dict[str, Any]:
        """A score from black's view (discs) for each position of the game."""
        return service.evaluations(game_id)

    @app.get("/api/games/{game_id}/learn")
    def learn(
        game_id: str,
        depth: int = Query(2, ge=1, le=4),
        ply: int | None = Query(None, ge=0),
        order: str = Query("update-first", max_length=40),
    ) -> Response:
        """The teaching alpha-beta trace of the position: tree, log, cut-offs.

        ``order``: the log order, ``update-first`` (seed 002) or ``test-first`` (AIMA 5.7).
        """
        return JSONResponse(service.learn(game_id, depth, ply, order))  # big: no re-encoding

    @app.get("/api/games/{game_id}/transcript", response_class=PlainTextResponse)
    def transcript(game_id: str) -> Response:
        """The game's moves as a transcript (``f5d6c3...``)."""
        return PlainTextResponse(
            service.transcript(game_id),
            headers={"Content-Disposition": f'inline; filename="{game_id}.txt"'},
        )

    @app.get("/api/games/{game_id}/ggf", response_class=PlainTextResponse)
    def ggf(game_id: str) -> Response:
        """The game as a GGF record."""
        return PlainTextResponse(
            service.ggf(game_id),
            headers={"Content-Disposition": f'inline; filename="{game_id}.ggf"'},
        )

    # ---------------------------------------------------------------- WebSocket
    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str, seat: str | None = None) -> None:
        """Live game: the server sends ``state``, ``thinking`` and ``info`` events;
        the client may send ``{"type": "move", "move": "d3"}``, ``undo``, ``redo``."""
        await websocket.accept()
        sub = hub.subscribe(game_id)
        try:
            try:
                state, you = await run_in_threadpool(service.get_holder, game_id, seat)
            except GameError as exc:
                await websocket.send_json(
                    {"type": "error", "status": exc.status, "error": exc.message}
                )
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
            hub.unsubscribe(sub)

    return app


async def _forward(websocket: WebSocket, queue: asyncio.Queue[Event]) -> None:
    while True:
        event = await queue.get()
        await websocket.send_text(event.text)


async def _receive(
    websocket: WebSocket, service: GameService, game_id: str, seat: str | None
) -> None:
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        text = frame.get("text")
        data = frame.get("bytes") or b""
        size = len(data) if text is None else len(text.encode("utf-8", "replace"))
        if size > MAX_BODY:  # as REST's 413; uvicorn refuses such a frame before it is read
            await websocket.send_json(
                {"type": "error", "status": 413, "error": f"a message is over {MAX_BODY} bytes"}
            )
            await websocket.close(code=1009)  # "message too big"
            return
        if text is None:  # a binary frame: accept UTF-8 JSON, refuse anything else
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = ""
        try:
            message = json.loads(text)
            if not isinstance(message, dict):
                raise ValueError
        except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
            await websocket.send_json(  # 422, as REST answers a malformed body
                {"type": "error", "status": 422, "error": "malformed JSON message"}
            )
            continue
        kind = message.get("type")
        try:
            if kind == "ping":
                await websocket.send_json({"type": "pong"})
                continue
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
                    await run_in_threadpool(service.play, game_id, seat, move)
            elif kind in ("undo", "redo"):
                with service.people.serving():
                    await run_in_threadpool(getattr(service, kind), game_id, seat)
            else:
                raise GameError(
                    400, f"unknown message type {_quote(kind)}: expected move, undo, redo, ping"
                )
        except GameError as exc:
            await websocket.send_json({"type": "error", "status": exc.status, "error": exc.message})
        except (DatabaseError, OperationalError) as exc:  # as REST answers: 503, and go on
            log.error("database error: %s", exc)
            message = _database_message(exc)
            await websocket.send_json({"type": "error", "status": 503, "error": message})
