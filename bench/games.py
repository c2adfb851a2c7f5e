"""Small-games benchmark: outflank.games against easyAI, side by side.

    python bench/games.py [--depths 6 8 10] [--no-easyai] [--venv /tmp/easyai-venv]

Measures, for outflank's generic negamax (:mod:`outflank.games.search`):

* solving Tic-Tac-Toe from the empty board;
* Connect Four (7x6) depth-limited searches from the start at depths 6, 8, 10,
  once with win/loss-only scoring (the scoring of easyAI's own Connect Four,
  so both programs search the same tree values) and once with outflank's
  threat heuristic (how the game is really played).

and the same with easyAI's ``Negamax`` (with its transposition table) on
easyAI's own ``TicTacToe`` and ``ConnectFour``, plus easyAI's ``Negamax``
driving outflank's bitboard Connect Four (isolating the search framework).

easyAI is never a dependency of outflank: the first run creates a throwaway
virtual environment (``/tmp/easyai-venv`` by default, ``--system-site-packages``
so numpy is shared), ``pip install easyAI`` into it, and runs the easyAI side
in a subprocess of that environment (``--easyai-worker``), reading JSON back.
Game values are checked to be identical (win/draw/loss for the side to move).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
try:
    import outflank  # noqa: F401
except ImportError:  # running from a source checkout
    sys.path.insert(0, str(ROOT / "src"))

from outflank.games import ConnectFour, Searcher, TicTacToe  # noqa: E402


class WinOnlyConnectFour(ConnectFour):
    """Connect Four scored like easyAI's example: only wins and losses count."""

    def heuristic(self) -> int:
        return 0


#: A position with a forced win (0-based columns 3 3 4 4: X to move makes an open three).
TACTIC = (3, 3, 4, 4)
TACTIC_LABEL = "Connect Four after 4 4 5 5 (win in 3), depth 5"


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def best_of(run, repeat: int, budget: float = 3.0):
    """Run ``run()`` up to ``repeat`` times (fewer once ``budget`` seconds are spent).

    Returns the last result and the smallest CPU time of this process
    (``time.process_time``): the machine is shared, and CPU time with the
    minimum of several runs is the least disturbed measurement.
    """
    times = []
    result = None
    while len(times) < repeat and sum(times) < budget:
        start = time.process_time()
        result = run()
        times.append(time.process_time() - start)
    return result, min(times)


# ------------------------------------------------------------------ outflank side
def run_outflank(depths: list[int], repeat: int) -> list[dict]:
    rows = []
    result, seconds = best_of(lambda: Searcher().search(TicTacToe()), repeat * 5)
    rows.append(_row("ttt", "Tic-Tac-Toe, solve from empty", result, seconds, result.proven()))
    for depth in depths:
        result, seconds = best_of(
            lambda d=depth: Searcher().search(WinOnlyConnectFour(), depth=d), repeat
        )
        label = f"Connect Four depth {depth}"
        rows.append(_row(f"c4-{depth}", label, result, seconds, _sign(result.score)))

    def won_position() -> ConnectFour:
        game = WinOnlyConnectFour()
        for column in TACTIC:
            game.play(column)
        return game

    result, seconds = best_of(lambda: Searcher().search(won_position(), depth=5), repeat)
    rows.append(_row("c4-won", TACTIC_LABEL, result, seconds, _sign(result.score)))
    for depth in depths:
        result, seconds = best_of(lambda d=depth: Searcher().search(ConnectFour(), depth=d), repeat)
        label = f"Connect Four depth {depth}, threats"
        rows.append(_row(f"c4h-{depth}", label, result, seconds, None))
    return rows


def _row(key: str, label: str, result, seconds: float, value: int | None) -> dict:
    return {
        "key": key,
        "label": label,
        "seconds": seconds,
        "nodes": result.nodes,
        "value": value,
        "move": result.best_move,
        "score": result.score,
    }


# ------------------------------------------------------------------ easyAI side
def easyai_worker(depths: list[int], repeat: int) -> None:
    """Runs inside the easyAI virtual environment; prints one JSON object per search."""
    from easyAI import AI_Player, Negamax, TwoPlayerGame
    from easyAI.AI import TranspositionTable
    from easyAI.games import ConnectFour as EasyConnectFour
    from easyAI.games import TicTacToe as EasyTicTacToe

    counter = {"nodes": 0}

    class CountedTicTacToe(EasyTicTacToe):
        def make_move(self, move):
            counter["nodes"] += 1
            super().make_move(move)

        def ttentry(self):
            return tuple(self.board)

    class CountedConnectFour(EasyConnectFour):
        def make_move(self, column):
            counter["nodes"] += 1
            super().make_move(column)

        def ttentry(self):
            return self.board.tobytes()

    class BitboardConnectFour(TwoPlayerGame):
        """outflank's bitboard Connect Four behind easyAI's game interface."""

        def __init__(self, players):
            self.players = players
            self.current_player = 1
            self.game = ConnectFour()

        def possible_moves(self):
            return self.game.legal_moves()

        def make_move(self, move):
            counter["nodes"] += 1
            self.game.play(move)

        def unmake_move(self, move):
            self.game.undo()

        def switch_player(self):  # outflank's game keeps the turn itself
            pass

        def is_over(self):
            return self.game.is_over()

        def lose(self):
            return self.game.winner() is not None

        def scoring(self):
            return -100 if self.lose() else 0

        def ttentry(self):
            return self.game.key()

    def measure(key, label, make_game, depth, repeat):
        def run():
            counter["nodes"] = 0
            game = make_game([AI_Player(None), AI_Player(None)])
            ai = Negamax(depth, tt=TranspositionTable())
            move = ai(game)
            return move, ai.alpha, counter["nodes"]

        (move, value, nodes), seconds = best_of(run, repeat)
        row = {"key": key, "label": label, "seconds": seconds, "nodes": nodes}
        row.update(value=_sign(value), move=str(move), score=value)
        print(json.dumps(row), flush=True)

    measure("ttt", "Tic-Tac-Toe, solve from empty", CountedTicTacToe, 9, repeat * 5)
    for depth in depths:
        measure(f"c4-{depth}", f"Connect Four depth {depth}", CountedConnectFour, depth, repeat)

    def won_position(players):
        game = CountedConnectFour(players)
        for column in TACTIC:
            game.make_move(column)
            game.switch_player()
        return game

    measure("c4-won", TACTIC_LABEL, won_position, 5, repeat)
    for depth in depths:
        label = f"Connect Four depth {depth}, easyAI on outflank's bitboards"
        measure(f"c4b-{depth}", label, BitboardConnectFour, depth, repeat)


def ensure_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} with easyAI (never an outflank dependency)...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True
        )
    probe = subprocess.run([str(python), "-c", "import easyAI"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "easyAI"], check=True)
    return python


def run_easyai(venv: Path, depths: list[int], repeat: int) -> list[dict]:
    python = ensure_venv(venv)
    proc = subprocess.run(
        [str(python), __file__, "--easyai-worker", "--repeat", str(repeat), "--depths"]
        + [str(d) for d in depths],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    if proc.returncode != 0:
        raise SystemExit(f"easyAI worker failed:\n{proc.stderr}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


# ------------------------------------------------------------------ report
def _rate(row: dict) -> float:
    return row["nodes"] / row["seconds"] if row["seconds"] else float("inf")


def _value(value: int | None) -> str:
    return {1: "win", 0: "draw/none", -1: "loss", None: "-"}[value]


def print_tables(ours: list[dict], theirs: list[dict]) -> bool:
    """Print the markdown tables; returns False if a game value differs."""
    by_key = {row["key"]: row for row in theirs}
    same = True
    print(
        "| search | outflank s | outflank nodes | outflank nodes/s |"
        " easyAI s | easyAI nodes | easyAI nodes/s | speed-up | value (both) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in ours:
        other = by_key.get(row["key"])
        if other is None:
            continue
        agree = row["value"] == other["value"]
        same &= agree
        value = _value(row["value"]) if agree else f"DIFFER {row['value']}/{other['value']}"
        print(
            f"| {row['label']} | {row['seconds']:.3f} | {row['nodes']:,} | {_rate(row):,.0f} |"
            f" {other['seconds']:.3f} | {other['nodes']:,} | {_rate(other):,.0f} |"
            f" {other['seconds'] / row['seconds']:.1f}x | {value} |"
        )
    framework = [row for row in theirs if row["key"].startswith("c4b-")]
    if framework:
        print()
        print("easyAI's Negamax driving outflank's bitboard Connect Four (search framework only):")
        print()
        print("| search | easyAI s | nodes | nodes/s | outflank s | speed-up | value |")
        print("|---|---:|---:|---:|---:|---:|---|")
        ours_by_key = {row["key"]: row for row in ours}
        for other in framework:
            mine = ours_by_key["c4-" + other["key"][4:]]
            agree = mine["value"] == other["value"]
            same &= agree
            print(
                f"| {other['label'].split(',')[0]} | {other['seconds']:.3f} | {other['nodes']:,} |"
                f" {_rate(other):,.0f} | {mine['seconds']:.3f} |"
                f" {other['seconds'] / mine['seconds']:.1f}x |"
                f" {_value(other['value']) if agree else 'DIFFER'} |"
            )
    return same


def print_heuristic_table(ours: list[dict]) -> None:
    print()
    print("outflank with the threat heuristic (the game as played by `outflank play connect4`):")
    print()
    print("| search | seconds | nodes | nodes/s | best column | score |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in ours:
        if row["key"].startswith("c4h-"):
            print(
                f"| {row['label'].split(',')[0]} | {row['seconds']:.3f} | {row['nodes']:,} |"
                f" {_rate(row):,.0f} | {row['move'] + 1} | {row['score']:+d} |"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[6, 8, 10])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/easyai-venv"))
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per search, fastest kept (default 3)"
    )
    parser.add_argument("--no-easyai", action="store_true", help="only time outflank")
    parser.add_argument("--easyai-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.easyai_worker:
        easyai_worker(args.depths, args.repeat)
        return 0
    ours = run_outflank(args.depths, args.repeat)
    if args.no_easyai:
        for row in ours:
            print(
                f"{row['label']}: {row['seconds']:.3f} s, {row['nodes']:,} nodes,"
                f" {_rate(row):,.0f} nodes/s, value {_value(row['value'])}"
            )
        return 0
    theirs = run_easyai(args.venv, args.depths, args.repeat)
    same = print_tables(ours, theirs)
    print_heuristic_table(ours)
    print()
    print("game values identical" if same else "GAME VALUES DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
