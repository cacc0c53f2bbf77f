"""Endpoint paths and headers of protocol v1 (relative to the HQ base URL)."""

from nailmirror_protocol.canonical import is_sha256_hex

ENROLL = "/v1/enroll"
HELLO = "/v1/hello"
CATALOG_CHANGES = "/v1/catalog/changes"  # ?since=<cursor>&limit=<n ≤ PAGE_MAX>
CATALOG_SNAPSHOT = "/v1/catalog/snapshot"  # If-None-Match: "<cursor>" → 304
BLOBS_MISSING = "/v1/blobs:missing"
INBOX = "/v1/stores/me/inbox"  # ?since=<cursor>&limit=<n>
LEDGER_ENTRIES = "/v1/ledger/entries"  # credits: PUT /v1/ledger/entries/{entry_id}, one settled kiosk entry
SYNC_REPORT = "/v1/kiosks/me/sync-report"  # PUT: how sync stands on this kiosk (shapes.SyncReport)
AUTH_ROTATE = "/v1/auth/rotate"  # POST: a new token; the old one stays valid until old_valid_until
HEALTHZ = "/healthz"
CAPTURES = "/v1/captures"  # PUT /v1/captures/{code} (a consented capture), POST …/{code}/withdraw
# A capture code: 8 characters of an alphabet with no look-alikes, shown to the customer as XXXX-XXXX.
CAPTURE_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def blob(sha256: str) -> str:
    """ValueError for anything but 64 lower-case hex digits: a hash from the wire never becomes another path."""
    if not is_sha256_hex(sha256):
        raise ValueError(f"not a sha256: {sha256[:70]!r}")
    return f"/v1/blobs/{sha256}"


def draft_revision(draft_id: str, rev: int) -> str:
    return f"/v1/drafts/{draft_id}/revisions/{rev}"


HEADER_PROTOCOL = "NM-Protocol"
HEADER_KIOSK = "NM-Kiosk"
PAGE_MAX = 500


def ledger_entry(entry_id: str) -> str:
    return f"{LEDGER_ENTRIES}/{entry_id}"


def capture(code: str) -> str:
    """ValueError for anything but a capture code: a code typed by staff never becomes another path."""
    return f"{CAPTURES}/{normalise_capture_code(code)}"


def capture_withdraw(code: str) -> str:
    return capture(code) + "/withdraw"


def normalise_capture_code(text: str) -> str:
    """"k7qh-3mpx" or "K7QH 3MPX" → "K7QH3MPX"; ValueError when it is not 8 characters of the alphabet."""
    code = "".join(ch for ch in str(text).upper() if ch not in " -")
    if len(code) != 8 or any(ch not in CAPTURE_CODE_ALPHABET for ch in code):
        raise ValueError(f"not a capture code: {str(text)[:20]!r}")
    return code


def show_capture_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"
