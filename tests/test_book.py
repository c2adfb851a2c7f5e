"""The opening book: symmetry classes, negamax back-up, probes, the file
format, merging, and the builder (resumable after kill -9, the same book
from any number of workers)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import INTERRUPTIONS, assert_clean_interrupt, cli_env, interrupt_command
from outflank import Board
from outflank.book import Book, BookError, merge
from outflank.book.build import BuildDB, Builder, start_build
from outflank.book.store import RawRecord, child_key
from outflank.book.symmetry import canonical, inverse, transform, transform_square
from outflank.errors import OutflankError

bitboards = st.integers(min_value=0, max_value=(1 << 64) - 1)


# ---------------------------------------------------------------- symmetry
@given(bitboards)
def test_symmetries_permute_squares(bits: int) -> None:
    for t in range(8):
        image = transform(bits, t)
        assert image.bit_count() == bits.bit_count()
        assert transform(image, inverse(t)) == bits
        expected = 0
        for sq in range(64):
            if bits >> sq & 1:
                expected |= 1 << transform_square(sq, t)
        assert image == expected


@given(bitboards, bitboards)
def test_canonical_is_the_same_for_all_images(a: int, b: int) -> None:
    player, opponent = a & ~b, b
    p, o, t = canonical(player, opponent)
    assert (transform(player, t), transform(opponent, t)) == (p, o)
    for u in range(8):
        assert canonical(transform(player, u), transform(opponent, u))[:2] == (p, o)


def test_the_eight_symmetries_are_distinct() -> None:
    images = {tuple(transform_square(sq, t) for sq in range(64)) for t in range(8)}
    assert len(images) == 8
    # t = 2 flips top-bottom: a1 <-> a8
    assert transform_square(0, 2) == 56


# ---------------------------------------------------------------- a tiny book
def _build(path: Path, workers: int = 1, **params: object) -> Book:
    given_params = {"depth": 4, "window": 2.0, "plies": 7, "selective": 0.0, **params}
    with start_build(path, given_params) as db:
        status = Builder(db, workers=workers).run()
        assert status.complete
        return Book.from_database(db)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Book:
    return _build(tmp_path_factory.mktemp("book") / "tiny.db")


def _image(board: Board, t: int) -> Board:
    return Board(transform(board.black, t), transform(board.white, t), board.turn)


def test_tiny_book_covers_the_start_and_its_lines(tiny: Book) -> None:
    assert 20 < len(tiny) < 2000
    entry = tiny.probe(Board())
    assert entry is not None
    assert sorted(str(m.move) for m in entry.moves) == ["c4", "d3", "e6", "f5"]
    assert all(m.in_book for m in entry.moves)  # the 4 first moves are one position
    assert len({m.value for m in entry.moves}) == 1
    assert entry.depth == 4 and entry.selectivity == 0


def test_negamax_holds_at_every_node(tiny: Book) -> None:
    interior = 0
    for board in tiny.boards():
        entry = tiny.probe(board)
        assert entry is not None
        legal = sorted(m.square for m in board.legal_moves)
        assert sorted(m.move.square for m in entry.moves) == legal
        assert entry.value == max(m.value for m in entry.moves)
        values = [m.value for m in entry.moves]
        assert values == sorted(values, reverse=True)
        for m in entry.moves:
            key, sign = child_key(board.player, board.opponent, m.move.square)
            child_board = board.copy()
            child_board.push(m.move)
            if child_board.must_pass():
                child_board.push("pass")
            child = tiny.probe(child_board) if not child_board.is_game_over() else None
            assert m.in_book == (child is not None)
            if child is not None:
                interior += 1
                assert m.value == pytest.approx(sign * child.value)
                assert key is not None
    assert interior > 10


def test_probe_is_the_same_under_all_symmetries(tiny: Book) -> None:
    for board in list(tiny.boards())[:40]:
        entry = tiny.probe(board)
        assert entry is not None
        for t in range(8):
            image = _image(board, t)
            got = tiny.probe(image)
            assert got is not None
            assert got.value == entry.value
            mapped = {transform_square(m.move.square, t): (m.value, m.in_book) for m in entry.moves}
            assert {m.move.square: (m.value, m.in_book) for m in got.moves} == mapped


def test_probe_of_a_position_not_in_the_book(tiny: Book) -> None:
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2")  # 9 plies: beyond the book
    assert tiny.probe(board) is None
    assert board not in tiny
    assert Board() in tiny


def test_book_line_follows_best_moves(tiny: Book) -> None:
    line = tiny.line(Board())
    # at most the book's 7 plies and a last move out of it; how far the
    # best moves stay inside depends on the evaluator
    assert 2 <= len(line) <= 8
    board = Board()
    for move in line:
        entry = tiny.probe(board)
        assert entry is not None and move == entry.best.move
        board.push(move)


def test_file_round_trip_and_damage(tiny: Book, tmp_path: Path) -> None:
    path = tmp_path / "tiny.book"
    tiny.save(path)
    again = Book.load(path)
    assert again.to_bytes() == tiny.to_bytes()
    assert again.probe(Board()) == tiny.probe(Board())
    path.write_bytes(tiny.to_bytes()[:-3])
    with pytest.raises(BookError, match="damaged"):
        Book.load(path)
    path.write_bytes(b"hello")
    with pytest.raises(BookError, match="not an outflank book"):
        Book.load(path)
    with pytest.raises(BookError, match="cannot read"):
        Book.load(tmp_path / "missing.book")


def test_text_export_lists_every_position(tiny: Book) -> None:
    lines = list(tiny.text_lines())
    assert len(lines) == len(tiny)
    first = Board.from_obf(lines[0].split(";")[0])
    assert first in tiny


def test_merge_keeps_the_deeper_search(tiny: Book, tmp_path: Path) -> None:
    deeper = _build(tmp_path / "deeper.db", depth=5, plies=3)
    merged = Book.from_records(merge([tiny, deeper]))
    keys = {key for book in (tiny, deeper) for key, _, _ in book.records()}
    assert len(merged) == len(keys) > len(deeper)
    entry = merged.probe(Board.from_transcript("f5d6"))
    assert entry is not None and entry.depth == 5
    # a position only the shallower book has keeps its depth (which ones
    # those are depends on the evaluator's values: look one up)
    only_tiny = next(
        board
        for board in (Board.from_obf(line.split(";")[0]) for line in tiny.text_lines())
        if deeper.probe(board) is None
    )
    assert merged.probe(only_tiny).depth == 4
    # merging a book with itself changes nothing
    assert list(Book.from_records(merge([tiny, tiny])).records()) == list(tiny.records())


def test_raw_record_rank_prefers_depth_then_no_cuts() -> None:
    assert RawRecord(10, 15, ()).rank() > RawRecord(9, 0, ()).rank()
    assert RawRecord(10, 0, ()).rank() > RawRecord(10, 15, ()).rank()


# ---------------------------------------------------------------- the builder
def test_two_workers_build_the_same_book(tiny: Book, tmp_path: Path) -> None:
    assert _build(tmp_path / "two.db", workers=2).to_bytes() == tiny.to_bytes()


def test_extend_reuses_the_searched_positions(tmp_path: Path) -> None:
    path = tmp_path / "grow.db"
    small = _build(path, plies=4)
    with start_build(path, {"plies": 6}, extend=True) as db:
        builder = Builder(db)
        assert all(key in builder.records for key, _, _ in small.records())
        builder.run()
        grown = Book.from_database(db)
    assert len(grown) > len(small)
    assert grown.to_bytes() == _build(tmp_path / "direct.db", plies=6).to_bytes()


def test_build_refuses_changed_parameters(tmp_path: Path) -> None:
    path = tmp_path / "b.db"
    _build(path, plies=2)
    with pytest.raises(BookError, match="depth 4, not 5"):
        start_build(path, {"depth": 5})
    with pytest.raises(BookError, match="extend"):
        start_build(path, {"window": 3.0})
    with pytest.raises(BookError, match="no book database"):
        start_build(tmp_path / "none.db", {}, extend=True)
    (tmp_path / "junk.db").write_bytes(b"not a database at all, surely")
    with pytest.raises(BookError):
        BuildDB.open(tmp_path / "junk.db")


def test_ray_backend(tmp_path: Path) -> None:
    """Without Ray: a clear error, nothing searched. With Ray (checked here in a
    virtualenv with ray 2.60): the same book as a local build."""
    try:
        import ray
    except ImportError:
        with start_build(tmp_path / "r.db", {"depth": 2, "plies": 1}) as db:
            with pytest.raises(OutflankError, match="pip install 'outflank\\[cluster\\]'"):
                Builder(db, backend="ray").run()
            assert len(db) == 0
    else:  # with Ray: a tiny build on a local Ray cluster equals a local one
        src = str(Path(__file__).resolve().parent.parent / "src")  # for Ray's workers too
        ray.init(runtime_env={"env_vars": {"PYTHONPATH": src}}, log_to_driver=False)
        try:
            with start_build(tmp_path / "r.db", {"depth": 2, "plies": 2}) as db:
                Builder(db, backend="ray").run()
                ray_book = Book.from_database(db)
        finally:
            ray.shutdown()
        with start_build(tmp_path / "l.db", {"depth": 2, "plies": 2}) as db:
            Builder(db).run()
            assert list(Book.from_database(db).records()) == list(ray_book.records())
    with (
        start_build(tmp_path / "x.db", {"depth": 2, "plies": 1}) as db,
        pytest.raises(OutflankError, match="unknown backend"),
    ):
        Builder(db, backend="spark")


def _count(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM positions").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_kill_9_then_resume_equals_an_uninterrupted_build(tmp_path: Path, workers: int) -> None:
    params = ["--depth", "6", "--window", "3", "--plies", "9", "--selective", "0"]
    path = tmp_path / "killed.db"
    cmd = [sys.executable, "-m", "outflank", "book", "build", str(path), *params, "--quiet"]
    proc = subprocess.Popen(
        [*cmd, "--workers", str(workers)], env=cli_env(), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while _count(path) < 60 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the build ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = _count(path)
    assert killed_at >= 60
    # orphaned workers see their builder gone and exit
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("worker processes outlived the killed builder")
    resumed = subprocess.run(
        [*cmd, "--workers", "1"], env=cli_env(), capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "complete" in resumed.stdout
    done = Book.load(path)
    assert len(done) > killed_at
    whole = tmp_path / "whole.db"
    subprocess.run(
        [*cmd[:5], str(whole), *params, "--quiet"], env=cli_env(), check=True, timeout=300
    )
    assert done.to_bytes() == Book.load(whole).to_bytes()


# ---------------------------------------------------------------- the command line
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank", "book", *args],
        env=cli_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_cli_build_show_export_merge(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    out = _cli("build", str(db), "--depth", "3", "--plies", "4", "--workers", "1", "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("complete:")
    shown = _cli("show", str(db))
    assert "positions by ply: 0: 1, 1: 1" in shown.stdout
    assert "depth 3" in shown.stdout
    pos = _cli("show", str(db), "f5")
    assert pos.returncode == 0 and "book" in pos.stdout
    assert _cli("show", str(db), "f5d6c3d3c4f4").returncode == 1  # not in the book
    binary = tmp_path / "c.book"
    assert _cli("export", str(db), "-o", str(binary)).returncode == 0
    assert Book.load(binary).to_bytes() == Book.load(db).to_bytes()
    text = tmp_path / "c.txt"
    assert _cli("export", str(binary), "-o", str(text), "--format", "text").returncode == 0
    assert len(text.read_text().splitlines()) == len(Book.load(binary))
    merged = tmp_path / "m.book"
    assert _cli("merge", str(binary), str(db), "-o", str(merged)).returncode == 0
    assert list(Book.load(merged).records()) == list(Book.load(binary).records())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "/nonexistent/x.book"], "no book"),
        (["build", "{db}", "--depth", "0"], "depth must be in 1..40"),
        (["build", "{db}", "--window", "-1"], "window must be in"),
        (["build", "{db}", "--workers", "0"], "--workers must be at least 1"),
        (["build", "{db}", "--from", "f5f5"], "transcript move 2"),
        (["extend", "{db}"], "no book database"),
        (["export", "{junk}", "-o", "{db}"], "not an outflank book"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    junk = tmp_path / "junk.book"
    junk.write_bytes(b"junk")
    args = [a.format(db=tmp_path / "x.db", junk=junk) for a in args]
    out = _cli(*args)
    assert out.returncode == 2, out
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 63), min_size=1, max_size=12))
def test_probe_is_none_or_legal_on_random_games(tiny: Book, picks: list[int]) -> None:
    board = Board()
    for pick in picks:
        moves = board.legal_moves
        if not moves:
            break
        board.push(moves[pick % len(moves)])
        entry = tiny.probe(board)
        if entry is not None:
            assert {m.move for m in entry.moves} == set(board.legal_moves)


def test_cli_roots_and_lines(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = _cli("build", str(db), "--depth", "3", "--plies", "5", "--from", "f5d6c3", "--quiet")
    assert out.returncode == 0, out.stderr
    book = Book.load(db)
    assert Board() not in book and Board.from_transcript("f5d6c3") in book
    assert all(60 - b.empties >= 3 for b in book.boards())
    lined = tmp_path / "l.db"
    line = "f5f6e6d6c5f4"  # the Chimney
    out = _cli("build", str(lined), "--depth", "3", "--plies", "3", "--window", "0",
               "--line", line, "--quiet")  # fmt: skip
    assert out.returncode == 0, out.stderr
    book = Book.load(lined)
    board = Board()
    for move in Board.from_transcript(line).move_stack:  # the whole line, beyond --plies
        board.push(move)
        assert board in book
    assert Board() in book  # and the start, as the main root


@pytest.mark.parametrize(
    ("sig", "group", "repeats", "workers"),
    [
        *(pytest.param(*p.values, 2, id=p.id) for p in INTERRUPTIONS),
        pytest.param(signal.SIGINT, True, 1, 1, id="ctrl-c-one-worker"),
        pytest.param(signal.SIGTERM, True, 10, 2, id="sigterm-to-the-workers-too"),
    ],
)
def test_ctrl_c_or_sigterm_keeps_the_searched_positions(
    tmp_path: Path, sig: int, group: bool, repeats: int, workers: int
) -> None:
    """Stopped by signals: exit 130 at once, one line, no traceback, no
    worker left; the positions searched are in the database and a rerun
    goes on from them. (A KeyboardInterrupt raised inside
    concurrent.futures.wait could hang the exit; ten SIGINTs gave a
    traceback and exit -2; SIGTERM killed the builder and left its workers.)"""
    path = tmp_path / "i.db"
    cmd = [
        sys.executable, "-m", "outflank", "book", "build", str(path),
        "--depth", "12", "--window", "4", "--plies", "12", "--quiet",
    ]  # fmt: skip
    result = interrupt_command(
        [*cmd, "--workers", str(workers)], lambda _: _count(path) >= 3, sig, repeats, group=group
    )
    assert_clean_interrupt(result)
    stored = _count(path)
    assert f"interrupted: {stored} positions saved in {path}" in result.stderr
    assert stored >= 3 and len(Book.load(path)) == stored
    again = subprocess.run(
        [*cmd, "--workers", "1", "--max-positions", "2"],
        env=cli_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert again.returncode == 0 and again.stdout.startswith("stopped:"), again.stderr
    assert _count(path) == stored + 2
