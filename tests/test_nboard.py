"""The NBoard protocol: outflank's engine as a real subprocess, outflank's
client driving it, and broken engines forfeited without hanging."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import cli_env, random_position
from outflank import nboard
from outflank.board import Board, Move
from outflank.ggf import GameRecord
from outflank.match import play_game
from outflank.nboard import NBoardClient, parse_engine_move
from outflank.players import ExternalPlayer, PlayerError, RandomPlayer

BROKEN = Path(__file__).with_name("broken_engine.py")
SERVER = [sys.executable, "-m", "outflank", "nboard", "--player", "greedy"]
ENGINE = [sys.executable, "-m", "outflank", "nboard"]


class Engine:
    """A scripted client: raw lines in and out of the subprocess."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=cli_env(),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, predicate, timeout: float = 20.0) -> list[str]:
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, f"engine exited; said {seen}"
            seen.append(line)
            if predicate(line):
                return seen

    def close(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=10)


@pytest.mark.parametrize(("argv", "name"), [(ENGINE, "outflank"), (SERVER, "greedy")])
def test_scripted_gui_plays_a_whole_game_with_hints(argv: list[str], name: str) -> None:
    engine = Engine(argv)
    engine.send("nboard 2")
    engine.send("set depth 3")
    engine.send("set contempt 0")
    start = GameRecord.from_board(Board()).to_ggf()
    engine.send(f"set game {start}")
    engine.send("ping 1")
    said = engine.until(lambda s: s == "pong 1")
    served = argv is SERVER  # a served player keeps its name: depth means nothing to it
    assert said.count(f"set myname {name}") == 2 if served else f"set myname {name}3" in said
    board = Board()
    ping = 1
    while not board.is_game_over():
        ping += 1
        engine.send("hint 3")
        said = engine.until(lambda s: s.startswith("status") and s.endswith("waiting"))
        engine.send(f"ping {ping}")
        said += engine.until(lambda s, p=ping: s == f"pong {p}")
        # in the opening book the lines say "book" (NBoard shows them as such)
        searches = [s.split() for s in said if s.startswith(("search ", "book "))]
        assert searches, said
        for words in searches:
            assert Move.from_str(words[1][:2]) in board.legal_moves
            float(words[2])
            assert words[3] == "0" and (words[4].isdigit() or words[4] == "100%")
        if name == "outflank" and len(board.legal_moves) >= 3:
            final = {w[1][:2] for w in searches[-3:]}
            assert len(final) == 3  # the three best moves, one line each
        assert said[0].startswith("status") and said[-2].endswith("is waiting")
        engine.send("go")
        said = engine.until(lambda s: s.startswith("status") and s.endswith("is waiting"))
        answers = [s for s in said if s.startswith("===")]
        assert len(answers) == 1, said
        answer = parse_engine_move(answers[0])
        assert answer.move in board.legal_moves
        board.push(answer.move)
        engine.send(f"move {str(answer.move) if not answer.move.is_pass else 'PA'}/0.5/1.0")
    engine.send("learn")
    engine.until(lambda s: s == "learned")
    assert engine.close() == 0


def test_book_lines_in_the_opening_and_search_lines_after_it() -> None:
    engine = Engine(ENGINE)
    engine.send("nboard 2")
    engine.send(f"set game {GameRecord.from_board(Board.from_transcript('f5d6c3')).to_ggf()}")
    engine.send("hint 2")
    said = engine.until(lambda s: s.startswith("status") and s.endswith("waiting"))
    books = [s.split() for s in said if s.startswith("book ")]
    assert len(books) == 2 and books[0][1].startswith("D3")  # the Tiger's d3 first
    assert not any(s.startswith("search ") for s in said)
    assert all(int(words[4]) >= 8 for words in books)  # the book's depth
    engine.send("go")
    said = engine.until(lambda s: s.startswith("status") and s.endswith("waiting"))
    answers = [s for s in said if s.startswith("===")]
    assert [parse_engine_move(a).move for a in answers] == [Move.from_str("d3")]
    out_of_book = Board()
    for _ in range(30):  # deeper than any book line
        out_of_book.push(out_of_book.legal_moves[0])
    engine.send(f"set game {GameRecord.from_board(out_of_book).to_ggf()}")
    engine.send("set depth 4")
    engine.send("hint 1")
    said = engine.until(lambda s: s.startswith("status") and s.endswith("waiting"))
    assert any(s.startswith("search ") for s in said) and not any(
        s.startswith("book ") for s in said
    )
    assert engine.close() == 0


def test_no_book_searches_from_the_start() -> None:
    engine = Engine([*ENGINE, "--no-book"])
    engine.send("nboard 2")
    engine.send("set depth 3")
    engine.send("hint 1")
    said = engine.until(lambda s: s.startswith("status") and s.endswith("waiting"))
    assert any(s.startswith("search ") for s in said) and not any(
        s.startswith("book ") for s in said
    )
    assert engine.close() == 0


def test_bad_lines_are_answered_and_the_engine_lives_on() -> None:
    engine = Engine(SERVER)
    for bad in [
        "hello world",
        "set depth x",
        "set depth 99",
        "set game (;GM[Othello]B[z9];)",
        "set game nonsense",
        "move q9",
        "move a1",
        "nboard 7",
        "hint x",
        "set colour blue",
    ]:
        engine.send(bad)
        said = engine.until(lambda s: s.startswith("status error"))
        assert said[-1].startswith("status error: ")
    engine.send("set GAME (;GM[Othello]PC[x]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O*------*O"
                + "-" * 27 + " *]B[f5];)")  # fmt: skip
    engine.send("ping 5")
    engine.until(lambda s: s == "pong 5")
    engine.send("go")
    said = engine.until(lambda s: s.startswith("==="))
    assert parse_engine_move(said[-1]).move in Board.from_transcript("f5").legal_moves
    assert engine.close() == 0


@pytest.mark.parametrize("level", ["0", "99", "-3"])
def test_a_level_off_the_scale_is_refused_at_start(level: str) -> None:
    done = subprocess.run(
        [*ENGINE, "--level", level], input="quit\n", capture_output=True, text=True,
        env=cli_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"outflank nboard: error: --level must be in 1..20, not {level}\n"


def test_outflank_client_drives_outflank_engine_through_a_game() -> None:
    external = ExternalPlayer(ENGINE, depth=4, timeout=20, env=cli_env())
    try:
        assert external.name == "outflank4"
        result = play_game(RandomPlayer(11), external)
        assert result.forfeit is None, result.forfeit_reason
        assert result.board.is_game_over()
        assert all(m.eval is not None for m in result.record.moves[1::2] if not m.move.is_pass)
        assert result.record.board() == result.board
        hints = external.client.hint(Board(), 2)
        assert hints and hints[0].move in Board().legal_moves
    finally:
        external.close()
    assert not external.client.alive


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("garbage", "malformed move answer"),
        ("hang", "timed out"),
        ("illegal", "illegal move"),
        ("die", "died"),
    ],
)
def test_broken_engine_forfeits_without_hanging(mode: str, message: str) -> None:
    started = time.monotonic()
    external = ExternalPlayer([sys.executable, str(BROKEN), mode], name=mode, timeout=2.0)
    result = play_game(RandomPlayer(1), external)
    external.close()
    assert result.forfeit is not None and result.winner is not None
    assert message in result.forfeit_reason
    assert result.record.result.startswith("+64.000:")
    assert time.monotonic() - started < 15
    assert not external.client.alive


def test_engine_that_never_answers_ping_is_refused() -> None:
    with pytest.raises(PlayerError, match="timed out"):
        NBoardClient([sys.executable, str(BROKEN), "silent"], start_timeout=1.0)


def test_parse_engine_move_accepts_both_styles() -> None:
    assert parse_engine_move("=== F5/1.50/0.2").eval == 1.5
    assert parse_engine_move("=== d6 -1.00 0.0").move == Move.from_str("d6")
    assert parse_engine_move("=== PA").move.is_pass
    assert parse_engine_move("=== c4//0.5") == parse_engine_move("=== C4/ /0.5")
    assert parse_engine_move("=== c4//0.5").eval is None
    for bad in ["===", "=== z9", "== f5", "=== f5/x"]:
        with pytest.raises(ValueError):
            parse_engine_move(bad)


def test_forced_pass_is_answered_with_pa() -> None:
    import random

    for seed in range(5000):
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over() and not board.must_pass():
            board.push(rng.choice(board.legal_moves))
        if board.must_pass():
            break
    engine = Engine(ENGINE)
    engine.send("nboard 2")
    engine.send("set depth 2")
    engine.send(f"set game {GameRecord.from_board(board).to_ggf()}")
    engine.send("go")
    said = engine.until(lambda s: s.startswith("==="))
    assert parse_engine_move(said[-1]).move.is_pass
    engine.send("move PA")
    engine.send("go")
    said = engine.until(lambda s: s.startswith("==="))
    board.push("pass")
    assert parse_engine_move(said[-1]).move in board.legal_moves
    assert engine.close() == 0


def test_an_engine_dropped_without_close_is_stopped() -> None:
    import gc

    player = ExternalPlayer(ENGINE)
    proc = player.client.proc
    assert proc.poll() is None
    del player
    gc.collect()
    assert proc.wait(timeout=10) is not None  # the engine once ran on until exit


GAME5 = (
    "(;GM[Othello]PC[test]BO[8 ---------------------------O*------*O---------------------------"
    " *]B[f5]W[d6]B[c3]W[d3]B[c4];)"
)


def _deep_search(commands: list[str]) -> Engine:
    """outflank nboard started on a search too deep to end soon."""
    engine = Engine(ENGINE)
    for line in ["nboard 2", "set depth 24", f"set game {GAME5}", *commands]:
        engine.send(line)
    engine.until(lambda line: "thinking" in line)
    return engine


def test_a_ping_stops_a_many_move_hint_and_is_answered() -> None:
    """hint N (N > 1) runs a search and then an analysis; a ping arriving in
    either must stop the work and be answered at once (NBoard waits for the
    pong before it changes the position)."""
    engine = _deep_search(["hint 4"])
    try:
        time.sleep(1.0)
        asked = time.monotonic()
        engine.send("ping 6")
        seen = engine.until(lambda line: line == "pong 6", timeout=10)
        assert time.monotonic() - asked < 3
        assert not any(line.startswith("search") for line in seen)  # a stopped hint says nothing
    finally:
        engine.close()


@pytest.mark.parametrize("ending", ["quit", "eof"])
def test_quit_or_the_end_of_input_ends_a_running_search(ending: str) -> None:
    engine = _deep_search(["go"])
    try:
        time.sleep(0.5)
        if ending == "quit":
            engine.send("quit")
        else:
            assert engine.proc.stdin is not None
            engine.proc.stdin.close()
        assert engine.proc.wait(timeout=5) == 0
    finally:
        if engine.proc.poll() is None:
            engine.proc.kill()


def test_a_hint_sends_only_its_final_lines() -> None:
    """A line per finished depth would leave stale first moves in the GUI and
    in the client's hints: hint 1 answers with one move, the one go plays."""
    client = NBoardClient(ENGINE, depth=5, env=cli_env())
    try:
        board = Board.from_transcript("f5")
        hints = client.hint(board, 1)
        assert len(hints) == 1
        assert hints[0].move == client.go(board).move
        assert len(client.hint(board, 3)) == 3
    finally:
        client.close()


def test_a_depth_searches_selectively_and_solves_from_eight_empties_more() -> None:
    """NBoard's depth N, as NTest's: the default preset's probable cut-offs N
    plies deep, and an exact endgame from N + 8 empties, not only where the
    depth reaches the end (a full-width depth 16 took minutes a move)."""
    board = random_position(21, 12)
    game = GameRecord.from_board(board).to_ggf()
    engine = Engine(ENGINE)
    try:
        for line in ("nboard 2", "set depth 4", f"set game {game}", "hint 1"):
            engine.send(line)
        said = engine.until(lambda x: x.startswith("search"))
        assert said[-1].endswith(" 100%")  # solved: 12 empties is within 4 + 8
        for line in ("set depth 3", "hint 1"):
            engine.send(line)
        said = engine.until(lambda x: x.startswith("search"))
        assert said[-1].endswith(" 3")  # 11 empties are not
    finally:
        engine.close()
    analyst = nboard._EngineAnalyst(book=False)
    analyst._use_depth(16)
    assert (analyst.engine.depth, analyst.engine.endgame, analyst.engine.time) == (16, 18, None)
    assert analyst.engine.selective == 1.5  # as the depth-bound top levels


def test_set_depth_replaces_the_start_level_whenever_it_comes() -> None:
    """--level serves until the GUI sends 'set depth'; after it the engine is
    the same whether or not a search ran at the level before."""

    def answers(script: list[str]) -> list[str]:
        engine = Engine([*ENGINE, "--level", "1"])
        try:
            moves = []
            for line in script:
                engine.send(line)
                if line == "go":
                    said = engine.until(lambda x: x.startswith("=== "))
                    moves.append(said[-1].rsplit("/", 1)[0])  # move and eval, not the time
            return moves
        finally:
            engine.close()

    game = f"set game {GAME5}"
    fresh = answers(["nboard 2", "set depth 6", game, "go"])
    after_level = answers(["nboard 2", game, "go", "set depth 6", "go"])
    assert after_level[1] == fresh[0]


def test_a_ping_is_answered_while_a_served_player_searches_on() -> None:
    """A served player (--player) cannot be stopped: the ping used to wait for
    its whole search (minutes for a depth-7 pure-Python minimax). Its answer
    is now dropped, and it keeps the name it announced."""
    engine = Engine([*ENGINE, "--player", "classic:minimax:7"])
    try:
        engine.send("nboard 2")
        name = engine.until(lambda line: line.startswith("set myname"))[-1].split()[2]
        engine.send(f"set game {GAME5}")
        engine.send("go")
        assert engine.until(lambda line: "thinking" in line)[-1] == f"status {name} is thinking"
        time.sleep(0.5)
        asked = time.monotonic()
        engine.send("ping 1")
        seen = engine.until(lambda line: line == "pong 1", timeout=10)
        assert time.monotonic() - asked < 3
        assert not any(line.startswith("===") for line in seen)
    finally:
        engine.proc.kill()
        engine.proc.wait(timeout=10)


def test_a_human_cannot_be_served_as_an_engine() -> None:
    """It would read its moves from the protocol's own input."""
    done = subprocess.run(
        [*ENGINE, "--player", "human"], input="quit\n", capture_output=True, text=True,
        env=cli_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "cannot wait for a human player" in done.stderr


def test_the_client_reports_an_engine_error_at_once() -> None:
    """A 'status error' answer to go used to be waited out to the timeout."""
    client = NBoardClient(ENGINE, depth=2, env=cli_env())
    try:
        with pytest.raises(PlayerError, match="the game is over"):
            client.go(Board.from_obf("X" * 64 + " O"), timeout=30)
        assert client.go(Board(), timeout=30).move in Board().legal_moves  # still alive
    finally:
        client.close()


class _Lines:
    """A text output that queues each line written (the server's stdout)."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self._part = ""

    def write(self, text: str) -> int:
        self._part += text
        *done, self._part = self._part.split("\n")
        for line in done:
            self.lines.put(line)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_finished_search_is_answered_at_once_not_at_the_next_poll(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a search runs, the loop waits on the input (for a ping to pass
    on); a search that ends wakes it at once. With the poll stretched to a
    minute, the answer still comes within seconds (it used to come at the
    next poll: up to 20 ms late on every move, 2.7 ms on average at depth 1)."""
    monkeypatch.setattr(nboard, "_POLL_SECONDS", 60.0)
    read_fd, write_fd = os.pipe()
    with open(read_fd, encoding="utf-8") as given, open(write_fd, "w", encoding="utf-8") as gui:
        out = _Lines()
        server = nboard.NBoardServer(given, out, book=False)
        serving = threading.Thread(target=server.serve, daemon=True)
        serving.start()
        for line in ["nboard 2", "set depth 1", f"set game {GAME5}", "go"]:
            gui.write(line + "\n")
        gui.flush()
        asked = time.monotonic()
        answer = ""
        while not answer.startswith("==="):
            answer = out.lines.get(timeout=max(0.01, asked + 10 - time.monotonic()))
        assert time.monotonic() - asked < 5
        gui.write("quit\n")
        gui.flush()
        serving.join(timeout=10)
        assert not serving.is_alive()
