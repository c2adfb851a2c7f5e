"""The README's library example runs as written."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT, cli_env


def test_readme_python_example_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "the README has no python example"
    proc = subprocess.run(
        [sys.executable, "-c", blocks[0]],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "['f4', 'd6', 'f6']" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "-12.0"


def test_readme_commands_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`outflank (\w+)", text))
    help_text = subprocess.run(
        [sys.executable, "-m", "outflank", "--help"],
        capture_output=True,
        text=True,
        env=cli_env(),
        check=True,
    ).stdout
    for name in names:
        assert name in help_text, f"README mentions `outflank {name}`, which does not exist"
