"""Protocol v1's capture routes (issue #26): a kiosk sends a consented capture, or a withdrawal staff typed in.

A capture lands under the store of the token that sent it. Nothing here reads a capture back: no kiosk token
can fetch a capture's image (they are not on /v1/blobs, and HQ never makes a URL for them)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from nailmirror_hq import captures
from nailmirror_hq.api.v1 import Kiosk, _hq, _json
from nailmirror_protocol import paths
from nailmirror_protocol.shapes import CaptureReceipt, CaptureWithdrawReceipt

router = APIRouter()


@router.put(paths.CAPTURES + "/{code}")
async def put_capture(request: Request, code: str, body: dict[str, Any], kiosk: Kiosk) -> JSONResponse:
    hq = _hq(request)
    clean, status = await run_in_threadpool(captures.put_capture, hq.engine, hq.require_captures(),
                                            kiosk.store_id, kiosk.kiosk_id, code, body)
    answer: CaptureReceipt = {"nm": 1, "code": clean, "held": True}
    return _json(answer, status)


@router.post(paths.CAPTURES + "/{code}/withdraw")
def withdraw_capture(request: Request, code: str, kiosk: Kiosk) -> JSONResponse:
    hq = _hq(request)
    done = captures.withdraw(hq.engine, hq.require_captures(), code, f"kiosk:{kiosk.kiosk_id}")
    answer: CaptureWithdrawReceipt = {"nm": 1, "code": done.code, "withdrawn": True}
    return _json(answer)
