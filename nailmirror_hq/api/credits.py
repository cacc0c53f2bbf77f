"""Protocol v1's credit routes: a kiosk uploads its settled ledger entries, one PUT per entry, idempotent by id.

The entry lands under the store of the token that sent it (a kiosk cannot write into another store's books)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from nailmirror_hq import clock, credits, db
from nailmirror_hq.api.v1 import Kiosk, _hq, _json
from nailmirror_protocol import paths
from nailmirror_protocol.shapes import LedgerEntryReceipt

router = APIRouter()


@router.put(paths.LEDGER_ENTRIES + "/{entry_id}")
def put_ledger_entry(request: Request, entry_id: str, body: dict[str, Any], kiosk: Kiosk) -> JSONResponse:
    with db.write(_hq(request).engine) as conn:
        created = credits.put_entry(conn, kiosk.store_id, kiosk.kiosk_id, entry_id, body)
    answer: LedgerEntryReceipt = {"nm": 1, "entry_id": entry_id, "received_at": clock.now_text()}
    return _json(answer, 201 if created else 200)
