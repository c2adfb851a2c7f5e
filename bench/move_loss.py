"""How many discs the engine's move choice loses, on positions whose every move is solved.

    python bench/move_loss.py make [--count 200] [--min 18] [--max 22] [--seed 40] --out FILE
    python bench/move_loss.py run [--file bench/data/move_loss.obf] [--depth 6] [--time 0.2]
                                  [--weights NAME=FILE ...]
    python bench/move_loss.py pair --weights A=FILE --weights B=FILE [--count 1000]
                                   [--min 18] [--max 22] [--seed 100] [--depth 6] [--cache FILE]

``make`` plays self-play games (random moves to 52 empties, then the
``default`` evaluator's depth-4 choice with a random move 15 % of the time)
to a number of empties drawn from --min..--max, keeps positions with at
least two moves, and solves every move exactly; it writes them as an OBF
file (each line lists every move's exact score). The same arguments give
the same file; bench/data/move_loss.obf, the one in docs/evaluation.md, is
four such files (--count 50 --seed 40, 41, 42, 43) one after the other:
200 positions (about 45 minutes of solving on 2 shared cores).

``run`` lets the engine choose a move in each position with the midgame
search only (no exact endgame: ``endgame=0``), at a fixed --depth and/or
--time per move, and reports per number of empties the mean loss (best
move's exact score minus the chosen move's) and how often the best move
was chosen. --weights NAME=FILE (repeatable) compares weight files of the
``default`` evaluator in the same run (each loaded into a core slot); the
packaged weights are "packaged"; with two or more, a second table gives
each one's paired difference from the first (mean over the positions of
the difference of their losses, with its 95 % interval) and in how many
positions their choices' losses differ. A --time run depends on the machine's
load: run it under the exclusive lock.

``pair`` measures only the paired difference of two weight files, on many
more positions for the same solving time: it makes positions as ``make``
does, lets each file choose a move at --depth, and solves exactly only the
moves chosen where the two choices differ (where they agree the difference
is 0, whatever the loss). It prints the mean difference B - A of the chosen
moves' exact scores' shortfall (negative: B loses fewer discs), its 95 %
interval, and in how many positions B's choice was better and worse.
--cache FILE keeps the exact scores solved (JSON; reused by later runs on
the same positions, e.g. with a third file).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from outflank import Board, Move, evalmodel  # noqa: E402
from outflank.engine import Engine  # noqa: E402
from outflank.errors import OutflankError  # noqa: E402
from outflank.obf import read_obf_file  # noqa: E402

DEFAULT_FILE = ROOT / "bench" / "data" / "move_loss.obf"
OPENING_EMPTIES = 52
RANDOM_MOVE = 0.15


def _position(rng: random.Random, engine: Engine, empties: int) -> Board | None:
    board = Board()
    while board.empties > empties:
        moves = list(board.legal_moves)
        if not moves:
            return None
        if board.empties > OPENING_EMPTIES or rng.random() < RANDOM_MOVE:
            board.push(rng.choice(moves))
        else:
            board.push(engine.search(board, depth=4).best_move)
    return board if len(board.legal_moves) >= 2 and not board.must_pass() else None


def positions(count: int, lo: int, hi: int, seed: int) -> list[Board]:
    """``count`` positions of ``lo``..``hi`` empties (self-play as described
    above), the same for the same arguments; not solved."""
    rng = random.Random(seed)
    player = Engine(depth=4, endgame=0, threads=1)
    found: list[Board] = []
    while len(found) < count:
        board = _position(rng, player, rng.randint(lo, hi))
        if board is not None:
            found.append(board)
    return found


def make(count: int, lo: int, hi: int, seed: int) -> list[str]:
    """OBF lines of ``count`` positions with every move's exact score."""
    solver = Engine(endgame=60, threads=1)
    lines = []
    for board in positions(count, lo, hi, seed):
        solver.clear()
        scores = solver.analyze(board, depth=60)
        assert all(s.exact for s in scores), "the solver must solve every move"
        cells = board.obf()
        fields = "".join(f" {str(s.move).upper()}:{int(s.score):+d};" for s in scores)
        lines.append(f"{cells};{fields}")
        print(f"  {len(lines)}/{count} ({board.empties} empties)", file=sys.stderr, flush=True)
    return lines


def choices(boards: list[Board], **limits: float) -> list[Move]:
    """The move the active ``default`` weights choose in each position with
    the midgame search only (``Engine`` limits and ``selective``), each from
    a cleared table."""
    engine = Engine(endgame=0, threads=1, **limits)
    moves = []
    for board in boards:
        engine.clear()
        moves.append(engine.search(board).best_move)
    return moves


def run(
    path: Path, weights: dict[str, Path], depth: int | None, time: float | None, selective: float
) -> str:
    """The loss table for each weight file (packaged when none are given)."""
    entries = read_obf_file(path)
    for e in entries:
        if len(e.scores) != len(e.board.legal_moves):
            raise OutflankError(f"{path}:{e.line}: not every move has a score")
    slots = {} if weights else {"packaged": 0}
    for i, (name, file) in enumerate(weights.items(), 1):
        if i > 3:
            raise OutflankError("at most 3 weight files")
        evalmodel.load_into(file, i)
        slots[name] = i
    limits = []
    if depth:
        limits.append((f"depth {depth}", {"depth": depth}))
    if time:
        limits.append((f"{time:g} s", {"time": time}))
    # name, limit -> per empties: [positions, loss sum, best chosen]
    stats: dict[tuple[str, str], dict[int, list[float]]] = {}
    losses: dict[tuple[str, str], list[float]] = {}  # per position, in file order
    try:
        for name, slot in slots.items():
            evalmodel.use(slot)
            for label, limit in limits:
                moves = choices([e.board for e in entries], selective=selective, **limit)
                table = stats.setdefault((name, label), {})
                mine = losses.setdefault((name, label), [])
                for e, move in zip(entries, moves, strict=True):
                    loss = e.best_score - e.scores[move]
                    mine.append(loss)
                    row = table.setdefault(e.board.empties, [0, 0.0, 0])
                    row[0] += 1
                    row[1] += loss
                    row[2] += loss == 0
    finally:
        evalmodel.use(0)
    cols = list(stats)
    out = [
        "| empties | positions | "
        + " | ".join(f"{n}, {lim}: loss (best %)" for n, lim in cols)
        + " |",
        "|---:|---:|" + "---:|" * len(cols),
    ]
    empties = sorted({e.board.empties for e in entries})
    for em in [*empties, None]:
        cells = []
        count = 0
        for key in cols:
            rows = [r for k, r in stats[key].items() if em is None or k == em]
            count = sum(r[0] for r in rows)
            loss = sum(r[1] for r in rows) / count
            best = 100 * sum(r[2] for r in rows) / count
            cells.append(f"{loss:.2f} ({best:.0f} %)")
        out.append(f"| {'all' if em is None else em} | {count} | " + " | ".join(cells) + " |")
    names = list(slots)
    if len(names) > 1:
        out += ["", "| limit | paired difference | mean loss difference (95 %) | choices differ |"]
        out.append("|---|---|---:|---:|")
        for _label, _ in limits:
            for name in names[1:]:
                mean, half, differ = paired(losses[(name, _label)], losses[(names[0], _label)])
                out.append(
                    f"| {_label} | {name} - {names[0]} | {mean:+.2f} +/- {half:.2f} | {differ} |"
                )
    return "\n".join(out)


def move_score(solver: Engine, board: Board, move: Move) -> int:
    """The exact final disc difference after ``move``, from the mover's view."""
    child = board.copy(stack=False)
    child.push(move)
    solver.clear()
    result = solver.solve(child)
    if not result.exact:
        raise OutflankError(f"{board.obf()} {move}: not solved")
    return -int(result.score)


def pair(
    boards: list[Board], a: Path, b: Path, depth: int, cache: dict[str, dict[str, int]]
) -> tuple[list[float], int, int]:
    """Per position, the loss of weight file ``b``'s choice at ``depth``
    minus that of ``a``'s (0 where they choose the same move), and how many
    positions B chose better and worse. ``cache`` maps a board's OBF text
    to the exact scores of its moves solved so far (it grows)."""
    picked: list[list[Move]] = []
    try:
        for slot, file in enumerate((a, b), 1):
            evalmodel.load_into(file, slot)
            evalmodel.use(slot)
            picked.append(choices(boards, depth=depth))
    finally:
        evalmodel.use(0)
    solver = Engine(endgame=60, threads=1)
    differences: list[float] = []
    better = worse = 0
    for i, (board, move_a, move_b) in enumerate(zip(boards, *picked, strict=True)):
        if move_a == move_b:
            differences.append(0.0)
            continue
        known = cache.setdefault(board.obf(), {})
        for move in (move_a, move_b):
            if str(move) not in known:
                known[str(move)] = move_score(solver, board, move)
        diff = known[str(move_a)] - known[str(move_b)]  # B's loss minus A's
        differences.append(float(diff))
        better += diff < 0
        worse += diff > 0
        print(f"  {i + 1}/{len(boards)}: {move_a} {move_b} {diff:+d}", file=sys.stderr, flush=True)
    return differences, better, worse


def paired(a: list[float], b: list[float]) -> tuple[float, float, int]:
    """Mean of the paired differences a - b, the half width of its 95 %
    interval (normal approximation), and how many pairs differ."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n), sum(x != 0 for x in d)


def pair_table(args: argparse.Namespace, weights: dict[str, Path]) -> str:
    """Run ``pair`` for the parsed arguments; its table."""
    if not 1 <= args.min <= args.max <= 30 or args.count < 2 or args.depth < 1:
        raise OutflankError("need 1 <= --min <= --max <= 30, --count >= 2 and --depth >= 1")
    if len(weights) != 2:
        raise OutflankError("pair wants exactly two --weights")
    cache: dict[str, dict[str, int]] = {}
    if args.cache and args.cache.exists():
        try:
            cache = json.loads(args.cache.read_text())
        except ValueError as exc:
            raise OutflankError(f"{args.cache}: not a cache this script wrote ({exc})") from exc
    (name_a, file_a), (name_b, file_b) = weights.items()
    boards = positions(args.count, args.min, args.max, args.seed)
    try:
        diffs, better, worse = pair(boards, file_a, file_b, args.depth, cache)
    finally:
        if args.cache:
            args.cache.write_text(json.dumps(cache))
    mean, half, differ = paired(diffs, [0.0] * len(diffs))
    return "\n".join(
        [
            f"| positions | depth | choices differ | {name_b} better | {name_b} worse "
            f"| mean loss {name_b} - {name_a} (95 %) |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {len(diffs)} | {args.depth} | {differ} | {better} | {worse} "
            f"| {mean:+.3f} +/- {half:.3f} |",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="write a set of positions with every move solved")
    m.add_argument("--count", type=int, default=200)
    m.add_argument("--min", type=int, default=18)
    m.add_argument("--max", type=int, default=22)
    m.add_argument("--seed", type=int, default=40)
    m.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run", help="measure the loss of the engine's choices")
    r.add_argument("--file", type=Path, default=DEFAULT_FILE)
    r.add_argument("--depth", type=int, default=6)
    r.add_argument("--time", type=float, default=None, help="seconds per move")
    r.add_argument("--selective", type=float, default=0.0)
    r.add_argument("--weights", action="append", default=[], metavar="NAME=FILE")
    p = sub.add_parser("pair", help="paired loss difference of two weight files")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--min", type=int, default=18)
    p.add_argument("--max", type=int, default=22)
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--depth", type=int, default=6)
    p.add_argument("--weights", action="append", default=[], metavar="NAME=FILE")
    p.add_argument("--cache", type=Path, default=None, help="JSON file of solved scores")
    args = ap.parse_args(argv)
    try:
        if args.command == "make":
            if not 1 <= args.min <= args.max <= 30 or args.count < 1:
                raise OutflankError("need 1 <= --min <= --max <= 30 and --count >= 1")
            lines = make(args.count, args.min, args.max, args.seed)
            args.out.write_text("\n".join(lines) + "\n")
            return 0
        weights = {}
        for spec in args.weights:
            name, sep, file = spec.partition("=")
            if not sep or not name or not file:
                raise OutflankError(f"--weights wants NAME=FILE, not {spec!r}")
            weights[name] = Path(file)
        if args.command == "pair":
            print(pair_table(args, weights))
            return 0
        if not args.depth and not args.time:
            raise OutflankError("give --depth or --time (or both)")
        print(run(args.file, weights, args.depth or None, args.time, args.selective))
    except (OutflankError, OSError) as exc:
        print(f"move_loss.py: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
