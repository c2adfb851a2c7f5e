"""Puzzles: what makes one, the shipped set, Glicko-2, the solver's session."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import cells_of, flips, play
from outflank import Board, Engine
from outflank.board import BLACK, PASS, Move
from outflank.errors import IllegalMoveError, InvalidMoveError
from outflank.puzzles import (
    Analyst,
    Puzzle,
    PuzzleError,
    PuzzleSet,
    estimated_rating,
    examine,
    grade_of,
    uniqueness_problem,
    verify,
)
from outflank.puzzles.puzzle import DEFAULT_PATH, GRADES
from outflank.puzzles.rating import MIN_RD, Rating, after_puzzle, expected, update
from outflank.puzzles.trainer import Solver, answer, next_puzzle, skip


@pytest.fixture(scope="module")
def shipped() -> PuzzleSet:
    return PuzzleSet.default()


@pytest.fixture(scope="module")
def analyst() -> Analyst:
    return Analyst.make(threads=1)


# ---------------------------------------------------------------- the oracle
def _oracle_score(cells: list[int], me: int) -> int:
    """The exact final disc difference for ``me`` to move, by plain negamax
    over the test oracle's rules (independent of the C core)."""
    empty = [sq for sq in range(64) if cells[sq] == 0]
    moves = [sq for sq in empty if flips(cells, me, sq)]
    if not moves:
        if not any(flips(cells, 3 - me, sq) for sq in empty):
            mine, theirs = cells.count(me), cells.count(3 - me)
            diff = mine - theirs
            return diff + len(empty) if diff > 0 else diff - len(empty) if diff < 0 else 0
        return -_oracle_score(cells, 3 - me)
    return max(-_oracle_score(play(cells, me, sq), 3 - me) for sq in moves)


def _oracle_scores(board: Board) -> dict[str, int]:
    cells = cells_of(board.black, board.white)
    me = 1 if board.turn is BLACK else 2
    return {str(m): -_oracle_score(play(cells, me, m.square), 3 - me) for m in board.legal_moves}


def _endgames(seed: int, empties: int, count: int) -> list[Board]:
    """Positions of ``empties`` empties from random games."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board()
        while board.empties > empties and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if board.empties == empties and not board.is_game_over():
            out.append(board.copy(stack=False))
    return out


# ---------------------------------------------------------------- uniqueness
@pytest.mark.parametrize(
    ("scores", "ok"),
    [
        ({"a1": 4, "b1": -2}, True),  # the only win
        ({"a1": 6, "b1": 0}, True),  # a draw is a worse result than a win
        ({"a1": 0, "b1": -4}, True),  # the only draw
        ({"a1": 0, "b1": -2}, False),  # ... but the loss is within the margin
        ({"a1": 10, "b1": 2}, False),  # two wins
        ({"a1": 4, "b1": 4}, False),  # two best moves
        ({"a1": 0, "b1": 0}, False),  # two draws
        ({"a1": -2, "b1": -20}, False),  # every move loses
        ({"a1": 8}, False),  # nothing to choose
    ],
)
def test_uniqueness_rule(scores: dict[str, int], ok: bool) -> None:
    assert (uniqueness_problem(scores, margin=4) is None) is ok


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["a1", "b2", "c3", "d4"]), st.integers(-64, 64),
                       min_size=1))  # fmt: skip
def test_uniqueness_rule_matches_its_definition(scores: dict[str, int]) -> None:
    ranked = sorted(scores.values(), reverse=True)
    best = ranked[0]
    others = ranked[1:]
    wld = lambda v: (v > 0) - (v < 0)  # noqa: E731
    definition = (
        bool(others) and best >= 0 and all(wld(v) < wld(best) and v <= best - 4 for v in others)
    )
    assert (uniqueness_problem(scores, 4) is None) is definition


def test_examine_agrees_with_a_plain_negamax(analyst: Analyst) -> None:
    """At 6-7 empties every move's score by the test oracle's own negamax:
    examine makes a puzzle exactly where the rule says, with those scores."""
    made = 0
    for board in _endgames(11, 7, 12) + _endgames(12, 6, 12):
        if PASS in board.legal_moves:
            continue
        truth = _oracle_scores(board)
        puzzle = examine(board, analyst)
        assert (puzzle is not None) == (uniqueness_problem(truth) is None), board.obf()
        if puzzle is not None:
            made += 1
            assert puzzle.scores == truth
            assert str(puzzle.solution) == max(truth, key=truth.__getitem__)
    assert made >= 1


def test_a_found_puzzle_is_whole(analyst: Analyst, shipped: PuzzleSet) -> None:
    """examine on a shipped puzzle's position finds it again: the scores by
    the solver, the lines ending where the scores say, a refutation per
    wrong move, the difficulty measured and graded."""
    original = sorted(shipped, key=lambda p: p.id)[0]
    puzzle = examine(original.board, analyst, source="test")
    assert puzzle is not None
    assert puzzle.scores == original.scores and puzzle.solution == original.solution
    puzzle.check()
    assert puzzle.line[0] == puzzle.solution
    assert set(puzzle.refutations) == set(puzzle.scores) - {str(puzzle.solution)}
    assert 0 <= puzzle.tempting < len(puzzle.scores)
    assert 1 <= puzzle.depth <= min(15, puzzle.empties)
    assert puzzle.rating == estimated_rating(puzzle.empties, puzzle.tempting, puzzle.depth)


def test_no_puzzle_where_the_mover_has_no_choice(analyst: Analyst) -> None:
    board = Board.from_obf("OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOXO- X")
    assert examine(board, analyst) is None  # one move
    assert examine(Board(), analyst) is None  # 60 empties: too many to solve


# ---------------------------------------------------------------- the shipped set
def test_the_shipped_set_is_large_graded_and_small(shipped: PuzzleSet) -> None:
    assert len(shipped) >= 500
    assert DEFAULT_PATH.stat().st_size < 1_000_000
    assert shipped.header["checked"] == "every puzzle by a full exact analysis"
    grades = {g: 0 for g in GRADES}
    for puzzle in shipped:
        grades[puzzle.grade] += 1
        assert puzzle.rating == estimated_rating(puzzle.empties, puzzle.tempting, puzzle.depth)
    assert all(grades.values()), grades  # every grade has puzzles
    assert len({p.board.obf() for p in shipped}) == len(shipped)


def test_every_shipped_puzzle_is_consistent(shipped: PuzzleSet) -> None:
    """Without a search: each stored analysis is a puzzle by the rule, and
    the solution line and each refutation, played to the end of the game,
    end with the disc difference stored for that move."""
    for puzzle in shipped:
        puzzle.check(shipped.header["margin"])


def test_a_sample_of_the_shipped_set_is_unique_by_the_solver(shipped: PuzzleSet) -> None:
    """Re-verified from scratch on a random sample: every legal move's
    position solved on its own by the exact solver (Engine.solve, not the
    analysis that made the puzzle) gives the stored score, and only the
    solution keeps the result."""
    engine = Engine(threads=1)
    sample = random.Random().sample(sorted(shipped, key=lambda p: p.id), 20)
    for puzzle in sample:
        scores = {}
        for move in puzzle.board.legal_moves:
            child = puzzle.board_after([move])
            if child.is_game_over():
                outcome = child.outcome()
                assert outcome is not None
                scores[str(move)] = outcome.margin * (1 if puzzle.board.turn is BLACK else -1)
                continue
            result = engine.solve(child)
            assert result.exact
            sign = -1 if child.turn is not puzzle.board.turn else 1
            scores[str(move)] = sign * int(result.score)
        assert scores == puzzle.scores, puzzle.id
        assert uniqueness_problem(scores, shipped.header["margin"]) is None


def test_verify_re_analyses(analyst: Analyst, shipped: PuzzleSet) -> None:
    puzzle = sorted(shipped, key=lambda p: p.id)[1]
    verify(puzzle, analyst)
    data = puzzle.to_dict()
    wrong = next(m for m in data["scores"] if m != data["solution"])
    data["scores"][wrong] -= 2  # still a puzzle by its own numbers, not by the solver's
    tampered = Puzzle.from_dict(data)
    with pytest.raises(PuzzleError, match="the solver scores"):
        verify(tampered, analyst)


# ---------------------------------------------------------------- the file format
def test_a_set_reads_back_as_written(tmp_path: Path, shipped: PuzzleSet) -> None:
    some = PuzzleSet(list(shipped)[:5], {"margin": 4})
    path = tmp_path / "p.jsonl"
    some.save(path)
    again = PuzzleSet.load(path)
    assert [p.to_dict() for p in again] == [p.to_dict() for p in some]
    assert again.header["margin"] == 4


def test_malformed_files_are_clear_errors(tmp_path: Path, shipped: PuzzleSet) -> None:
    header = json.dumps({"format": "outflank-puzzles", "version": 1})
    good = json.dumps(next(iter(shipped)).to_dict())
    bad_move = good.replace('"solution": "', '"solution": "z')
    cases = {
        "": "empty",
        "hello\n": "not a puzzle file",
        json.dumps({"format": "outflank-puzzles", "version": 9}): "version 9",
        f"{header}\n{{oops\n": ":2: not JSON",
        f"{header}\n[1, 2]\n": "a JSON object",
        f"{header}\n{good}\n{good}\n": "two puzzles with id",
        f"{header}\n{bad_move}\n": ":2:",
        f"{header}\n{json.dumps({**json.loads(good), 'id': 'deadbeef'})}\n": "does not match",
        f"{header}\n{json.dumps({**json.loads(good), 'line': 5})}\n": "line must be",
        f"{header}\n{json.dumps({**json.loads(good), 'depth': 'x'})}\n": "depth must be",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.jsonl"
        path.write_text(text)
        with pytest.raises(PuzzleError, match=message):
            PuzzleSet.load(path)


def test_check_finds_a_broken_puzzle(shipped: PuzzleSet) -> None:
    puzzle = next(iter(shipped))
    data = puzzle.to_dict()
    broken = {**data, "line": " ".join(data["line"].split()[:-1])}  # stops short
    with pytest.raises(PuzzleError, match=r"stops before the end|ends"):
        Puzzle.from_dict(broken).check()
    other = next(m for m in data["scores"] if m != data["solution"])
    swapped = {**data, "solution": other}
    with pytest.raises(PuzzleError):
        Puzzle.from_dict(swapped).check()


def test_an_unknown_id_is_a_clear_error(shipped: PuzzleSet) -> None:
    for bad in ("nope", "", None, 12):
        with pytest.raises(PuzzleError, match="no puzzle with id"):
            shipped.get(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- Glicko-2
def test_glicko2_worked_example() -> None:
    """Glickman's own example: 1500/200/0.06 against 1400/30 (won),
    1550/100 and 1700/300 (lost) -> 1464.06, 151.52, 0.05999."""
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(Rating(1500, 200, 0.06), games)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_without_games_only_widens() -> None:
    after = update(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600 and after.rd > 100


@settings(max_examples=60, deadline=None)
@given(st.floats(800, 2400), st.floats(MIN_RD, 350), st.floats(600, 2600))
def test_solving_raises_the_rating_failing_lowers_it(r: float, rd: float, p: float) -> None:
    me = Rating(r, rd)
    up, down = after_puzzle(me, p, True), after_puzzle(me, p, False)
    assert down.rating < r < up.rating
    assert MIN_RD <= up.rd <= 350 and MIN_RD <= down.rd <= 350
    # a harder puzzle is worth more when solved
    assert after_puzzle(me, p + 200, True).rating > up.rating
    assert 0 < expected(me, Rating(p)) < 1


# ---------------------------------------------------------------- a session
def test_answers_move_the_streak_and_rating(shipped: PuzzleSet) -> None:
    rng = random.Random(3)
    solver = Solver()
    first = next_puzzle(shipped, solver, rng)
    solver, verdict = answer(solver, first, str(first.solution))
    assert verdict.correct and verdict.refutation == [] and verdict.change > 0
    assert (solver.streak, solver.solved, solver.seen) == (1, 1, (first.id,))
    second = next_puzzle(shipped, solver, rng)
    assert second.id != first.id
    wrong = next(m for m in second.board.legal_moves if m != second.solution)
    solver, verdict = answer(solver, second, wrong)
    assert not verdict.correct and verdict.change < 0
    assert verdict.refutation == second.refutations[str(wrong)]
    assert verdict.score == second.scores[str(wrong)] < verdict.best
    assert (solver.streak, solver.best_streak, solver.failed) == (0, 1, 1)
    assert Solver.from_dict(json.loads(json.dumps(solver.to_dict()))) == solver
    assert skip(solver, first).seen == (second.id, first.id)


def test_a_bad_answer_changes_nothing(shipped: PuzzleSet) -> None:
    puzzle = next(iter(shipped))
    solver = Solver()
    occupied = next(sq for sq in range(64) if puzzle.board.piece_at(sq) is not None)
    for bad, error in ((Move(occupied), IllegalMoveError), ("pass", IllegalMoveError),
                       ("z9", InvalidMoveError), ("", InvalidMoveError),
                       (3, InvalidMoveError)):  # fmt: skip
        with pytest.raises(error):
            answer(solver, puzzle, bad)  # type: ignore[arg-type]
    assert solver == Solver()


def test_next_puzzle_is_near_the_rating(shipped: PuzzleSet) -> None:
    rng = random.Random(5)
    for rating in (900, 1300, 1700, 2100):
        picks = [next_puzzle(shipped, Solver(rating=Rating(rating)), rng) for _ in range(10)]
        nearest = min(abs(p.rating - rating) for p in shipped)
        assert all(abs(p.rating - rating) <= max(100, 2 * nearest) for p in picks)


def test_grades_follow_ratings() -> None:
    assert [grade_of(r) for r in (500, 1199, 1200, 1449, 1450, 1700, 1950, 2800)] == [
        1, 1, 2, 2, 3, 4, 5, 5,
    ]  # fmt: skip
    assert estimated_rating(60, 20, 40) == 2800 and estimated_rating(0, 0, 1) == 700
