"""The generic search: limits, errors, results, and the Othello adapter."""

from __future__ import annotations

import importlib.util
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from outflank.board import Board, Move
from outflank.errors import OutflankError, SearchLimitError
from outflank.games import (
    MNK,
    ConnectFour,
    OthelloGame,
    Searcher,
    TicTacToe,
    recommend,
    search,
)
from outflank.games.othello import POSITIONAL_WEIGHTS, positional_score
from outflank.games.search import WIN, describe_score


def test_result_fields_and_info_stream() -> None:
    infos = []
    result = Searcher().search(ConnectFour(), depth=5, on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert infos[-1].score == result.score and infos[-1].pv == result.pv
    assert result.nodes == infos[-1].nodes > 0
    assert result.elapsed > 0 and result.nps > 0
    assert result.depth == 5 and len(result.pv) == 5 and result.pv[0] == result.best_move


def test_limits_and_bad_limits() -> None:
    game = ConnectFour()
    result = Searcher().search(game, time=0.05)
    assert result.depth >= 1 and game.ply == 0 and game.key() == 0
    capped = Searcher().search(game, nodes=3000)
    assert capped.depth >= 1 and capped.depth < 20
    for kwargs in ({"depth": 0}, {"time": 0}, {"time": -1.0}, {"nodes": 0}):
        with pytest.raises(SearchLimitError):
            Searcher().search(game, **kwargs)
    with pytest.raises(SearchLimitError):
        Searcher(tt_entries=0)


def test_finished_game_cannot_be_searched() -> None:
    game = TicTacToe()
    for move in (0, 3, 1, 4, 2):
        game.play(move)
    assert game.is_over() and game.result_text() == "X wins"
    with pytest.raises(OutflankError, match="game is over"):
        search(game)


def test_tiny_transposition_table_gives_the_same_values() -> None:
    game = ConnectFour()
    big = Searcher().search(game, depth=7)
    small = Searcher(tt_entries=50).search(game, depth=7)
    assert (big.score, big.best_move) == (small.score, small.best_move)


def test_recommend_uses_the_game_default_depth() -> None:
    result = recommend(ConnectFour(5, 4, 4), depth=3)
    assert result.depth <= 3
    assert recommend(TicTacToe()).exact


def test_describe_score() -> None:
    assert describe_score(WIN + 1000 - 3) == "win in 3"
    assert describe_score(-(WIN + 1000 - 4)) == "loss in 4"
    assert describe_score(WIN + 5 * 1000 - 60, True) == "win in 60"
    assert describe_score(0, True) == "draw"
    assert describe_score(12) == "+12"


# ----------------------------------------------------------------- Othello


def plain_minimax(board: Board, depth: int) -> int:
    """Reference: full-width minimax on Board with seed 002 weights (no pruning, no table)."""
    assert not board.is_game_over(), "the test positions end no game within the depth"
    if depth == 0:
        return positional_score(board)
    best = -(10**18)
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -plain_minimax(board, depth - 1))
        board.pop()
    return best


POSITIONS = [
    "",
    "f5",
    "f5d6c3d3c4",
    "f5f6e6f4e3c5c4",
    "c4c3d3c5b4d2e2",
]


@pytest.mark.parametrize("transcript", POSITIONS)
def test_othello_adapter_agrees_with_plain_minimax(transcript: str) -> None:
    board = Board.from_transcript(transcript)
    game = OthelloGame(board)
    searcher = Searcher()
    for depth in (1, 2, 3):
        result = searcher.search(game, depth=depth)
        assert result.depth == depth
        assert result.score == plain_minimax(board, depth), (transcript, depth)
        board.push(result.best_move)  # the chosen move has that value
        assert -plain_minimax(board, depth - 1) == result.score
        board.pop()
    assert board.transcript() == Board.from_transcript(transcript).transcript()


@pytest.mark.skipif(importlib.util.find_spec("outflank.classic") is None, reason="no classic")
def test_othello_adapter_agrees_with_classic_alphabeta() -> None:
    from outflank.classic import alphabeta

    for transcript in POSITIONS:
        board = Board.from_transcript(transcript)
        for depth in (1, 2, 3):
            trace = alphabeta(board.copy(), depth)
            result = search(OthelloGame(board), depth=depth)
            assert result.score == trace.value, (transcript, depth)


def clean_horizon(board: Board, depth: int) -> bool:
    """No pass and no finished game within ``depth`` plies (where engines may differ)."""
    if board.is_game_over() or board.must_pass():
        return False
    if depth == 0:
        return True
    for move in board.legal_moves:
        board.push(move)
        clean = clean_horizon(board, depth - 1)
        board.pop()
        if not clean:
            return False
    return True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 40), depth=st.integers(1, 3))
def test_othello_adapter_agrees_with_the_engine(seed: int, plies: int, depth: int) -> None:
    from outflank import engine

    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        moves = [m for m in board.legal_moves if not m.is_pass]
        if not moves:
            break
        board.push(rng.choice(moves))
    assume(board.empties > depth + 10 and clean_horizon(board, depth))
    expected = engine.Engine(evaluator="weights", tt_mb=1).search(board, depth=depth)
    result = Searcher().search(OthelloGame(board), depth=depth)
    assert result.score == expected.score
    assert result.score == plain_minimax(board, depth)


def test_othello_adapter_plays_passes_and_ends() -> None:
    # white (O) to move has no move but black has: a forced pass, played and taken back
    game = OthelloGame(Board.from_obf("X" * 61 + "-OX O"))
    assert game.legal_moves() == [Move(None)] and not game.is_over()
    game.play(Move(None))
    assert game.turn == 0 and game.legal_moves() == [Move(61)]
    game.undo()
    assert game.turn == 1
    finished = OthelloGame(Board.from_obf("X" * 64 + " O"))
    assert finished.is_over() and finished.winner() == 0 and finished.utility() == -64
    exact = search(OthelloGame(Board.from_obf("X" * 61 + "-OX X")))
    assert exact.exact and exact.best_move == Move(61)
    assert exact.score == WIN + 64 * 1000 - 1  # a 64-0 win, one ply away
    assert exact.describe() == "win in 1"


def test_othello_notation() -> None:
    game = OthelloGame()
    assert game.format_move(game.parse_move("F5")) == "f5"
    with pytest.raises(OutflankError):
        game.parse_move("z9")
    with pytest.raises(OutflankError, match="not legal"):
        game.check_move(game.parse_move("a1"))
    assert len(POSITIONAL_WEIGHTS) == 64 and positional_score(Board()) == 0
    copy = game.copy()
    copy.play(copy.parse_move("f5"))
    assert game.ply == 0 and copy.ply == 1


def test_a_time_limited_search_reports_all_the_work_it_did() -> None:
    """The abandoned deeper depth's time and nodes count too: a search cut by
    its limit after 0.3 s once reported the 0.01 s of its last finished depth."""
    import time

    game = MNK(20, 20, 5)  # depth 3 takes far longer than 0.3 s
    started = time.perf_counter()
    result = Searcher().search(game, time=0.3)
    wall = time.perf_counter() - started
    assert result.elapsed >= 0.9 * wall and result.nodes > 0


def test_a_searcher_moved_to_another_game_forgets_the_old_one() -> None:
    """The table keys are positions of one game: a 4x4 Connect Four's empty
    board has the same key as Tic-Tac-Toe's, and the searcher answered
    "win in 9" for Tic-Tac-Toe from it."""
    searcher = Searcher()
    assert searcher.search(ConnectFour(4, 4, 3)).outcome() == "win in 9"
    assert searcher.search(TicTacToe()).outcome() == "draw"


@pytest.mark.parametrize(
    "limits",
    [{"depth": 1.5}, {"depth": "3"}, {"depth": True}, {"nodes": float("nan")},
     {"nodes": 2.5}, {"time": True}, {"time": "1"}],
)  # fmt: skip
def test_limits_must_be_numbers_of_the_right_kind(limits: dict) -> None:
    """A fractional depth used to run as an unlimited solve (it never met
    depth == 1), a NaN node limit was ignored."""
    with pytest.raises(SearchLimitError):
        Searcher().search(TicTacToe(), **limits)
    if "depth" in limits:
        with pytest.raises(SearchLimitError):
            Searcher().analyze(TicTacToe(), limits["depth"])
    with pytest.raises(SearchLimitError):
        Searcher(tt_entries=1.5)  # type: ignore[arg-type]
