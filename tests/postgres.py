"""A real PostgreSQL server for the tests: Debian's ``postgresql`` package,
a throw-away cluster made by ``initdb`` in a temporary folder, started by
``pg_ctl`` on a free loopback port, stopped and deleted at the end.

PostgreSQL refuses to run as root; as root the cluster belongs to the
``postgres`` user (which Debian's package creates) and its programs run
through ``runuser``. Where the programs are missing a test that needs them
is skipped, but fails when ``CI`` is set: CI installs the package.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "find_bin", "running_postgres"]


def find_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (the newest installed version)."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A running cluster: ``url(name)`` is a SQLAlchemy URL of one database."""

    bin: Path
    data: Path
    port: int
    user: str
    runas: list[str]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        dsn = f"host=127.0.0.1 port={self.port} user={self.user} dbname=postgres"
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        subprocess.run(
            [
                *self.runas,
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            check=False,
            cwd=self.data.parent,
        )


def _runas() -> tuple[list[str], str]:
    """The prefix that runs PostgreSQL's programs as a user allowed to, and that user."""
    if os.geteuid() != 0:
        return [], pwd.getpwuid(os.geteuid()).pw_name
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.fail(
            "running as root, PostgreSQL needs the 'postgres' user (apt-get install postgresql)"
        )
    return ["runuser", "-u", "postgres", "--"], "postgres"


@contextlib.contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """Start a fresh cluster (see the module's docstring); stop and delete it after."""
    bin_dir = find_bin()
    if bin_dir is None:
        message = "PostgreSQL's initdb/pg_ctl not found (apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    runas, user = _runas()
    root = Path(tempfile.mkdtemp(prefix="outflank-pg-"))
    data = root / "data"
    try:
        os.chmod(root, 0o755)
        if runas:
            shutil.chown(root, user="postgres")
        init = subprocess.run(
            [
                *runas,
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                user,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            cwd=root,
        )
        if init.returncode:
            pytest.fail(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        port = _free_port()
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        start = subprocess.run(
            [
                *runas,
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(root / "server.log"),
                "-w",
                "-t",
                "60",
                "start",
            ],
            capture_output=True,
            text=True,
            cwd=root,
        )
        if start.returncode:
            log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
            pytest.fail(f"PostgreSQL did not start: {start.stderr.strip()} {log[-500:]}")
        server = PostgresServer(bin_dir, data, port, user, runas)
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
