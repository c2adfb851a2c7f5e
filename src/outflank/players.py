"""Players: one interface for people, simple AIs, the engine and external programs.

Every player has a ``name``, ``choose_move(board) -> Move`` and ``close()``.
After a move, ``last_eval`` (side-to-move view, discs; ``None`` if unknown)
and ``last_time`` (seconds) describe it, for game records.

Build players from short specs with :func:`make_player`::

    human                     a person at the keyboard (terminal)
    random | random:SEED      uniform random legal moves
    greedy                    seed 000's one-ply "fish" heuristic, pure Python
    minimax4 | heuristic | regions | weights | default
                              the engine's presets of the seeds' AIs
    level:N                   the engine at level N (1..20)
    engine:depth=6,evaluator=weights,time=0.5
                              the engine with explicit limits and evaluator
    classic:alphabeta:3 | classic:minimax:2
                              the readable pure-Python teaching search
    nboard:<command line>     any NBoard-protocol engine run as a subprocess
"""

from __future__ import annotations

import random
import re
import shlex
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from outflank.board import Board, Move
from outflank.classic_eval import fish
from outflank.errors import OutflankError, PlayerError
from outflank.levels import MAX_LOOKAHEAD, MIN_LOOKAHEAD, check_level
from outflank.nboard_client import NBoardClient

__all__ = [
    "ENGINE_PRESETS",
    "ClassicPlayer",
    "EnginePlayer",
    "ExternalPlayer",
    "GreedyPlayer",
    "HumanPlayer",
    "Player",
    "PlayerError",
    "RandomPlayer",
    "make_player",
    "player_specs_help",
]

ENGINE_PRESETS = ("minimax4", "heuristic", "regions", "weights", "default")


@runtime_checkable
class Player(Protocol):
    """What the UIs and the tournament need from a player."""

    name: str
    last_eval: float | None
    last_time: float | None

    def choose_move(self, board: Board) -> Move:
        """The move to play in ``board`` (which is not modified)."""
        ...

    def close(self) -> None:
        """Release resources (subprocesses, engines)."""
        ...


class BasePlayer:
    """Shared plumbing: name, last move info, context manager, no-op close."""

    is_human = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.last_eval: float | None = None
        self.last_time: float | None = None

    def choose_move(self, board: Board) -> Move:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release by default."""

    def __enter__(self) -> BasePlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _require_moves(board: Board) -> list[Move]:
    moves = board.legal_moves
    if not moves:
        raise OutflankError("the game is over: there is no move to choose")
    return moves


class HumanPlayer(BasePlayer):
    """A person typing moves (``d3``, ``pass``) at a prompt.

    UIs with their own input (web, desktop) handle people themselves; this
    player serves simple loops. ``ask`` is called with a prompt and returns
    the typed line; ``tell`` shows a message.
    """

    is_human = True

    def __init__(
        self,
        name: str = "human",
        ask: Callable[[str], str] = input,
        tell: Callable[[str], None] = print,
    ) -> None:
        super().__init__(name)
        self._ask = ask
        self._tell = tell

    def choose_move(self, board: Board) -> Move:
        moves = _require_moves(board)
        while True:
            text = self._ask(f"{board.turn.name.lower()} to move: ")
            try:
                move = Move.from_str(text)
            except OutflankError as exc:
                self._tell(str(exc))
                continue
            if move in moves:
                return move
            self._tell(f"illegal move {text.strip()!r}; legal: {' '.join(map(str, moves))}")


class RandomPlayer(BasePlayer):
    """Uniformly random legal moves; reproducible with a seed."""

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(name or ("random" if seed is None else f"random:{seed}"))
        self._rng = random.Random(seed)

    def choose_move(self, board: Board) -> Move:
        start = time.perf_counter()
        move = self._rng.choice(_require_moves(board))
        self.last_eval, self.last_time = None, time.perf_counter() - start
        return move


class GreedyPlayer(BasePlayer):
    """Seed 000's computer player: the move whose result scores best with
    the fish heuristic, one ply deep (:func:`outflank.classic.greedy`, the
    same heuristic as the engine's ``fish``; the first such move in square
    order on ties)."""

    def __init__(self, name: str = "greedy") -> None:
        super().__init__(name)

    def choose_move(self, board: Board) -> Move:
        start = time.perf_counter()
        moves = _require_moves(board)
        if moves[0].is_pass:
            self.last_eval, self.last_time = None, time.perf_counter() - start
            return moves[0]
        color = board.turn
        best: Move | None = None
        best_score = 0
        for move in moves:  # square order
            board.push(move)
            score = fish(board, color)
            board.pop()
            if best is None or score > best_score:
                best, best_score = move, score
        assert best is not None
        self.last_eval, self.last_time = float(best_score), time.perf_counter() - start
        return best


class ClassicPlayer(BasePlayer):
    """The teaching search of :mod:`outflank.classic` at a fixed depth."""

    def __init__(self, algorithm: str = "alphabeta", depth: int = 3) -> None:
        if algorithm not in ("alphabeta", "minimax"):
            raise OutflankError(
                f"classic algorithm must be alphabeta or minimax, not {algorithm!r}"
            )
        if not 1 <= depth <= 8:
            raise OutflankError(f"classic depth must be in 1..8, not {depth}")
        super().__init__(f"classic:{algorithm}:{depth}")
        try:
            import outflank.classic as classic
        except ImportError:
            raise OutflankError("the teaching search (outflank.classic) is not available") from None

        self._search = getattr(classic, algorithm)
        self.depth = depth

    def choose_move(self, board: Board) -> Move:
        start = time.perf_counter()
        moves = _require_moves(board)
        if len(moves) == 1:
            self.last_eval, self.last_time = None, time.perf_counter() - start
            return moves[0]
        trace = self._search(board.copy(), self.depth)
        move = trace.best_move
        if isinstance(move, str):
            move = Move.from_str(move)
        self.last_eval = float(trace.value) if trace.value is not None else None
        self.last_time = time.perf_counter() - start
        return move


class EnginePlayer(BasePlayer):
    """The native engine: a level, a preset of the seeds' AIs, or explicit
    depth/time limits with a named evaluator and its parameters."""

    def __init__(
        self,
        *,
        level: int | None = None,
        preset: str | None = None,
        depth: int | None = None,
        time: float | None = None,
        evaluator: str = "default",
        name: str | None = None,
        seed: int | None = None,
        **params: Any,
    ) -> None:
        try:
            from outflank.engine import Engine, check_limits
        except ImportError:
            raise OutflankError("the native engine (outflank.engine) is not available") from None
        depth, time_limit, _ = check_limits(depth, time)
        # a preset's or an explicit engine's limits become the engine's own,
        # so that its other settings apply as in play (endgame=14 with
        # depth=2 solves from 14 empties); a level keeps its own limits and
        # the spec's are the player's
        limits = {k: v for k, v in (("depth", depth), ("time", time_limit)) if v is not None}
        self.depth: int | None = None
        self.time: float | None = None
        if level is not None:
            self.engine = Engine.level(check_level(level, "engine level"))
            label = f"level:{level}"
            self.depth, self.time = depth, time_limit
        elif preset is not None:
            # the preset's settings, any key given overriding them
            self.engine = Engine.preset(preset, **params, **limits)
            extra = "".join(f",{k}={v}" for k, v in params.items())
            label = f"engine:preset={preset}{extra}" if params else preset
        else:
            self.engine = Engine(evaluator=evaluator, **params, **limits)
            extra = "".join(f",{k}={v}" for k, v in params.items())
            label = f"engine:evaluator={evaluator}{extra}"
        self._rng = random.Random(seed)
        if depth is not None:
            label += f",depth={depth}"
        if time is not None:
            label += f",time={time}"
        super().__init__(name or label)

    def choose_move(self, board: Board) -> Move:
        start = time.perf_counter()
        moves = _require_moves(board)
        if moves[0].is_pass:
            self.last_eval, self.last_time = None, time.perf_counter() - start
            return moves[0]
        chance = getattr(self.engine, "random", 0.0)
        if chance and self.depth is None and self.time is None and self._rng.random() < chance:
            # the weak levels' random moves, as Engine.choose_move plays them
            self.last_eval, self.last_time = None, time.perf_counter() - start
            return self._rng.choice(moves)
        picked = self.engine.book_move(board)
        if picked is not None:  # the opening book: no search
            self.last_eval, self.last_time = picked.value, time.perf_counter() - start
            return picked.move
        result = self.engine.search(board.copy(), depth=self.depth, time=self.time)
        self.last_eval = float(result.score)
        self.last_time = time.perf_counter() - start
        return result.best_move

    def _limits(self) -> tuple[bool, int | None, float | None]:
        """(own, depth, time): this player's own limits if it has any (the
        search is then given them), else the engine's."""
        if self.depth is not None or self.time is not None:
            return True, self.depth, self.time
        return False, self.engine.depth, self.engine.time

    def adjust(self, **settings: Any) -> None:
        """Change the engine between moves (seed 004: biases and look-ahead
        "in the middle of a game"): evaluator parameters such as
        ``corner=40``, and this player's ``depth`` (or ``lookahead``, seed
        004's 2-10 plies) and ``time``. A bad value changes nothing.

        The limits change where they are kept: this player's own (a spec
        with ``depth=``/``time=``), else the engine's, so that a level keeps
        its other settings (exact endgame, random moves)."""
        own, depth, time_limit = self._limits()
        if "lookahead" in settings and "depth" in settings:
            raise OutflankError("give lookahead or depth, not both (they are the same plies)")
        evaluator = settings.get("evaluator", self.engine.evaluator.name)
        if evaluator == "regions" and "depth" in settings:  # seed 004's look-ahead, its range too
            settings["lookahead"] = settings.pop("depth")
        if "lookahead" in settings:
            plies = settings.pop("lookahead")
            low, high = MIN_LOOKAHEAD, MAX_LOOKAHEAD
            if isinstance(plies, bool) or not isinstance(plies, int) or not low <= plies <= high:
                raise OutflankError(
                    f"lookahead must be {low}-{high} plies (seed 004), not {plies!r}"
                )
            depth = plies
        if "depth" in settings:
            depth = settings.pop("depth")
        if "time" in settings:
            time_limit = settings.pop("time")
        from outflank.engine import check_limits

        depth, time_limit, _ = check_limits(depth, time_limit)
        if own:
            self.engine.configure(**settings)  # checked whole before it changes anything
            self.depth, self.time = depth, time_limit
        else:
            self.engine.configure(depth=depth, time=time_limit, **settings)

    def describe_settings(self) -> str:
        """The evaluator with its parameters and the limits the search uses."""
        _, depth, time_limit = self._limits()
        limits = "".join(
            f", {key}={value}" for key, value in (("depth", depth), ("time", time_limit))
            if value is not None
        )  # fmt: skip
        return f"{self.engine.evaluator.describe()}{limits}"

    def close(self) -> None:
        close = getattr(self.engine, "close", None)
        if callable(close):
            close()


class ExternalPlayer(BasePlayer):
    """Any NBoard-protocol engine started as a subprocess (Edax, NTest,
    ``outflank nboard``...). A dead, silent, garbled or illegal answer raises
    :class:`PlayerError`; the game runner forfeits the game."""

    def __init__(
        self,
        command: str | list[str],
        *,
        name: str | None = None,
        depth: int | None = None,
        timeout: float = 30.0,
        start_timeout: float = 10.0,
        env: dict[str, str] | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise OutflankError("nboard: empty engine command")
        self.client = NBoardClient(argv, depth=depth, start_timeout=start_timeout, env=env)
        super().__init__(name or self.client.engine_name or argv[0])
        self.timeout = timeout

    def choose_move(self, board: Board) -> Move:
        start = time.perf_counter()
        moves = _require_moves(board)
        answer = self.client.go(board, timeout=self.timeout)
        self.last_eval = answer.eval
        self.last_time = answer.time if answer.time is not None else time.perf_counter() - start
        if answer.move not in moves:
            raise PlayerError(
                f"{self.name} played an illegal move {answer.move}"
                f" (legal: {' '.join(map(str, moves))})"
            )
        return answer.move

    def close(self) -> None:
        self.client.close()


def parse_options(text: str) -> dict[str, Any]:
    """``key=value,...`` (``engine:`` specs, the terminal's ``set``) as a dict:
    numbers as int or float, anything else as the text; a piece without
    ``=`` is an :class:`OutflankError`."""
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise OutflankError(f"engine option {item!r}: expected key=value")
        key, value = key.strip(), value.strip()
        number: Any = value
        for convert in (int, float):
            try:
                number = convert(value)
                break
            except ValueError:
                continue
        params[key] = number
    return params


def _external_options(text: str) -> tuple[dict[str, Any], list[str]]:
    """Split ``depth=6 timeout=5 edax -q`` into options and the command."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise OutflankError(f"nboard command {text!r}: {exc}") from None
    options: dict[str, Any] = {}
    while words and re.fullmatch(r"(depth|timeout|name)=\S*", words[0]):
        key, _, value = words.pop(0).partition("=")
        try:
            number = int if key == "depth" else float
            options[key] = value if key == "name" else number(value)
        except ValueError:
            raise OutflankError(f"nboard option {key}={value!r}: not a number") from None
    if not words:
        raise OutflankError("nboard: give the engine command, e.g. nboard:edax -n 1 -nboard")
    return options, words


def player_label(spec: str) -> str:
    """The name a player spec goes by in tables and records: an external
    engine's ``name=`` option, else the spec itself."""
    text = spec.strip()
    kind, _, rest = text.partition(":")
    if kind.lower() in ("nboard", "external"):
        name = _external_options(rest)[0].get("name")
        if name:
            return str(name)
    return text


def check_player_spec(spec: str) -> None:
    """Raise :class:`OutflankError` for a spec :func:`make_player` would
    refuse, without starting an external engine (its options are checked)."""
    kind, _, rest = spec.strip().partition(":")
    if kind.lower() in ("nboard", "external"):
        _external_options(rest)
    else:
        make_player(spec).close()


def _whole(text: str, what: str) -> int:
    """``text`` as an int, or an error naming ``what`` it should have been."""
    try:
        return int(text)
    except ValueError:
        raise OutflankError(f"{what} must be a whole number, not {text!r}") from None


def player_specs_help() -> str:
    """One line listing the player specs :func:`make_player` accepts."""
    return (
        "human, random[:SEED], greedy, minimax4, heuristic, regions, weights, default,"
        " level:N, engine:key=value,..., classic:alphabeta|minimax:DEPTH, nboard:COMMAND"
    )


def make_player(spec: str, *, name: str | None = None) -> BasePlayer:
    """Build a player from a spec such as ``"level:5"`` (see the module doc).

    Raises :class:`OutflankError` for an unknown or malformed spec.
    """
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.lower()
    try:
        if kind == "human" and not rest:
            return HumanPlayer(name or "human")
        if kind == "random":
            return RandomPlayer(_whole(rest, "the random seed") if rest else None, name=name)
        if kind in ("greedy", "fish") and not rest:
            return GreedyPlayer(name or "greedy")
        if kind in ENGINE_PRESETS and not rest:
            return EnginePlayer(preset=kind, name=name)
        if kind == "level":
            return EnginePlayer(level=_whole(rest, "the level"), name=name)
        if kind == "engine":
            params = parse_options(rest)
            return EnginePlayer(name=name, **params)
        if kind == "classic":
            algorithm, _, depth = rest.partition(":")
            player = ClassicPlayer(
                algorithm or "alphabeta", _whole(depth, "the classic depth") if depth else 3
            )
            if name:
                player.name = name
            return player
        if kind in ("nboard", "external"):
            options, argv = _external_options(rest)
            label = options.pop("name", None)
            return ExternalPlayer(argv, name=name or label, **options)
    except ValueError as exc:
        if isinstance(exc, OutflankError):
            raise
        raise OutflankError(f"bad player spec {spec!r}: {exc}") from None
    except TypeError as exc:
        raise OutflankError(f"bad player spec {spec!r}: {exc}") from None
    raise OutflankError(f"unknown player {spec!r}; expected one of: {player_specs_help()}")
