"""The web app: play, review and analyse Othello in the browser.

``outflank serve`` runs :func:`outflank.web.app.create_app` on uvicorn. See
docs/web.md for the page and the API.
"""

from outflank.web.app import create_app

__all__ = ["create_app"]
