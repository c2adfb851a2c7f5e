"""Settings: the INI file of seed 000 plus [GAME], lookup order, bad values
falling back with a message naming the key, command-line overrides."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from outflank.board import Color, Rules
from outflank.errors import OutflankError
from outflank.gui.ai import LADDER, AISpec
from outflank.gui.settings import Settings, config_candidates, load_settings, read_ini

SEED_INI = """
[BASIC]
WINDOWWIDTH = 1280
WINDOWHEIGHT = 800
SQUARESIZE = 70
FPS = 30
ANIMATION=False

[GAME]
AI = minimax4
COLOUR = white
RULES = reversi
"""


def test_seed_ini_is_read() -> None:
    settings, warnings = read_ini(SEED_INI)
    assert warnings == []
    assert (settings.width, settings.height, settings.square_size) == (1280, 800, 70)
    assert settings.fps == 30 and settings.animation is False
    assert settings.ai == AISpec("preset", preset="minimax4")
    assert settings.colour is Color.WHITE and settings.rules is Rules.REVERSI


def test_keys_are_case_and_underscore_insensitive() -> None:
    settings, warnings = read_ini("[basic]\nwindow_width = 900\n[game]\nai = level 12\ncolor=B\n")
    assert warnings == []
    assert settings.width == 900 and settings.ai == AISpec("level", level=12)
    assert settings.colour is Color.BLACK


@pytest.mark.parametrize(
    ("line", "section", "key", "field"),
    [
        ("FPS = fast", "BASIC", "FPS", "fps"),
        ("FPS = 0", "BASIC", "FPS", "fps"),
        ("WINDOWWIDTH = -5", "BASIC", "WINDOWWIDTH", "width"),
        ("SQUARESIZE = 3", "BASIC", "SQUARESIZE", "square_size"),
        ("ANIMATION = maybe", "BASIC", "ANIMATION", "animation"),
        ("FLIPTIME = slow", "BASIC", "FLIPTIME", "flip_time"),
        ("AI = 99", "GAME", "AI", "ai"),
        ("AI = deep blue", "GAME", "AI", "ai"),
        ("COLOUR = purple", "GAME", "COLOUR", "colour"),
        ("RULES = chess", "GAME", "RULES", "rules"),
    ],
)
def test_bad_value_falls_back_with_a_message_naming_the_key(
    line: str, section: str, key: str, field: str
) -> None:
    text = f"[{section}]\n{line}\nHINTTIME = 2\n" if section == "GAME" else f"[{section}]\n{line}\n"
    settings, warnings = read_ini(text, "my.ini")
    assert len(warnings) == 1
    assert f"my.ini [{section}] {key}" in warnings[0]
    assert "using the default" in warnings[0]
    assert getattr(settings, field) == getattr(Settings(), field)


def test_good_values_beside_a_bad_one_are_kept() -> None:
    settings, warnings = read_ini("[BASIC]\nFPS = x\nWINDOWHEIGHT = 500\n")
    assert settings.height == 500 and settings.fps == Settings().fps
    assert len(warnings) == 1


def test_unknown_keys_sections_and_broken_files_are_reported() -> None:
    _, warnings = read_ini("[BASIC]\nCOLOUR_DEPTH = 8\n[EXTRA]\nx = 1\n")
    assert any("COLOURDEPTH" in w.replace("_", "") and "unknown key" in w for w in warnings)
    assert any("[EXTRA]" in w for w in warnings)
    settings, warnings = read_ini("FPS = 30 without a section\n", "broken.ini")
    assert settings == Settings()
    assert warnings and "broken.ini" in warnings[0]


def test_a_key_without_value_or_in_the_wrong_section_spoils_nothing_else() -> None:
    settings, warnings = read_ini(
        "[BASIC]\nANIMATION\nFPS = 30\nCOLOUR = white\n[GAME]\nAI = 9\n", "x.ini"
    )
    assert settings.fps == 30 and settings.ai == AISpec("level", level=9)
    assert settings.animation == Settings().animation and settings.colour == Settings().colour
    assert warnings == [
        "x.ini [BASIC] ANIMATION: no value (write ANIMATION = ...); using the default",
        "x.ini [BASIC] COLOUR: belongs in [GAME], ignored",
    ]


def test_a_stray_line_a_default_section_or_a_bad_byte_spoils_nothing_else(
    tmp_path: Path,
) -> None:
    """Each used to throw the whole file away, or apply keys it called ignored."""
    settings, warnings = read_ini(
        "AI = greedy\n[BASIC]\nFPS = 30\n= 40\n[DEFAULT]\nAI = 9\n[GAME]\nCOLOUR = white\n",
        "x.ini",
    )
    assert settings.fps == 30 and settings.colour is Color.WHITE
    assert settings.ai == Settings().ai
    assert warnings == [
        "x.ini: line 1 'AI = greedy' is in no [SECTION]; ignored",
        "x.ini: line 4 '= 40' is not KEY = value; ignored",
        "x.ini: unknown section [DEFAULT] ignored",
    ]
    ansi = tmp_path / "ansi.ini"  # Notepad's "ANSI": a Latin-1 comment
    ansi.write_bytes(b"[BASIC]\n; Fenstergr\xf6\xdfe\nWINDOWWIDTH = 640\n[GAME]\nAI = greedy\n")
    settings, warnings, _ = load_settings(ansi)
    assert settings.width == 640 and settings.ai == AISpec("preset", preset="greedy")
    assert warnings == [f"{ansi}: not UTF-8; read as Latin-1"]


def test_lookup_prefers_the_current_folder(tmp_path: Path) -> None:
    cwd, xdg = tmp_path / "cwd", tmp_path / "xdg"
    (xdg / "outflank").mkdir(parents=True)
    cwd.mkdir()
    env = {"XDG_CONFIG_HOME": str(xdg), "HOME": str(tmp_path)}
    assert config_candidates(cwd, env) == [cwd / "outflank.ini", xdg / "outflank" / "outflank.ini"]
    settings, _, found = load_settings(cwd=cwd, env=env)
    assert found is None and settings == Settings()
    (xdg / "outflank" / "outflank.ini").write_text("[BASIC]\nFPS = 20\n")
    settings, _, found = load_settings(cwd=cwd, env=env)
    assert found == xdg / "outflank" / "outflank.ini" and settings.fps == 20
    (cwd / "outflank.ini").write_text("[BASIC]\nFPS = 25\n")
    settings, _, found = load_settings(cwd=cwd, env=env)
    assert found == cwd / "outflank.ini" and settings.fps == 25


def test_home_config_folder_without_xdg(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert config_candidates(tmp_path, env)[1] == tmp_path / ".config" / "outflank" / "outflank.ini"


def test_command_line_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "o.ini"
    path.write_text(SEED_INI)
    overrides = {"fps": "50", "ai": "greedy", "animation": True, "colour": None}
    settings, warnings, found = load_settings(path, overrides)
    assert found == path and warnings == []
    assert settings.fps == 50 and settings.animation is True
    assert settings.ai == AISpec("preset", preset="greedy")
    assert settings.colour is Color.WHITE  # not overridden: from the file


def test_bad_override_and_missing_file_are_errors(tmp_path: Path) -> None:
    with pytest.raises(OutflankError, match="--fps"):
        Settings().replace(fps="fast")
    with pytest.raises(OutflankError, match="--width"):
        Settings().replace(width=10)
    with pytest.raises(OutflankError, match="not found"):
        load_settings(tmp_path / "missing.ini")
    with pytest.raises(OutflankError, match="is a folder"):
        load_settings(tmp_path)


def test_ai_names_and_ladder() -> None:
    assert AISpec.parse("7") == AISpec.parse("level:7") == AISpec("level", level=7)
    assert AISpec.parse("Minimax") == AISpec("preset", preset="minimax4")
    assert not AISpec.parse("none").enabled
    with pytest.raises(OutflankError, match=r"1\.\.20"):
        AISpec.parse("0")
    for bad in ("-5", "1-2", "level -3"):  # no digits read out of them
        with pytest.raises(OutflankError, match="unknown AI"):
            AISpec.parse(bad)
    assert AISpec.parse("minimax-4") == AISpec.parse("minimax_depth_4") == AISpec.parse("minimax")
    assert LADDER[0].step(-1) == LADDER[0]
    assert LADDER[-1].step(1) == LADDER[-1]
    assert AISpec("level", level=3).step(1) == AISpec("level", level=4)
    assert AISpec("preset", preset="weights").step(1) == AISpec("level", level=1)
    assert str(AISpec("level", level=9)) == "9"
    # the 1-second default engine is off the ladder, between levels 16 and 17
    # (L from it used to drop to level 2, Shift+L to the seeds' weights AI)
    default = AISpec.parse("default")
    assert default.step(1) == AISpec("level", level=17)
    assert default.step(-1) == AISpec("level", level=16)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fps", "fast"], "bad --fps 'fast': not a whole number"),
        (["--ai", "deep"], "unknown AI"),
        (["--colour", "red"], "bad --colour"),
        (["--config", "/nonexistent/o.ini"], "not found"),
        (["--ai", "-5"], "unknown AI '-5'"),
        (["--position", "X" * 32 + "O" * 32 + " X"], "--position is a finished game"),
    ],
)
def test_cli_rejects_bad_options(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "gui", *args],
        capture_output=True,
        text=True,
        env=cli_env() | {"SDL_VIDEODRIVER": "dummy"},
        timeout=30,
    )
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_threads_setting() -> None:
    settings, warnings = read_ini("[GAME]\nTHREADS = 3\n")
    assert warnings == [] and settings.threads == 3
    assert Settings().threads == 0  # every core
    settings, warnings = read_ini("[GAME]\nTHREADS = 65\n")
    assert settings.threads == 0 and "THREADS" in warnings[0]
    assert Settings().replace(threads="2").threads == 2
    with pytest.raises(OutflankError, match="--threads"):
        Settings().replace(threads="lots")
