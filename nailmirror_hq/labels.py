"""Label versions of the consented captures (issue #27 §1–§2): the nail masks HQ's labellers drew.

A label version is one capture's whole nail mask as a labeller left it, with who, when, what they started from
(the kiosk's proposed mask, an earlier version, or nothing), the decision (accepted, skipped, or rejected as not
usable or for privacy) and the two facts the gate buckets by (skin tone, nail kind). Versions are append-only: a
correction is a new version naming the one it started from. The mask is a 0/255 greyscale PNG (mask_png.py) in
the capture store next to the capture, never in the catalog's blobs; a withdrawal (captures.withdraw) deletes the
versions and their masks with the capture.

The evaluation split is by store and day: a capture whose (store, UTC day of taking) hashes into the lowest
EVALUATION_PERCENT is in the evaluation set and never in a training dataset (datasets.py), so a model is scored on
stores' days it never saw. Every read (the queue, a proposal, a version's mask) is permitted by `can_label` and
audited, as captures.py does for captures.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, func, select

from nailmirror_hq import audit, captures, clock, db, mask_png, roles
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import capture, label_version

DECISIONS = ("accepted", "skipped", "rejected")
REJECT_REASONS = ("not_usable", "privacy")
SKIN_TONES = ("I-II", "III-IV", "V-VI")  # Fitzpatrick-like buckets: light, medium, dark
NAIL_KINDS = ("bare", "polished", "long", "decorated")  # long = long or extensions
SOURCES = ("kiosk", "label", "blank")
EVALUATION_PERCENT = 20
MASK_MAX_BYTES = 4 * 1024 * 1024  # a posted mask PNG; a real one compresses to a few KiB


@dataclass(frozen=True)
class LabelVersion:
    id: int
    code: str
    version: int
    decision: str
    reason: str | None
    mask_sha256: str | None
    source: str
    source_version: int | None
    skin_tone: str | None
    nail_kind: str | None
    labeller: str
    created_at: str

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "version": self.version, "decision": self.decision,
                "reason": self.reason, "mask_sha256": self.mask_sha256, "source": self.source,
                "source_version": self.source_version, "skin_tone": self.skin_tone, "nail_kind": self.nail_kind,
                "labeller": self.labeller, "created_at": self.created_at}


@dataclass(frozen=True)
class Draw:
    """What a labeller hands in for one capture (the page's form, or a test)."""

    decision: str
    mask_png: bytes | None = None
    source: str = "kiosk"
    source_version: int | None = None
    skin_tone: str | None = None
    nail_kind: str | None = None
    reason: str | None = None


def can_label(session: captures.Reader | None) -> bool:
    """Labelling needs both: reading captures (captures.can_read_captures) and LABEL_CAPTURES."""
    if not captures.can_read_captures(session):
        return False
    return isinstance(session, captures.Operator) or roles.allows(getattr(session, "role", None),
                                                                   roles.Permission.LABEL_CAPTURES)


def require_labeller(session: captures.Reader | None) -> captures.Reader:
    if session is None or not can_label(session):
        raise HQError(403, "not_allowed", "labelling needs the read_captures and label_captures permissions")
    return session


# ---- the evaluation split -------------------------------------------------------------------------------------

def capture_day(taken_at: str) -> str:
    """The UTC day a capture was taken (YYYY-MM-DD)."""
    try:
        moment = datetime.fromisoformat(taken_at.replace("Z", "+00:00"))
    except ValueError:
        return taken_at[:10]
    return (moment if moment.tzinfo is None else moment.astimezone(UTC)).date().isoformat()


def in_evaluation(store_id: str, day: str) -> bool:
    """Whether captures of this store on this UTC day are evaluation-only. Deterministic, so the split is the same
    on every HQ and every run; by store and day, so one sitting's near-identical photos never straddle it.
    (migrations/versions/0015_labels.py holds a copy: change both or neither.)"""
    digest = hashlib.sha256(f"nailmirror-evaluation-v1|{store_id}|{day}".encode()).hexdigest()
    return int(digest[:8], 16) % 100 < EVALUATION_PERCENT


# ---- writing a version ----------------------------------------------------------------------------------------

def parse_data_url(text: str) -> bytes:
    """A posted `data:image/png;base64,…` mask's bytes; one-line HQError for anything else."""
    prefix = "data:image/png;base64,"
    if not text.startswith(prefix):
        raise _bad("the mask must be a PNG data URL")
    if len(text) > MASK_MAX_BYTES * 4 // 3 + len(prefix) + 4:
        raise HQError(413, "invalid_label", f"the mask is larger than {MASK_MAX_BYTES} bytes")
    try:
        return base64.b64decode(text[len(prefix):], validate=True)
    except (binascii.Error, ValueError):
        raise _bad("the mask's data URL is not base64") from None


def save(engine: Engine, store: BlobStore, session: captures.Reader | None, code_text: str,
         draw: Draw) -> LabelVersion:
    """Append a label version of capture `code_text`; 400 with one line for a wrong decision, facts or mask."""
    labeller = require_labeller(session)
    code = _code(code_text)
    _check(draw)
    with db.read(engine) as conn:
        size = conn.execute(select(capture.c.width, capture.c.height).where(capture.c.code == code)).one_or_none()
    if size is None:
        raise not_found(f"capture {code_text}")
    mask_sha256 = None
    if draw.decision == "accepted":
        assert draw.mask_png is not None
        try:
            pixels = mask_png.read_mask(draw.mask_png, int(size.width), int(size.height))
        except mask_png.MaskError as exc:
            raise _bad(str(exc)) from None
        canonical = mask_png.write_mask(pixels, int(size.width), int(size.height))
        mask_sha256 = hashlib.sha256(canonical).hexdigest()
        _keep(store, mask_sha256, canonical)  # the file before the row that names it
    with db.write(engine) as conn:
        if conn.execute(select(capture.c.code).where(capture.c.code == code)).first() is None:
            raise not_found(f"capture {code_text}")  # withdrawn while the mask was stored; the file is garbage
        if draw.source == "label" and conn.execute(select(label_version.c.id).where(
                label_version.c.id == draw.source_version, label_version.c.code == code)).first() is None:
            raise _bad("source_version is not a label version of this capture")
        number = int(conn.execute(select(func.coalesce(func.max(label_version.c.version), 0))
                                  .where(label_version.c.code == code)).scalar_one()) + 1
        values = {"code": code, "version": number, "decision": draw.decision,
                  "reason": draw.reason if draw.decision == "rejected" else None, "mask_sha256": mask_sha256,
                  "source": draw.source, "source_version": draw.source_version if draw.source == "label" else None,
                  "skin_tone": draw.skin_tone, "nail_kind": draw.nail_kind, "labeller": labeller.reviewer,
                  "created_at": clock.now_text()}
        new_id = conn.execute(label_version.insert().values(**values).returning(label_version.c.id)).scalar_one()
        audit.record(conn, labeller.reviewer, "LABEL_SAVE", "capture", code, version=number,
                     decision=draw.decision, reason=values["reason"])
    return LabelVersion(int(new_id), **values)  # type: ignore[arg-type]


def _check(draw: Draw) -> None:
    if draw.decision not in DECISIONS:
        raise _bad(f"decision must be one of {', '.join(DECISIONS)}")
    if draw.source not in SOURCES:
        raise _bad(f"source must be one of {', '.join(SOURCES)}")
    if draw.source == "label" and draw.source_version is None:
        raise _bad("a label started from an earlier version names it (source_version)")
    if draw.skin_tone not in (None, *SKIN_TONES):
        raise _bad(f"skin tone must be one of {', '.join(SKIN_TONES)}")
    if draw.nail_kind not in (None, *NAIL_KINDS):
        raise _bad(f"nail kind must be one of {', '.join(NAIL_KINDS)}")
    if draw.decision == "accepted":
        if draw.skin_tone is None or draw.nail_kind is None:
            raise _bad("accepting a label needs its skin tone and nail kind")
        if not draw.mask_png:
            raise _bad("accepting a label needs its mask")
    if draw.decision == "rejected" and draw.reason not in REJECT_REASONS:
        raise _bad(f"a rejection needs a reason: {', '.join(REJECT_REASONS)}")


def _keep(store: BlobStore, sha256: str, data: bytes) -> None:
    if store.has(sha256):
        return
    fd, tmp = tempfile.mkstemp(prefix="nm-hq-mask-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        store.put_verified(sha256, Path(tmp))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _bad(message: str) -> HQError:
    return HQError(400, "invalid_label", f"label: {message}")


def _code(text: str) -> str:
    from nailmirror_protocol import paths

    try:
        return paths.normalise_capture_code(text)
    except ValueError as exc:
        raise HQError(400, "invalid_label", str(exc)) from None


# ---- reads: each permitted by can_label and audited -------------------------------------------------------------

def latest_versions(conn: Connection) -> dict[str, Any]:
    """code → the newest label version row of every labelled capture."""
    newest = (select(label_version.c.code, func.max(label_version.c.version).label("v"))
              .group_by(label_version.c.code).subquery())
    rows = conn.execute(select(label_version).join(
        newest, (label_version.c.code == newest.c.code) & (label_version.c.version == newest.c.v))).all()
    return {r.code: r for r in rows}


def queue(engine: Engine, session: captures.Reader | None, *, limit: int = 50) -> list[captures.CaptureRow]:
    """Captures needing a label: never labelled (oldest received first), then those skipped (longest ago first)."""
    labeller = require_labeller(session)
    with db.read(engine) as conn:
        latest = latest_versions(conn)
        rows = [captures.row_of(r) for r in conn.execute(select(capture).order_by(capture.c.received_at)).all()]
    fresh = [r for r in rows if r.code not in latest]
    skipped = sorted((r for r in rows if r.code in latest and latest[r.code].decision == "skipped"),
                     key=lambda r: str(latest[r.code].created_at))
    chosen = (fresh + skipped)[:limit]
    _audit_read(engine, labeller, "LABEL_QUEUE", "*", count=len(chosen))
    return chosen


def versions(engine: Engine, session: captures.Reader | None, code_text: str) -> list[LabelVersion]:
    labeller = require_labeller(session)
    code = _code(code_text)
    with db.read(engine) as conn:
        rows = conn.execute(select(label_version).where(label_version.c.code == code)
                            .order_by(label_version.c.version)).all()
    _audit_read(engine, labeller, "LABEL_VERSIONS", code, count=len(rows))
    return [row_of(r) for r in rows]


def proposal(engine: Engine, session: captures.Reader | None, code_text: str) -> bytes | None:
    """The kiosk's proposed mask (a PNG from the capture's facts), or None when it sent none."""
    labeller = require_labeller(session)
    code = _code(code_text)
    with db.read(engine) as conn:
        facts = conn.execute(select(capture.c.facts).where(capture.c.code == code)).scalar_one_or_none()
    if facts is None:
        raise not_found(f"capture {code_text}")
    import json

    encoded = json.loads(facts).get("proposed_mask_png_b64") or ""
    _audit_read(engine, labeller, "LABEL_PROPOSAL", code)
    try:
        data = base64.b64decode(encoded, validate=True) if isinstance(encoded, str) else b""
    except (binascii.Error, ValueError):
        return None
    return data if data.startswith(mask_png.SIGNATURE) else None


def read_mask(engine: Engine, store: BlobStore, session: captures.Reader | None, version_id: int) -> bytes:
    labeller = require_labeller(session)
    with db.read(engine) as conn:
        row = conn.execute(select(label_version.c.code, label_version.c.mask_sha256)
                           .where(label_version.c.id == version_id)).one_or_none()
    if row is None or row.mask_sha256 is None:
        raise not_found(f"label version {version_id} with a mask")
    data = b"".join(store.read_chunks(row.mask_sha256))
    _audit_read(engine, labeller, "LABEL_MASK", row.code, version_id=version_id)
    return data


def _audit_read(engine: Engine, reader: captures.Reader, action: str, entity_id: str, **detail: Any) -> None:
    with db.write(engine) as conn:
        audit.record(conn, reader.reviewer, action, "capture", entity_id, **detail)


def row_of(row: Any) -> LabelVersion:
    return LabelVersion(int(row.id), row.code, int(row.version), row.decision, row.reason, row.mask_sha256,
                        row.source, None if row.source_version is None else int(row.source_version),
                        row.skin_tone, row.nail_kind, row.labeller, row.created_at)
