"""The web app's routes, one router a resource.

- :mod:`~outflank.web.routes.site`: the page, ``/game/{id}`` and ``/api/info``;
- :mod:`~outflank.web.routes.games`: make, list, read, set up and export games;
- :mod:`~outflank.web.routes.moves`: play, undo and redo;
- :mod:`~outflank.web.routes.analysis`: hints, evaluations and Learn mode;
- :mod:`~outflank.web.routes.puzzles`: the Puzzles page, solvers and answers;
- :mod:`~outflank.web.routes.socket`: the live game over a WebSocket.

Each module holds a ``router`` (a :class:`fastapi.APIRouter`) whose endpoints
reach the app's :class:`~outflank.web.service.GameService` through
:data:`~outflank.web.routes.common.Service`; a new resource is a new module
here, included by :func:`outflank.web.app.create_app`.
"""
