"""A puzzle ("find the move"), its grade and the puzzle file format.

A puzzle is an Othello position, side to move, where exactly one move keeps
the best exact result: the only winning move (or, where no move wins, the
only drawing one); every other move ends worse (a draw or a loss for a
winning position, a loss for a drawn one) and at least ``margin`` discs below
the solution by a full exact analysis (see :func:`outflank.puzzles.examine`).
A puzzle keeps that analysis: every legal move's exact final disc
difference, the solution line to the end of the game and, for each wrong
move, its refutation (the opponent's best answer and the exact line after
it).

Difficulty (docs/puzzles.md): ``empties``; ``tempting``, the wrong moves that
a 2-ply search scores no lower than the solution (they look as good as it);
``depth``, how deep the point is: the shallowest search depth from which the
search chooses the solution at every deeper depth it was tried at
(:data:`DEPTH_LIMIT` plies at most; a point deeper than any of them counts
as one ply beyond). They make the puzzle's starting rating
(:func:`estimated_rating`) and its grade 1-5 (:func:`grade_of`).

Files: JSON Lines, UTF-8. The first line is a header
``{"format": "outflank-puzzles", "version": 1, ...}`` (how the set was
made); each further line one puzzle (:meth:`Puzzle.to_dict`).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from outflank.board import PASS, Board, Move
from outflank.errors import OutflankError
from outflank.textfile import read_text_file

__all__ = [
    "DEFAULT_MARGIN",
    "DEPTH_LIMIT",
    "FORMAT",
    "GRADES",
    "Puzzle",
    "PuzzleError",
    "PuzzleSet",
    "estimated_rating",
    "grade_of",
    "puzzle_id",
]

FORMAT: Final = "outflank-puzzles"
VERSION: Final = 1
#: The least gap, in discs, between the solution and every other move.
DEFAULT_MARGIN: Final = 4
#: The deepest search of the depth measure (plies).
DEPTH_LIMIT: Final = 14
#: Grade number -> (name, lowest starting rating of the grade).
GRADES: Final = {
    1: ("easy", 0),
    2: ("fair", 1200),
    3: ("tricky", 1450),
    4: ("hard", 1700),
    5: ("fiendish", 1950),
}
DEFAULT_PATH: Final = Path(__file__).resolve().parent.parent / "data" / "puzzles.jsonl"


class PuzzleError(OutflankError):
    """A puzzle or puzzle file that is malformed, or a puzzle that is not one."""


def estimated_rating(empties: int, tempting: int, depth: int) -> int:
    """A puzzle's starting rating from its difficulty (docs/puzzles.md):
    ``700 + 30 x empties + 120 x tempting + 45 x (depth - 1)``, within
    400..2800."""
    value = 700 + 30 * empties + 120 * tempting + 45 * (depth - 1)
    return max(400, min(2800, value))


def grade_of(rating: float) -> int:
    """The grade 1 (easy) .. 5 (fiendish) of a puzzle rating (see :data:`GRADES`)."""
    grade = 1
    for number, (_, lowest) in GRADES.items():
        if rating >= lowest:
            grade = number
    return grade


def puzzle_id(board: Board) -> str:
    """A puzzle's id: 8 hex digits of the SHA-1 of its position's OBF."""
    return hashlib.sha1(board.obf().encode()).hexdigest()[:8]


def _moves_text(moves: Iterable[Move]) -> str:
    return " ".join(str(m) for m in moves)


def _parse_moves(text: Any, what: str) -> list[Move]:
    if not isinstance(text, str):
        raise PuzzleError(f"{what} must be a string of moves, not {type(text).__name__}")
    try:
        return [Move.from_str(token) for token in text.split()]
    except OutflankError as exc:
        raise PuzzleError(f"{what}: {exc}") from None


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PuzzleError(f"{what} must be an integer, not {value!r}"[:120])
    return value


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position, its solution and the exact analysis behind it.

    ``scores`` maps every legal move (its name, ``"f5"``) to its exact final
    disc difference for the side to move; ``line`` is the solution line,
    the solution first, to the end of the game; ``refutations`` maps each
    wrong move to the exact line after it (the opponent's best answer
    first). ``rating`` is the puzzle's starting rating (from its
    difficulty); ``source`` says where the position came from."""

    board: Board
    solution: Move
    scores: dict[str, int]
    line: list[Move]
    refutations: dict[str, list[Move]]
    tempting: int
    depth: int
    rating: int
    source: str = ""
    id: str = field(default="")

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", puzzle_id(self.board))

    # ------------------------------------------------------------ derived
    @property
    def score(self) -> int:
        """The solution's exact final disc difference (side to move's view)."""
        return self.scores[str(self.solution)]

    @property
    def empties(self) -> int:
        return self.board.empties

    @property
    def margin(self) -> int:
        """Discs between the solution and the best other move."""
        others = [v for m, v in self.scores.items() if m != str(self.solution)]
        return self.score - max(others)

    @property
    def grade(self) -> int:
        """1 (easy) .. 5 (fiendish), from the starting rating."""
        return grade_of(self.rating)

    @property
    def grade_name(self) -> str:
        return GRADES[self.grade][0]

    @property
    def result(self) -> str:
        """What the solution keeps: ``"win"`` or ``"draw"``."""
        return "win" if self.score > 0 else "draw"

    def is_solution(self, move: Move | str) -> bool:
        """Is ``move`` (a legal move) the solution?"""
        return str(move if isinstance(move, Move) else Move.from_str(move)) == str(self.solution)

    def refutation(self, move: Move | str) -> list[Move]:
        """The exact line after a wrong move (the opponent's best answer first)."""
        name = str(move if isinstance(move, Move) else Move.from_str(move))
        if name not in self.refutations:
            raise PuzzleError(f"{name} is not a wrong move of puzzle {self.id}")
        return list(self.refutations[name])

    def board_after(self, moves: Iterable[Move]) -> Board:
        """A copy of the position with ``moves`` played (checked: illegal raises)."""
        board = self.board.copy(stack=False)
        for move in moves:
            board.push(move)
        return board

    # ------------------------------------------------------------ checks
    def check(self, margin: int = DEFAULT_MARGIN) -> None:
        """Raise :class:`PuzzleError` unless the stored analysis makes a
        puzzle (one best move, keeping a win or a draw, every other move a
        worse result and ``margin`` discs lower) and the lines are legal and
        end with the scores they stand for. No search: this checks the
        puzzle against itself; :func:`outflank.puzzles.verify` re-analyses."""
        legal = {str(m) for m in self.board.legal_moves}
        if PASS in self.board.legal_moves or not legal:
            raise PuzzleError(f"puzzle {self.id}: the side to move has no move to find")
        if set(self.scores) != legal:
            raise PuzzleError(f"puzzle {self.id}: scores are not those of the legal moves")
        problem = uniqueness_problem(self.scores, margin)
        if problem:
            raise PuzzleError(f"puzzle {self.id}: {problem}")
        best = max(self.scores, key=self.scores.__getitem__)
        if best != str(self.solution):
            raise PuzzleError(f"puzzle {self.id}: the solution {self.solution} is not the best")
        if set(self.refutations) != legal - {best}:
            raise PuzzleError(f"puzzle {self.id}: a refutation per wrong move is needed")
        if not self.line or self.line[0] != self.solution:
            raise PuzzleError(f"puzzle {self.id}: the line must start with the solution")
        lines = [(self.line, best, self.score)]
        lines += [([Move.from_str(m), *line], m, self.scores[m]) for m, line in
                  self.refutations.items()]  # fmt: skip
        for moves, name, expected in lines:
            try:
                end = self.board_after(moves)
            except OutflankError as exc:
                raise PuzzleError(f"puzzle {self.id}: the line of {name}: {exc}") from None
            outcome = end.outcome()
            if outcome is None:
                raise PuzzleError(f"puzzle {self.id}: the line of {name} stops before the end")
            final = outcome.margin if self.board.turn.name == "BLACK" else -outcome.margin
            if final != expected:
                raise PuzzleError(
                    f"puzzle {self.id}: the line of {name} ends {final:+d}, not {expected:+d}"
                )

    # ------------------------------------------------------------ format
    def to_dict(self) -> dict[str, Any]:
        """The puzzle as a JSON object (one line of a puzzle file)."""
        return {
            "id": self.id,
            "obf": self.board.obf(),
            "solution": str(self.solution),
            "scores": dict(sorted(self.scores.items(), key=lambda kv: (-kv[1], kv[0]))),
            "line": _moves_text(self.line),
            "refutations": {m: _moves_text(line) for m, line in sorted(self.refutations.items())},
            "empties": self.empties,
            "tempting": self.tempting,
            "depth": self.depth,
            "rating": self.rating,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Puzzle:
        """A puzzle from :meth:`to_dict`'s form; :class:`PuzzleError` if malformed."""
        if not isinstance(data, dict):
            raise PuzzleError(f"a puzzle is a JSON object, not {type(data).__name__}")
        missing = [k for k in ("obf", "solution", "scores", "line", "refutations") if k not in data]
        if missing:
            raise PuzzleError(f"a puzzle lacks {', '.join(missing)}")
        try:
            board = Board.from_obf(data["obf"])
            solution = Move.from_str(data["solution"])
        except (OutflankError, AttributeError, TypeError) as exc:
            raise PuzzleError(f"a puzzle's position or solution: {exc}") from None
        scores = data["scores"]
        refutations = data["refutations"]
        if not isinstance(scores, dict) or not isinstance(refutations, dict):
            raise PuzzleError("a puzzle's scores and refutations are JSON objects")
        puzzle = cls(
            board=board,
            solution=solution,
            scores={str(k): _int(v, f"the score of {k}") for k, v in scores.items()},
            line=_parse_moves(data["line"], "line"),
            refutations={
                str(k): _parse_moves(v, f"refutation of {k}") for k, v in refutations.items()
            },
            tempting=_int(data.get("tempting", 0), "tempting"),
            depth=_int(data.get("depth", 1), "depth"),
            rating=_int(data.get("rating", 1500), "rating"),
            source=str(data.get("source", "")),
        )
        given = data.get("id")
        if given is not None and given != puzzle.id:
            raise PuzzleError(f"puzzle id {given!r} does not match its position ({puzzle.id})")
        return puzzle


def uniqueness_problem(scores: dict[str, int], margin: int = DEFAULT_MARGIN) -> str | None:
    """Why an exact analysis (move -> final disc difference) is no puzzle,
    or ``None`` if it is one: one best move, whose result (win, or draw)
    every other move makes worse, each at least ``margin`` discs lower."""
    if len(scores) < 2:
        return "fewer than two moves to choose from"
    ranked = sorted(scores.values(), reverse=True)
    best, second = ranked[0], ranked[1]
    if best < 0:
        return f"every move loses (best {best:+d})"
    if second == best:
        return f"more than one move scores {best:+d}"
    if best > 0 and second > 0:
        return f"another move also wins ({second:+d})"
    if best - second < margin:
        return f"another move is only {best - second} discs worse (margin {margin})"
    return None


class PuzzleSet:
    """Puzzles by id, with the header of the file they came from.

    ``PuzzleSet.default()`` is the set shipped with the package."""

    def __init__(self, puzzles: Iterable[Puzzle] = (), header: dict[str, Any] | None = None):
        self.header: dict[str, Any] = {"format": FORMAT, "version": VERSION, **(header or {})}
        self._by_id: dict[str, Puzzle] = {}
        for puzzle in puzzles:
            self.add(puzzle)

    def add(self, puzzle: Puzzle) -> None:
        """Add a puzzle; a second puzzle with the same id is refused."""
        if puzzle.id in self._by_id:
            raise PuzzleError(f"two puzzles with id {puzzle.id}")
        self._by_id[puzzle.id] = puzzle

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Puzzle]:
        return iter(self._by_id.values())

    def __contains__(self, puzzle_id: object) -> bool:
        return puzzle_id in self._by_id

    def get(self, puzzle_id: str) -> Puzzle:
        """The puzzle with this id; :class:`PuzzleError` if there is none."""
        puzzle = self._by_id.get(puzzle_id) if isinstance(puzzle_id, str) else None
        if puzzle is None:
            raise PuzzleError(f"no puzzle with id {str(puzzle_id)[:40]!r}")
        return puzzle

    def near(
        self,
        rating: float,
        exclude: Iterable[str] = (),
        rng: random.Random | None = None,
        spread: float = 100.0,
    ) -> Puzzle:
        """A puzzle near ``rating``: one at random among those within
        ``spread`` points of it, widening the spread until some qualify;
        puzzles in ``exclude`` (ids: seen already) only once every puzzle
        has been seen. :class:`PuzzleError` for an empty set."""
        if not self._by_id:
            raise PuzzleError("the puzzle set is empty")
        rng = rng or random.Random()
        seen = set(exclude)
        pool = [p for p in self._by_id.values() if p.id not in seen] or list(self._by_id.values())
        width = spread
        while True:
            close = [p for p in pool if abs(p.rating - rating) <= width]
            if close:
                return rng.choice(sorted(close, key=lambda p: p.id))
            width *= 2

    # ------------------------------------------------------------ files
    @classmethod
    def loads(cls, text: str, source: str = "<text>") -> PuzzleSet:
        """A set from a puzzle file's text."""
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if not lines:
            raise PuzzleError(f"{source}: empty, not a puzzle file")
        try:
            header = json.loads(lines[0][1])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise PuzzleError(f"{source}: not a puzzle file (no {FORMAT!r} header line)")
        if header.get("version") != VERSION:
            raise PuzzleError(f"{source}: puzzle file version {header.get('version')!r}")
        out = cls(header=header)
        for number, line in lines[1:]:
            try:
                out.add(Puzzle.from_dict(json.loads(line)))
            except json.JSONDecodeError as exc:
                raise PuzzleError(f"{source}:{number}: not JSON ({exc.msg})") from None
            except PuzzleError as exc:
                raise PuzzleError(f"{source}:{number}: {exc}") from None
        return out

    @classmethod
    def load(cls, path: str | Path) -> PuzzleSet:
        """A set from a puzzle file."""
        return cls.loads(read_text_file(path), str(path))

    def dumps(self) -> str:
        """The set as a puzzle file's text (header, then one puzzle a line)."""
        lines = [json.dumps(self.header, separators=(",", ":"))]
        lines += [json.dumps(p.to_dict(), separators=(",", ":")) for p in self]
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the set to a file (written whole, then renamed into place)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.dumps(), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def default(cls) -> PuzzleSet:
        """The puzzles shipped with the package (loaded once, then shared)."""
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls.load(DEFAULT_PATH)
        return _DEFAULT


_DEFAULT: PuzzleSet | None = None
