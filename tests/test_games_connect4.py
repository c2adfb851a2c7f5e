"""Connect Four: tactics found by the search, bitboards checked against a naive grid."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outflank.errors import IllegalMoveError, InvalidMoveError, OutflankError
from outflank.games import ConnectFour, Game, Searcher, search


def position(moves: str, **size: int) -> ConnectFour:
    """A game after moves given as 1-based column digits, e.g. ``"4455"``."""
    game = ConnectFour(**size)
    for ch in moves:
        game.play_text(ch)
    return game


class Grid:
    """A deliberately plain Connect Four: a 2-D list of cells, runs found by walking."""

    def __init__(self, cols: int, rows: int, k: int) -> None:
        self.cols, self.rows, self.k = cols, rows, k
        self.cells: list[list[int | None]] = [[None] * rows for _ in range(cols)]
        self.heights = [0] * cols

    def drop(self, col: int, player: int) -> None:
        self.cells[col][self.heights[col]] = player
        self.heights[col] += 1

    def at(self, col: int, row: int) -> int | None:
        if 0 <= col < self.cols and 0 <= row < self.rows:
            return self.cells[col][row]
        return None

    def wins(self, player: int) -> bool:
        for c in range(self.cols):
            for r in range(self.rows):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    if all(self.at(c + i * dc, r + i * dr) == player for i in range(self.k)):
                        return True
        return False

    def threats(self, player: int) -> set[tuple[int, int]]:
        """Empty cells (playable or not) that would complete k in a row for ``player``."""
        found = set()
        for c in range(self.cols):
            for r in range(self.rows):
                if self.cells[c][r] is not None:
                    continue
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    run = 1
                    for sign in (1, -1):
                        i = 1
                        while self.at(c + sign * i * dc, r + sign * i * dr) == player:
                            run += 1
                            i += 1
                    if run >= self.k:
                        found.add((c, r))
        return found


def test_win_in_one() -> None:
    game = position("112233")  # X on 1,2,3 bottom; O above: X to move
    result = search(game, depth=4)
    assert game.format_move(result.best_move) == "4"
    assert result.outcome() == "win in 1" and result.proven() == 1


def test_block() -> None:
    game = position("17273")  # X threatens column 4 on the bottom row; O to move
    result = search(game, depth=4)
    assert game.format_move(result.best_move) == "4"
    scores = Searcher().analyze(game, depth=2)
    assert scores[0].move == 3
    assert all(ms.score < -1_000_000 for ms in scores[1:])  # every other move loses at once


def test_win_in_three_by_double_threat() -> None:
    game = position("3344")  # X on 3 and 4 bottom, O on top: X makes an open three
    for depth in (1, 2):  # no win within two plies
        assert search(game, depth=depth).proven() is None
    result = search(game, depth=5)
    assert result.outcome() == "win in 3"
    assert game.format_move(result.best_move) in ("2", "5")
    game.play(result.best_move)
    assert game.threats(0).bit_count() == 2


def test_start_position_depth_limited() -> None:
    game = ConnectFour()
    result = Searcher().search(game, depth=6)
    assert result.depth == 6 and not result.exact and result.proven() is None
    assert game.format_move(result.best_move) == "4"  # the centre
    assert len(result.pv) == 6
    assert game.ply == 0 and game.key() == 0


def test_small_board_is_solved() -> None:
    # 4 columns x 4 rows, 3 in a row: small enough to solve completely
    result = Searcher().search(ConnectFour(4, 4, 3))
    assert result.exact and result.proven() is not None


def test_render_and_errors() -> None:
    game = position("4")
    lines = game.render().splitlines()
    assert lines[5] == "| . . . X . . . |"
    assert lines[-1] == "  1 2 3 4 5 6 7"
    full = position("444444")
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        full.check_move(full.parse_move("4"))
    with pytest.raises(InvalidMoveError, match="1 to 7"):
        game.parse_move("8")
    with pytest.raises(OutflankError):
        ConnectFour(3, 3, 4)
    won = position("1212121")
    assert won.is_over() and won.winner() == 0 and won.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        won.check_move(2)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_bitboards_match_a_naive_grid(data: st.DataObject) -> None:
    cols = data.draw(st.integers(1, 7), label="cols")
    rows = data.draw(st.integers(1, 6), label="rows")
    k = data.draw(st.integers(2, max(2, max(rows, cols))), label="k")
    if k > max(rows, cols):
        return
    game = ConnectFour(cols, rows, k)
    grid = Grid(cols, rows, k)
    history = []
    while True:
        playable = [c for c in range(cols) if grid.heights[c] < rows]
        over = grid.wins(0) or grid.wins(1) or not playable
        assert game.is_over() == over
        winner = 0 if grid.wins(0) else 1 if grid.wins(1) else None
        assert game.winner() == winner
        assert sorted(game.legal_moves()) == ([] if over else playable)
        for player in (0, 1):
            threat_bits = game.threats(player)
            cells = {
                (c, r)
                for c in range(cols)
                for r in range(rows)
                if threat_bits >> (c * (rows + 1) + r) & 1
            }
            assert cells == grid.threats(player)
        for c in range(cols):
            for r in range(rows):
                assert game.cell(c, r) == grid.at(c, r)
        for player in (0, 1):  # the unrolled k=4 formula against the general one
            assert game.threats(player) == game._threats_any_k(game.bitboards[player]) & (
                game._board_mask & ~game._mask
            )
        fast = game.winning_move()  # bitboards, against the generic play/undo scan
        assert (fast is None) == (Game.winning_move(game) is None)
        if fast is not None:
            game.play(fast)
            assert game.winner() == 1 - game.turn
            game.undo()
        if over:
            break
        history.append((game.key(), game.render(), game.heuristic()))
        move = data.draw(st.sampled_from(playable))
        grid.drop(move, game.turn)
        game.play(move)
    while history:
        game.undo()
        assert (game.key(), game.render(), game.heuristic()) == history.pop()
    assert game.ply == 0 and game.bitboards == (0, 0)


@pytest.mark.parametrize("seed", range(4))
def test_ai_beats_a_random_player(seed: int) -> None:
    rng = random.Random(seed)
    game = ConnectFour()
    ai = seed % 2  # the AI moves first in half of the games
    searcher = Searcher()
    while not game.is_over():
        if game.turn == ai:
            game.play(searcher.search(game, depth=4).best_move)
        else:
            game.play(rng.choice(game.legal_moves()))
    assert game.winner() == ai
