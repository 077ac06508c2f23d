"""Client mistakes get a 4xx with a one-line reason (``{"detail": "..."}``), never a 500, and the server goes on.

- a body over :data:`~clarion.serve.config.MAX_BODY_BYTES`: 413, refused by :class:`BodyLimit` before the app sees
  it (by its Content-Length, or as soon as a streamed body passes the limit);
- malformed JSON: 400; a body that does not fit the endpoint's schema: 422 naming the field;
- :class:`~clarion.errors.InputError` raised by a model: 422 (:class:`~clarion.serve.storage.NotFound` 404,
  :class:`~clarion.serve.storage.Conflict` 409); any other :class:`~clarion.errors.ClarionError`: 400;
- an endpoint whose model this server did not load, an evaluation database other writers kept locked
  (:class:`~clarion.serve.storage.Busy`): 503.
"""

from __future__ import annotations

import json
import logging

from clarion.errors import ClarionError, InputError
from clarion.serve.config import MAX_BODY_BYTES
from clarion.serve.storage import Busy, Conflict, NotFound

log = logging.getLogger("clarion.serve")

STATUS: dict[type[ClarionError], int] = {NotFound: 404, Conflict: 409, InputError: 422, ClarionError: 400}
"""HTTP status of each error class (the most specific listed class of an error wins)."""


class NotLoaded(ClarionError):
    """The endpoint's model is not loaded by this server."""


STATUS[NotLoaded] = 503
STATUS[Busy] = 503


def status_of(err: ClarionError) -> int:
    for kind in type(err).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


async def _send_error(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 (the body is read at most to the limit, then
    replayed to the app)."""

    def __init__(self, app, limit: int = MAX_BODY_BYTES):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        too_big = f"request body over {self.limit:,} bytes"
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _send_error(send, 413 if declared.isdigit() else 400, too_big)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            size += len(message.get("body", b""))
            if size > self.limit:
                return await _send_error(send, 413, too_big)
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body, replayed = b"".join(chunks), False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def one_line(errors: list[dict]) -> tuple[int, str]:
    """The status and one-line reason for pydantic's validation ``errors`` (the first one, naming its field)."""
    first = errors[0]
    if first.get("type") == "json_invalid":
        reason = first.get("ctx", {}).get("error", "invalid JSON")
        return 400, f"malformed JSON: {reason}"
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    message = first.get("msg", "invalid value").removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return 422, f"{where}: {message}{more}".replace("\n", " ")


def install(app) -> None:
    """The body limit and the error handlers on ``app``."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    async def invalid(request, err: RequestValidationError):
        status, detail = one_line(list(err.errors()))
        return JSONResponse({"detail": detail}, status_code=status)

    @app.exception_handler(ClarionError)
    async def refused(request, err: ClarionError):
        return JSONResponse({"detail": str(err).replace("\n", " ")}, status_code=status_of(err))

    @app.exception_handler(HTTPException)
    async def http_error(request, err: HTTPException):
        return JSONResponse({"detail": str(err.detail)}, status_code=err.status_code, headers=err.headers)

    @app.exception_handler(Exception)
    async def failed(request, err: Exception):
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": f"internal error ({type(err).__name__})"}, status_code=500)
