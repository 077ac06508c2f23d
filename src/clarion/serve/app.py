"""The app factory: ``create_app(config)`` builds the FastAPI app; its lifespan hook loads the models once.
:func:`from_environment` is the same factory for the processes of ``clarion serve --processes N`` (uvicorn imports
it by :data:`FACTORY` in each process, which then loads its own models).

Every page works offline: the chat and evaluation pages are files of this package, and the API documentation
(Swagger UI at ``/docs``) takes its script and style from the ``fastapi-offline`` package, served by the app itself,
never from a CDN. There is no ``/redoc``: ReDoc's bundle fetches its logo from the network."""

from __future__ import annotations

from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool

from clarion import __version__
from clarion.serve import api, evaluation, limits
from clarion.serve.config import ServeConfig
from clarion.serve.config import from_environment as config_from_environment
from clarion.serve.needs import NeedPool
from clarion.serve.services import BATCHED, Pool, Services, load_services
from clarion.serve.storage import EvalStore

STATIC = Path(str(files("clarion.serve") / "static"))
"""The page files (HTML, CSS, JavaScript), shipped in the package: the pages need no network."""

PAGES = {"/": "index.html", "/eval": "eval.html"}

FACTORY = "clarion.serve.app:from_environment"
"""The import string uvicorn's worker processes build the app from (``uvicorn.run(FACTORY, factory=True, ...)``)."""

DESCRIPTION = """Mixed-initiative conversational search: clarify, answer or stop (`/v1/converse`), ClariQ
clarifying questions (`/v1/clarify`), DSTC knowledge-grounded answers (`/v1/respond`), and the human-evaluation
records of the chat page at `/eval`. Every client mistake gets a 4xx with a one-line `detail`."""


def create_app(config: ServeConfig, services: Services | None = None) -> FastAPI:
    """The app for ``config``. Its models are loaded when it starts (the lifespan hook), unless ``services`` (already
    loaded models, e.g. small ones in tests) is given."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        state = app.state
        state.config = config
        state.store = EvalStore(config.db)
        state.pool = Pool(config.workers, config.threads)
        try:
            state.services = services if services is not None else await run_in_threadpool(load_services, config)
            state.needs = NeedPool(state.services.needs)
            state.clariq_models = state.services.clariq_models()  # read once: /health says it
            state.batchers = batchers(state.services, state.pool, config)
            yield
        finally:
            state.pool.shutdown()
            state.store.close()

    app = FastAPIOffline(
        title="clarion", version=__version__, description=DESCRIPTION, lifespan=lifespan, redoc_url=None
    )
    limits.install(app)
    app.include_router(api.router)
    app.include_router(evaluation.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for route, page in PAGES.items():
        app.add_api_route(route, _page(page), methods=["GET"], include_in_schema=False)
    return app


def from_environment() -> FastAPI:
    """The app of the settings ``clarion serve --processes N`` put in ``$CLARION_SERVE_CONFIG``
    (:func:`clarion.serve.config.from_environment`); its models load in its lifespan hook, in this process."""
    return create_app(config_from_environment())


def batchers(services: Services, pool: Pool, config: ServeConfig) -> dict:
    """A :class:`~clarion.serve.batching.Batcher` per loaded feature that takes batches (:data:`BATCHED`), running
    up to one batch per pool thread at once (while one batch holds the GIL in Python code, another runs in torch,
    LightGBM or numpy, which release it)."""
    from functools import partial

    from clarion.serve.batching import Batcher

    return {
        feature: Batcher(partial(services.batch, feature), pool.run, size=config.batch, lanes=config.workers)
        for feature in BATCHED
        if services.has(feature)
    }


def _page(name: str):
    async def page() -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    return page
