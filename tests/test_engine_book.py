"""The engine with an opening book: book positions answered without a search,
the levels' variety among book moves, a search out of the book; and the
book shipped with the package."""

from __future__ import annotations

from pathlib import Path

import pytest

from outflank import Board
from outflank.book import Book
from outflank.book.build import Builder, start_build
from outflank.book.names import OPENINGS
from outflank.engine import LEVELS, Engine
from outflank.errors import OutflankError
from outflank.players import make_player


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Book:
    path = tmp_path_factory.mktemp("book") / "small.db"
    params = {"depth": 4, "window": 3.0, "plies": 6, "selective": 0.0}
    with start_build(path, params) as db:
        Builder(db).run()
        return Book.from_database(db)


def _deep() -> Board:
    board = Board()
    for _ in range(30):  # far beyond any book
        board.push(board.legal_moves[0])
    return board


def test_a_book_position_is_answered_without_searching(small: Book) -> None:
    engine = Engine(book=small, depth=12)
    board = Board.from_transcript("f5d6")
    entry = small.probe(board)
    assert entry is not None
    result = engine.search(board)
    assert result.book and result.nodes == 0
    assert result.best_move == entry.best.move and result.score == entry.value
    assert result.depth == entry.depth == 4
    assert result.pv[0] == entry.best.move and len(result.pv) >= 2
    scores = engine.analyze(board)
    assert [(s.move, s.score) for s in scores] == [(m.move, m.value) for m in entry.moves]
    assert all(s.book and s.depth == 4 for s in scores)


def test_out_of_the_book_the_engine_searches(small: Book) -> None:
    engine = Engine(book=small, depth=3)
    result = engine.search(_deep())
    assert not result.book and result.nodes > 0 and result.depth == 3
    assert not any(s.book for s in engine.analyze(_deep()))


def test_without_a_book_the_start_is_searched() -> None:
    result = Engine(depth=2).search(Board())
    assert not result.book and result.nodes > 0


def test_choose_move_varies_within_the_tolerance(small: Book) -> None:
    board = Board.from_transcript("f5")
    entry = small.probe(board)
    assert entry is not None and len(entry.moves) == 3
    best = Engine(book=small, book_tolerance=0, seed=1)
    assert {best.choose_move(board) for _ in range(20)} == {entry.best.move}
    wide = Engine(book=small, book_tolerance=64, seed=1)
    picked = [wide.choose_move(board) for _ in range(60)]
    assert set(picked) == {m.move for m in entry.moves}  # every move, once in a while
    again = Engine(book=small, book_tolerance=64, seed=1)
    assert [again.choose_move(board) for _ in range(60)] == picked  # seeded: reproducible
    two = Engine(book=small, book_tolerance=entry.moves[1].value - entry.moves[2].value - 0.01)
    # a tolerance between the values keeps the moves above it only
    allowed = {m.move for m in entry.within(two.book_tolerance)}
    assert {two.choose_move(board) for _ in range(30)} <= allowed


def test_book_setting_values_and_errors(small: Book, tmp_path: Path) -> None:
    path = tmp_path / "s.book"
    small.save(path)
    assert Engine(book=str(path)).book is not None
    assert Engine(book=path).search(Board()).book
    assert Engine(book=False).book is None
    engine = Engine(book=small)
    engine.configure(book=None)
    assert engine.book is None
    with pytest.raises(OutflankError, match="book must be"):
        Engine(book=3.5)
    with pytest.raises(OutflankError, match="cannot read book"):
        Engine(book=tmp_path / "missing.book")
    with pytest.raises(OutflankError, match="book_tolerance"):
        Engine(book=small, book_tolerance=-1)


def test_reversi_boards_do_not_use_the_book(small: Book) -> None:
    board = Board(rules="reversi")
    assert not Engine(book=small, depth=2).search(board).book


def test_levels_play_from_the_shipped_book() -> None:
    assert all(LEVELS[n].get("book") for n in range(6, 21))
    tolerances = [LEVELS[n]["book_tolerance"] for n in range(6, 21)]
    assert tolerances == sorted(tolerances, reverse=True)  # wider at lower levels
    engine = Engine.level(18)
    result = engine.search(Board())
    assert result.book and result.nodes == 0
    player = make_player("level:18")
    move = player.choose_move(Board())
    assert str(move) in ("f5", "d6", "c4", "e3", "d3", "e6")
    assert player.last_eval is not None and player.last_time is not None
    assert player.last_time < 0.5  # no search
    weak = Engine.level(3)
    assert weak.book is None


def test_games_from_the_book_vary_at_a_low_level() -> None:
    lines = set()
    for seed in range(12):
        engine = Engine.level(8, seed=seed)
        board = Board()
        for _ in range(6):
            board.push(engine.choose_move(board))
        lines.add(board.transcript())
    assert len(lines) >= 4


# ---------------------------------------------------------------- the shipped book
def test_shipped_book_loads_and_is_small() -> None:
    book = Book.default()
    assert Book.default() is book  # loaded once
    assert len(book) >= 300
    from outflank.book.store import DEFAULT_PATH

    assert DEFAULT_PATH.stat().st_size <= 8 * 1024 * 1024


def test_shipped_book_covers_the_start_and_every_named_line() -> None:
    book = Book.default()
    assert book.probe(Board()) is not None
    for name, moves in OPENINGS:
        board = Board()
        for move in Board.from_transcript(moves).move_stack:
            board.push(move)
            assert board in book, f"{name}: {board.transcript()} is not in the book"


def test_every_shipped_book_move_is_legal() -> None:
    book = Book.default()
    for board in book.boards():
        entry = book.probe(board)
        assert entry is not None and entry.moves
        assert {m.move for m in entry.moves} == set(board.legal_moves)
        assert entry.value == max(m.value for m in entry.moves)
