"""``outflank puzzle``: play, show, list, verify at the command line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from outflank.cli import main
from outflank.puzzles import Puzzle, PuzzleSet


@pytest.fixture(scope="module")
def puzzle() -> Puzzle:
    return sorted(PuzzleSet.default(), key=lambda p: p.id)[0]


def _run(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    stdin: str = "",
) -> tuple[int, str, str]:  # fmt: skip
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_solving_a_puzzle_right(puzzle: Puzzle, capsys, monkeypatch) -> None:
    code, out, _ = _run(
        ["puzzle", "play", puzzle.id, "--count", "1"], capsys, monkeypatch,
        f"{puzzle.solution}\n",
    )  # fmt: skip
    assert code == 0
    assert f"puzzle {puzzle.id}" in out
    assert f"right! {puzzle.solution} keeps the {puzzle.result} ({puzzle.score:+d})" in out
    assert "the line: " in out and "streak 1" in out
    assert "solved 1, failed 0" in out


def test_solving_a_puzzle_wrong_shows_the_refutation(puzzle: Puzzle, capsys, monkeypatch) -> None:
    wrong = sorted(puzzle.refutations)[0]
    reply = puzzle.refutations[wrong][0]
    code, out, _ = _run(
        ["puzzle", "--rating", "1800", "play", puzzle.id, "--count", "1"], capsys, monkeypatch,
        f"z9\npass\n{wrong}\n",
    )  # fmt: skip
    assert code == 0
    assert "? not a square" in out and "? pass is not a legal move here" in out
    assert f"wrong: {wrong} ends {puzzle.scores[wrong]:+d}; the refutation:" in out
    assert f" {reply}" in out.split("the refutation:")[1].splitlines()[0]
    assert f"the solution was {puzzle.solution}" in out
    assert "streak 0" in out and "solved 0, failed 1" in out


def test_puzzles_one_after_another_and_quit(capsys, monkeypatch) -> None:
    code, out, _ = _run(["puzzle", "--seed", "4"], capsys, monkeypatch, "skip\nskip\nquit\n")
    assert code == 0
    ids = [line.split()[1] for line in out.splitlines() if line.startswith("puzzle ")]
    assert len(ids) == 3 and len(set(ids)) == 3  # a skipped puzzle is not offered again
    assert out.count("skipped: the solution was") == 2


def test_show_and_list(puzzle: Puzzle, capsys, monkeypatch) -> None:
    code, out, _ = _run(["puzzle", "show", puzzle.id], capsys, monkeypatch)
    assert code == 0
    assert f"solution: {puzzle.solution} ({puzzle.score:+d})" in out
    for move, score in puzzle.scores.items():
        assert f"{move} {score:+d}" in out
        if move != str(puzzle.solution):
            assert f"after {move}: " in out
    code, out, _ = _run(["puzzle", "list", "--grade", "5"], capsys, monkeypatch)
    assert code == 0 and out and all("fiendish" in line for line in out.splitlines())


def test_verify_a_sample_and_a_tampered_file(
    puzzle: Puzzle, tmp_path: Path, capsys, monkeypatch
) -> None:
    code, out, _ = _run(["puzzle", "verify", "--sample", "3"], capsys, monkeypatch)
    assert code == 0 and "3 of 3 puzzles verified by the exact solver" in out
    data = puzzle.to_dict()
    wrong = next(m for m in data["scores"] if m != data["solution"])
    data["scores"][wrong] -= 2
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"format": "outflank-puzzles", "version": 1}) + "\n"
                    + json.dumps(data) + "\n")  # fmt: skip
    code, out, _ = _run(["puzzle", "verify", "--file", str(path)], capsys, monkeypatch)
    assert code == 1 and "FAILED" in out and "0 of 1 puzzles verified" in out


def test_bad_input_is_a_one_line_error(tmp_path: Path, capsys, monkeypatch) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nonsense\n")
    for args, message in (
        (["puzzle", "show", "nope"], "no puzzle with id 'nope'"),
        (["puzzle", "play", "nope"], "no puzzle with id 'nope'"),
        (["puzzle", "--file", str(bad)], "not a puzzle file"),
        (["puzzle", "--file", str(tmp_path / "none.jsonl")], "No such file"),
        (["puzzle", "--count", "0"], "--count must be at least 1"),
        (["puzzle", "verify", "--sample", "0"], "--sample must be at least 1"),
    ):
        code, out, err = _run(args, capsys, monkeypatch)
        assert code == 2 and message in err and len(err.splitlines()) == 1, (args, err)
        assert "your move" not in out


def test_a_profile_keeps_the_rating_between_sessions(
    puzzle: Puzzle, tmp_path: Path, capsys, monkeypatch
) -> None:
    profile = tmp_path / "me.json"
    args = ["puzzle", "--profile", str(profile), "play", puzzle.id, "--count", "1"]
    code, _, _ = _run(args, capsys, monkeypatch, f"{puzzle.solution}\n")
    assert code == 0
    saved = json.loads(profile.read_text())
    assert saved["solved"] == 1 and saved["streak"] == 1 and saved["seen"] == [puzzle.id]
    assert saved["rating"] > 1500
    # the next session goes on from there: a new puzzle, the streak kept
    code, out, _ = _run(["puzzle", "--profile", str(profile), "--count", "1"], capsys,
                        monkeypatch, "skip\n")  # fmt: skip
    assert code == 0 and f"puzzle {puzzle.id} " not in out
    assert "best streak 1" in out and f"rating {round(saved['rating'])}" in out
    assert len(json.loads(profile.read_text())["seen"]) == 2
    # bad profiles and a clash are one-line errors, the file unchanged
    before = profile.read_text()
    code, _, err = _run(["puzzle", "--profile", str(profile), "--rating", "1700"], capsys,
                        monkeypatch)  # fmt: skip
    assert code == 2 and "holds a rating already" in err and profile.read_text() == before
    for text in ("nonsense", "[]", '{"rating": 1500}', before.replace('"rd": ', '"rd": -')):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        code, _, err = _run(["puzzle", "--profile", str(bad)], capsys, monkeypatch)
        assert code == 2 and "not a puzzle profile" in err, (text, err)
        assert bad.read_text() == text
