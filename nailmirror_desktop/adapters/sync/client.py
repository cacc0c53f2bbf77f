"""HttpHq: core/sync's HqPort over the kiosk's own HTTP exchange (adapters/http/client.py: timeouts, a total
deadline, body caps, no retries — the task engine retries).

Every request carries `Authorization: Bearer <token>` and `NM-Protocol: 1`. A 2xx JSON body without `"nm": 1`
(a captive portal's login page, a proxy's error page) is OFFLINE, never applied. HQ's error bodies map to
core/sync's faults by status and code; the token never appears in a message.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.parse
from pathlib import Path
from typing import Any, cast

from nailmirror_desktop.adapters.http.client import HttpAnswer, Timeouts, exchange, json_body, parse_json
from nailmirror_desktop.adapters.sync.blobs import CLOCK_SIGNS, UNTRUSTED_SIGN, fetch_resumable, untrusted
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_protocol import PROTOCOL_VERSION, paths, wire
from nailmirror_protocol.shapes import (
    CaptureReceipt,
    CaptureUpload,
    CaptureWithdrawReceipt,
    ChangesPage,
    DraftRevision,
    DraftRevisionReceipt,
    EnrollResponse,
    Hello,
    InboxPage,
    LedgerEntryReceipt,
    LedgerEntryUpload,
    RotateResponse,
    Snapshot,
    SyncReport,
)

JSON_MAX_BYTES = 64 * 1024 * 1024  # a 5,000-style snapshot is a few MB; this only stops a runaway answer
DEFAULT_TIMEOUTS = Timeouts(connect_s=5.0, read_s=30.0)
USER_AGENT = "NailMirror-kiosk"
log = logging.getLogger(__name__)


def _retry_after(answer: HttpAnswer) -> float | None:
    text = answer.headers.get("retry-after", "")
    try:
        return max(0.0, float(text)) if text else None
    except ValueError:
        return None


def fault_for(answer: HttpAnswer) -> SyncError:
    """HQ's refusal (any non-2xx answer) as a SyncError."""
    body = answer.json()
    body = body if isinstance(body, dict) else {}
    code = str(body.get("error") or f"http_{answer.status}")[:60]
    message = str(body.get("message") or f"HQ answered {answer.status}")[:200]
    details = body.get("details") if isinstance(body.get("details"), dict) else {}
    status = answer.status
    if status == 401:
        fault = Fault.REVOKED
        message = {"token_revoked": "HQ revoked this kiosk's token",
                   "token_invalid": "HQ does not know this kiosk's token"}.get(code, message) + \
            " (enroll again: nailmirror sync enroll CODE --hq URL)"
    elif status == 426:
        fault = Fault.UPGRADE_REQUIRED
    elif status == 410 and code == "cursor_expired":
        fault = Fault.RESET
    elif status in (429, 503) or (status >= 500 and body.get("retryable", True)):
        fault = Fault.RETRY_LATER if _retry_after(answer) is not None else Fault.OFFLINE
    elif status == 404:
        fault = Fault.NOT_FOUND
    elif status == 409:
        fault = Fault.CONFLICT
    elif status == 403:
        fault = Fault.FORBIDDEN
    elif status == 422 and code == "missing_blobs":
        fault = Fault.MISSING_BLOBS
    elif status == 400 and code == "hash_mismatch":
        fault = Fault.HASH_MISMATCH
    elif status == 507:
        fault = Fault.RETRY_LATER if _retry_after(answer) is not None else Fault.OFFLINE
    else:
        fault = Fault.INVALID
    return SyncError(fault, code, message, retry_after_s=_retry_after(answer), details=details)


def transport_fault(exc: ProviderError) -> SyncError:
    """A transport failure; a certificate outside its validity by this kiosk's clock is named as a clock
    problem (a kiosk whose clock says 2019 sees every certificate as not yet valid)."""
    if any(sign in exc.message for sign in CLOCK_SIGNS):
        now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        return SyncError(Fault.CLOCK, "clock_or_certificate",
                         f"HQ's TLS certificate is not valid at this kiosk's time ({now}): check the kiosk's clock"
                         f" ({exc.message[-120:]})")
    if UNTRUSTED_SIGN in exc.message:
        return untrusted("HQ", exc.message)
    return SyncError(Fault.OFFLINE, exc.code, exc.message[:200])


class HttpHq:
    def __init__(self, base_url: str, token: str | None, *, parts_dir: Path, timeouts: Timeouts = DEFAULT_TIMEOUTS,
                 protocol: int = PROTOCOL_VERSION, kiosk_id: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.parts_dir = parts_dir
        self.timeouts = timeouts
        self.protocol = protocol
        self.kiosk_id = kiosk_id
        self.requests = 0  # how many exchanges this client made (tests count a revoked kiosk's requests)
        self._reading = wire.Reading()  # what this client's reads left out (one client per cycle)
        self._logged: set[str] = set()

    def __repr__(self) -> str:
        return f"HttpHq({self.base_url!r})"  # never the token

    def headers(self, *, content_type: str | None = None) -> dict[str, str]:
        headers = {paths.HEADER_PROTOCOL: str(self.protocol), "Accept": "application/json",
                   "User-Agent": USER_AGENT}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        if self.kiosk_id:
            headers[paths.HEADER_KIOSK] = self.kiosk_id
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    def _exchange(self, method: str, path: str, *, body: bytes | None = None, content_type: str | None = None,
                  extra: dict[str, str] | None = None, idempotent: bool = True) -> HttpAnswer:
        self.requests += 1
        try:
            return exchange(method, self.base_url + path, headers={**self.headers(content_type=content_type),
                                                                   **(extra or {})},
                            body=body, timeouts=self.timeouts, idempotent=idempotent, max_body_bytes=JSON_MAX_BYTES)
        except ProviderError as exc:
            raise transport_fault(exc) from None

    def _document(self, answer: HttpAnswer, ok: tuple[int, ...] = (200,)) -> dict[str, Any]:
        if answer.status not in ok:
            if 200 <= answer.status < 300 or answer.status in (301, 302, 303, 307, 308):
                raise SyncError(Fault.OFFLINE, "unexpected_answer",
                                f"HQ's address answered {answer.status} (a captive portal or a proxy?)")
            raise fault_for(answer)
        kind = answer.headers.get("content-type", "")
        if "json" not in kind.lower():
            # A 200 that is not protocol v1: a captive portal's page. Transient, and nothing is applied.
            raise SyncError(Fault.OFFLINE, "captive_portal",
                            f"HQ's address answered with {kind or 'no content type'}, not protocol v1 (a captive"
                            " portal or a proxy?)")
        try:
            document = parse_json(answer.body)
        except ProviderError:
            # JSON that does not parse: most often a body cut short on the way (no Content-Length to tell).
            raise SyncError(Fault.OFFLINE, "truncated_answer",
                            f"HQ's answer ended after {len(answer.body)} bytes without complete JSON (cut short on"
                            " the way, or broken at HQ); nothing of it applied") from None
        if not isinstance(document, dict) or document.get("nm") != 1:
            raise SyncError(Fault.OFFLINE, "not_protocol",
                            'HQ\'s address answered JSON without "nm": 1, not protocol v1 (a proxy?)')
        return document

    def get_json(self, path: str, query: dict[str, str] | None = None) -> dict[str, Any]:
        if query:
            path += "?" + urllib.parse.urlencode(query)
        return self._document(self._exchange("GET", path))

    def _read(self, what: str, reader: Any, document: dict[str, Any]) -> Any:
        """`document` checked field by field (nailmirror_protocol.wire): a wrong shape refuses the whole answer
        (MALFORMED, nothing of it applied); what this version does not know is left out and logged once."""
        try:
            clean = reader(document, self._reading)
        except wire.WireError as exc:
            raise SyncError(Fault.MALFORMED, "malformed_answer",
                            f"HQ's {what} is malformed: {exc}; nothing of it applied") from None
        for note in sorted(self._reading.skipped - self._logged):
            log.info("HQ's answers carry what this kiosk does not know, skipped: %s", note)
            self._logged.add(note)
        return clean

    # ---- HqPort ---------------------------------------------------------------------------------------------

    def enroll(self, code: str, kiosk_name: str, app_version: str) -> EnrollResponse:
        body = json_body({"nm": 1, "code": code, "kiosk_name": kiosk_name, "app_version": app_version})
        answer = self._exchange("POST", paths.ENROLL, body=body, content_type="application/json", idempotent=False)
        return cast(EnrollResponse, self._read("enrollment", wire.read_enroll_response,
                                               self._document(answer, ok=(201, 200))))

    def hello(self) -> Hello:
        return cast(Hello, self._read("hello", wire.read_hello, self.get_json(paths.HELLO)))

    def rotate_token(self) -> RotateResponse:
        # Not retried by the transport: a rotation whose answer was lost is simply done again next cycle (the
        # token sent stays valid at HQ for 24 h, and HQ rotates again from it).
        answer = self._exchange("POST", paths.AUTH_ROTATE, body=b"", content_type="application/json",
                                idempotent=False)
        return cast(RotateResponse, self._read("token rotation", wire.read_rotate_response, self._document(answer)))

    def use_token(self, token: str) -> None:
        self._token = token

    def changes(self, since: str, limit: int) -> ChangesPage:
        document = self.get_json(paths.CATALOG_CHANGES, {"since": since, "limit": str(limit)})
        return cast(ChangesPage, self._read("feed page", wire.read_changes_page, document))

    def snapshot(self, etag: str | None) -> Snapshot | None:
        answer = self._exchange("GET", paths.CATALOG_SNAPSHOT, extra={"If-None-Match": f'"{etag}"'} if etag else None)
        if answer.status == 304:
            return None
        return cast(Snapshot, self._read("snapshot", wire.read_snapshot, self._document(answer)))

    def inbox(self, since: str | None) -> InboxPage:
        document = self.get_json(paths.INBOX, {"since": since} if since else None)
        return cast(InboxPage, self._read("inbox page", wire.read_inbox_page, document))

    def fetch_blob(self, sha256: str, size: int) -> bytes:
        self.requests += 1
        return fetch_resumable(self.base_url + paths.blob(sha256), sha256, size, headers=self.headers(),
                               parts_dir=self.parts_dir, timeouts=self.timeouts)

    def blobs_missing(self, sha256s: list[str]) -> list[str]:
        body = json_body({"nm": 1, "sha256": sha256s})
        answer = self._exchange("POST", paths.BLOBS_MISSING, body=body, content_type="application/json")
        return cast(list[str], self._read("missing-blobs answer", wire.read_blobs_missing, self._document(answer)))

    def put_blob(self, sha256: str, data: bytes, media_type: str) -> None:
        answer = self._exchange("PUT", paths.blob(sha256), body=data, content_type=media_type)
        self._document(answer, ok=(200, 201))

    def put_draft(self, draft_id: str, rev: int, body: DraftRevision) -> DraftRevisionReceipt:
        # A PUT of an immutable revision is idempotent: a timeout after sending is safe to retry (HQ answers 200).
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        answer = self._exchange("PUT", paths.draft_revision(draft_id, rev), body=data,
                                content_type="application/json")
        return cast(DraftRevisionReceipt, self._document(answer, ok=(200, 201)))

    def put_ledger_entry(self, entry_id: str, body: LedgerEntryUpload) -> LedgerEntryReceipt:
        # Idempotent by id (a settled entry never changes): a timeout after sending is safe to retry, HQ then
        # answers 200. A 409 (another body under this id) comes back as Fault.CONFLICT for the core to park.
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        answer = self._exchange("PUT", paths.ledger_entry(entry_id), body=data, content_type="application/json")
        return cast(LedgerEntryReceipt, self._document(answer, ok=(200, 201)))

    def put_sync_report(self, report: SyncReport) -> None:
        # Idempotent (HQ keeps the latest per kiosk): a timeout after sending is safe to repeat.
        data = json.dumps(report, ensure_ascii=False).encode("utf-8")
        answer = self._exchange("PUT", paths.SYNC_REPORT, body=data, content_type="application/json")
        self._document(answer, ok=(200, 201, 204))

    def put_capture(self, code: str, body: CaptureUpload) -> CaptureReceipt:
        # Idempotent by code (a capture never changes): a timeout after sending is safe to repeat, HQ answers 200.
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        answer = self._exchange("PUT", paths.capture(code), body=data, content_type="application/json")
        return cast(CaptureReceipt, self._read("capture receipt", wire.read_capture_receipt,
                                               self._document(answer, ok=(200, 201))))

    def withdraw_capture(self, code: str) -> CaptureWithdrawReceipt:
        # A withdrawal recorded twice is one withdrawal at HQ: safe to repeat.
        answer = self._exchange("POST", paths.capture_withdraw(code), body=b"{}", content_type="application/json")
        return cast(CaptureWithdrawReceipt, self._read("withdrawal receipt", wire.read_capture_withdraw_receipt,
                                                       self._document(answer)))
