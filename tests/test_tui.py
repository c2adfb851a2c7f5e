"""Terminal play through a real subprocess over a pipe."""

from __future__ import annotations

import subprocess
import sys

from conftest import cli_env


def play(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outflank.tui", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )


def test_moves_hint_undo_and_quit_over_a_pipe() -> None:
    proc = play("zz\nhint\nf5\nundo\nd3\npass\nquit\n", "--white", "greedy")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in out  # no colours through a pipe
    assert "black (X) [d3 c4 f5 e6]> zz" in out
    assert "not a move or command: 'zz'" in out
    assert "hint: " in out
    assert "white (O) greedy plays" in out
    assert "move taken back" in out
    # after undo the start position is back, then d3 is played
    assert out.count("black (X) 2, white (O) 2: black to move") >= 2
    assert "black (X) [d3 c4 f5 e6]> d3" in out
    assert "you can pass only when you have no move" in out
    assert out.rstrip().endswith("bye")


def test_undo_before_your_first_move_keeps_the_ai_opening() -> None:
    proc = play("undo\nquit\n", "--black", "level:1", "--white", "human")
    assert proc.returncode == 0, proc.stderr
    assert "nothing to undo" in proc.stdout and "move taken back" not in proc.stdout
    assert proc.stdout.count(" plays ") == 1


def test_illegal_move_is_refused() -> None:
    proc = play("a1\nquit\n", "--white", "random:1")
    assert "illegal move a1; legal: d3 c4 f5 e6" in proc.stdout
    assert proc.returncode == 0


def test_computer_game_runs_to_the_result() -> None:
    proc = play("", "--black", "random:2", "--white", "greedy", "--rules", "reversi")
    assert proc.returncode == 0, proc.stderr
    assert "game over: black" in proc.stdout


def test_end_of_input_quits_cleanly() -> None:
    proc = play("", "--white", "greedy")
    assert proc.returncode == 0
    assert "end of input" in proc.stdout


def test_bad_player_spec_is_one_line_error() -> None:
    proc = play("", "--white", "bogus")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("outflank play: error: unknown player 'bogus'")


def test_colour_board_marks_discs_legal_moves_and_last_move() -> None:
    from rich.console import Console

    from outflank.board import Board
    from outflank.tui import render_board

    board = Board()
    board.play("f5")
    text = render_board(board, color=True, last=board.peek())
    plain, legend = text.plain.rsplit("\n", 1)
    assert plain.count("●") == 5 and legend == "black ● 4  white ○ 1"
    assert plain.count("·") == len(board.legal_moves)
    console = Console(force_terminal=True, color_system="truecolor", width=40)
    with console.capture() as capture:
        console.print(text)
    assert "\x1b[" in capture.get()  # styled on a terminal
    assert any("underline" in str(span.style) for span in text.spans)


def test_outflank_play_othello_hands_over_to_the_tui() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "play", "othello", "--white", "level:3"],
        input="f5\nhint\nquit\n", capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "white (O) level:3 plays" in proc.stdout
    assert "hint: " in proc.stdout and "(" in proc.stdout.split("hint: ")[1].splitlines()[0]


def test_seed_004_settings_change_mid_game_and_take_effect() -> None:
    """`set` shows and changes the computer's biases and look-ahead between
    moves; its next move is the move of an engine built with the new values.
    Bad values are refused and change nothing."""
    from outflank.board import Board
    from outflank.engine import Engine

    # d3, the AI answers c5 (with either settings); the biases change; after
    # b6 the default regions AI would play c3, the changed one b5
    script = (
        "set\nd3\nset corner=-50 edge=50 x_square=50 lookahead=3\nset corner=99\n"
        "set lookahead=11\nb6\nquit\n"
    )
    proc = play(script, "--white", "regions")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "regions(corner=30, edge=5, x_square=-20), depth=4" in out
    assert "regions(corner=-50, edge=50, x_square=50), depth=3" in out
    assert "not changed: regions parameter corner must be in -50..50, not 99" in out
    assert "not changed: lookahead must be 2-10 plies (seed 004), not 11" in out
    replies = [part.split()[0] for part in out.split("white (O) regions plays ")[1:]]
    board = Board.from_transcript("d3c5b6")
    changed = Engine("regions", corner=-50, edge=50, x_square=50, depth=3).search(board)
    assert replies == ["c5", str(changed.best_move)]
    assert replies[1] != str(Engine.preset("regions").search(board).best_move)


def test_hints_are_shown_before_each_move_when_asked() -> None:
    proc = play("f5\nquit\n", "--white", "greedy", "--hints")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("recommended: ") == 2  # before f5, and before the next move
    assert "recommended: " not in play("quit\n", "--white", "greedy").stdout


def test_level_zero_is_refused_not_read_as_the_default() -> None:
    proc = play("quit\n", "--level", "0")
    assert proc.returncode == 2 and "--level must be in 1..20, not 0" in proc.stderr


def test_the_opening_is_named_and_hints_come_from_the_book() -> None:
    proc = play("hint\nf5\nd6\nc3\nd3\nc4\nquit\n", "--white", "human")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "discs (opening book)" in out.split("> f5")[0]  # the first hint
    assert out.count("opening: Perpendicular") == 1  # once, as the game enters it
    assert out.index("opening: Perpendicular") < out.index("opening: Tiger")


def test_a_midgame_hint_gives_the_three_best_moves_scored_exactly() -> None:
    transcript = "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1"  # a1 is then far the best
    moves = [transcript[i : i + 2] for i in range(0, len(transcript), 2)]
    proc = play("\n".join([*moves, "hint", "quit"]) + "\n", "--white", "human")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "hint: " in x)
    hint = line.split("hint: ")[1]
    shown = hint.removesuffix(" discs").split(", ")
    assert len(shown) == 3 and shown[0].startswith("a1 (+") and "<=" not in hint
    assert "book" not in hint
