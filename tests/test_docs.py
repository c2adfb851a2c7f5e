"""What README.md and docs/*.md show runs as written.

Every ```python block runs in a fresh interpreter (in a temporary folder),
except one the page marks ``<!-- not run: <why> -->`` on the line before it
(pseudocode, a pattern with names of your own, a program not installed);
every import the pages show, in a block or in running text
(`from outflank import opening_name`), is made, run or not.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, cli_env

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\n$")
IMPORT_LINE = re.compile(r"^\s*((?:from\s+\S+\s+)?import\s+[^#]+?)\s*(?:#.*)?$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """A python code block of a page."""

    page: Path
    line: int
    code: str
    not_run: str | None  # why the page does not want it run

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        before = text[: match.start()]
        reason = NOT_RUN.search(before)
        line = before.count("\n") + 1
        found.append(Block(page, line, match.group(1), reason.group(1) if reason else None))
    return found


def imports(block: Block) -> list[str]:
    """The import statements of a block (of its lines, if it is not Python)."""
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return [m.group(1) for m in IMPORT_LINE.finditer(block.code)]
    return [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def inline_imports(page: Path) -> list[str]:
    """Imports of outflank in a page's running text: `from outflank... import ...`."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL | re.M)
    return re.findall(r"`((?:from|import) outflank[^`]*)`", text)


ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]
RUN = [block for block in ALL_BLOCKS if block.not_run is None]
IMPORTS = sorted(
    {(block.name, statement) for block in ALL_BLOCKS for statement in imports(block)}
    | {(str(page.relative_to(ROOT)), line) for page in PAGES for line in inline_imports(page)}
)


Ran = subprocess.CompletedProcess[str]


def run(code: str, cwd: Path) -> Ran:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=cwd,
        timeout=300,
    )


def test_pages_have_examples() -> None:
    assert len(RUN) >= 8 and len(IMPORTS) >= 20
    assert all(block.not_run.strip() for block in ALL_BLOCKS if block.not_run is not None)


@pytest.mark.parametrize(("where", "statement"), IMPORTS, ids=[f"{w}: {s}" for w, s in IMPORTS])
def test_doc_imports(where: str, statement: str) -> None:
    if not re.match(r"(from|import) outflank\b", statement):
        return  # the standard library's, and the pages' other programs'
    try:
        exec(statement, {})
    except ImportError as exc:
        pytest.fail(f"{where} shows `{statement}`, which fails: {exc}")


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Block], Ran]:
    """A block's run, each block run once (in a folder of its own)."""
    done: dict[str, Ran] = {}

    def get(block: Block) -> Ran:
        if block.name not in done:
            done[block.name] = run(block.code, tmp_path_factory.mktemp("block"))
        return done[block.name]

    return get


@pytest.mark.parametrize("block", RUN, ids=[block.name for block in RUN])
def test_doc_block_runs(block: Block, outcome: Callable[[Block], Ran]) -> None:
    proc = outcome(block)
    assert proc.returncode == 0, f"{block.name}:\n{proc.stderr}"


def test_readme_example_prints_what_it_says(outcome: Callable[[Block], Ran]) -> None:
    proc = outcome(blocks(ROOT / "README.md")[0])
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
