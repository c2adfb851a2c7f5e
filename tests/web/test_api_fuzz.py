"""The web API fuzzed from its own OpenAPI schema by Schemathesis.

A real ``outflank serve`` on a SQLite file; Schemathesis's command line
(``python -m schemathesis.cli run``, with ``tests/web/schemathesis.toml``)
reads the server's ``/openapi.json`` and sends every operation requests
made from the schema: boundary values and undeclared methods (the coverage
phase), random valid and invalid data (fuzzing), and sequences that follow
the schema's links from a new game to its moves, undos, hints, Learn
traces and exports (stateful). Every answer must be documented: no 5xx,
statuses, content types, headers and bodies as the schema says, invalid
requests refused with a 4xx, valid ones accepted. Then the server's log
must hold no traceback and no error.

The run is seeded and bounded (``OUTFLANK_FUZZ_EXAMPLES`` cases per
operation, 8 by default: some 900 requests in all); the long run of
docs/web.md sets it to 1000.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import cli_env
from web.conftest import stop_server, wait_server_up
from web.test_processes import _free_ports

CONFIG = Path(__file__).with_name("schemathesis.toml")
EXAMPLES = int(os.environ.get("OUTFLANK_FUZZ_EXAMPLES", "8"))
SEED = int(os.environ.get("OUTFLANK_FUZZ_SEED", "48"))


def test_every_answer_is_the_documented_one(tmp_path: Path) -> None:
    (port,) = _free_ports(1)
    log = tmp_path / "server.log"
    server = [sys.executable, "-m", "outflank", "serve", "--port", str(port)]
    server += ["--db", str(tmp_path / "games.db"), "--log-level", "info"]
    # AIs that think little and play slowly: the fuzzer makes many games
    server += ["--time-cap", "0.1", "--threads", "1", "--ai-workers", "1", "--ai-delay", "0.5"]
    server += ["--review-depth", "4", "--review-exact", "10"]  # quick reviews
    with log.open("wb") as out:
        proc = subprocess.Popen(server, env=cli_env(), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_server_up(proc, port, seconds=60)
        fuzz = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG)]
        fuzz += ["run", f"http://127.0.0.1:{port}/openapi.json", "--no-color"]
        fuzz += ["--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "1"]
        fuzz += ["--generation-database", "none", "--request-timeout", "30"]
        seconds = max(600, 10 * EXAMPLES)  # a long run takes its time
        done = subprocess.run(
            fuzz, cwd=tmp_path, capture_output=True, text=True, timeout=seconds, env=cli_env()
        )
    finally:
        stop_server(proc)
    report = done.stdout + done.stderr
    print(report[-1500:])  # the summary: pytest -rP shows it for a run that passed
    assert done.returncode == 0, report[-8000:]
    counted = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counted and counted[1] == counted[2] and int(counted[1]) > 100, report[-2000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):  # none skipped
        assert f"✅ {phase}" in report, report[-2000:]
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "ERROR" not in text, text[-4000:]
