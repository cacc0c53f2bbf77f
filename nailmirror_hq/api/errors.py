"""Every error HQ answers has the protocol's body ({"nm": 1, "error": …}); FastAPI's own are rewritten to it."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from nailmirror_hq.errors import HQError
from nailmirror_protocol.errors import ErrorCode, error_body

NO_STORE = {"Cache-Control": "no-store"}


def error_response(error: HQError) -> JSONResponse:
    headers = dict(NO_STORE)
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    body: dict[str, Any] = dict(error_body(ErrorCode(error.code) if error.code in ErrorCode.__members__.values()
                                           else ErrorCode.BAD_REQUEST, error.message, error.details))
    body["error"] = str(error.code)
    return JSONResponse(body, status_code=error.status, headers=headers)


def install(app: FastAPI) -> None:
    @app.exception_handler(HQError)
    async def _hq_error(_request: Request, exc: HQError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()][:5]
        return error_response(HQError(400, ErrorCode.BAD_REQUEST, "; ".join(problems) or "bad request"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = ErrorCode.NOT_FOUND if exc.status_code == 404 else ErrorCode.BAD_REQUEST
        return error_response(HQError(exc.status_code, code, str(exc.detail)))
