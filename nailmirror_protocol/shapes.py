"""The JSON bodies of protocol v1, as TypedDicts (shared/reference/catalog_sync.md §4).

Every body has "nm": 1 at top level. Unknown fields are ignored by both sides, so a later HQ may add fields;
a change *type* the kiosk did not declare never reaches it (a protocol upgrade answers 410 protocol_upgraded).
Times are UTC "YYYY-MM-DDTHH:MM:SS.fffZ". Ids: styles and drafts are UUIDs (the kiosk's client_uid; starter
styles uuid5 of their catalog code), stores "st_<code>", kiosks "k_<random>".
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from nailmirror_protocol.model_release import HQKey, KeyRotation, ModelRelease

AssetType = Literal["NAIL_TEXTURE", "COVER", "THUMBNAIL", "TRY_ON_EXAMPLE", "AI_DRAFT"]
ImageFormat = Literal["PNG", "JPEG", "WEBP"]
StyleStatus = Literal["PUBLISHED", "OFF_SHELF"]
ChangeType = Literal["style", "category", "tag", "model"]
ChangeOp = Literal["upsert", "delete"]
Decision = Literal["APPROVED", "REJECTED"]
RevisionState = Literal["PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN"]

# A style's recommended nail shape and length (the designer's choice) ride in its design as "shape" and "length"
# (optional both ways: an older side neither writes nor reads them, and a word outside these is ignored).
NAIL_SHAPES = ("round", "square", "squoval", "almond", "coffin", "stiletto")
NAIL_LENGTHS = ("natural", "short", "medium", "long", "extra-long")


def recommended_nail_form(design: object) -> tuple[str | None, str | None]:
    """(shape, length) a design recommends, each None where it names none of the vocabulary's words."""
    if not isinstance(design, dict):
        return None, None
    shape, length = design.get("shape"), design.get("length")
    return (shape if shape in NAIL_SHAPES else None, length if length in NAIL_LENGTHS else None)


class ErrorBody(TypedDict):
    nm: int
    error: str
    message: str
    retryable: bool
    details: NotRequired[dict[str, Any]]


class Asset(TypedDict):
    type: AssetType
    slot: str  # "nail", "accent" or a finger for NAIL_TEXTURE; "" otherwise
    sha256: str
    size: int
    format: ImageFormat
    width: int
    height: int
    required: NotRequired[bool]  # feed only: the style shows only once every required asset is present
    primary: NotRequired[bool]  # the cover the catalog grid shows


class LocalizedName(TypedDict):
    zh: str
    en: str


class Origin(TypedDict):
    store_id: str | None
    draft_id: str | None
    rev: int | None


class StyleBody(TypedDict):
    """The full current body of a catalog style: every upsert carries all of it, never a diff."""

    style_code: str
    status: StyleStatus
    name: LocalizedName
    category: str | None
    tags: list[str]
    accent_fingers: list[str]
    prompt: str
    design: dict[str, Any] | None  # may hold "shape" and "length": see NAIL_SHAPES
    origin: Origin
    published_at: str | None
    assets: list[Asset]
    # HQ's suggested price in minor units (the chain's currency); a store still sets its own (never synced).
    price_guidance_minor: NotRequired[int | None]


class Category(TypedDict):
    code: str
    name_zh: str
    name_en: str
    sort_order: int


class Tag(TypedDict):
    code: str
    name_zh: str
    name_en: str


class Change(TypedDict):
    seq: int
    type: ChangeType
    op: ChangeOp
    id: str
    version: int
    style: NotRequired[StyleBody]  # type "style", op "upsert"
    category: NotRequired[Category]  # type "category", op "upsert"
    tag: NotRequired[Tag]  # type "tag", op "upsert"
    model: NotRequired[ModelRelease]  # type "model" (id = its slot), op "upsert": model_release.py
    reason: NotRequired[str]  # op "delete": WITHDRAWN


class CatalogState(TypedDict):
    count: int  # live HQ-owned styles on the channel
    digest: str  # canonical.catalog_digest over their (id, version)


class ChangesPage(TypedDict):
    nm: int
    epoch: str
    has_more: bool
    next: str  # the cursor to send as ?since= next time
    changes: list[Change]
    state: NotRequired[CatalogState]  # only on the page with has_more false


class SnapshotStyle(TypedDict):
    id: str
    version: int
    style: StyleBody


class SnapshotModel(TypedDict):
    id: str  # the slot
    version: int
    model: ModelRelease


class Snapshot(TypedDict):
    nm: int
    epoch: str
    cursor: str  # also the ETag: send it as If-None-Match to get 304
    generated_at: str
    categories: list[Category]
    tags: list[Tag]
    styles: list[SnapshotStyle]
    state: CatalogState
    models: NotRequired[list[SnapshotModel]]  # the feed's live model releases (issue #27); an older HQ sends none


class Limits(TypedDict):
    page_max: int
    blob_max_bytes: int
    draft_max_assets: int
    drafts_per_day: int


class Capabilities(TypedDict):
    """What this HQ serves. `reserved` ones are declared so a kiosk can plan for them; HQ answers 501 for them."""

    inbox_events: list[str]  # "draft.received", "draft.decision", "credits.grant"
    ledger_upload: dict[str, str]  # {"path": "/v1/ledger/entries/{entry_id}", "method": "PUT", "status": "available"}
    reserved: list[str]


class Hello(TypedDict):
    nm: int
    store_id: str
    kiosk_id: str
    channel: str
    hq_time: str
    epoch: str
    protocols: list[int]
    min_kiosk_version: str
    poll_interval_s: int
    backoff_s: int
    blob_spread_s: int
    limits: Limits
    capabilities: Capabilities
    # The store's time zone, an IANA name HQ sets per store (added after v1's first release: an older HQ sends
    # none, an older kiosk skips it). The kiosk counts its store's calendar day in it while enrolled.
    store_time_zone: NotRequired[str]
    kiosk_name: NotRequired[str]  # the name HQ shows this kiosk under (issue #25 §8)
    fleet_requests: NotRequired[list[FleetRequest]]  # what an operator asked this kiosk to do
    hq_key: NotRequired[HQKey]  # HQ's public key: pinned by a kiosk that has none (issue #27 §5)
    hq_key_rotations: NotRequired[list[KeyRotation]]  # each signed by the key it replaces


class EnrollRequest(TypedDict):
    nm: int
    code: str
    kiosk_name: NotRequired[str]
    app_version: NotRequired[str]
    os: NotRequired[str]


class EnrollResponse(TypedDict):
    nm: int
    store_id: str
    kiosk_id: str
    token: str  # shown once; HQ keeps only its sha256
    channel: str
    hq_time: str
    hq_key: NotRequired[HQKey]  # pinned at enrollment (issue #27 §5)
    hq_key_rotations: NotRequired[list[KeyRotation]]


class RotateResponse(TypedDict):
    """POST /v1/auth/rotate: the kiosk stores `token` (durably) before it uses it; the token it sent keeps
    working until `old_valid_until`, so a rotation whose answer was lost costs nothing."""

    nm: int
    kiosk_id: str
    token: str
    old_valid_until: str


class BlobsMissingRequest(TypedDict):
    nm: int
    sha256: list[str]


class BlobsMissingResponse(TypedDict):
    nm: int
    missing: list[str]


class BlobPutResponse(TypedDict):
    nm: int
    sha256: str
    size: int


class DraftRevision(TypedDict):
    """PUT /v1/drafts/{draft_id}/revisions/{rev}: immutable once stored."""

    nm: int
    kiosk_id: NotRequired[str]
    source: Literal["AI", "MANUAL"]
    parent_id: NotRequired[str | None]
    style_code: NotRequired[str]  # the kiosk's code; the approved style keeps it when it is free at HQ
    created_at: NotRequired[str]
    submitted_at: NotRequired[str]
    name: LocalizedName
    category: NotRequired[str | None]
    tags: NotRequired[list[str]]
    accent_fingers: NotRequired[list[str]]
    prompt: NotRequired[str]
    design: NotRequired[dict[str, Any] | None]
    provider: NotRequired[str]
    origin_task_no: NotRequired[str]
    assets: list[Asset]
    # The style painted on the kiosk's sample hand photo (its still path), for the reviewer only: never published,
    # not part of the revision's identity (HQ leaves it out of the digest), absent from kiosks that predate it.
    sample_render: NotRequired[Asset]


class DraftRevisionReceipt(TypedDict):
    nm: int
    draft_id: str
    rev: int
    state: RevisionState
    received_at: str


class InboxEvent(TypedDict):
    seq: int
    type: str  # "draft.received" | "draft.decision" | "credits.grant"
    at: str
    draft_id: NotRequired[str]
    rev: NotRequired[int]
    decision: NotRequired[Decision]
    published_style_id: NotRequired[str | None]
    reviewer: NotRequired[str]  # HQ's actor: "hq:li.wang" (the web page), "cli:root" (HQ's shell)
    reviewer_name: NotRequired[str]  # how that person is named to a store ("王丽"); absent from HQs before #25
    reason: NotRequired[str | None]
    grant_id: NotRequired[str]  # credits.grant
    amount: NotRequired[int]  # credits.grant


class InboxPage(TypedDict):
    nm: int
    epoch: str
    has_more: bool
    next: str
    events: list[InboxEvent]


# --- credits (issue 14) ---------------------------------------------------------------------------------------

CREDITS_GRANT = "credits.grant"
GRANT_MAX_AMOUNT = 1_000_000  # the kiosk's ledger refuses more in one grant, so HQ never sends more
GRANT_MAX_REASON = 500
LedgerKind = Literal["GRANT", "CHARGE"]
LedgerStatus = Literal["CONFIRMED", "REFUNDED"]  # only settled entries go up: a settled entry never changes


class CreditsGrantEvent(TypedDict):
    """The inbox event HQ writes when it grants a store credits; the kiosk applies it once per grant_id."""

    seq: int
    type: Literal["credits.grant"]
    at: str
    grant_id: str  # "gr_<hex>"
    amount: int  # 1 … GRANT_MAX_AMOUNT
    reason: str
    # The one kiosk of the store that applies it (others skip it): a store's kiosks keep one ledger each, so a
    # grant every kiosk applied would multiply. Absent in grants made before grants were addressed.
    kiosk_id: NotRequired[str | None]
    # HQ's ed25519 signature of the grant (id, store, amount; nailmirror_hq/keys.py). The kiosk keeps it and sends
    # it back with the grant's ledger entry: after a restore lost the grant, HQ learns it back only when it
    # verifies. Absent in grants an HQ made before it signed grants.
    grant_sig: NotRequired[str]


class LedgerEntryUpload(TypedDict):
    """PUT /v1/ledger/entries/{entry_id}: one settled kiosk ledger entry, immutable once stored at HQ.

    entry_id is the kiosk's random id for the entry (32 hex); the same id with the same body is a replay (200),
    with a different body a conflict (409 ledger_entry_conflict). funded: the charge counted against the
    balance (false before the store's first grant, when it paid its provider itself)."""

    nm: int
    kind: LedgerKind
    status: LedgerStatus
    amount: int
    confirmed_amount: int
    funded: bool
    grant_id: str | None  # GRANT only
    task_no: str | None  # CHARGE only
    provider: NotRequired[str | None]
    model: NotRequired[str | None]
    unit_price: NotRequired[int | None]
    variations: NotRequired[int | None]
    reason: NotRequired[str | None]
    note: NotRequired[str | None]
    created_at: str
    settled_at: str | None
    # The entry id this one replaces: HQ answered 409 for it (it holds another body under that id) and staff
    # re-sent the kiosk's entry under a new id (`nailmirror credits unpark`); HQ stops counting the old one.
    replaces: NotRequired[str | None]
    # GRANT only: the grant_sig of HQ's credits.grant event, when it carried one (not part of the entry's
    # digest: it is HQ's evidence about the entry, not the entry).
    grant_sig: NotRequired[str]


class LedgerEntryReceipt(TypedDict):
    nm: int
    entry_id: str
    received_at: str


# --- the kiosk's sync report (issue #20 §14) --------------------------------------------------------------------

REPORT_FAILED_MAX = 200  # failed downloads one report lists at most


class FailedDownload(TypedDict):
    """A blob the kiosk could not get (a wrong hash, a 404, an answer past its declared size): its style stays
    hidden there while it is retried with backoff."""

    style_code: str  # the style waiting on it ("" if none is)
    sha256: str
    attempts: int  # failed fetches so far
    last_error: str


# Fleet health and remote fixes (issue #25 §7, §8). An operator at HQ asks one kiosk to do one of these; the
# kiosk learns of it from hello (`fleet_requests`), does it at that sync and says how it went in its report.
FLEET_REQUEST_KINDS = ("retry_downloads", "resync", "replay_dead_letters")
FLEET_OUTCOMES = ("DONE", "FAILED")
REPORT_RESULTS_MAX = 20  # fleet request results one report carries (the latest)
DEAD_LETTER_TYPES_MAX = 50


class FleetRequest(TypedDict):
    """One operator request in hello: `id` is HQ's (the kiosk does each id once), `kind` one of
    FLEET_REQUEST_KINDS; an older kiosk leaves the field out unread, a newer kind is skipped."""

    id: str
    kind: str


class FleetResult(TypedDict):
    """How a fleet request went on the kiosk: DONE (with what it did, one line) or FAILED (why). Dead letters of
    generation tasks, and any that ended OUTCOME_UNKNOWN, are never replayed from HQ: the detail counts them as
    left for staff."""

    id: str
    kind: str
    outcome: str  # FLEET_OUTCOMES
    detail: str
    done_at: str


class SyncReport(TypedDict):
    """PUT /v1/kiosks/me/sync-report: how sync stands on this kiosk, sent when it changed. Every field but "nm"
    is optional on both sides (a kiosk sends what it knows, HQ keeps what it knows and ignores the rest); other
    reports add their fields beside `failed_downloads`. An HQ without the route answers 404: the kiosk then
    carries on."""

    nm: int
    failed_downloads: NotRequired[list[FailedDownload]]
    # Fleet health (issue #25 §7): HQ's fleet page reads these; each may be absent (an older kiosk).
    app_version: NotRequired[str]
    model_version: NotRequired[str]  # the nail segmenter's: the first 12 hex digits of its file's sha256
    sync_state: NotRequired[str]  # the kiosk's sync state when it sent this (SyncStatus)
    cursor: NotRequired[str]  # its feed cursor: HQ works out the lag against its channel's head
    dead_letters: NotRequired[dict[str, int]]  # open dead letters by task type
    disk_free_bytes: NotRequired[int]  # free space where the data directory is
    camera_state: NotRequired[str]  # what the running kiosk last recorded (kiosk_health), e.g. LIVE, DEMO, LOST
    fps: NotRequired[float]  # the mirror's frame rate then
    health_at: NotRequired[str]  # when the running kiosk recorded camera_state and fps (UTC text)
    fleet_results: NotRequired[list[FleetResult]]
    # Model releases (issue #27): whether the kiosk can verify them, and what each slot runs and why.
    model_signing: NotRequired[str]  # MODEL_SIGNING_STATES
    model_slots: NotRequired[dict[str, ModelSlotReport]]


# "ok": HQ's key pinned; "no_key": none yet, releases ignored; "key_mismatch": HQ sent a key that no signed rotation
# leads to from the pinned one, releases ignored until one does.
MODEL_SIGNING_STATES = ("ok", "no_key", "key_mismatch")
# A slot's release on the kiosk: "bundled" (no release, or withdrawn), "downloading", "verified" (waiting for an
# idle moment), "active", "rolled_back" (live quality regressed, or it failed to load: detail says which), "refused"
# (bad signature, hash or shape).
MODEL_SLOT_STATES = ("bundled", "downloading", "verified", "active", "rolled_back", "refused")


class ModelSlotReport(TypedDict):
    version: str  # what runs in the slot now (the bundled model's version when no release does)
    state: str  # MODEL_SLOT_STATES
    detail: str  # why, in one line (a rollback's reason: "painted nails per frame 7.1 < 8.6 (median of 20)")
    at: str  # UTC text of the last state change
    release: NotRequired[int]  # the feed version of the release this is about


class SyncReportReceipt(TypedDict):
    nm: int
    kiosk_id: str
    received_at: str


# --- consented nail captures (issue #26) ---------------------------------------------------------------------

CAPTURE_IMAGE_MAX_BYTES = 6 * 1024 * 1024  # a hands crop as PNG; the base64 body is a third larger
ConsentBy = Literal["customer", "staff"]


class CaptureConsent(TypedDict):
    """Who consented (a customer at the snapshot screen, or staff for their own hands), when, and the version of
    the sentence shown: no capture is kept or sent without one."""

    by: ConsentBy
    at: str
    text_version: str


class CaptureUpload(TypedDict):
    """PUT /v1/captures/{code}: one consented capture, image inline (base64 PNG of the hands crop, faces blurred,
    no EXIF). A replay of the same image answers 200; a code HQ holds under another image 409; a withdrawn code
    410 (the kiosk then deletes its copy)."""

    nm: int
    code: str
    image_png_b64: str
    image_sha256: str
    taken_at: str
    consent: CaptureConsent
    model_version: str
    facts: dict[str, Any]  # landmarks, proposed nail quads, camera and light facts, faces blurred (bounded JSON)


class CaptureReceipt(TypedDict):
    nm: int
    code: str
    held: bool  # HQ holds the image: the kiosk deletes its copy


class CaptureWithdrawReceipt(TypedDict):
    nm: int
    code: str
    withdrawn: bool  # the withdrawal is recorded (whether or not HQ ever held the capture)
