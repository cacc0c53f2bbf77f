"""Which kiosks may fetch a blob: a store's draft images are that store's until HQ publishes them.

Blobs have no owner column, so ownership is read from what names them. A kiosk of store S is refused (404, the
answer for an unknown hash) a blob that some other store's draft revision names, unless it is public or S's own:
- public: a style at HQ names it (an import, the starter catalog, an approved draft's published images), or an
  approved revision names it as a published asset (an older version a kiosk catching up on the feed may still
  fetch). A draft's AI_DRAFT image is never published, so it stays its store's after approval too;
- its own: one of S's draft revisions names it (the same bytes in both stores' drafts: S has them anyway).
A blob nothing names yet (uploaded, its draft not sent) is served: only its uploader knows its hash.

A blob once public stays public (its bytes went out in the feed), so this process remembers public hashes: every
hash its styles name is read once, at the first blob request, and a kiosk's sync then costs no query per blob.
Anything else costs one search of the draft revisions received since the blob was stored (the state index bounds
it); refusals are never remembered (an approval may publish the blob the next moment).
"""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, select

from nailmirror_hq import clock
from nailmirror_hq.schema import draft, draft_revision, style

_SHA256_IN_JSON = re.compile(r'"sha256"\s*:\s*"([0-9a-f]{64})"')
# A draft revision names only blobs that existed when it came (blobs before rows), so drafts older than the blob
# are not searched; the margin covers HQ processes whose clocks disagree.
CLOCK_MARGIN = timedelta(days=1)
STATES = ("PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN")  # all of them: lets the state index bound the scan


class BlobAccess:
    def __init__(self, max_remembered: int = 200_000) -> None:
        self._public: set[str] = set()
        self._loaded = False
        self._max = max_remembered
        self._lock = threading.Lock()

    def may_fetch(self, conn: Connection, sha256: str, store_id: str, created_at: str) -> bool:
        """May a kiosk of `store_id` fetch the blob `sha256` (a row of the blob table, made at `created_at`)?"""
        if sha256 in self._public:
            return True
        if not self._loaded:
            self._load(conn)
            if sha256 in self._public:
                return True
        since = _text_before(created_at, CLOCK_MARGIN)
        naming = conn.execute(select(draft.c.store_id, draft_revision.c.state, draft_revision.c.body)
                              .join(draft, draft.c.id == draft_revision.c.draft_id)
                              .where(draft_revision.c.state.in_(STATES), draft_revision.c.received_at >= since,
                                     draft_revision.c.body.contains(sha256))).all()
        if not naming or any(row.store_id == store_id for row in naming):
            return True
        if any(row.state == "APPROVED" and _published(row.body, sha256) for row in naming) or \
                conn.execute(select(style.c.id).where(style.c.body.contains(sha256)).limit(1)).first() is not None:
            self._remember(sha256)
            return True
        return False

    def _load(self, conn: Connection) -> None:
        """Every hash today's styles name, once per process: a first sync then asks nothing per blob."""
        found: set[str] = set()
        for body in conn.execute(select(style.c.body)).scalars():
            found.update(_SHA256_IN_JSON.findall(body))
        with self._lock:
            if len(found) < self._max:
                self._public |= found
            self._loaded = True

    def _remember(self, sha256: str) -> None:
        with self._lock:
            if len(self._public) >= self._max:
                self._public.clear()
                self._loaded = False
            self._public.add(sha256)


def _published(body: str, sha256: str) -> bool:
    """Does this approved revision publish the blob (an asset the style carries, so not its AI_DRAFT)?"""
    assets = json.loads(body).get("assets") or []
    return any(a.get("sha256") == sha256 and a.get("type") != "AI_DRAFT" for a in assets if isinstance(a, dict))


def _text_before(moment: str, margin: timedelta) -> str:
    parsed = datetime.strptime(moment, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return clock.to_text(parsed - margin)
