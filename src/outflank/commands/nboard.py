"""``outflank nboard``: be an NBoard-protocol engine on stdin/stdout."""

from __future__ import annotations

import argparse

from outflank.commands.common import add_threads_option
from outflank.errors import OutflankError
from outflank.levels import MAX_LEVEL, MIN_LEVEL, check_level
from outflank.nboard import NBoardServer
from outflank.players import player_specs_help
from outflank.threads import set_default_threads

NAME = "nboard"
HELP = "run as an engine for the NBoard GUI (NBoard protocol on stdin/stdout)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--level",
        type=int,
        default=None,
        metavar="N",
        help=f"engine level ({MIN_LEVEL}-{MAX_LEVEL}) used until the GUI sends 'set depth'"
        " (default: the default engine, 1 s a move)",
    )
    parser.add_argument(
        "--no-book",
        action="store_true",
        help="search every position (by default the opening book answers the positions it"
        " holds, with 'book' lines)",
    )
    parser.add_argument(
        "--player",
        default=None,
        metavar="SPEC",
        help=f"serve another player instead of the engine ({player_specs_help()})",
    )
    add_threads_option(parser, "every core this process may use")


def run(args: argparse.Namespace) -> int:
    if args.threads is not None:
        set_default_threads(args.threads)  # the engine's, or the --player's
    if args.level is not None:
        check_level(args.level, "--level")
    if args.player is not None:
        from outflank.players import make_player

        if args.player.strip().lower() == "human":  # it would read the protocol's stdin
            raise OutflankError("an NBoard engine cannot wait for a human player")
        make_player(args.player).close()  # fail now, with a clean error, on a bad spec
    return NBoardServer(player=args.player, level=args.level, book=not args.no_book).serve()
