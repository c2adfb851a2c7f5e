"""Tic-Tac-Toe and m,n,k-games: solved values, the AI never loses, MNK(3,3,3) == TicTacToe."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank.errors import IllegalMoveError, InvalidMoveError, OutflankError
from outflank.games import MNK, Game, Searcher, TicTacToe, solve
from outflank.games.search import describe_score

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def naive_winner(cells: tuple[str, ...]) -> str | None:
    for a, b, c in LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


@cache
def oracle(cells: tuple[str, ...], mover: str) -> int:
    """Plain minimax on a 9-character grid: +1/0/-1 for the side to move."""
    winner = naive_winner(cells)
    if winner is not None:
        return 1 if winner == mover else -1
    if "." not in cells:
        return 0
    other = "O" if mover == "X" else "X"
    best = -2
    for i, cell in enumerate(cells):
        if cell == ".":
            child = (*cells[:i], mover, *cells[i + 1 :])
            best = max(best, -oracle(child, other))
    return best


def grid(game: MNK) -> tuple[str, ...]:
    return tuple("." if game.cell(i) is None else game.symbols[game.cell(i)] for i in range(9))


def reachable(game: MNK, seen: dict | None = None) -> dict:
    """Every reachable unfinished position: key -> the move sequence reaching it."""
    seen = {} if seen is None else seen
    if game.is_over() or game.key() in seen:
        return seen
    seen[game.key()] = [m for m, _ in game._stack]
    for move in game.legal_moves():
        game.play(move)
        reachable(game, seen)
        game.undo()
    return seen


def replay(game: MNK, moves: list[int]) -> MNK:
    for move in moves:
        game.play(move)
    return game


def test_perfect_play_is_a_draw() -> None:
    result = solve(TicTacToe())
    assert result.exact
    assert result.score == 0
    assert result.outcome() == "draw"
    assert result.proven() == 0
    assert len(result.pv) == 9  # a drawn game fills the board
    game = TicTacToe()
    for move in result.pv:
        game.check_move(move)
        game.play(move)
    assert game.is_over() and game.winner() is None


def test_every_reachable_position_matches_plain_minimax() -> None:
    positions = reachable(TicTacToe())
    assert len(positions) == 4520  # 5478 legal positions minus the 958 finished ones
    searcher = Searcher()
    for moves in positions.values():
        game = replay(TicTacToe(), moves)
        result = searcher.search(game)
        expected = oracle(grid(game), game.symbols[game.turn])
        assert result.exact and result.proven() == expected, moves
        # the chosen move keeps that value
        game.play(result.best_move)
        assert -oracle(grid(game), game.symbols[game.turn]) == expected


def test_a_shared_searcher_never_calls_a_slow_win_exact() -> None:
    """After a full solve, a depth-limited search with the same searcher met
    the solve's table entries: a win in 5 from them was labelled exact
    (and played) where a win in 3 exists beyond the depth."""
    game = TicTacToe()
    for text in ("6", "4"):
        game.play_text(text)
    searcher = Searcher()
    searcher.search(game)
    for text in ("7", "1"):
        game.play_text(text)
    assert Searcher().search(game).outcome() == "win in 3"
    for depth in range(1, 6):
        result = searcher.search(game, depth=depth)
        if result.exact:
            assert result.outcome() == "win in 3", depth
    for moves in reachable(TicTacToe()).values():  # every position, the same way
        if len(moves) != 4:
            continue
        game, searcher = replay(TicTacToe(), moves[:2]), Searcher()
        searcher.search(game)
        game = replay(TicTacToe(), moves)
        truth = Searcher().search(game).score
        for depth in (1, 2, 3):
            result = searcher.search(game, depth=depth)
            assert not result.exact or result.score == truth, (moves, depth)


@pytest.mark.parametrize("ai", [0, 1])
def test_ai_never_loses_against_any_replies(ai: int) -> None:
    searcher = Searcher()
    game = TicTacToe()
    finished = {"ai": 0, "draw": 0}

    def explore() -> None:
        if game.is_over():
            winner = game.winner()
            assert winner != 1 - ai, f"AI lost after {[m for m, _ in game._stack]}"
            finished["draw" if winner is None else "ai"] += 1
            return
        # the AI's choice, or every reply a person could make
        moves = [searcher.search(game).best_move] if game.turn == ai else game.legal_moves()
        for move in moves:
            game.play(move)
            explore()
            game.undo()

    explore()
    assert finished["ai"] > 0 and finished["draw"] > 0


def test_mnk_333_equals_tictactoe() -> None:
    positions = reachable(TicTacToe())
    mnk_searcher, ttt_searcher = Searcher(), Searcher()
    for moves in list(positions.values())[::7]:
        ttt = replay(TicTacToe(), moves)
        mnk = replay(MNK(3, 3, 3), moves)
        assert ttt.key() == mnk.key()
        assert ttt.legal_moves() == mnk.legal_moves()
        assert ttt.heuristic() == mnk.heuristic()
        a, b = ttt_searcher.analyze(ttt), mnk_searcher.analyze(mnk)
        assert [(m.move, m.score) for m in a] == [(m.move, m.score) for m in b]
        assert ttt_searcher.search(ttt).best_move == mnk_searcher.search(mnk).best_move


def test_ai_takes_a_win_and_blocks() -> None:
    game = replay(TicTacToe(), [0, 4, 1])  # X on 1 and 2, O on 5: O must block 3
    result = solve(game)
    assert result.best_move == 2
    game = replay(TicTacToe(), [0, 4, 1, 8])  # X to move wins on 3
    result = solve(game)
    assert result.best_move == 2 and result.outcome() == "win in 1"


def test_heuristic_counts_open_windows_by_fullness() -> None:
    game = TicTacToe()
    assert game.heuristic() == 0
    game.play(4)  # X centre: in 4 open windows with 1 stone each; O to move sees -4
    assert game.heuristic() == -4
    game.play(0)  # X to move: X alone in 3-4-5, 1-4-7, 2-4-6; O alone in 0-1-2, 0-3-6
    assert game.heuristic() == 3 - 2
    game.play(1)  # O to move: X's 1-4-7 holds 2 stones and is open -> weighs 10
    assert game.heuristic() == -(1 + 10 + 1) + 1
    game.play(7)  # X to move: X alone in 3-4-5, 2-4-6; O alone in 6-7-8, 0-3-6
    assert game.heuristic() == 0


def test_seed_layout_and_parsing() -> None:
    game = TicTacToe()
    assert game.render() == "| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n| 7 | 8 | 9 |"
    game.play(game.parse_move("5"))
    assert game.render().splitlines()[1] == "| 4 | X | 6 |"
    with pytest.raises(IllegalMoveError, match="already taken by X"):
        game.check_move(game.parse_move(" 5 "))
    with pytest.raises(InvalidMoveError, match="1 to 9"):
        game.parse_move("10")
    with pytest.raises(InvalidMoveError, match="not a cell"):
        game.parse_move("e4")
    big = MNK(7, 6, 4)
    assert big.render().splitlines()[0] == "|  1 |  2 |  3 |  4 |  5 |  6 |"
    assert big.render().splitlines()[-1].endswith("| 42 |")


@pytest.mark.parametrize(("rows", "cols", "k"), [(0, 3, 3), (3, 3, 4), (2, 2, 0)])
def test_bad_sizes_are_refused(rows: int, cols: int, k: int) -> None:
    with pytest.raises(OutflankError):
        MNK(rows, cols, k)


def test_mnk_known_values() -> None:
    # 3x3 with 2 in a row: the first player wins at once on the second move
    assert solve(MNK(3, 3, 2)).outcome() == "win in 3"
    # 4x4 with k=4 is a draw; a 4x3 board with k=3 is a first-player win
    assert solve(MNK(3, 4, 3)).proven() == 1
    assert describe_score(solve(MNK(1, 2, 2)).score, True) == "draw"


def test_seed_board_7x6_k4_plays_quickly() -> None:
    game = MNK(7, 6, 4)
    result = Searcher().search(game, depth=3)
    assert result.depth == 3 and not result.exact
    assert result.best_move in game.legal_moves()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_play_undo_round_trip(data: st.DataObject) -> None:
    rows = data.draw(st.integers(1, 5))
    cols = data.draw(st.integers(1, 5))
    k = data.draw(st.integers(1, max(rows, cols)))
    game = MNK(rows, cols, k)
    snapshots = []
    while not game.is_over():
        snapshots.append((game.key(), game.render(), game.turn, game.legal_moves()))
        fast = game.winning_move()  # windows, against the generic play/undo scan
        assert (fast is None) == (Game.winning_move(game) is None)
        if fast is not None:
            game.play(fast)
            assert game.winner() == 1 - game.turn
            game.undo()
        game.play(data.draw(st.sampled_from(game.legal_moves())))
    copy = game.copy()
    while snapshots:
        game.undo()
        assert (game.key(), game.render(), game.turn, game.legal_moves()) == snapshots.pop()
        assert game.winner() is None
    assert game.ply == 0 and copy.is_over()


def test_a_solve_from_the_table_reports_its_line_to_the_end() -> None:
    """A proven draw answered from the table said "depth 1": the deepest ply
    that search visited, not how far the answer looks."""
    searcher = Searcher()
    searcher.search(TicTacToe())
    game = TicTacToe()
    game.play_text("5")
    result = searcher.search(game)
    assert result.outcome() == "draw" and result.depth == 8 == len(result.pv)
