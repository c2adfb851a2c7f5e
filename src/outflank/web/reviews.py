"""Game reviews in the web app: background jobs, their progress, and the
finished reviews stored with the games.

A review (:mod:`outflank.review`) of a game as it stands (its moves up to
the cursor) runs as a job of a bounded :class:`AnalysisQueue` of its own
(``workers`` reviews at once, at most ``limit`` waiting or running: one
more is refused with 503 and ``Retry-After``), so that hints and Learn mode
stay quick while a review runs. A job is cancelled after ``timeout``
seconds or when asked (``DELETE``). Each move's review is published to the
game's listeners as it is ready (``{"type": "review", "status":
"running", "done", "total", "move"}``), then ``{"type": "review",
"status": "done"}`` (small enough for the relay between processes; the
page then reads the review). A finished review is stored in the
``reviews`` table: a reload, another viewer (in any process) or a second
click gets it at once. One job per game: asking again while it runs joins
it; asking after the game has changed starts a new one.

Each reviewed move carries ``line``: the better line's moves with the
squares each flips, so the page (which holds no rules) can play it forward.

A complete review then looks for puzzles at its mistakes and blunders
where its values are exact (the solver answered there, so a full exact
analysis of the position is quick): each position that is a puzzle by
:func:`outflank.puzzles.examine` is stored in ``review_puzzles`` and its id
listed in the review's ``puzzles``; the Puzzles page serves them
(``/puzzles?game=ID``, :mod:`outflank.web.puzzles`).
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import delete, select

from outflank.board import PASS, Board, Move
from outflank.puzzles import Analyst, Puzzle, PuzzleError, examine, mistake_positions
from outflank.review import GameReview, MoveReview, Reviewer, ReviewSettings
from outflank.web.analysis import AnalysisQueue, Background, Busy, Cancel
from outflank.web.live import LiveGame, color_name
from outflank.web.service import GameError, GameService
from outflank.web.storage import ReviewPuzzleRow, ReviewRow

__all__ = ["REVIEW_TIMEOUT", "Reviews", "line_steps"]

log = logging.getLogger("outflank.web")

#: Seconds a review may take before it is stopped (a 60-move game takes
#: 3-6 s on 2 cores).
REVIEW_TIMEOUT = 120.0
#: Stopped or failed jobs kept in memory (their partial results on show).
_KEPT = 256


def line_steps(board: Board, moves: Sequence[Move]) -> list[dict[str, Any]]:
    """Each move of a line played from ``board``: the move, its colour and
    the squares it flips (``flips`` empty for a pass)."""
    position = board.copy(stack=False)
    steps: list[dict[str, Any]] = []
    for move in moves:
        color = color_name(position)
        if move.is_pass:
            if not position.must_pass():
                break
            steps.append({"move": "pass", "color": color, "flips": []})
            position.push(PASS)
            continue
        if not position.is_legal(move):
            break
        steps.append({"move": str(move), "color": color, "flips": position.flips(move)})
        position.push(move)
    return steps


def _moves(game: LiveGame) -> tuple[str, ...]:
    """The game's moves up to its cursor (what a review of it covers)."""
    return tuple(ply.move for ply in game.plies[: game.cursor])


_ids = itertools.count(1)


@dataclass
class _Job:
    """One review in progress (or stopped), in this process; ``id`` tells
    its events from those of an earlier job of the same game."""

    moves: tuple[str, ...]
    start: str
    total: int
    status: str = "running"  # running, done (then stored), stopped, failed
    reason: str | None = None
    reviewed: dict[int, dict[str, Any]] = field(default_factory=dict)
    handle: Background[Any] | None = None
    by_user: bool = False
    started: float = field(default_factory=time.monotonic)
    id: int = field(default_factory=lambda: next(_ids))

    def to_dict(self, current: tuple[str, ...]) -> dict[str, Any]:
        return {
            "job": self.id,
            "status": self.status,
            "current": self.moves == current,
            "reason": self.reason,
            "done": len(self.reviewed),
            "total": self.total,
            "review": {
                "start": self.start,
                "game_moves": list(self.moves),
                "complete": False,
                "moves": [self.reviewed[p] for p in sorted(self.reviewed)],
            },
        }


class Reviews:
    """The web app's reviews of its games (see the module doc).

    ``settings``: how hard each review looks (the library's defaults);
    ``threads``: threads per search (default: every core, a review being one
    job a person waits for); ``puzzles``: look for puzzles at the mistakes.
    """

    def __init__(
        self,
        service: GameService,
        *,
        workers: int = 1,
        limit: int = 4,
        timeout: float = REVIEW_TIMEOUT,
        settings: ReviewSettings | None = None,
        threads: int | None = None,
        puzzles: bool = True,
    ) -> None:
        self.service = service
        self.puzzles = puzzles
        self.settings = settings or ReviewSettings()
        self.threads = threads
        self.queue = AnalysisQueue(workers, max(limit, workers), timeout, name="review")
        self._jobs: OrderedDict[str, _Job] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------ reading
    def _stored(self, game_id: str) -> tuple[tuple[str, ...], str] | None:
        """The game's stored review: (the moves it covers, its JSON)."""
        with self.service.storage.session() as session:
            row = session.execute(
                select(ReviewRow.moves, ReviewRow.data).where(ReviewRow.game_id == game_id)
            ).first()
        if row is None:
            return None
        return tuple(row.moves.split()), row.data

    @staticmethod
    def _done_json(moves: tuple[str, ...], data: str, current: tuple[str, ...]) -> str:
        head = {"status": "done", "current": moves == current, "reason": None}
        return json.dumps(head)[:-1] + ',"review":' + data + "}"

    def status(self, game_id: str) -> str:
        """The game's review as JSON: the running job's progress, else the
        stored review (``current``: it covers the game as it stands), else a
        stopped job's partial results, else ``{"status": "none"}``."""
        game = self.service.game(game_id)
        current = _moves(game)
        with self._lock:
            job = self._jobs.get(game_id)
            running = job.to_dict(current) if job is not None else None
        if running is not None and running["status"] == "running":
            return json.dumps(running)
        stored = self._stored(game_id)
        if stored is not None and (running is None or stored[0] == current):
            return self._done_json(*stored, current)
        if running is not None:
            return json.dumps(running)
        return json.dumps({"status": "none", "current": False, "reason": None})

    # ------------------------------------------------------------ starting
    def start(self, game_id: str) -> tuple[int, str]:
        """Review the game as it stands: ``(200, the stored review)`` if it
        has one of these moves, else ``(202, the job's progress)`` (a job
        already running for them is joined)."""
        game = self.service.game(game_id)
        current = _moves(game)
        if not any(move != "pass" for move in current):
            raise GameError(409, "the game has no moves to review yet")
        with self._lock:
            job = self._jobs.get(game_id)
            if job is not None and job.status == "running" and job.moves == current:
                return 202, json.dumps(job.to_dict(current))
        stored = self._stored(game_id)
        if stored is not None and stored[0] == current:
            return 200, self._done_json(*stored, current)
        board = game.board()
        stale: Background[Any] | None = None
        with self._lock:
            old = self._jobs.get(game_id)
            if old is not None and old.status == "running":
                if old.moves == current:  # another request started it meanwhile
                    return 202, json.dumps(old.to_dict(current))
                stale = self._stopped(old, "the game changed: a new review started")
            job = _Job(current, game.start_obf, sum(m != "pass" for m in current))
            try:
                job.handle = self.queue.submit(partial(self._run, game_id, job, board))
            except Busy as exc:
                raise GameError(
                    503,
                    f"the server is busy with {self.queue.limit} reviews at once: try again in"
                    f" {exc.retry_after} s",
                    retry_after=exc.retry_after,
                ) from None
            job.handle.future.add_done_callback(lambda f: self._ended(game_id, job, f))
            self._jobs[game_id] = job
            self._jobs.move_to_end(game_id)
            self._forget_old()
            answer = job.to_dict(current)
        if stale is not None:
            stale.cancel()
        self._publish(game_id, {"job": job.id, "status": "running", "done": 0, "total": job.total})
        return 202, json.dumps(answer)

    def cancel(self, game_id: str) -> str:
        """Stop the game's running review (its partial results stay on show)."""
        game = self.service.game(game_id)
        with self._lock:
            job = self._jobs.get(game_id)
            if job is None or job.status != "running":
                raise GameError(409, "no review of this game is running")
            job.by_user = True
            handle = self._stopped(job, "cancelled")
            answer = job.to_dict(_moves(game))
        if handle is not None:
            handle.cancel()
        self._publish(game_id, {"job": job.id, "status": "stopped", "reason": "cancelled"})
        return json.dumps(answer)

    @staticmethod
    def _stopped(job: _Job, reason: str) -> Background[Any] | None:
        """Mark a job stopped (hold the lock); returns its handle, to cancel
        once the lock is released (a job that never began has its end
        called at once, and that takes the lock)."""
        job.status, job.reason = "stopped", reason
        return job.handle

    def _forget_old(self) -> None:
        """Keep at most ``_KEPT`` finished jobs (hold the lock)."""
        finished = [k for k, j in self._jobs.items() if j.status != "running"]
        for key in finished[: max(0, len(finished) - _KEPT)]:
            del self._jobs[key]

    def _publish(self, game_id: str, message: dict[str, Any]) -> None:
        self.service.hub.publish(game_id, {"type": "review", **message})

    # ------------------------------------------------------------ the job
    def _run(self, game_id: str, job: _Job, board: Board, cancel: Cancel) -> None:
        """Review ``board``'s game on a queue thread; store it when complete."""
        reviewer = Reviewer(self.settings, threads=self.threads)
        detach = cancel.attach(reviewer.stop)
        boards = _boards(board)

        def on_move(m: MoveReview, done: int, total: int) -> None:
            entry = _web_move(m, boards[m.ply])
            with self._lock:
                if job.status != "running":
                    return
                job.reviewed[m.ply] = entry
            self._publish(
                game_id,
                {"job": job.id, "status": "running", "done": done, "total": total, "move": entry},
            )

        try:
            review = reviewer.review(board, on_move)
        finally:
            detach()
        puzzles: list[tuple[int, Puzzle]] = []
        if self.puzzles and review.complete and not cancel.cancelled:
            puzzles = _find_puzzles(review, cancel)
        if cancel.cancelled or not review.complete:
            with self._lock:
                if job.status == "running":  # the timeout, not a person
                    job.status = "stopped"
                    job.reason = f"the review took over {self.queue.timeout:g} s and was stopped"
                reason = job.reason
            self._publish(game_id, {"job": job.id, "status": "stopped", "reason": reason})
            return
        web = _web_review(review, boards)
        web["puzzles"] = [puzzle.id for _, puzzle in puzzles]
        data = json.dumps(web, separators=(",", ":"))
        self._store(game_id, job.moves, data, puzzles)
        with self._lock:
            job.status = "done"
            if self._jobs.get(game_id) is job:
                del self._jobs[game_id]
        self._publish(game_id, {"job": job.id, "status": "done", "total": job.total})

    def _store(
        self,
        game_id: str,
        moves: tuple[str, ...],
        data: str,
        puzzles: Sequence[tuple[int, Puzzle]] = (),
    ) -> None:
        """Store the review and its puzzles (in place of the game's earlier ones)."""
        storage = self.service.storage
        with storage.writing(), storage.session() as session:
            row = session.get(ReviewRow, game_id)
            if row is None:
                session.add(ReviewRow(game_id=game_id, moves=" ".join(moves), data=data))
            else:
                row.moves, row.data = " ".join(moves), data
            session.execute(delete(ReviewPuzzleRow).where(ReviewPuzzleRow.game_id == game_id))
            seen = set()
            for ply, puzzle in puzzles:
                if puzzle.id in seen:  # the same position twice in one game
                    continue
                seen.add(puzzle.id)
                text = json.dumps(puzzle.to_dict(), separators=(",", ":"))
                session.add(
                    ReviewPuzzleRow(game_id=game_id, puzzle_id=puzzle.id, ply=ply, data=text)
                )
            session.commit()

    def _ended(self, game_id: str, job: _Job, future: Future[Any]) -> None:
        """A job's end: one that failed or never started is marked so."""
        failed = None if future.cancelled() else future.exception()
        with self._lock:
            if job.status != "running":
                return
            if future.cancelled() or failed is None:
                job.status, job.reason = "stopped", job.reason or "stopped before it began"
            else:
                job.status, job.reason = "failed", f"the review failed: {failed}"
            reason = job.reason
        if failed is not None:
            log.error("review of game %s failed", game_id, exc_info=failed)
        self._publish(game_id, {"job": job.id, "status": job.status, "reason": reason})

    def close(self) -> None:
        """Stop the running reviews and the queue."""
        with self._lock:
            handles = [
                self._stopped(job, "the server is shutting down")
                for job in self._jobs.values()
                if job.status == "running"
            ]
        for handle in handles:
            if handle is not None:
                handle.cancel()
        self.queue.close()


def _find_puzzles(review: GameReview, cancel: Cancel) -> list[tuple[int, Puzzle]]:
    """The puzzles (with the ply of their mistake) that a review's mistakes
    and blunders make where its values are exact, up to its ``exact``
    empties; none once ``cancel`` is told (the review is then stopped)."""
    # up to the empties the review always solves: further back, each move's
    # exact analysis (one thread) may take longer than the review itself
    candidates = mistake_positions(review, exact_only=True, max_empties=review.settings.exact)
    if not candidates:
        return []
    analyst = Analyst.make(threads=1, tt_mb=32)
    detach = [cancel.attach(analyst.exact.stop), cancel.attach(analyst.shallow.stop)]
    found = []
    try:
        for m in candidates:
            if cancel.cancelled:
                return []
            where = f"your game, move {m.number} ({m.move}, a {m.label.value})"
            try:
                puzzle = examine(review.board(m.ply), analyst, source=where)
            except PuzzleError:  # an analysis cut short by a stop
                return []
            if puzzle is not None:
                found.append((m.ply, puzzle))
    finally:
        for undo in detach:
            undo()
    return [] if cancel.cancelled else found


def _boards(board: Board) -> list[Board]:
    """The position before each move of ``board``'s game (and after the last)."""
    replay = board.root()
    boards = [replay.copy(stack=False)]
    for move in board.move_stack:
        replay.push(move)
        boards.append(replay.copy(stack=False))
    return boards


def _web_move(m: MoveReview, before: Board) -> dict[str, Any]:
    """A move's review as the page gets it: with the better line's flips."""
    return {**m.to_dict(), "line": line_steps(before, m.pv)}


def _web_review(review: GameReview, boards: list[Board]) -> dict[str, Any]:
    data = review.to_dict()
    data["moves"] = [_web_move(m, boards[m.ply]) for m in review.moves]
    return data
