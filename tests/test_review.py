"""outflank.review: every value marked exact is the solver's, labels follow
the documented thresholds, lines are legal, bad input changes nothing."""

from __future__ import annotations

import json
import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from outflank import BLACK, WHITE, Board, Engine, Move
from outflank.errors import InvalidBoardError
from outflank.ggf import GameRecord
from outflank.review import (
    ACCURACY_HALF_LOSS,
    THRESHOLDS,
    GameReview,
    Label,
    MoveReview,
    Reviewer,
    ReviewError,
    ReviewSettings,
    Source,
    Thresholds,
    game_board,
    move_accuracy,
    review_game,
)

#: Small searches: the tests check what the values mean, not how deep they go.
FAST = ReviewSettings(depth=3, exact=12, exact_time=0.0, move_time=5.0)


def random_game(seed: int, plies: int = 60, start: Board | None = None, **kw: str) -> Board:
    """A game of random legal moves (passes where forced)."""
    rng = random.Random(seed)
    board = start.copy() if start is not None else Board(**kw)  # type: ignore[arg-type]
    while not board.is_game_over() and len(board.move_stack) < plies:
        if board.must_pass():
            board.push("pass")
        else:
            board.push(rng.choice(board.legal_moves))
    return board


@pytest.fixture(scope="module")
def solver() -> Engine:
    """The oracle: an engine that solves every position it is given exactly."""
    return Engine(endgame=64, threads=1)


def exact_scores(solver: Engine, board: Board) -> dict[Move, float]:
    """Every legal move's exact score by a full analysis."""
    scores = solver.analyze(board, depth=60)
    assert all(s.exact for s in scores)
    return {s.move: s.score for s in scores}


def solved(solver: Engine, board: Board) -> float:
    """The exact value of a position from its side to move's view."""
    if board.is_game_over():
        margin = board.outcome().margin  # type: ignore[union-attr]
        return float(margin if board.turn is BLACK else -margin)
    result = solver.solve(board)
    assert result.exact
    return result.score


def after(board: Board, move: Move) -> Board:
    board = board.copy()
    board.push(move)
    return board


def check_exact_values(review: GameReview, solver: Engine) -> int:
    """Every value marked exact equals the solver's; returns how many were checked."""
    checked = 0
    for m in review.moves:
        board = review.board(m.ply)
        if m.best_exact:
            assert m.best_value == solved(solver, board), m
            assert -solved(solver, after(board, m.best_move)) == m.best_value, m
            checked += 1
        if m.exact:
            assert m.value == -solved(solver, after(board, m.move)), m
            checked += 1
    return checked


# ---------------------------------------------------------------- exactness
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_every_exact_value_is_the_solvers(seed: int, solver: Engine) -> None:
    review = review_game(random_game(seed), FAST, threads=1)
    assert review.complete
    assert check_exact_values(review, solver) > 0
    # within `exact` empties everything is exact
    for m in review.moves:
        if m.empties <= FAST.exact:
            assert m.exact and m.best_exact and m.source is Source.EXACT


def test_the_exact_budget_solves_further_back(solver: Engine) -> None:
    board = random_game(7)
    plain = review_game(board, FAST, threads=1)
    wider = review_game(board, ReviewSettings(depth=3, exact=12, exact_time=1.0), threads=1)
    first_plain = min(m.empties for m in plain.moves if not m.best_exact)
    assert first_plain > 12
    assert any(m.best_exact and m.empties > 12 for m in wider.moves)
    check_exact_values(wider, solver)


# ---------------------------------------------------------------- labels
@pytest.mark.parametrize(
    ("loss", "label"),
    [
        (0.0, Label.BEST),
        (0.99, Label.BEST),
        (1.0, Label.GOOD),
        (2.0, Label.GOOD),
        (3.0, Label.INACCURACY),
        (4.0, Label.INACCURACY),
        (6.0, Label.MISTAKE),
        (10.0, Label.MISTAKE),
        (12.0, Label.BLUNDER),
        (64.0, Label.BLUNDER),
    ],
)
def test_thresholds(loss: float, label: Label) -> None:
    assert THRESHOLDS.label(loss) is label


def test_accuracy_halves_every_half_loss() -> None:
    assert move_accuracy(0) == 100
    assert move_accuracy(ACCURACY_HALF_LOSS) == pytest.approx(50)
    assert move_accuracy(2 * ACCURACY_HALF_LOSS) == pytest.approx(25)
    assert move_accuracy(-3) == 100  # never above 100


def test_labels_losses_and_lines_agree() -> None:
    board = random_game(11)
    review = review_game(board, FAST, threads=1)
    judged = [i for i, m in enumerate(board.move_stack) if not m.is_pass]
    assert [m.ply for m in review.moves] == judged  # one per move, passes left out
    for m in review.moves:
        position = review.board(m.ply)
        assert m.move == board.move_stack[m.ply]
        assert m.color is position.turn and m.empties == position.empties
        assert m.loss == pytest.approx(max(0.0, m.best_value - m.value))
        if m.label is not Label.BOOK:  # a book move within an inaccuracy is "book"
            assert THRESHOLDS.label(m.loss).severity <= m.label.severity
        assert (m.label is Label.BOOK) <= (m.book and m.source is Source.BOOK)
        assert m.forced == (len(position.legal_moves) == 1)
        if m.loss == 0:
            assert m.best_move == m.move and m.better is None
        else:
            assert m.better == m.best_move != m.move
        # the best line starts with the best move and is legal; so is the reply
        assert m.pv[0] == m.best_move
        line = position.copy()
        for move in m.pv:
            line.push(move)
        after = review.board(m.ply + 1)
        for move in m.reply:
            after.push(move)
        assert m.black_value == (m.value if m.color is BLACK else -m.value)


def test_a_blunder_is_found_with_its_better_line(solver: Engine) -> None:
    # find, in random games, a move that loses 12 discs or more within 12 empties
    for seed in range(200):
        board = random_game(seed)
        replay = Board()
        for ply, move in enumerate(board.move_stack):
            if 4 <= replay.empties <= 12 and not move.is_pass:
                scores = exact_scores(solver, replay)
                if max(scores.values()) - scores[move] >= 12:
                    review = review_game(board, FAST, threads=1)
                    m = review.move(ply)
                    assert m is not None and m.label is Label.BLUNDER and m.is_mistake
                    assert m.value == scores[move] and m.best_value == max(scores.values())
                    assert scores[m.better] == m.best_value
                    assert m in review.mistakes
                    return
            replay.push(move)
    pytest.fail("no blunder in 200 random games")


def test_a_thrown_result_is_a_mistake_at_least() -> None:
    review = review_game(random_game(3), FAST, threads=1)
    for m in review.moves:
        if m.exact and m.best_exact and m.best_value > 0 >= m.value:
            assert m.label.severity >= Label.MISTAKE.severity
            assert m.turning_point == (m.loss >= 3)


def test_custom_thresholds_relabel() -> None:
    strict = Reviewer(FAST, threads=1, thresholds=Thresholds(0.5, 1, 2, 4))
    review = strict.review(random_game(5))
    for m in review.moves:
        assert m.label.severity >= THRESHOLDS.label(m.loss).severity


def test_book_moves_are_marked() -> None:
    review = review_game("f5d6c3d3c4f4c5b3c2", FAST, threads=1)
    assert all(m.source is Source.BOOK for m in review.moves)
    assert all(m.book and m.label is Label.BOOK for m in review.moves)
    assert all(m.depth > 0 and not m.exact for m in review.moves)
    no_book = review_game("f5d6c3d3c4f4c5b3c2", ReviewSettings(depth=3, book=False), threads=1)
    assert all(m.source is Source.SEARCH and not m.book for m in no_book.moves)


def test_summary_and_turning_points() -> None:
    review = review_game(random_game(21), FAST, threads=1)
    for color in (BLACK, WHITE):
        summary = review.summary(color)
        mine = [m for m in review.moves if m.color is color]
        judged = [m for m in mine if not m.forced]
        assert summary.moves == len(judged)
        assert sum(summary.counts.values()) == len(mine)
        mean_loss = sum(m.loss for m in judged) / len(judged)
        assert summary.mean_loss == pytest.approx(mean_loss, abs=0.01)
        accuracy = sum(move_accuracy(m.loss) for m in judged) / len(judged)
        assert summary.accuracy == pytest.approx(accuracy, abs=0.05)
        assert 0 <= summary.accuracy <= 100
    for m in review.turning_points:
        assert m.loss >= 3
        assert (m.value < 1 <= m.best_value) or (m.value <= -1 < m.best_value)


# ---------------------------------------------------------------- games of every kind
def test_inputs_of_every_kind_give_the_same_review() -> None:
    board = random_game(2, plies=40)
    transcript = board.transcript()
    record = GameRecord.from_board(board)
    reviewer = Reviewer(FAST, threads=1)
    reviews = [
        reviewer.review(board),
        reviewer.review(transcript),
        reviewer.review(record),
        reviewer.review(record.to_ggf()),
    ]
    values = [[(m.ply, m.move, m.best_exact) for m in r.moves] for r in reviews]
    assert all(v == values[0] for v in values)
    assert board.move_stack == list(reviews[0].game_moves)  # the board is not changed


def test_an_unfinished_game_and_another_start() -> None:
    start = random_game(9, plies=30).copy(stack=False)
    board = random_game(4, plies=20, start=start)
    assert not board.is_game_over()
    text = start.obf() + " " + " ".join(map(str, board.move_stack))
    review = review_game(text, FAST, threads=1)
    assert review.start == start and review.complete
    assert len(review.moves) == sum(not m.is_pass for m in board.move_stack)


def test_reversi_rules() -> None:
    board = random_game(12, rules="reversi")
    review = review_game(board, FAST, threads=1)
    assert review.start.rules.value == "reversi" and review.complete


@pytest.mark.parametrize("game", [Board(), "", "start", "  "])
def test_a_game_without_moves_is_refused(game: object) -> None:
    with pytest.raises(ReviewError, match="no moves"):
        review_game(game, FAST, threads=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("game", "error"),
    [
        ("f5f5", InvalidBoardError),
        ("f5z9", InvalidBoardError),
        ("(;GM[Othello]B[f5]W[d6", InvalidBoardError),
        ("(;GM[Othello]B[a1];)", InvalidBoardError),
        ("(;GM[Chess]B[f5];)", InvalidBoardError),
        (42, ReviewError),
    ],
)
def test_bad_games_are_refused(game: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        review_game(game, FAST, threads=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [
        {"depth": 0},
        {"depth": 2.5},
        {"depth": True},
        {"exact": 31},
        {"exact_time": -1},
        {"move_time": 0},
        {"selective": "x"},
        {"book": "yes"},
    ],
)
def test_bad_settings_are_refused(bad: dict) -> None:
    with pytest.raises(ReviewError):
        ReviewSettings(**bad)


# ---------------------------------------------------------------- progress, stop, storage
def test_progress_reports_each_move_once() -> None:
    seen: list[tuple[int, int, int]] = []
    review = review_game(
        random_game(13), FAST, threads=1, on_move=lambda m, d, n: seen.append((m.ply, d, n))
    )
    assert sorted(p for p, _, _ in seen) == [m.ply for m in review.moves]
    assert [d for _, d, _ in seen] == list(range(1, len(review.moves) + 1))
    assert {n for _, _, n in seen} == {len(review.moves)}


def test_stop_from_a_callback_returns_a_partial_review() -> None:
    reviewer = Reviewer(FAST, threads=1)
    count = 0

    def on_move(m: MoveReview, done: int, total: int) -> None:
        nonlocal count
        count += 1
        if done == 5:
            reviewer.stop()

    review = reviewer.review(random_game(14), on_move)
    assert not review.complete and len(review.moves) == count == 5
    again = reviewer.review(random_game(14))  # a new review starts afresh
    assert again.complete


def test_stop_from_another_thread_ends_a_deep_search() -> None:
    # no exact part, a search far too deep: only stop() can end it
    deep = ReviewSettings(depth=40, selective=0, move_time=600, exact=0, book=False)
    reviewer = Reviewer(deep, threads=1)
    box: list[GameReview] = []
    thread = threading.Thread(
        target=lambda: box.append(reviewer.review("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1"))
    )
    thread.start()
    for _ in range(120):  # stop until it has stopped (a stop before it began is forgotten)
        reviewer.stop()
        thread.join(0.5)
        if not thread.is_alive():
            break
    assert not thread.is_alive()
    assert not box[0].complete and not box[0].moves


def test_round_trip_through_json() -> None:
    review = review_game(random_game(15), FAST, threads=1)
    data = json.loads(json.dumps(review.to_dict()))
    again = GameReview.from_dict(data)
    assert again.moves == review.moves and again.start == review.start
    assert again.to_dict() == data
    assert data["summary"]["black"]["accuracy"] == review.summary(BLACK).accuracy
    assert data["turning_points"] == [m.ply for m in review.turning_points]
    assert data["exact_from"] == review.exact_from


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"format": 99},
        {"format": 1, "start": "nonsense", "game_moves": [], "moves": []},
        {"format": 1, "start": Board().obf(), "game_moves": ["z9"], "moves": []},
        {"format": 1, "start": Board().obf(), "game_moves": [], "moves": [{"ply": 0}]},
        {"format": 1, "start": Board().obf(), "game_moves": [], "moves": [], "settings": {"x": 1}},
    ],
)
def test_a_broken_stored_review_is_refused(data: object) -> None:
    with pytest.raises(ReviewError):
        GameReview.from_dict(data)  # type: ignore[arg-type]


def test_game_board_copies() -> None:
    board = Board.from_transcript("f5d6c3")
    copy = game_board(board)
    copy.push("d3")
    assert len(board.move_stack) == 3
