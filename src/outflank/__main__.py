"""``python -m outflank`` runs the command-line interface."""

from outflank.cli import main

raise SystemExit(main())
