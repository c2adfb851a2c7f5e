"""``outflank gui`` end to end: the command reads its settings file, warns
about bad values, opens the window and leaves when it is closed; and the
screenshot script renders the real window under Xvfb."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import shutil
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from conftest import ROOT, cli_env
from outflank.board import parse_square
from outflank.cli import main
from outflank.gui.layout import compute_layout


def test_command_reads_the_ini_warns_and_quits_on_close(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ini = tmp_path / "outflank.ini"
    ini.write_text("[BASIC]\nFPS = fast\nWINDOWWIDTH = 640\n[GAME]\nAI = none\n")
    pygame.display.init()
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # the window is closed at once
    assert main(["gui", "--config", str(ini), "--height", "480"]) == 0
    err = capsys.readouterr().err
    assert "[BASIC] FPS = 'fast'" in err and "using the default 60" in err
    assert not pygame.display.get_init()  # the command shut pygame down


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb is not installed")
def test_screenshot_script_renders_the_real_window(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = cli_env()
    for name in ("SDL_VIDEODRIVER", "DISPLAY"):
        env.pop(name, None)
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "screenshot_gui.py"),
            "--ai",
            "none",
            "--no-hint",
            "--size",
            "800x600",
            "--moves",
            "f5d6",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "driver x11" in proc.stdout
    image = pygame.image.load(str(out))
    assert image.get_size() == (800, 600)
    layout = compute_layout((800, 600))
    f5 = image.get_at(layout.square_center(parse_square("f5")))
    d6 = image.get_at(layout.square_center(parse_square("d6")))
    a1 = image.get_at(layout.square_center(parse_square("a1")))
    assert max(f5.r, f5.g, f5.b) < 70  # black disc
    assert min(d6.r, d6.g, d6.b) < 120  # the last move's red marker on a white disc
    assert d6.r > 200
    assert a1.g > a1.r + 60  # empty green square


def test_a_position_over_under_the_chosen_rules_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Black must pass here: under Reversi rules the game is already over."""
    obf = "--OOO----X-O----XXXX-------XX------XX-------X------------------- X"
    ini = tmp_path / "outflank.ini"
    ini.write_bytes(b"\xef\xbb\xbf[GAME]\nRULES = reversi\n")  # with Notepad's BOM
    assert main(["gui", "--config", str(ini), "--position", obf]) == 2
    assert "--position is a finished game" in capsys.readouterr().err


def test_without_a_display_the_command_says_so_instead_of_hiding_the_window() -> None:
    """SDL falls back to an off-screen driver when there is no display: the
    game used to run there, invisible, until killed."""
    env = cli_env()
    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    proc = subprocess.run(
        [sys.executable, "-m", "outflank", "gui", "--ai", "none"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "no display to open the window on" in proc.stderr and "Traceback" not in proc.stderr
