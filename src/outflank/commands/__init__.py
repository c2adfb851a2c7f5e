"""Sub-commands of the ``outflank`` command line, one module each.

A command module defines ``NAME``, ``HELP``, ``configure(parser)`` to add its
arguments and ``run(args) -> int`` returning the exit code. Add new modules to
``COMMANDS`` below.
"""

COMMANDS = [
    "outflank.commands.perft",
    "outflank.commands.solve",
    "outflank.commands.analyze",
    "outflank.commands.review",
    "outflank.commands.alphabeta",
    "outflank.commands.explain",
    "outflank.commands.play",
    "outflank.commands.nboard",
    "outflank.commands.tournament",
    "outflank.commands.replay",
    "outflank.commands.book",
    "outflank.commands.puzzle",
    "outflank.commands.gui",
    "outflank.commands.serve",
]
