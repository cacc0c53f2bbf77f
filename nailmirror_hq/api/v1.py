"""Protocol v1 routes (shared/reference/catalog_sync.md §4; shapes in nailmirror_protocol.shapes).

Sync handlers (def, not async) run in the server's thread pool, each with its own short transaction.
Reads never take the writer lock; only enroll (with a code that may enroll), hello (last_seen_at), blob uploads
and draft PUTs write.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from nailmirror_hq import (
    catalog,
    clock,
    db,
    drafts,
    feed,
    fleet,
    inbox,
    keys,
    meta,
    metrics,
    model_releases,
    stores,
)
from nailmirror_hq.api import observe
from nailmirror_hq.api.errors import NO_STORE
from nailmirror_hq.blob_access import BlobAccess
from nailmirror_hq.blobs.base import HashMismatch, PutResult
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.images import MEDIA_TYPES, probe
from nailmirror_hq.schema import blob
from nailmirror_hq.service import HQ
from nailmirror_hq.throttle import Doors, client_address, retry_after_header
from nailmirror_protocol import FEED_FORMAT, SUPPORTED_PROTOCOLS, paths, wire
from nailmirror_protocol.canonical import is_sha256_hex
from nailmirror_protocol.cursor import CursorError, parse_cursor
from nailmirror_protocol.errors import ErrorCode, ResetReason
from nailmirror_protocol.shapes import (
    BlobPutResponse,
    BlobsMissingResponse,
    ChangesPage,
    DraftRevisionReceipt,
    EnrollResponse,
    Hello,
    InboxPage,
    RotateResponse,
    Snapshot,
    SyncReportReceipt,
)

BLOB_MAX_BYTES = 8 * 1024 * 1024
MIN_KIOSK_VERSION = "0.1.0"
POLL_INTERVAL_S = 300
BLOB_SPREAD_S = 1800
BLOB_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable", "Accept-Ranges": "bytes"}
log = logging.getLogger(__name__)


def _hq(request: Request) -> HQ:
    hq: HQ = request.app.state.hq
    return hq


def _kiosk(request: Request, authorization: Annotated[str | None, Header()] = None) -> stores.Kiosk:
    token = None
    if authorization and authorization[:7].lower() == "bearer ":
        token = authorization[7:].strip()
    with db.read(_hq(request).engine) as conn:
        return stores.authenticate(conn, token)


Kiosk = Annotated[stores.Kiosk, Depends(_kiosk)]
router = APIRouter()


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={**NO_STORE, **(headers or {})})


def _reset(reason: ResetReason, message: str) -> HQError:
    return HQError(410, ErrorCode.CURSOR_EXPIRED, message,
                   {"reason": str(reason), "snapshot": paths.CATALOG_SNAPSHOT})


def _feed_of(kiosk: stores.Kiosk) -> None:
    """410 when the kiosk's cursor belongs to another feed than the one it would now page: its store moved to
    another channel, or HQ's feed carries change types the kiosk has not had from a snapshot (R8)."""
    if kiosk.feed_channel is not None and kiosk.feed_channel != kiosk.feed:
        if kiosk.feed_channel.lstrip(feed.CANARY_PREFIX) == kiosk.channel:  # a canary feed and its channel's
            raise _reset(ResetReason.CHANNEL_CHANGED, f"this store {'joined' if kiosk.canary else 'left'} the "
                                                      f"canary set of channel {kiosk.channel}")
        raise _reset(ResetReason.CHANNEL_CHANGED,
                     f"this store moved from channel {kiosk.feed_channel} to {kiosk.channel}")
    if kiosk.feed_format is not None and kiosk.feed_format < FEED_FORMAT:
        raise _reset(ResetReason.PROTOCOL_UPGRADED,
                     f"HQ's feed is at format {FEED_FORMAT}, this cursor is from format {kiosk.feed_format}")


def _since(text: str | None, epoch: str, head_seq: int, min_seq: int) -> int:
    """The seq to page from, or 410 for a cursor HQ can no longer serve (each reason means: snapshot)."""
    if text is None:
        raise HQError(400, ErrorCode.BAD_CURSOR, "since is required (a kiosk without a cursor starts with "
                                                 "the snapshot)")
    try:
        cursor = parse_cursor(text)
    except CursorError as exc:
        raise HQError(400, ErrorCode.BAD_CURSOR, str(exc)) from None
    if cursor.epoch != epoch:
        raise _reset(ResetReason.EPOCH_CHANGED, f"cursor {text} is from another epoch (HQ is at {epoch})")
    if cursor.seq > head_seq:
        raise _reset(ResetReason.AHEAD_OF_SERVER, f"cursor {text} is ahead of HQ ({epoch}.{head_seq})")
    if cursor.seq < min_seq:
        raise _reset(ResetReason.COMPACTED, f"cursor {text} is below the retention horizon ({epoch}.{min_seq})")
    return cursor.seq


@router.post(paths.ENROLL, status_code=201)
def enroll(request: Request, body: dict[str, Any]) -> JSONResponse:
    """The throttle first (a locked address is answered without a look at its code), then a read: only a code
    that may enroll takes HQ's single writer, where it is checked again and used."""
    doors: Doors = request.app.state.doors
    address = client_address(request)
    wait = doors.enroll_address.retry_after(address)
    if wait > 0:
        seconds = retry_after_header(wait)
        log.warning("enrollment throttled: %s, %d s left", address, seconds)
        observe.of(request).inc(metrics.THROTTLED, door="enroll")
        raise HQError(429, ErrorCode.TOO_MANY_ATTEMPTS,
                      f"too many wrong enrollment codes from this address; try again in {seconds} s",
                      retry_after=seconds)
    code = body.get("code")
    if not isinstance(code, str) or not code.strip():
        raise HQError(400, ErrorCode.ENROLL_CODE_INVALID, "code is required")
    hq = _hq(request)
    with db.read(hq.engine) as conn:
        check = stores.check_enroll_code(conn, code)
    if check.problem is not None:
        lock = doors.enroll_address.failed(address)
        observe.of(request).inc(metrics.FAILED_LOGINS, door="enroll")
        log.log(logging.WARNING if lock > 0 else logging.INFO, "enrollment refused: %s code%s from %s%s",
                check.problem, f" of store {check.store_id}" if check.store_id else "", address,
                f"; locked for {retry_after_header(lock)} s" if lock > 0 else "")
        raise check.refusal()
    with db.write(hq.engine) as conn:
        kiosk, token = stores.enroll(conn, code, str(body.get("kiosk_name") or ""), str(body.get("app_version") or ""))
        key = keys.announced(conn)  # the kiosk pins HQ's key now (issue #27 §5)
    answer: EnrollResponse = {"nm": 1, "store_id": kiosk.store_id, "kiosk_id": kiosk.kiosk_id, "token": token,
                              "channel": kiosk.channel, "hq_time": clock.now_text(), **key}  # type: ignore[typeddict-item]
    return _json(answer, 201)


@router.post(paths.AUTH_ROTATE)
def rotate_token(request: Request, kiosk: Kiosk,
                 authorization: Annotated[str | None, Header()] = None) -> JSONResponse:
    presented = (authorization or "")[7:].strip()
    with db.write(_hq(request).engine) as conn:
        token, until = stores.rotate(conn, kiosk, presented)
    answer: RotateResponse = {"nm": 1, "kiosk_id": kiosk.kiosk_id, "token": token, "old_valid_until": until}
    return _json(answer)


@router.get(paths.HELLO)
def hello(request: Request, kiosk: Kiosk) -> JSONResponse:
    hq = _hq(request)
    with db.write(hq.engine) as conn:
        stores.touch(conn, kiosk.kiosk_id)
        epoch = meta.epoch(conn)
        name = fleet.name_for_hello(conn, kiosk.kiosk_id)
        requests = fleet.for_hello(conn, kiosk.kiosk_id)
        key = keys.announced(conn)  # read each time: a rotation by another HQ process shows at once
    answer: Hello = {
        "nm": 1, "store_id": kiosk.store_id, "kiosk_id": kiosk.kiosk_id, "channel": kiosk.channel,
        "hq_time": clock.now_text(), "epoch": epoch, "protocols": list(SUPPORTED_PROTOCOLS),
        "min_kiosk_version": MIN_KIOSK_VERSION, "poll_interval_s": POLL_INTERVAL_S, "backoff_s": 0,
        "blob_spread_s": BLOB_SPREAD_S,
        "store_time_zone": kiosk.time_zone,
        "limits": {"page_max": paths.PAGE_MAX, "blob_max_bytes": BLOB_MAX_BYTES,
                   "draft_max_assets": drafts.DRAFT_MAX_ASSETS, "drafts_per_day": drafts.DRAFTS_PER_DAY},
        "capabilities": {
            "inbox_events": list(inbox.EVENT_TYPES),
            "ledger_upload": {"path": paths.LEDGER_ENTRIES + "/{entry_id}", "method": "PUT", "status": "available"},
            "reserved": [],
        },
        "kiosk_name": name, "fleet_requests": requests, **key,  # type: ignore[typeddict-item]
    }
    return _json(answer)


@router.get(paths.CATALOG_CHANGES)
def changes(request: Request, kiosk: Kiosk, since: str | None = None,
            limit: Annotated[int, Query(ge=1, le=paths.PAGE_MAX)] = paths.PAGE_MAX) -> JSONResponse:
    with db.read(_hq(request).engine) as conn:
        epoch = meta.epoch(conn)
        head = feed.head(conn, kiosk.feed)
        if head is None:
            raise not_found(f"channel {kiosk.channel}")
        _feed_of(kiosk)  # first: the cursor's seq means nothing on another feed (not even "ahead")
        start = _since(since, epoch, head.head_seq, head.min_seq)
        items, has_more = feed.page(conn, kiosk.feed, start, limit)
        observe.of(request).observe(metrics.FEED_PAGE, len(items))
        last = items[-1]["seq"] if items else start
        answer: ChangesPage = {"nm": 1, "epoch": epoch, "has_more": has_more, "next": f"{epoch}.{last}",
                               "changes": items}
        if not has_more:
            answer["state"] = feed.state(conn, epoch, kiosk.feed, head.head_seq)
    return _json(answer)


@router.get(paths.CATALOG_SNAPSHOT)
def snapshot(request: Request, kiosk: Kiosk,
             if_none_match: Annotated[str | None, Header()] = None) -> Response:
    with db.read(_hq(request).engine) as conn:  # one read transaction: the live set and the cursor agree
        epoch = meta.epoch(conn)
        head = feed.head(conn, kiosk.feed)
        if head is None:
            raise not_found(f"channel {kiosk.channel}")
        cursor = f"{epoch}.{head.head_seq}"
        etag = f'"{cursor}"'
        headers = {"ETag": etag, "Cache-Control": "private, no-cache"}
        same_feed = (kiosk.feed_channel, kiosk.feed_format) == (kiosk.feed, FEED_FORMAT)
        # The ETag names a cursor, not a channel: a kiosk that moved gets the full body even if seqs coincide.
        if same_feed and if_none_match and etag in [t.strip() for t in if_none_match.split(",")]:
            return Response(status_code=304, headers=headers)
        answer: Snapshot = {
            "nm": 1, "epoch": epoch, "cursor": cursor, "generated_at": clock.now_text(),
            "categories": [body for _, _, body in feed.live(conn, kiosk.feed, "category")],  # type: ignore[misc]
            "tags": [body for _, _, body in feed.live(conn, kiosk.feed, "tag")],  # type: ignore[misc]
            "styles": [{"id": i, "version": v, "style": b}  # type: ignore[typeddict-item]
                       for i, v, b in feed.live(conn, kiosk.feed, "style")],
            "state": feed.state(conn, epoch, kiosk.feed, head.head_seq),
        }
        models = model_releases.live_models(conn, kiosk.feed)
        if models:  # a kiosk resyncing from a snapshot keeps its release (an older kiosk skips the field)
            answer["models"] = models
        observe.of(request).observe(metrics.SNAPSHOT_STYLES, len(answer["styles"]))
    # After the read: the kiosk's next cursor is for this channel's feed. Only a kiosk that moved or upgraded
    # takes the writer lock; the steady-state snapshot stays a pure read.
    if not same_feed:
        with db.write(_hq(request).engine) as conn:
            stores.record_snapshot(conn, kiosk)
    return JSONResponse(answer, headers=headers)


@router.get(paths.INBOX)
def inbox_page(request: Request, kiosk: Kiosk, since: str | None = None,
               limit: Annotated[int, Query(ge=1, le=paths.PAGE_MAX)] = paths.PAGE_MAX) -> JSONResponse:
    with db.read(_hq(request).engine) as conn:
        epoch = meta.epoch(conn)
        head_seq = inbox.head(conn, kiosk.store_id)
        start = _since(since if since is not None else f"{epoch}.0", epoch, head_seq, 0)
        events, has_more = inbox.page(conn, kiosk.store_id, start, limit)
    last = events[-1]["seq"] if events else start
    answer: InboxPage = {"nm": 1, "epoch": epoch, "has_more": has_more, "next": f"{epoch}.{last}",
                         "events": events}
    return _json(answer)


@router.get("/v1/blobs/{sha256}")
def get_blob(request: Request, sha256: str, kiosk: Kiosk) -> Response:
    hq = _hq(request)
    if not is_sha256_hex(sha256):
        raise HQError(400, ErrorCode.BAD_REQUEST, "a blob is named by its lower-case sha256")
    access: BlobAccess = request.app.state.blob_access
    with db.read(hq.engine) as conn:
        row = conn.execute(blob.select().where(blob.c.sha256 == sha256)).one_or_none()
        # Another store's draft image is answered as if HQ had no such blob: no hint that it exists.
        if row is not None and not access.may_fetch(conn, sha256, kiosk.store_id, row.created_at):
            row = None
    if row is None:
        raise not_found(f"blob {sha256}")
    local = hq.blobs.local_path(sha256)
    headers = {**BLOB_HEADERS, "ETag": f'"{sha256}"'}
    if local is not None:
        return FileResponse(local, media_type=MEDIA_TYPES.get(row.format, "application/octet-stream"),
                            headers=headers)
    url = hq.blobs.url_for(sha256)
    if url is None:
        raise not_found(f"blob {sha256}")
    # The kiosk follows this by hand and never sends its token to another host.
    return RedirectResponse(url, status_code=307, headers={"Cache-Control": "no-store"})


@router.post(paths.BLOBS_MISSING)
def blobs_missing(request: Request, body: dict[str, Any], _kiosk: Kiosk) -> JSONResponse:
    wanted = body.get("sha256")
    if not isinstance(wanted, list) or len(wanted) > 1000 or not all(is_sha256_hex(s) for s in wanted):
        raise HQError(400, ErrorCode.BAD_REQUEST, "sha256 must be a list of at most 1000 lower-case hashes")
    with db.read(_hq(request).engine) as conn:
        have = set(conn.execute(blob.select().with_only_columns(blob.c.sha256)
                                .where(blob.c.sha256.in_(wanted))).scalars())
    answer: BlobsMissingResponse = {"nm": 1, "missing": [s for s in dict.fromkeys(wanted) if s not in have]}
    return _json(answer)


@router.put("/v1/blobs/{sha256}")
async def put_blob(request: Request, sha256: str, kiosk: Kiosk) -> JSONResponse:
    hq = _hq(request)
    if not is_sha256_hex(sha256):
        raise HQError(400, ErrorCode.BAD_REQUEST, "a blob is named by its lower-case sha256")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > BLOB_MAX_BYTES:
        raise HQError(413, ErrorCode.BLOB_TOO_LARGE, f"over {BLOB_MAX_BYTES} bytes")
    digest, size, head = hashlib.sha256(), 0, b""
    fd, tmp = tempfile.mkstemp(prefix="nm-hq-upload-")
    try:
        with os.fdopen(fd, "wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > BLOB_MAX_BYTES:
                    raise HQError(413, ErrorCode.BLOB_TOO_LARGE, f"over {BLOB_MAX_BYTES} bytes")
                if len(head) < 65536:
                    head += chunk[:65536 - len(head)]
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != sha256:
            raise HQError(400, ErrorCode.HASH_MISMATCH, "the bytes do not hash to the name",
                          {"computed": digest.hexdigest()})
        info = probe(head)
        if info is None:
            raise HQError(415, ErrorCode.MEDIA_TYPE_NOT_ALLOWED, "only PNG, JPEG and WebP images")
        status = await run_in_threadpool(_store_upload, hq, sha256, Path(tmp), size, info.format, info.width,
                                         info.height)
    except OSError as exc:
        if exc.errno == 28:  # ENOSPC
            raise HQError(507, ErrorCode.STORAGE_FULL, "HQ's blob store is full", retry_after=600) from None
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    answer: BlobPutResponse = {"nm": 1, "sha256": sha256, "size": size}
    return _json(answer, status)


def _store_upload(hq: HQ, sha256: str, path: Path, size: int, fmt: str, width: int, height: int) -> int:
    try:
        result = hq.blobs.put_verified(sha256, path)
    except HashMismatch as exc:  # the S3 store refused the bytes on its own check
        raise HQError(400, ErrorCode.HASH_MISMATCH, "the bytes do not hash to the name",
                      {"computed": exc.computed}) from None
    with db.write(hq.engine) as conn:
        existed = conn.execute(blob.select().where(blob.c.sha256 == sha256)).first() is not None
        catalog.record_blob(conn, sha256, size, fmt, width, height)
    return 200 if existed or result is PutResult.EXISTED else 201


@router.put("/v1/drafts/{draft_id}/revisions/{rev}")
def put_draft_revision(request: Request, draft_id: str, rev: int, body: dict[str, Any],
                       kiosk: Kiosk) -> JSONResponse:
    with db.write(_hq(request).engine) as conn:
        revision, created = drafts.put_revision(conn, kiosk.store_id, kiosk.kiosk_id, draft_id, rev, body)
    answer: DraftRevisionReceipt = {"nm": 1, "draft_id": revision.draft_id, "rev": revision.rev,
                                    "state": revision.state, "received_at": revision.received_at}  # type: ignore[typeddict-item]
    return _json(answer, 201 if created else 200)


@router.put(paths.SYNC_REPORT)
def put_sync_report(request: Request, body: dict[str, Any], kiosk: Kiosk) -> JSONResponse:
    """The kiosk's latest sync report (failed downloads, fleet health, answers to fleet requests): every field
    optional, unknown ones left out, a known one of the wrong shape refused (400). The last one per kiosk is kept
    (`nailmirror-hq kiosks list`, the fleet page); each answer closes its request (fleet.record_results)."""
    try:
        report = wire.read_sync_report(body)
    except wire.WireError as exc:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"sync report: {exc}") from None
    with db.write(_hq(request).engine) as conn:
        received = stores.save_sync_report(conn, kiosk.kiosk_id, report)
        fleet.record_results(conn, kiosk.kiosk_id, report.get("fleet_results", []))
    answer: SyncReportReceipt = {"nm": 1, "kiosk_id": kiosk.kiosk_id, "received_at": received}
    return _json(answer)


@router.get(paths.HEALTHZ)
def healthz(request: Request) -> JSONResponse:
    try:
        with db.read(_hq(request).engine) as conn:
            epoch = meta.epoch(conn)
    except Exception as exc:  # the load balancer only needs to know this process cannot serve
        return _json({"nm": 1, "status": "unavailable", "error": type(exc).__name__}, 503)
    return _json({"nm": 1, "status": "ok", "epoch": epoch})


