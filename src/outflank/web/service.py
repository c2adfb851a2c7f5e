"""Game logic of the web app over :class:`outflank.board.Board` and the storage.

Every change to a game (a move, an undo, a redo, new AI settings) is
validated against a board rebuilt from the stored moves, committed, then
published to the game's listeners. AI seats move in worker threads; a move
computed for a position that has changed meanwhile (an undo) is thrown away.
"""

from __future__ import annotations

import contextlib
import hmac
import importlib
import logging
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.exc import StaleDataError

from outflank.board import PASS, Board, Move, Rules, parse_position
from outflank.errors import OutflankError, SearchLimitError
from outflank.web.ai import EngineUnavailableError, Thinker, describe, engine_available
from outflank.web.analysis import AnalysisQueue, Busy, Cancel, Cancelled, TimedOut
from outflank.web.hub import Hub
from outflank.web.scheduler import AIScheduler, Next
from outflank.web.schemas import NewGame, PlayerSpec
from outflank.web.storage import (
    DatabaseError,
    GameRow,
    MoveRow,
    SeatRow,
    Storage,
    new_game_id,
    new_secret,
)

__all__ = ["GameError", "GameService"]

log = logging.getLogger("outflank.web")

COLORS = ("black", "white")
_EAGER = (selectinload(GameRow.moves), selectinload(GameRow.seats))  # 3 queries per load
EVAL_DEPTH = 4
_LOCK_STRIPES = 64
_EVAL_CACHE = 20000
#: Learn mode's alpha-beta trace: at most this many nodes searched, and this
#: many in the tree sent (pruned branches included): about 2 MB of JSON.
LEARN_MAX_NODES = 6000
LEARN_MAX_TREE = 10000


class GameError(Exception):
    """A request the game cannot accept; ``status`` is the HTTP status to answer
    (with ``retry_after`` seconds for a 503 of a busy server)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass
class Replay:
    """A game's moves replayed: the board at the cursor and per-ply details."""

    board: Board
    moves: list[dict[str, Any]]  # every stored move, cursor or not
    turns: list[str | None]  # side to move before each ply, and after the last


def _color_name(board: Board) -> str:
    return "black" if board.turn.name == "BLACK" else "white"


def _cells(board: Board) -> str:
    return "".join(
        "-" if (piece := board.piece_at(sq)) is None else piece.letter for sq in range(64)
    )


def _start_board(game: GameRow) -> Board:
    return Board.from_obf(game.start_obf, game.rules)


def replay(game: GameRow) -> Replay:
    """Rebuild the board from the start position and the stored moves."""
    board = _start_board(game)
    moves: list[dict[str, Any]] = []
    turns: list[str | None] = []
    at_cursor: Board | None = board.copy() if game.cursor == 0 else None
    for row in game.moves:
        turns.append(_color_name(board))
        move = Move.from_str(row.move)
        flips = board.flips(move)
        board.push(move)
        moves.append(
            {
                "ply": row.ply,
                "move": row.move,
                "color": row.color,
                "by": row.by,
                "flips": flips,
                "score": row.ai_score,
                "depth": row.ai_depth,
                "seconds": row.ai_seconds,
            }
        )
        if row.ply + 1 == game.cursor:
            at_cursor = board.copy()
    turns.append(None if board.is_game_over() else _color_name(board))
    if at_cursor is None:  # cannot happen with a consistent row; be safe
        at_cursor = board
    return Replay(at_cursor, moves, turns)


class GameService:
    """Creates, loads and changes games; runs the AI seats.

    ``workers`` threads search AI moves, one move at a time, people's games
    first (:class:`AIScheduler`); ``analysts`` threads answer hints,
    evaluations and Learn-mode traces, with at most ``analysis_limit``
    requests waiting or running and each answered within
    ``analysis_timeout`` seconds or cancelled (:class:`AnalysisQueue`).
    ``ai_delay`` (seconds) spaces the moves of two AIs playing each other so
    that a person can watch; one client may have ``ai_games_per_client``
    such games playing at once.
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
    ) -> None:
        self.storage = storage
        self.hub = hub or Hub()
        self.thinker = Thinker(time_cap=time_cap)
        self.ai_delay = ai_delay
        self.ai_games_per_client = ai_games_per_client
        self.analysis = AnalysisQueue(analysts, max(analysis_limit, analysts), analysis_timeout)
        # striped per-game locks: bounded memory however many games there are
        self._locks = [threading.Lock() for _ in range(_LOCK_STRIPES)]
        self._thinking: dict[str, tuple[str, Any]] = {}
        self._evals: OrderedDict[tuple[int, int, int, str], float] = OrderedDict()
        self._evals_lock = threading.Lock()
        self._closed = False
        self.scheduler = AIScheduler(workers, self._ai_step)

    # ------------------------------------------------------------ plumbing
    @contextlib.contextmanager
    def _game_lock(self, game_id: str) -> Iterator[None]:
        with self._locks[zlib.crc32(game_id.encode()) % _LOCK_STRIPES]:
            yield

    def _load(self, session: Session, game_id: str) -> GameRow:
        game = session.get(GameRow, game_id, options=_EAGER) if len(game_id) <= 32 else None
        if game is None:
            raise GameError(404, f"unknown game {game_id[:40]!r}")
        return game

    @staticmethod
    def _holder(game: GameRow, secret: str | None) -> str | None:
        """The colour whose seat the secret opens, or ``None``."""
        if not secret:
            return None
        for seat in game.seats:
            if hmac.compare_digest(seat.secret.encode(), secret.encode()):
                return seat.color
        return None

    def _require_seat(self, game: GameRow, secret: str) -> str:
        color = self._holder(game, secret)
        if color is None:
            raise GameError(
                403, "this link holds no seat in the game: spectators may watch but not play"
            )
        return color

    # ------------------------------------------------------------ state
    def state(self, game: GameRow, rep: Replay | None = None) -> dict[str, Any]:
        """The public state of a game (no secrets) as sent to every listener."""
        rep = rep or replay(game)
        board = rep.board
        black, white = board.score()
        over = board.is_game_over()
        players = {}
        for seat in game.seats:
            players[seat.color] = {
                **seat.player,
                "name": describe(seat.player),
            }
        thinking = self._thinking.get(game.id)
        if thinking is not None and (over or thinking[0] != _color_name(board)):
            thinking = None  # a search an undo has made stale: it is being stopped
        active = rep.moves[: game.cursor]
        outcome = board.outcome()
        return {
            "id": game.id,
            "version": game.version,
            "rules": game.rules,
            "start": game.start_obf,
            "board": _cells(board),
            "turn": None if over else _color_name(board),
            "legal": [str(m) for m in board.legal_moves if not m.is_pass],
            "counts": {"black": black, "white": white},
            "last": active[-1]["move"] if active else None,
            "moves": rep.moves,
            "cursor": game.cursor,
            "redo": len(rep.moves) - game.cursor,
            "players": players,
            "status": "over" if over else "playing",
            "result": None
            if outcome is None
            else {
                "black": outcome.black,
                "white": outcome.white,
                "winner": None
                if outcome.winner is None
                else ("black" if outcome.winner.name == "BLACK" else "white"),
                "score": outcome.result(),
            },
            "thinking": thinking[0] if thinking else None,
            "transcript": board.transcript(),
        }

    def _publish_state(self, game: GameRow, rep: Replay | None = None) -> dict[str, Any]:
        state = self.state(game, rep)
        self.hub.publish(game.id, {"type": "state", "state": state})
        return state

    def get(self, game_id: str, secret: str | None = None) -> dict[str, Any]:
        """A game's state plus ``you``: the colour the secret holds (or ``None``)."""
        with self.storage.session() as session:
            game = self._load(session, game_id)
            state = self.state(game)
            state["you"] = self._holder(game, secret)
            return state

    def version(self, game_id: str) -> int:
        """The game's current version number."""
        with self.storage.session() as session:
            return self._load(session, game_id).version

    def list_games(self, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """The most recently changed games, newest first (no secrets); ``offset``
        skips that many of the newest (the next page)."""
        with self.storage.session() as session:
            rows = session.scalars(
                select(GameRow)
                .order_by(GameRow.updated.desc(), GameRow.id)
                .offset(offset)
                .limit(limit)
            ).all()
            return [
                {
                    "id": row.id,
                    "rules": row.rules,
                    "status": row.status,
                    "result": row.result,
                    "plies": row.cursor,
                    "updated": _utc(row.updated).isoformat(),
                    "black": describe(row.seat("black").player),
                    "white": describe(row.seat("white").player),
                }
                for row in rows
            ]

    # ------------------------------------------------------------ changes
    def create(self, spec: NewGame, client: str | None = None) -> dict[str, Any]:
        """Start a game; returns ``{"game": state, "seats": {colour: secret}}``.

        ``client`` (the requester's address) may have at most
        ``ai_games_per_client`` games of AI against AI playing at once.

        ``spec.start`` may be an OBF position (the game starts there), an OBF
        position followed by moves from it (the transcript export of such a
        game), or a transcript from the initial position. Moves become the
        game's first moves, so they can be replayed and taken back.
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
        ai_seats = sum(p.kind == "ai" for p in players.values())
        client = client[:64] if client else None
        game = GameRow(
            id=new_game_id(),
            rules=rules.value,
            start_obf=root.obf(),
            cursor=0,
            client=client,
            ai_seats=ai_seats,
        )
        secrets = {color: new_secret() for color in COLORS}
        game.seats = [
            SeatRow(color=color, secret=secrets[color], player=players[color].model_dump())
            for color in COLORS
        ]
        board = root.copy()
        self._auto_pass(game, board)
        for move in setup:
            if move.is_pass and not board.must_pass():
                continue  # already played by _auto_pass
            game.moves.append(
                MoveRow(ply=game.cursor, move=str(move), color=_color_name(board), by="setup")
            )
            board.push(move)
            game.cursor += 1
            self._auto_pass(game, board)
        self._finish(game, board)
        with self.storage.writing(), self.storage.session() as session:
            if ai_seats == 2 and client is not None and game.status == "playing":
                self._check_ai_games(session, client)
            session.add(game)
            session.commit()
            state = self._publish_state(game)
        self._schedule_ai(game.id, background=ai_seats == 2)
        return {"game": state, "seats": secrets}

    def _check_ai_games(self, session: Session, client: str) -> None:
        """Refuse (429) one more game of AI against AI to a client that
        already has ``ai_games_per_client`` of them playing."""
        playing = session.scalar(
            select(func.count())
            .select_from(GameRow)
            .where(GameRow.client == client, GameRow.ai_seats == 2, GameRow.status == "playing")
        )
        cap = self.ai_games_per_client
        if playing is not None and playing >= cap:
            raise GameError(
                429,
                f"you already have {playing} games of AI against AI playing (at most {cap} "
                "at once): wait for one to end",
            )

    @staticmethod
    def _auto_pass(game: GameRow, board: Board) -> None:
        """Play forced passes (nobody chooses them) and record them."""
        while board.must_pass():
            color = _color_name(board)
            board.push(PASS)
            game.moves.append(MoveRow(ply=game.cursor, move="pass", color=color, by="auto"))
            game.cursor += 1

    @staticmethod
    def _finish(game: GameRow, board: Board) -> None:
        game.status = "over" if board.is_game_over() else "playing"
        game.result = board.result()
        game.updated = datetime.now(UTC)

    @staticmethod
    def _truncate(session: Session, game: GameRow) -> None:
        """Forget the redoable moves beyond the cursor (a new move replaces them)."""
        if len(game.moves) > game.cursor:
            session.execute(
                delete(MoveRow).where(MoveRow.game_id == game.id, MoveRow.ply >= game.cursor)
            )
            session.expire(game, ["moves"])

    def _apply(
        self,
        session: Session,
        game: GameRow,
        board: Board,
        move: Move,
        by: str,
        ai: Any = None,
    ) -> None:
        color = _color_name(board)
        board.push(move)  # raises IllegalMoveError, board unchanged
        self._truncate(session, game)
        game.moves.append(
            MoveRow(
                ply=game.cursor,
                move=str(move),
                color=color,
                by=by,
                ai_score=None if ai is None else ai.score,
                ai_depth=None if ai is None else ai.depth,
                ai_seconds=None if ai is None else round(ai.seconds, 4),
            )
        )
        game.cursor += 1
        self._auto_pass(game, board)
        self._finish(game, board)

    def _commit(self, session: Session) -> None:
        try:
            session.commit()
        except (StaleDataError, IntegrityError):  # another process wrote this game first
            session.rollback()
            raise GameError(409, "the game changed meanwhile; reload and try again") from None

    def play(self, game_id: str, secret: str, move_text: str) -> dict[str, Any]:
        """A human move for the seat the secret holds; returns the new state."""
        with self._game_lock(game_id), self.storage.writing(), self.storage.session() as session:
            game = self._load(session, game_id)
            color = self._require_seat(game, secret)
            rep = replay(game)
            board = rep.board
            if board.is_game_over():
                raise GameError(409, "the game is over")
            to_move = _color_name(board)
            if color != to_move:
                raise GameError(409, f"not your turn: {to_move} to move (you hold {color})")
            if game.seat(color).player.get("kind") != "human":
                raise GameError(409, f"{color} is played by the AI")
            try:
                move = Move.from_str(move_text)
                if move.is_pass and not board.must_pass():
                    raise GameError(400, f"{color} cannot pass here: a move is available")
                self._apply(session, game, board, move, "human")
            except OutflankError as exc:
                raise GameError(400, str(exc)) from None
            self._commit(session)
            state = self._publish_state(game)
        self._stop_thinking(game_id)
        self._schedule_ai(game_id, background=game.ai_seats == 2)
        return state

    def _step_targets(self, game: GameRow, color: str) -> set[str]:
        if game.seat(color).player.get("kind") == "human":
            return {color}
        return set(COLORS)  # a viewer of two AIs steps one ply at a time

    def undo(self, game_id: str, secret: str) -> dict[str, Any]:
        """Take back moves until the holder of the secret is to move again.

        Between two people each takes back only their own last move, before
        the other has answered it: nobody changes the other seat's moves."""
        return self._step(game_id, secret, -1)

    def redo(self, game_id: str, secret: str) -> dict[str, Any]:
        """Replay taken-back moves up to the holder's next turn (between two
        people, only the holder's own next move)."""
        return self._step(game_id, secret, +1)

    @staticmethod
    def _friend_step(rep: Replay, cursor: int, color: str, direction: int) -> int:
        """The new cursor of an undo/redo between two people: the holder's own
        last move taken back, or their own next move replayed (with the forced
        passes after it). A start position's moves stay."""
        chosen = [p for p, m in enumerate(rep.moves) if m["by"] == "human"]  # not the start
        if direction < 0:
            before = [p for p in chosen if p < cursor]
            if not before:
                raise GameError(409, "nothing to undo")
            if not any(rep.turns[p] == color for p in before):
                raise GameError(
                    409,
                    "nothing of yours to undo: the moves on the board are your friend's, "
                    "for them to take back",
                )
            if rep.turns[before[-1]] != color:
                raise GameError(
                    409,
                    "your friend has moved since your last move: only they can take their "
                    "move back",
                )
            return before[-1]
        after = [p for p in chosen if p >= cursor]
        if not after:
            raise GameError(409, "nothing to redo")
        if rep.turns[after[0]] != color:
            raise GameError(409, "the next move to replay is your friend's")
        cursor = after[0] + 1
        while cursor < len(rep.moves) and rep.moves[cursor]["by"] == "auto":
            cursor += 1
        return cursor

    def _step(self, game_id: str, secret: str, direction: int) -> dict[str, Any]:
        with self._game_lock(game_id), self.storage.writing(), self.storage.session() as session:
            game = self._load(session, game_id)
            color = self._require_seat(game, secret)
            rep = replay(game)
            targets = self._step_targets(game, color)
            total = len(rep.moves)
            friends = all(s.player.get("kind") == "human" for s in game.seats)

            def stop_at(ply: int) -> bool:
                # a position where the holder chooses a move (not a forced pass)
                return ply == total or (
                    rep.turns[ply] in targets and rep.moves[ply]["by"] != "auto"
                )

            if friends:
                cursor = self._friend_step(rep, game.cursor, color, direction)
            elif direction < 0:
                start = sum(1 for m in rep.moves if m["by"] == "setup")  # the start stays
                found = [p for p in range(start, game.cursor) if stop_at(p)]
                if not found:
                    raise GameError(409, "nothing to undo")
                cursor = found[-1]
            else:
                if game.cursor >= total:
                    raise GameError(409, "nothing to redo")
                cursor = next(p for p in range(game.cursor + 1, total + 1) if stop_at(p))
            game.cursor = cursor
            rep = replay(game)
            self._finish(game, rep.board)
            self._commit(session)
            state = self._publish_state(game, rep)
        self._stop_thinking(game_id)
        self._schedule_ai(game_id, background=game.ai_seats == 2)
        return state

    def update_player(
        self, game_id: str, secret: str, color: str, player: PlayerSpec
    ) -> dict[str, Any]:
        """Change an AI seat's settings mid-game (seed 004's sliders, the level)."""
        if color not in COLORS:
            raise GameError(404, f"no seat {color!r}: expected black or white")
        with self._game_lock(game_id), self.storage.writing(), self.storage.session() as session:
            game = self._load(session, game_id)
            self._require_seat(game, secret)
            seat = game.seat(color)
            if seat.player.get("kind") != "ai" or player.kind != "ai":
                raise GameError(409, "only an AI seat's settings can change during a game")
            seat.player = player.model_dump()
            game.updated = datetime.now(UTC)  # touches the game row: its version moves on
            self._commit(session)
            state = self._publish_state(game)
        self._stop_thinking(game_id)  # a search with the old settings is thrown away
        self._schedule_ai(game_id, background=game.ai_seats == 2)
        return state

    # ------------------------------------------------------------ AI seats
    def _stop_thinking(self, game_id: str) -> None:
        entry = self._thinking.get(game_id)
        if entry is not None:
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
        with self.storage.session() as session:
            game = session.get(GameRow, game_id, options=_EAGER)
            if game is None:
                return None
            rep = replay(game)
            board = rep.board
            if board.is_game_over():
                return None
            color = _color_name(board)
            player = dict(game.seat(color).player)
            if player.get("kind") != "ai":
                return None
            version = game.version
            both_ai = all(s.player.get("kind") == "ai" for s in game.seats)

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
        with self._game_lock(game_id), self.storage.writing(), self.storage.session() as session:
            game = self._load(session, game_id)
            if game.version != version:
                return Next(both_ai)  # changed under us (undo, new settings): think again
            rep = replay(game)
            board = rep.board
            self._apply(session, game, board, choice.move, "ai", choice)
            try:
                self._commit(session)
            except GameError:
                return Next(both_ai)
            self._publish_state(game)
            if board.is_game_over() or game.seat(_color_name(board)).player.get("kind") != "ai":
                return None
        # the AI is to move again: after a pause when two AIs play (for a person to follow)
        return Next(both_ai, self.ai_delay if both_ai else 0.0)

    def resume(self) -> int:
        """After a restart: let the AI move in every game waiting for it."""
        with self.storage.session() as session:
            rows = session.execute(
                select(GameRow.id, GameRow.ai_seats).where(GameRow.status == "playing")
            ).all()
        for game_id, ai_seats in rows:
            self._schedule_ai(game_id, background=ai_seats == 2)
        return len(rows)

    # ------------------------------------------------------------ analysis
    def _board_at(self, game_id: str, ply: int | None) -> Board:
        with self.storage.session() as session:
            game = self._load(session, game_id)
            cursor = game.cursor if ply is None else ply
            if not 0 <= cursor <= len(game.moves):
                raise GameError(400, f"ply must be in 0..{len(game.moves)}, not {cursor}")
            board = _start_board(game)
            for row in game.moves[:cursor]:
                board.push(Move.from_str(row.move))
            return board

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
            return {"turn": _color_name(board), "moves": [{"move": "pass", "score": None}]}
        scores = self._run_analysis(lambda cancel: self.thinker.analyze(board, depth, 1.0, cancel))
        return {"turn": _color_name(board), "moves": scores}

    def evaluations(self, game_id: str) -> dict[str, Any]:
        """A score from black's view for every position up to the cursor."""
        with self.storage.session() as session:
            game = self._load(session, game_id)
            board = _start_board(game)
            boards = [board.copy(stack=False)]
            for row in game.moves[: game.cursor]:
                board.push(Move.from_str(row.move))
                boards.append(board.copy(stack=False))

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

    def learn(self, game_id: str, depth: int, ply: int | None = None) -> dict[str, Any]:
        """The teaching alpha-beta trace of a position (depth 1-4) for Learn mode."""
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
        if board.is_game_over():
            raise GameError(409, "the game is over: nothing to search")

        def search(cancel: Cancel) -> dict[str, Any]:
            def evaluate(position: Board, player: Any) -> float:
                cancel.check()  # a cancelled search stops at its next leaf
                return weights(position, player)

            try:
                trace = classic.alphabeta(board, depth, evaluate, max_nodes=LEARN_MAX_NODES)
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
        with self.storage.session() as session:
            game = self._load(session, game_id)
            rep = replay(game)
            text = rep.board.transcript()
            if game.start_obf != Board().obf():
                return f"{game.start_obf}\n{text}\n"
            return text + "\n"

    def ggf(self, game_id: str) -> str:
        """The game as a GGF record (through :mod:`outflank.ggf`)."""
        try:
            ggf = importlib.import_module("outflank.ggf")
        except ImportError:
            raise GameError(503, "GGF export needs outflank.ggf, which this build lacks") from None
        with self.storage.session() as session:
            game = self._load(session, game_id)
            rep = replay(game)
            names = {seat.color: describe(seat.player) for seat in game.seats}
            started = _utc(game.created)
        record = ggf.GameRecord.from_board(
            rep.board,
            black=names["black"],
            white=names["white"],
            place="outflank web",
            date=started.strftime("%Y-%m-%d %H:%M:%S GMT"),
        )
        return record.to_ggf()

    def close(self) -> None:
        """Stop the worker threads (searches in progress are told to stop)."""
        self._closed = True
        for game_id in list(self._thinking):
            self._stop_thinking(game_id)
        self.scheduler.close()
        self.analysis.close()


def _tree_size(node: dict[str, Any]) -> int:
    """How many nodes a trace's tree holds (pruned ones included)."""
    size, stack = 0, [node]
    while stack:
        item = stack.pop()
        size += 1
        stack.extend(item.get("children", ()))
    return size


def _utc(moment: datetime) -> datetime:
    """A stored time in UTC (SQLite keeps no zone, so a naive one is UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
