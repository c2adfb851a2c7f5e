"""Game logic of the web app over :class:`outflank.board.Board` and the storage.

Every change to a game (a move, an undo, a redo, new AI settings) is
validated against the game in memory (:class:`LiveGame`, cached by
:class:`GameStore`), made on a copy, written through to the database (a
few small rows), and only then published to the game's listeners. AI
seats move on the scheduler's threads, one move at a time; a move
computed for a position that has changed meanwhile (an undo) is thrown
away. On PostgreSQL several processes serve the same games: events cross
them (:mod:`outflank.web.relay`), each AI move is claimed by one process
for a lease, and moves whose claimer died are swept up by the others.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib
import json
import logging
import os
import secrets as token
import socket
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from outflank.board import Board, Move, Rules, parse_position
from outflank.errors import OutflankError, SearchLimitError
from outflank.web.ai import AIMove, EngineUnavailableError, Thinker, describe, engine_available
from outflank.web.analysis import AnalysisQueue, Busy, Cancel, Cancelled, TimedOut
from outflank.web.hub import Event, Hub
from outflank.web.live import COLORS, LiveGame, Seat, color_name
from outflank.web.priority import PeopleFirst
from outflank.web.relay import PgRelay, RemoteEvent
from outflank.web.scheduler import AIScheduler, Next
from outflank.web.schemas import NewGame, PlayerSpec
from outflank.web.storage import DatabaseError, Storage, new_game_id, new_secret
from outflank.web.store import Conflict, GameStore

__all__ = ["GameError", "GameService"]

log = logging.getLogger("outflank.web")
T = TypeVar("T")

EVAL_DEPTH = 4
_LOCK_STRIPES = 64
_EVAL_CACHE = 20000
#: Learn mode's alpha-beta trace: at most this many nodes searched, and this
#: many in the tree sent (pruned branches included): about 2 MB of JSON.
LEARN_MAX_NODES = 6000
LEARN_MAX_TREE = 10000
#: Several processes (PostgreSQL): a claimed AI move is the claimer's for
#: its search's time cap plus this many seconds; then another may make it.
LEASE_MARGIN = 5.0
#: How often each process looks for AI moves nobody is making (seconds).
SWEEP_EVERY = 1.0


class GameError(Exception):
    """A request the game cannot accept; ``status`` is the HTTP status to answer
    (with ``retry_after`` seconds for a 503 of a busy server)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class _Searched(NamedTuple):
    """An AI move searched, to be made if the game is still at ``version``."""

    game_id: str
    version: int
    choice: AIMove
    both_ai: bool


@dataclass(frozen=True)
class _Written:
    """What a change wrote: the plies dropped from, the plies added, the seat changed."""

    dropped_from: int | None = None
    new_plies: int = 0
    seat: str | None = None


class GameService:
    """Creates, loads and changes games; runs the AI seats.

    ``workers`` threads search AI moves, one move at a time, people's games
    first (:class:`AIScheduler`); ``analysts`` threads answer hints,
    evaluations and Learn-mode traces, with at most ``analysis_limit``
    requests waiting or running and each answered within
    ``analysis_timeout`` seconds or cancelled (:class:`AnalysisQueue`).
    ``ai_delay`` (seconds) spaces the moves of two AIs playing each other so
    that a person can watch; one client may have ``ai_games_per_client``
    such games playing at once. ``cache`` games are kept in memory.
    ``threads``: threads of each search (``None``: every core). Each AI move
    waits for a lull in the requests ``people`` counts (default: a
    :class:`PeopleFirst` with its default room and patience).
    """

    def __init__(
        self,
        storage: Storage,
        hub: Hub | None = None,
        *,
        workers: int = 2,
        analysts: int = 2,
        ai_delay: float = 0.4,
        time_cap: float = 10.0,
        analysis_limit: int = 8,
        analysis_timeout: float = 30.0,
        ai_games_per_client: int = 3,
        cache: int = 4096,
        threads: int | None = None,
        people: PeopleFirst | None = None,
    ) -> None:
        self.storage = storage
        self.hub = hub or Hub()
        self.store = GameStore(storage, size=cache, verify=not storage.url.startswith("sqlite"))
        self.thinker = Thinker(time_cap=time_cap, threads=threads)
        self.ai_delay = ai_delay
        self.ai_games_per_client = ai_games_per_client
        self.analysis = AnalysisQueue(analysts, max(analysis_limit, analysts), analysis_timeout)
        # striped per-game locks: bounded memory however many games there are
        self._locks = [threading.Lock() for _ in range(_LOCK_STRIPES)]
        self._thinking: dict[str, tuple[str, Any]] = {}
        self._evals: OrderedDict[tuple[int, int, int, str], float] = OrderedDict()
        self._evals_lock = threading.Lock()
        self._closed = False
        # people's requests are answered before the next AI move is made
        self.people = people or PeopleFirst()
        self.loop: asyncio.AbstractEventLoop | None = None  # see attach()
        self.scheduler = AIScheduler(
            workers,
            self._ai_step,
            pause=self.people.wait_turn,
            # one process on SQLite: people's games' AI moves made in batches on the loop
            batch=None if storage.shared else self._ai_steps,
        )
        # several processes on one database (PostgreSQL): events relayed
        # between them, AI moves claimed by one, owed moves swept up
        self.shared = storage.shared
        #: a request's change runs on the event loop itself (one process on
        #: SQLite: a change and its commit cost less than a thread's round
        #: trip), not on a worker thread (PostgreSQL: waits on the server)
        self.inline = not self.shared
        self.origin = f"{socket.gethostname()}:{os.getpid()}:{token.token_hex(4)}"
        self.relay: PgRelay | None = None
        self._remote_thinking: dict[str, str] = {}
        self._sweeper: threading.Thread | None = None
        self._sweep_stop = threading.Event()
        self.claim_grace = max(2.0, 2 * ai_delay + 1.0)

    def start(self) -> None:
        """Begin serving: on a shared database (PostgreSQL), relay events to
        and from the other processes, and look every second for AI moves
        nobody is making (a process died mid-search). Then :meth:`resume`."""
        if self.shared and self.relay is None:
            self.relay = PgRelay(
                self.storage.url, self.origin, self._on_remote, catch_up=self._catch_up
            )
            self.hub.relay = self._relay_out
            self.relay.start()
            self._sweeper = threading.Thread(target=self._sweep, name="outflank-sweep", daemon=True)
            self._sweeper.start()

    # ------------------------------------------------------------ plumbing
    @contextlib.contextmanager
    def _game_lock(self, game_id: str) -> Iterator[None]:
        with self._locks[zlib.crc32(game_id.encode()) % _LOCK_STRIPES]:
            yield

    def _game(self, game_id: str) -> LiveGame:
        game = self.store.get(game_id) if len(game_id) <= 32 else None
        if game is None:
            raise GameError(404, f"unknown game {game_id[:40]!r}")
        return game

    def game(self, game_id: str) -> LiveGame:
        """The game as it stands (raises a 404 :class:`GameError` for an unknown one)."""
        return self._game(game_id)

    @staticmethod
    def _require_seat(game: LiveGame, secret: str) -> str:
        color = game.holder(secret)
        if color is None:
            raise GameError(
                403, "this link holds no seat in the game: spectators may watch but not play"
            )
        return color

    def thinking(self, game_id: str) -> str | None:
        """The colour of the AI searching in the game now (here or in another
        process), if any."""
        entry = self._thinking.get(game_id)
        return entry[0] if entry is not None else self._remote_thinking.get(game_id)

    # ------------------------------------------------------------ processes
    def _relay_out(self, game_id: str, event: Event) -> None:
        if self.relay is not None:
            self.relay.send(game_id, event.kind, event.version, event.text)

    def _on_remote(self, event: RemoteEvent) -> None:
        """An event of another process (on the relay's thread): a changed
        game is read again for this process's listeners, and a search here
        that the change made stale is stopped."""
        game_id, kind, version, text = event
        if kind == "state":
            self._remote_thinking.pop(game_id, None)
            cached = self.store.cached(game_id)
            stale = cached is None or version is None or cached.version < version
            if stale and game_id in self._thinking:
                self._stop_thinking(game_id)
            if cached is not None and version is not None and version < cached.version:
                return  # old news: the newer version's own event comes (or came) too
            if not self.hub.listeners(game_id):
                if stale:
                    self.store.forget(game_id)  # read again when next asked for
                return
            game = cached
            if stale:  # read from the database (only the new plies if one change ahead)
                game = self.store.load(game_id, since=cached)
                if game is not None:
                    self.store.keep(game)
            if game is not None:
                state = '{"type":"state","state":' + self.state_json(game) + "}"
                self.hub.deliver(game_id, Event("state", state, game.version))
            return
        if text is None:
            return
        if kind == "thinking":
            with contextlib.suppress(ValueError, AttributeError):
                self._remote_thinking[game_id] = str(json.loads(text).get("color"))
        self.hub.deliver(game_id, Event(kind, text))

    def _catch_up(self) -> None:
        """After the relay's listener was cut off (on its thread, once it
        listens again): every game this process's clients watch, or that it
        is searching, is read again; the clients get each state they missed,
        and a search of a game changed meanwhile is stopped. The same as
        hearing a ``state`` event of the game's current version."""
        delivered = self.hub.watched()
        game_ids = sorted(set(delivered) | set(self._thinking) | set(self._remote_thinking))
        changed = 0
        for game_id, version in self.store.versions(game_ids).items():
            cached = self.store.cached(game_id)
            seen = delivered.get(game_id)
            if (
                (cached is not None and cached.version != version)
                or (game_id in delivered and (seen is None or seen < version))
                or game_id in self._remote_thinking
            ):
                changed += 1
                self._on_remote((game_id, "state", version, None))
        log.info(
            "listening to the other processes' events again: %d game%s changed meanwhile",
            changed,
            "" if changed == 1 else "s",
        )

    def _sweep(self) -> None:
        """Queue the AI moves nobody is making (see :meth:`GameStore.owed`)."""
        while not self._sweep_stop.wait(SWEEP_EVERY):
            try:
                for game_id, ai_seats in self.store.owed(self.claim_grace):
                    self._schedule_ai(game_id, background=ai_seats == 2)
            except Exception as exc:  # the database is down: try again later
                log.warning("cannot look for owed AI moves: %s", exc)

    # ------------------------------------------------------------ state
    def state(self, game: LiveGame) -> dict[str, Any]:
        """The public state of a game (no secrets) as sent to every listener."""
        return game.state(self.thinking(game.id))

    def state_json(self, game: LiveGame, **extra: Any) -> str:
        """:meth:`state` as JSON (plus ``extra`` keys such as ``you``)."""
        return game.state_json(self.thinking(game.id), **extra)

    def _publish(self, game: LiveGame) -> str:
        """Tell the game's listeners its new state; returns the state's JSON."""
        text = self.state_json(game)
        self.hub.publish_state(game.id, game.version, text)
        return text

    def get(self, game_id: str, secret: str | None = None) -> str:
        """A game's state as JSON, plus ``you``: the colour the secret holds (or null)."""
        return self.get_holder(game_id, secret)[0]

    def get_holder(self, game_id: str, secret: str | None = None) -> tuple[str, str | None]:
        """:meth:`get`, and the colour the secret holds apart."""
        game = self._game(game_id)
        you = game.holder(secret)
        return self.state_json(game, you=you), you

    def cached_holder(
        self, game_id: str, secret: str | None = None
    ) -> tuple[str, str | None] | None:
        """:meth:`get_holder` without touching the database, for the event
        loop: a game cached by this process alone (SQLite), else None."""
        if self.shared:
            return None  # another process may have changed it: ask the database
        game = self.store.cached(game_id)
        if game is None:
            return None
        you = game.holder(secret)
        return self.state_json(game, you=you), you

    def version(self, game_id: str) -> int:
        """The game's current version number."""
        return self._game(game_id).version

    def list_games(self, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """The most recently changed games, newest first (no secrets); ``offset``
        skips that many of the newest (the next page)."""
        return [
            {
                **row,
                "updated": row["updated"].isoformat(),
                "black": describe(row["black"]),
                "white": describe(row["white"]),
            }
            for row in self.store.recent(limit, offset)
        ]

    # ------------------------------------------------------------ changes
    def create(self, spec: NewGame, client: str | None = None) -> str:
        """Start a game; returns ``{"game": state, "seats": {colour: secret}}`` as JSON.

        ``spec.start`` may be an OBF position (the game starts there), an OBF
        position followed by moves from it (the transcript export of such a
        game), or a transcript from the initial position. Moves become the
        game's first moves, so they can be replayed and taken back.
        ``client`` (the requester's address) may have at most
        ``ai_games_per_client`` games of AI against AI playing at once.
        """
        players = {"black": spec.black, "white": spec.white}
        if any(p.kind == "ai" for p in players.values()) and not engine_available():
            raise GameError(503, "AI opponents need outflank.engine, which this build lacks")
        rules = Rules(spec.rules)
        try:
            given = parse_position(spec.start or "", rules)
        except OutflankError as exc:
            raise GameError(400, f"bad start position: {exc}") from None
        root, setup = given.root(), given.move_stack
        secrets = {color: new_secret() for color in COLORS}
        seats = {
            color: Seat(color, secrets[color], players[color].model_dump()) for color in COLORS
        }
        client = client[:64] if client else None
        game = LiveGame.new(new_game_id(), root, seats, client)
        for move in setup:
            if move.is_pass and not game.tip.must_pass():
                continue  # already played as a forced pass
            game.push(move, "setup")
        if game.ai_seats == 2 and client is not None and game.status == "playing":
            self._check_ai_games(client)
        self.store.insert(game)
        state = self._publish(game)
        self._schedule_ai(game.id, background=game.ai_seats == 2)
        return '{"game":' + state + ',"seats":' + json.dumps(secrets) + "}"

    def _check_ai_games(self, client: str) -> None:
        """Refuse (429) one more game of AI against AI to a client that
        already has ``ai_games_per_client`` of them playing."""
        playing = self.store.ai_games_of(client)
        cap = self.ai_games_per_client
        if playing >= cap:
            raise GameError(
                429,
                f"you already have {playing} games of AI against AI playing (at most {cap} "
                "at once): wait for one to end",
            )

    def _change(
        self,
        game_id: str,
        change: Callable[[LiveGame], _Written | None],
        *,
        publish: bool = True,
    ) -> LiveGame | None:
        """Apply ``change`` to a copy of the game, write it through, cache and
        publish it (``publish=False``: the caller will, once committed);
        returns the new game (None if ``change`` returned None: nothing to
        do). A game another process changed first is read again and the
        change tried once more; then 409."""
        for attempt in range(2):
            with self._game_lock(game_id):
                current = self._game(game_id)
                game = current.clone()
                written = change(game)
                if written is None:
                    return None
                game.changed()
                try:
                    self.store.save(
                        game,
                        current.version,
                        dropped_from=written.dropped_from,
                        new_plies=written.new_plies,
                        seat=written.seat,
                    )
                except Conflict:
                    self.store.forget(game_id)
                    if attempt:
                        raise GameError(
                            409, "the game changed meanwhile; reload and try again"
                        ) from None
                    continue
                if publish:
                    self._publish(game)
                return game
        raise AssertionError("unreachable")

    @staticmethod
    def _play(game: LiveGame, move: Move, by: str, ai: Any = None) -> _Written:
        """Play ``move`` at the game's cursor (dropping the redoable plies)."""
        before = len(game.plies)
        dropped = game.truncate()
        kept = len(game.plies)
        try:
            if ai is None:
                game.push(move, by)
            else:
                game.push(move, by, ai.score, ai.depth, round(ai.seconds, 4))
        except OutflankError as exc:
            raise GameError(400, str(exc)) from None
        del before
        return _Written(dropped_from=dropped, new_plies=len(game.plies) - kept)

    def play(self, game_id: str, secret: str, move_text: str) -> str:
        """A human move for the seat the secret holds; returns the new state (JSON)."""

        def change(game: LiveGame) -> _Written:
            color = self._require_seat(game, secret)
            if game.status == "over":
                raise GameError(409, "the game is over")
            to_move = game.turn_before(game.cursor)
            if color != to_move:
                raise GameError(409, f"not your turn: {to_move} to move (you hold {color})")
            if game.seat_kind(color) != "human":
                raise GameError(409, f"{color} is played by the AI")
            try:
                move = Move.from_str(move_text)
            except OutflankError as exc:
                raise GameError(400, str(exc)) from None
            if move.is_pass and not game.position().must_pass():
                raise GameError(400, f"{color} cannot pass here: a move is available")
            return self._play(game, move, "human")

        game = self._change(game_id, change)
        assert game is not None
        self._stop_thinking(game_id)
        if game.ai_to_move() is not None:  # else no worker needs waking
            self._schedule_ai(game_id, background=game.ai_seats == 2)
        return self.state_json(game)

    @staticmethod
    def _step_targets(game: LiveGame, color: str) -> set[str]:
        if game.seat_kind(color) == "human":
            return {color}
        return set(COLORS)  # a viewer of two AIs steps one ply at a time

    def undo(self, game_id: str, secret: str) -> str:
        """Take back moves until the holder of the secret is to move again.

        Between two people each takes back only their own last move, before
        the other has answered it: nobody changes the other seat's moves."""
        return self._step(game_id, secret, -1)

    def redo(self, game_id: str, secret: str) -> str:
        """Replay taken-back moves up to the holder's next turn (between two
        people, only the holder's own next move)."""
        return self._step(game_id, secret, +1)

    @staticmethod
    def _friend_step(game: LiveGame, color: str, direction: int) -> int:
        """The new cursor of an undo/redo between two people: the holder's own
        last move taken back, or their own next move replayed (with the forced
        passes after it). A start position's moves stay."""
        plies, cursor = game.plies, game.cursor
        chosen = [p for p, ply in enumerate(plies) if ply.by == "human"]  # not the start
        if direction < 0:
            before = [p for p in chosen if p < cursor]
            if not before:
                raise GameError(409, "nothing to undo")
            if not any(plies[p].color == color for p in before):
                raise GameError(
                    409,
                    "nothing of yours to undo: the moves on the board are your friend's, "
                    "for them to take back",
                )
            if plies[before[-1]].color != color:
                raise GameError(
                    409,
                    "your friend has moved since your last move: only they can take their "
                    "move back",
                )
            return before[-1]
        after = [p for p in chosen if p >= cursor]
        if not after:
            raise GameError(409, "nothing to redo")
        if plies[after[0]].color != color:
            raise GameError(409, "the next move to replay is your friend's")
        cursor = after[0] + 1
        while cursor < len(plies) and plies[cursor].by == "auto":
            cursor += 1
        return cursor

    def _step(self, game_id: str, secret: str, direction: int) -> str:
        def change(game: LiveGame) -> _Written:
            color = self._require_seat(game, secret)
            targets = self._step_targets(game, color)
            plies = game.plies
            total = len(plies)

            def stop_at(ply: int) -> bool:
                # a position where the holder chooses a move (not a forced pass)
                return ply == total or (plies[ply].color in targets and plies[ply].by != "auto")

            if all(game.seat_kind(c) == "human" for c in COLORS):
                cursor = self._friend_step(game, color, direction)
            elif direction < 0:
                start = sum(1 for p in plies if p.by == "setup")  # the start stays
                found = [p for p in range(start, game.cursor) if stop_at(p)]
                if not found:
                    raise GameError(409, "nothing to undo")
                cursor = found[-1]
            else:
                if game.cursor >= total:
                    raise GameError(409, "nothing to redo")
                cursor = next(p for p in range(game.cursor + 1, total + 1) if stop_at(p))
            game.cursor = cursor
            game.finish()
            return _Written()

        game = self._change(game_id, change)
        assert game is not None
        self._stop_thinking(game_id)
        if game.ai_to_move() is not None:  # else no worker needs waking
            self._schedule_ai(game_id, background=game.ai_seats == 2)
        return self.state_json(game)

    def update_player(self, game_id: str, secret: str, color: str, player: PlayerSpec) -> str:
        """Change an AI seat's settings mid-game (seed 004's sliders, the level)."""
        if color not in COLORS:
            raise GameError(404, f"no seat {color!r}: expected black or white")

        def change(game: LiveGame) -> _Written:
            self._require_seat(game, secret)
            seat = game.seats[color]
            if seat.player.get("kind") != "ai" or player.kind != "ai":
                raise GameError(409, "only an AI seat's settings can change during a game")
            game.seats[color] = Seat(color, seat.secret, player.model_dump())
            return _Written(seat=color)

        game = self._change(game_id, change)
        assert game is not None
        self._stop_thinking(game_id)  # a search with the old settings is thrown away
        if game.ai_to_move() is not None:  # else no worker needs waking
            self._schedule_ai(game_id, background=game.ai_seats == 2)
        return self.state_json(game)

    # ------------------------------------------------------------ AI seats
    def _stop_thinking(self, game_id: str) -> None:
        entry = self._thinking.get(game_id)
        if entry is not None and entry[1] is not None:
            with contextlib.suppress(Exception):
                entry[1].stop()

    def _schedule_ai(self, game_id: str, *, background: bool = False) -> None:
        """Queue one AI move of the game (``background``: two AIs play, nobody waits)."""
        if not self._closed:
            self.scheduler.submit(game_id, background=background)

    def _ai_step(self, game_id: str) -> Next | None:
        """Play one AI move if an AI is to move; what to do next (another AI
        move of this game, or nothing). Runs on a scheduler thread."""
        if self._closed:
            return None
        try:
            return self._ai_move(game_id)
        except (GameError, DatabaseError) as exc:  # the game or its file went away
            log.warning("AI move not saved in game %s: %s", game_id, exc)
            return None

    def _ai_move(self, game_id: str) -> Next | None:
        searched = self._ai_search(game_id)
        if searched is None:
            return None
        return self._ai_finish(searched)[0]

    def _ai_search(self, game_id: str) -> _Searched | None:
        """Search the AI move of the game if an AI is to move (None if none
        is, or another process claimed it). Runs on a scheduler thread."""
        game = self.store.get(game_id)
        if game is None:
            return None
        color = game.ai_to_move()
        if color is None:
            return None
        player = dict(game.seats[color].player)
        version = game.version
        if self.shared and not self.store.claim(
            game_id, version, self.origin, self.thinker.time_cap + LEASE_MARGIN
        ):
            return None  # another process is making this move
        both_ai = game.seat_kind("black") == game.seat_kind("white") == "ai"
        board = game.position()

        def register(engine: Any) -> None:
            self._thinking[game_id] = (color, engine)

        def on_info(info: dict[str, Any]) -> None:
            self.hub.publish(game_id, {"type": "info", "color": color, **info})

        self._thinking[game_id] = (color, None)
        self.hub.publish(game_id, {"type": "thinking", "color": color})
        try:
            choice = self.thinker.choose(board, player, on_info=on_info, register=register)
        finally:
            self._thinking.pop(game_id, None)
        if self._closed:  # stopped by close(): a cut-short search is no move; resume() redoes it
            return None
        return _Searched(game_id, version, choice, both_ai)

    def _ai_finish(
        self, searched: _Searched, publish: bool = True
    ) -> tuple[Next | None, LiveGame | None]:
        """Make a searched AI move if the game is still where it was searched:
        what to do next, and the game made (``publish=False``: its
        listeners are not told yet)."""
        game_id, version, choice, both_ai = searched
        stale = False

        def change(game: LiveGame) -> _Written | None:
            nonlocal stale
            if game.version != version:
                stale = True  # changed under us (undo, new settings): think again
                return None
            return self._play(game, choice.move, "ai", choice)

        try:
            moved = self._change(game_id, change, publish=publish)
        except GameError as exc:
            if exc.status != 409:
                raise
            return Next(both_ai), None
        if moved is None:
            return (Next(both_ai) if stale else None), None
        if moved.ai_to_move() is None:
            return None, moved
        # the AI is to move again: after a pause when two AIs play (for a person to follow)
        return Next(both_ai, self.ai_delay if both_ai else 0.0), moved

    def _ai_steps(self, game_ids: list[str]) -> dict[str, Next | None]:
        """One AI move in each of several people's games (one process on
        SQLite): each searched here, on a scheduler thread, then all made on
        the event loop with one commit (:meth:`GameStore.batch`), and only
        then published. What each game asks for next."""
        found: list[_Searched] = []
        for game_id in game_ids:
            if self._closed:
                break
            try:
                searched = self._ai_search(game_id)
            except (GameError, DatabaseError) as exc:  # the game or its file went away
                log.warning("AI move not saved in game %s: %s", game_id, exc)
                continue
            if searched is not None:
                found.append(searched)
        if not found or self._closed:
            return {}
        return self._on_loop(lambda: self._ai_make(found))

    def _ai_make(self, found: list[_Searched]) -> dict[str, Next | None]:
        """:meth:`_ai_steps`'s moves, made and committed at once, then published."""
        follow: dict[str, Next | None] = {}
        made: list[LiveGame] = []
        try:
            with self.store.batch():
                for searched in found:
                    follow[searched.game_id], game = self._ai_finish(searched, publish=False)
                    if game is not None:
                        made.append(game)
        except (GameError, DatabaseError) as exc:  # the file went away: nothing was saved
            names = ", ".join(searched.game_id for searched in found)
            log.warning("AI moves not saved in games %s: %s", names, exc)
            return {}
        for game in made:
            self._publish(game)
        return follow

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve on ``loop``: people's requests are counted there
        (:meth:`PeopleFirst.watch`) and, on SQLite, the AI moves are made
        there, where the requests' changes are made (no lock is waited for)."""
        self.loop = loop
        self.people.watch(loop)

    def _on_loop(self, work: Callable[[], T]) -> T:
        """``work()`` run on the event loop the service is attached to, for a
        scheduler thread that waits for its result; run here if there is no
        loop running (a service used without a server, or a server stopping)."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return work()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            if future.set_running_or_notify_cancel():  # not taken back by the thread
                try:
                    future.set_result(work())
                except BaseException as exc:
                    future.set_exception(exc)

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:  # the loop closed meanwhile
            return work()
        while True:
            try:
                return future.result(timeout=1.0)
            except concurrent.futures.TimeoutError:
                stopped = loop.is_closed() or not loop.is_running()
                if stopped and future.cancel():  # it will never run there: run it here
                    return work()

    def resume(self) -> int:
        """After a restart: let the AI move in every game waiting for it."""
        playing = self.store.playing()
        for game_id, ai_seats in playing:
            self._schedule_ai(game_id, background=ai_seats == 2)
        return len(playing)

    # ------------------------------------------------------------ analysis
    def _board_at(self, game_id: str, ply: int | None) -> Board:
        game = self._game(game_id)
        cursor = game.cursor if ply is None else ply
        if not 0 <= cursor <= len(game.plies):
            raise GameError(400, f"ply must be in 0..{len(game.plies)}, not {cursor}")
        return game.position(cursor)

    def _run_analysis(self, job: Callable[[Cancel], Any]) -> Any:
        """Run ``job(cancel)`` on the analysis queue: 503 with Retry-After when
        the queue is full or the job was too slow (and was cancelled)."""
        try:
            return self.analysis.run(job)
        except Busy as exc:
            raise GameError(
                503,
                f"the server is busy with {self.analysis.limit} analyses at once: "
                f"try again in {exc.retry_after} s",
                retry_after=exc.retry_after,
            ) from None
        except (TimedOut, Cancelled) as exc:
            seconds = exc.seconds if isinstance(exc, TimedOut) else self.analysis.timeout
            retry = exc.retry_after if isinstance(exc, TimedOut) else 5
            raise GameError(
                503,
                f"the analysis took over {seconds:g} s (the server is busy) and was "
                f"stopped: try again in {retry} s",
                retry_after=retry,
            ) from None
        except EngineUnavailableError as exc:
            raise GameError(503, str(exc)) from None
        except OutflankError as exc:
            raise GameError(400, str(exc)) from None

    def hints(self, game_id: str, ply: int | None = None, depth: int | None = None) -> dict:
        """Every legal move's score in the position (seed 001's recommendation)."""
        board = self._board_at(game_id, ply)
        if board.is_game_over():
            raise GameError(409, "the game is over: no moves to score")
        if not board.moves_bitboard():
            return {"turn": color_name(board), "moves": [{"move": "pass", "score": None}]}
        scores = self._run_analysis(lambda cancel: self.thinker.analyze(board, depth, 1.0, cancel))
        return {"turn": color_name(board), "moves": scores}

    def evaluations(self, game_id: str) -> dict[str, Any]:
        """A score from black's view for every position up to the cursor."""
        game = self._game(game_id)
        boards = [game.position(ply) for ply in range(game.cursor + 1)]

        def work(cancel: Cancel) -> list[float]:
            values = []
            for item in boards:
                key = (item.black, item.white, int(item.turn), item.rules.value)
                with self._evals_lock:
                    value = self._evals.get(key)
                if value is None:
                    value = self.thinker.evaluate(item, EVAL_DEPTH, cancel)
                    with self._evals_lock:
                        self._evals[key] = value
                        while len(self._evals) > _EVAL_CACHE:
                            self._evals.popitem(last=False)
                values.append(value)
            return values

        return {"depth": EVAL_DEPTH, "values": self._run_analysis(work)}

    def learn(
        self, game_id: str, depth: int, ply: int | None = None, order: str = "update-first"
    ) -> dict[str, Any]:
        """The teaching alpha-beta trace of a position (depth 1-4) for Learn mode.

        ``order``: the traverse log's order, ``update-first`` or ``test-first``
        (see :mod:`outflank.classic`); it decides the window each cut-off logs.
        """
        if not 1 <= depth <= 4:
            raise GameError(400, f"learn depth must be in 1..4, not {depth}")
        board = self._board_at(game_id, ply)
        try:
            classic = importlib.import_module("outflank.classic")
            weights = importlib.import_module("outflank.classic_eval").weights
        except ImportError:
            raise GameError(
                503, "Learn mode needs outflank.classic, which this build lacks"
            ) from None
        try:
            order = classic.check_order(order)
        except OutflankError as exc:
            raise GameError(400, str(exc)) from None
        if board.is_game_over():
            raise GameError(409, "the game is over: nothing to search")

        def search(cancel: Cancel) -> dict[str, Any]:
            def evaluate(position: Board, player: Any) -> float:
                cancel.check()  # a cancelled search stops at its next leaf
                return weights(position, player)

            try:
                trace = classic.alphabeta(
                    board, depth, evaluate, max_nodes=LEARN_MAX_NODES, order=order
                )
            except SearchLimitError:
                trace = None
            if trace is None or _tree_size(trace.tree) > LEARN_MAX_TREE:
                raise GameError(
                    400,
                    f"the alpha-beta tree of this position at depth {depth} is too big to "
                    f"show (over {LEARN_MAX_NODES} nodes searched or {LEARN_MAX_TREE} "
                    "drawn): ask for a smaller depth",
                )
            data = trace.to_dict()
            data["log_entries"] = len(data.pop("log", ()))  # the tree says it all, lighter
            return data

        return self._run_analysis(search)

    # ------------------------------------------------------------ export
    def transcript(self, game_id: str) -> str:
        """The moves as a transcript (``f5d6c3...``), prefixed by a non-standard start."""
        game = self._game(game_id)
        text = game.board().transcript()
        if game.start_obf != Board().obf():
            return f"{game.start_obf}\n{text}\n"
        return text + "\n"

    def ggf(self, game_id: str) -> str:
        """The game as a GGF record (through :mod:`outflank.ggf`)."""
        try:
            ggf = importlib.import_module("outflank.ggf")
        except ImportError:
            raise GameError(503, "GGF export needs outflank.ggf, which this build lacks") from None
        game = self._game(game_id)
        names = {color: describe(seat.player) for color, seat in game.seats.items()}
        record = ggf.GameRecord.from_board(
            game.board(),
            black=names["black"],
            white=names["white"],
            place="outflank web",
            date=game.created.strftime("%Y-%m-%d %H:%M:%S GMT"),
        )
        return record.to_ggf()

    def close(self) -> None:
        """Stop the worker threads (searches in progress are told to stop)."""
        self._closed = True
        self._sweep_stop.set()
        for game_id in list(self._thinking):
            self._stop_thinking(game_id)
        self.scheduler.close()
        self.analysis.close()
        if self._sweeper is not None:
            self._sweeper.join(5)
        if self.relay is not None:
            self.relay.close()


def _tree_size(node: dict[str, Any]) -> int:
    """How many nodes a trace's tree holds (pruned ones included)."""
    size, stack = 0, [node]
    while stack:
        item = stack.pop()
        size += 1
        stack.extend(item.get("children", ()))
    return size
