"""The ``outflank`` command: one entry point for everything.

Each sub-command lives in :mod:`outflank.commands`. Bad input ends with a
one-line error on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from outflank import __version__
from outflank.commands import COMMANDS
from outflank.errors import OutflankError


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line, like every other error here
    (argparse prints the whole usage block first); ``--help`` still shows it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="outflank",
        description="Othello (Reversi): play, analyse, solve and learn alpha-beta search.",
    )
    parser.add_argument("--version", action="version", version=f"outflank {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS:
        module = importlib.import_module(module_name)
        sub = subparsers.add_parser(
            module.NAME,
            aliases=getattr(module, "ALIASES", ()),
            help=module.HELP,
            description=module.HELP,
        )
        module.configure(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        parser = build_parser()  # imports every command: a moment for a Ctrl-C
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args._run(args) or 0)
    except OutflankError as exc:
        print(f"outflank {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        # Point stdout at /dev/null so the interpreter's final flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file that cannot be read or written
        reason = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else exc
        print(f"outflank {args.command}: error: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
