"""clarion behind HTTP: the service, its web chat page and the human-evaluation records.

>>> from clarion.serve import ServeConfig, create_app          # doctest: +SKIP
>>> app = create_app(ServeConfig(db="ratings.sqlite"))          # doctest: +SKIP  (run it with uvicorn)

The app is built by :func:`create_app` (no module-level app); its models are loaded once, in the lifespan hook,
and every model call runs off the event loop in a bounded thread pool. Conversations are stateless (the client
sends the history); only the evaluation sessions, turns and ratings are stored, in SQLite
(:mod:`clarion.serve.storage`). FastAPI is imported only when an app is built: ``import clarion.serve`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarion.serve.config import ServeConfig

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

__all__ = ["ServeConfig", "create_app"]


def create_app(config: ServeConfig, services=None) -> FastAPI:
    """The FastAPI app for ``config`` (see :func:`clarion.serve.app.create_app`)."""
    from clarion.serve.app import create_app as build

    return build(config, services)
