"""HqPort: what one sync cycle asks of HQ. adapters/sync/client.py implements it over HTTP; every method raises
SyncError (never a transport exception), so the core decides what a fault means for the catalog."""

from __future__ import annotations

from typing import Protocol

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


class HqPort(Protocol):
    def hello(self) -> Hello: ...

    def rotate_token(self) -> RotateResponse:
        """A new token from HQ (POST /v1/auth/rotate); the one sent stays valid at HQ for 24 h."""
        ...

    def use_token(self, token: str) -> None:
        """Send `token` from the next request on."""
        ...

    def changes(self, since: str, limit: int) -> ChangesPage: ...

    def snapshot(self, etag: str | None) -> Snapshot | None:
        """None for 304 (the snapshot with that ETag is what the kiosk already applied)."""
        ...

    def inbox(self, since: str | None) -> InboxPage: ...

    def fetch_blob(self, sha256: str, size: int) -> bytes:
        """The blob's bytes (resuming a partial download where the transport allows); not yet verified."""
        ...

    def blobs_missing(self, sha256s: list[str]) -> list[str]: ...

    def put_blob(self, sha256: str, data: bytes, media_type: str) -> None: ...

    def put_draft(self, draft_id: str, rev: int, body: DraftRevision) -> DraftRevisionReceipt: ...

    def put_ledger_entry(self, entry_id: str, body: LedgerEntryUpload) -> LedgerEntryReceipt:
        """One settled ledger entry (HQ answers 201 stored, 200 a replay of the same body; 409 a conflict)."""
        ...

    def put_sync_report(self, report: SyncReport) -> None:
        """How sync stands on this kiosk (PUT /v1/kiosks/me/sync-report); an HQ without the route answers 404."""
        ...

    def put_capture(self, code: str, body: CaptureUpload) -> CaptureReceipt:
        """One consented capture (PUT /v1/captures/{code}): 201 stored, 200 a replay; a withdrawn code raises
        SyncError code capture_withdrawn (410), a code HQ holds under another image CONFLICT."""
        ...

    def withdraw_capture(self, code: str) -> CaptureWithdrawReceipt:
        """A customer's withdrawal staff typed in (POST /v1/captures/{code}/withdraw), for the whole chain."""
        ...


class Enroller(Protocol):
    def __call__(self, hq_url: str, code: str, kiosk_name: str) -> EnrollResponse: ...
