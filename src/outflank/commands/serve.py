"""``outflank serve``: the web app (play in the browser, games saved in a database)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import socket
from typing import Any

from outflank.commands.common import threads_argument
from outflank.errors import OutflankError
from outflank.review import ReviewError, ReviewSettings

NAME = "serve"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
HELP = "play in the browser: run the web app (games are saved in a database)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    parser.add_argument(
        "--db",
        default="outflank.db",
        metavar="PATH_OR_URL",
        help="SQLite file, or any SQLAlchemy URL such as postgresql://... (./outflank.db)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes on one port (1); more than one needs a PostgreSQL --db",
    )
    parser.add_argument(
        "--ai-workers", type=int, default=2, help="threads that search AI moves (2)"
    )
    parser.add_argument(
        "--threads",
        type=threads_argument,
        default=None,
        metavar="N",
        help="threads per AI search (default: the cores shared out between the"
        " --ai-workers searches that may run at once)",
    )
    parser.add_argument(
        "--ai-delay",
        type=float,
        default=0.4,
        help="seconds between the moves of two AIs playing each other (0.4)",
    )
    parser.add_argument(
        "--time-cap", type=float, default=10.0, help="upper bound of any one search, seconds (10)"
    )
    parser.add_argument(
        "--ai-games-per-client",
        type=int,
        default=3,
        metavar="N",
        help="games of AI against AI one client address may have playing at once (3)",
    )
    defaults = ReviewSettings()
    parser.add_argument(
        "--review-depth",
        type=int,
        default=defaults.depth,
        metavar="N",
        help=f"plies of a game review's midgame searches ({defaults.depth})",
    )
    parser.add_argument(
        "--review-exact",
        type=int,
        default=defaults.exact,
        metavar="E",
        help=f"a game review solves exactly from E empties on ({defaults.exact}), and further"
        " back while the solver answers in time",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        type=str.lower,
        choices=LOG_LEVELS,
        help="uvicorn log level (warning)",
    )


def _check_port(host: str, port: int) -> None:
    """Fail with one clear line when the address cannot be listened on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise OutflankError(f"cannot listen on {host}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise OutflankError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise OutflankError(f"port must be in 0..65535, not {args.port}")
    if args.ai_workers < 1:
        raise OutflankError("--ai-workers must be at least 1")
    if not (math.isfinite(args.ai_delay) and args.ai_delay >= 0):
        raise OutflankError(f"--ai-delay must be a number of seconds >= 0, not {args.ai_delay}")
    if not (math.isfinite(args.time_cap) and args.time_cap > 0):
        raise OutflankError(f"--time-cap must be a number of seconds > 0, not {args.time_cap}")
    if args.ai_games_per_client < 0:
        raise OutflankError("--ai-games-per-client must be 0 or more")
    if args.workers < 1:
        raise OutflankError("--workers must be at least 1")
    try:
        review = ReviewSettings(depth=args.review_depth, exact=args.review_exact)
    except ReviewError as exc:
        raise OutflankError(f"--review-{str(exc).replace('_', '-')}") from None
    import uvicorn

    from outflank.web.middleware import MAX_BODY
    from outflank.web.storage import is_shared

    if args.workers > 1 and not is_shared(args.db):
        raise OutflankError(
            f"--workers {args.workers} needs a PostgreSQL database (--db postgresql://...):"
            " a SQLite file takes one server process"
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    options = {
        "db_url": args.db,
        "ai_workers": args.ai_workers,
        "ai_delay": args.ai_delay,
        "time_cap": args.time_cap,
        "ai_games_per_client": args.ai_games_per_client,
        "threads": args.threads,
        "quiet_gc": True,  # this process serves and nothing else
        "review_settings": {"depth": review.depth, "exact": review.exact},
    }
    # a bad database is told at once, before any process starts
    app = _open(options) if args.workers == 1 else _check_database(args.db)
    _check_port(args.host, args.port)
    print(
        f"outflank: serving on http://{args.host}:{args.port}/ (database: {args.db}"
        + (f", {args.workers} processes" if args.workers > 1 else "")
        + ")",
        flush=True,
    )
    common: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": args.log_level,
        "timeout_keep_alive": 30,
        "timeout_graceful_shutdown": 3,  # long polls and sockets must not hold a stop
        "ws_max_size": MAX_BODY,  # a bigger WebSocket frame closes the socket (1009), unread
    }
    if args.workers > 1:
        # N processes on one listening socket, each its own app (uvicorn
        # starts them and replaces one that dies); they meet in the database
        os.environ[_OPTIONS] = json.dumps(options)
        factory = f"{__name__}:app_from_environment"
        uvicorn.run(factory, factory=True, workers=args.workers, **common)
        return 0
    uvicorn.run(app, **common)
    return 0


_OPTIONS = "OUTFLANK_SERVE_OPTIONS"


def _open(options: dict[str, Any]) -> Any:
    """The web app on its database; OutflankError (one line) if it cannot open."""
    from outflank.web.app import create_app

    try:
        return create_app(options["db_url"], **{k: v for k, v in options.items() if k != "db_url"})
    except Exception as exc:  # a bad URL, an unwritable file...
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise OutflankError(f"cannot open the database {options['db_url']!r}: {reason}") from None


def _check_database(url: str) -> None:
    """Open the database (making its tables) and close it; OutflankError if it cannot."""
    from outflank.web.storage import Storage

    try:
        Storage(url).close()
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise OutflankError(f"cannot open the database {url!r}: {reason}") from None


def app_from_environment() -> Any:
    """The app of one process of ``serve --workers N`` (uvicorn's factory):
    the options come from the parent through the environment."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return _open(json.loads(os.environ[_OPTIONS]))
