"""The fleet (issue #25 §7, §8): every kiosk with what its last sync report said, the problems that follow from
it, and what an operator may do to one kiosk from HQ: ask it to retry its failed downloads, resync from a
snapshot or replay its dead letters; rename, revoke or replace it.

A request is stored here (fleet_request) and handed to the kiosk by hello (`fleet_requests`) until the kiosk's
report answers it (`fleet_results`). The kiosk refuses to replay generation tasks and tasks that ended
OUTCOME_UNKNOWN (money may have been spent): those stay for staff at the kiosk, whatever HQ asks.

Model releases (issue #27): the report's `model_signing` and `model_slots` show per slot what the kiosk runs; a
release it rolled back or refused is a problem worded with the kiosk's own one-line reason, a key it could not
accept another; a kiosk still without HQ's key is not (it pins one at its next hello) but is in the "model
problems" filter.

Names: given at enrollment (`nailmirror sync enroll --name`); a kiosk enrolled before names were kept
(named_at NULL) is named `<store>-<n>` at its next hello; an operator renames one from the page or the CLI.
Names are unique within a store.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select, update

from nailmirror_hq import audit, clock, codes, meta, stores
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import channel, enroll_code, fleet_request, store, store_token
from nailmirror_protocol.cursor import CursorError, parse_cursor
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import FLEET_REQUEST_KINDS, FleetRequest, FleetResult

NOT_SEEN_AFTER = timedelta(hours=24)  # "not synced for 24 h"
DISK_LOW_BYTES = 1024**3  # under 1 GiB free the kiosk cannot take a catalog update
NAME_MAX = 60
CAMERA_OK = ("LIVE",)
# The problems a row may have, in the order the alert list shows them (the page words them).
PROBLEMS = ("revoked", "not_seen", "sync_state", "failed_downloads", "dead_letters", "disk_low", "camera",
            "request_failed", "model_failed", "model_key")
MODEL_PROBLEMS = ("model_failed", "model_key")
FILTERS = ("all", "not_seen", "failed_downloads", "problems", "model_problems")
# A slot whose release the kiosk rolled back or refused: a problem, worded with the kiosk's one-line reason.
MODEL_FAILED_STATES = ("rolled_back", "refused")
RECENT_REQUESTS = 5
# How the kiosk's answer to replay_dead_letters counts what it would not replay (nailmirror_desktop/core/sync/
# fleet.py: "N replayed, M left for staff (generation or outcome unknown)"). A detail without it counts none.
LEFT_FOR_STAFF = re.compile(r"\b(\d+) left for staff\b")


@dataclass(frozen=True)
class Request:
    id: str
    kind: str
    asked_by: str
    asked_at: str
    sent_at: str | None
    outcome: str | None
    detail: str | None
    done_at: str | None


@dataclass(frozen=True)
class FleetKiosk:
    """One kiosk as the fleet page shows it; the report's fields are None when the kiosk never sent them."""

    kiosk_id: str
    name: str
    store_id: str
    store_name: str
    enrolled_at: str
    last_seen_at: str | None
    revoked_at: str | None
    app_version: str
    model_version: str | None
    sync_state: str | None
    cursor_lag: int | None
    dead_letters: dict[str, int]
    failed_downloads: list[dict[str, Any]]
    disk_free_bytes: int | None
    camera_state: str | None
    fps: float | None
    report_at: str | None
    problems: tuple[str, ...]
    requests: tuple[Request, ...] = field(default=())
    # Open dead letters the kiosk's last replay left for staff there (generation, OUTCOME_UNKNOWN): HQ can do
    # nothing about them, so the page says "waiting for staff at the kiosk" instead of alerting.
    waiting_for_staff: int = 0
    # Model releases (issue #27): "ok", "no_key" (waiting for HQ's key), "key_mismatch"; None from an older kiosk.
    model_signing: str | None = None
    model_slots: dict[str, dict[str, Any]] = field(default_factory=dict)  # slot → ModelSlotReport

    def model_failures(self) -> list[tuple[str, dict[str, Any]]]:
        """(slot, its report) for each slot whose release the kiosk rolled back or refused."""
        return [(slot, found) for slot, found in sorted(self.model_slots.items())
                if found.get("state") in MODEL_FAILED_STATES]

    def to_json(self) -> dict[str, Any]:
        body = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "requests"}
        body["problems"] = list(self.problems)
        body["requests"] = [r.__dict__ for r in self.requests]
        return body


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)


def _lag(cursor: object, epoch: str, head_seq: int) -> int | None:
    """How many feed changes the kiosk is behind the head of the feed it pages, None when it never said or its
    cursor is from another history (its next sync takes a snapshot)."""
    if not isinstance(cursor, str):
        return None
    try:
        parsed = parse_cursor(cursor)
    except CursorError:
        return None
    return max(0, head_seq - parsed.seq) if parsed.epoch == epoch else None


def problems_of(kiosk: FleetKiosk | dict[str, Any], now: datetime) -> tuple[str, ...]:
    def get(key: str) -> Any:
        return kiosk[key] if isinstance(kiosk, dict) else getattr(kiosk, key)

    found = []
    if get("revoked_at"):
        return ("revoked",)
    seen = _parse(get("last_seen_at"))
    if seen is None or now - seen > NOT_SEEN_AFTER:
        found.append("not_seen")
    if get("sync_state") not in (None, "OK"):
        found.append("sync_state")
    if get("failed_downloads"):
        found.append("failed_downloads")
    if sum(get("dead_letters").values()) > (get("waiting_for_staff") or 0):
        found.append("dead_letters")
    free = get("disk_free_bytes")
    if free is not None and free < DISK_LOW_BYTES:
        found.append("disk_low")
    camera = get("camera_state")
    if camera is not None and camera not in CAMERA_OK:
        found.append("camera")
    requests = get("requests")
    if requests and requests[0].outcome == "FAILED":
        found.append("request_failed")
    if any(slot.get("state") in MODEL_FAILED_STATES for slot in (get("model_slots") or {}).values()):
        found.append("model_failed")
    if get("model_signing") == "key_mismatch":
        found.append("model_key")
    return tuple(found)


def fleet(conn: Connection, now: datetime | None = None) -> list[FleetKiosk]:
    """Every kiosk HQ ever enrolled (revoked ones last), each with its latest report and recent requests."""
    now = now or datetime.now(UTC)
    epoch = meta.epoch(conn)
    heads = {r.code: int(r.head_seq) for r in conn.execute(select(channel.c.code, channel.c.head_seq))}
    rows = conn.execute(
        select(store_token, store.c.name.label("store_name"), store.c.channel)
        .join(store, store.c.id == store_token.c.store_id)
        .order_by(store_token.c.revoked_at.is_not(None), store_token.c.store_id, store_token.c.kiosk_name))
    requests = _recent_requests(conn)
    found = []
    for row in rows:
        report = json.loads(row.sync_report) if row.sync_report else {}
        fields: dict[str, Any] = {
            "kiosk_id": row.kiosk_id, "name": row.kiosk_name, "store_id": row.store_id,
            "store_name": row.store_name, "enrolled_at": row.created_at, "last_seen_at": row.last_seen_at,
            "revoked_at": row.revoked_at, "app_version": report.get("app_version") or row.app_version,
            "model_version": report.get("model_version"), "sync_state": report.get("sync_state"),
            # Against the feed the kiosk's cursor belongs to: a canary store pages its channel's canary feed,
            # whose seqs are its own (stores.record_snapshot keeps feed_channel).
            "cursor_lag": _lag(report.get("cursor"), epoch, heads.get(row.feed_channel or row.channel, 0)),
            "dead_letters": dict(report.get("dead_letters") or {}),
            "failed_downloads": list(report.get("failed_downloads") or []),
            "disk_free_bytes": report.get("disk_free_bytes"), "camera_state": report.get("camera_state"),
            "fps": report.get("fps"), "report_at": row.sync_report_at,
            "requests": tuple(requests.get(row.kiosk_id, ())[:RECENT_REQUESTS]),
            "model_signing": report.get("model_signing"), "model_slots": dict(report.get("model_slots") or {})}
        fields["waiting_for_staff"] = _waiting_for_staff(fields["dead_letters"], fields["requests"])
        found.append(FleetKiosk(**fields, problems=problems_of(fields, now)))
    return found


def _waiting_for_staff(dead_letters: dict[str, int], requests: tuple[Request, ...]) -> int:
    """How many of the open dead letters wait for staff at the kiosk: all of them when the kiosk's last answer to
    a replay left at least as many for staff as its report now counts (the report that carries the answer is sent
    after the replay, so its counts are what the replay left); otherwise 0, and the alert stands. More dead
    letters than were left means new ones HQ may replay."""
    total = sum(dead_letters.values())
    last = next((r for r in requests if r.kind == "replay_dead_letters" and r.outcome is not None), None)
    left = LEFT_FOR_STAFF.search(last.detail or "") if last is not None and last.outcome == "DONE" else None
    return total if total and left is not None and int(left.group(1)) >= total else 0


def select_rows(rows: list[FleetKiosk], wanted: str) -> list[FleetKiosk]:
    """The page's filters: not seen for 24 h, with failed downloads, with any problem, with a model problem, or
    all."""
    if wanted == "not_seen":
        return [r for r in rows if "not_seen" in r.problems]
    if wanted == "failed_downloads":
        return [r for r in rows if "failed_downloads" in r.problems]
    if wanted == "problems":
        return [r for r in rows if r.problems and r.problems != ("revoked",)]
    if wanted == "model_problems":  # what HQ's model releases need looked at, a kiosk still without the key too
        return [r for r in rows if not r.revoked_at and (
            set(r.problems) & set(MODEL_PROBLEMS) or r.model_signing == "no_key")]
    return rows


def alerts(rows: list[FleetKiosk]) -> list[tuple[FleetKiosk, str]]:
    """(kiosk, problem) for every problem of every kiosk still enrolled, worst kind first."""
    found = [(r, p) for r in rows if not r.revoked_at for p in r.problems]
    return sorted(found, key=lambda pair: (PROBLEMS.index(pair[1]), pair[0].store_id, pair[0].name))


def _recent_requests(conn: Connection) -> dict[str, list[Request]]:
    out: dict[str, list[Request]] = {}
    for row in conn.execute(select(fleet_request).order_by(fleet_request.c.asked_at.desc(),
                                                           fleet_request.c.id.desc())):
        out.setdefault(row.kiosk_id, []).append(
            Request(row.id, row.kind, row.asked_by, row.asked_at, row.sent_at, row.outcome, row.detail, row.done_at))
    return out


# --- one kiosk ----------------------------------------------------------------------------------------------------

def find_kiosk(conn: Connection, ref: str) -> Any:
    """The store_token row of kiosk `ref`: its id, else its name when only one kiosk has it."""
    row = conn.execute(select(store_token).where(store_token.c.kiosk_id == ref)).one_or_none()
    if row is not None:
        return row
    named = conn.execute(select(store_token).where(store_token.c.kiosk_name == ref)).all()
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"{len(named)} kiosks are named {ref!r}; use the kiosk id")
    raise not_found(f"kiosk {ref}")


def ask(conn: Connection, ref: str, kind: str, actor: str) -> Request:
    """Queue `kind` for the kiosk (inside db.write). A request of that kind still unanswered is returned as it
    is: asking twice before the kiosk synced does the work once. A revoked kiosk takes none."""
    if kind not in FLEET_REQUEST_KINDS:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"unknown request {kind!r} ({', '.join(FLEET_REQUEST_KINDS)})")
    kiosk = find_kiosk(conn, ref)
    if kiosk.revoked_at is not None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"kiosk {kiosk.kiosk_id} is revoked")
    open_one = conn.execute(select(fleet_request).where(fleet_request.c.kiosk_id == kiosk.kiosk_id,
                                                        fleet_request.c.kind == kind,
                                                        fleet_request.c.outcome.is_(None))).first()
    if open_one is not None:
        return Request(open_one.id, open_one.kind, open_one.asked_by, open_one.asked_at, open_one.sent_at,
                       None, None, None)
    request = Request("fr_" + secrets.token_hex(8), kind, actor, clock.now_text(), None, None, None, None)
    conn.execute(fleet_request.insert().values(id=request.id, kiosk_id=kiosk.kiosk_id, kind=kind,
                                               asked_by=actor, asked_at=request.asked_at))
    audit.record(conn, actor, "FLEET_REQUEST", "kiosk", kiosk.kiosk_id, kind=kind, request_id=request.id)
    return request


def for_hello(conn: Connection, kiosk_id: str) -> list[FleetRequest]:
    """The kiosk's unanswered requests, oldest first, for its hello (inside db.write: the first hello that
    carries one is noted, so the page can say "sent")."""
    rows = conn.execute(select(fleet_request).where(fleet_request.c.kiosk_id == kiosk_id,
                                                    fleet_request.c.outcome.is_(None))
                        .order_by(fleet_request.c.asked_at)).all()
    unsent = [r.id for r in rows if r.sent_at is None]
    if unsent:
        conn.execute(update(fleet_request).where(fleet_request.c.id.in_(unsent)).values(sent_at=clock.now_text()))
    return [{"id": r.id, "kind": r.kind} for r in rows]


def record_results(conn: Connection, kiosk_id: str, results: list[FleetResult]) -> int:
    """The kiosk's answers (from its sync report): each of its own unanswered requests gets its outcome once;
    answers to other kiosks' requests, or repeated ones, change nothing. Returns how many were recorded."""
    recorded = 0
    for result in results:
        done = conn.execute(update(fleet_request).where(fleet_request.c.id == result["id"],
                                                        fleet_request.c.kiosk_id == kiosk_id,
                                                        fleet_request.c.outcome.is_(None))
                            .values(outcome=result["outcome"], detail=result["detail"][:300],
                                    done_at=result["done_at"][:24]))
        recorded += int(done.rowcount or 0)
    return recorded


def rename(conn: Connection, ref: str, name: str, actor: str) -> str:
    """A new name for one kiosk (unique within its store); returns the kiosk id."""
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX or not name.isprintable():
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a kiosk name is 1 to {NAME_MAX} printable characters")
    kiosk = find_kiosk(conn, ref)
    taken = conn.execute(select(store_token.c.kiosk_id).where(store_token.c.store_id == kiosk.store_id,
                                                              store_token.c.kiosk_name == name,
                                                              store_token.c.kiosk_id != kiosk.kiosk_id)).first()
    if taken is not None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"store {kiosk.store_id} already has a kiosk named {name!r}")
    conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk.kiosk_id)
                 .values(kiosk_name=name, named_at=clock.now_text()))
    audit.record(conn, actor, "KIOSK_RENAME", "kiosk", kiosk.kiosk_id, name=name, was=kiosk.kiosk_name)
    return str(kiosk.kiosk_id)


def revoke(conn: Connection, ref: str, actor: str) -> str:
    """Revoke one kiosk (a stolen PC): its token stops working at once; the store's other kiosks go on."""
    kiosk = find_kiosk(conn, ref)
    stores.revoke(conn, kiosk.store_id, actor, kiosk.kiosk_id)
    return str(kiosk.kiosk_id)


def replacement_code(conn: Connection, ref: str, actor: str) -> tuple[str, str]:
    """A one-time enrollment code for the PC that replaces kiosk `ref`: the enrollment that uses it revokes
    `ref` in its own transaction (stores.enroll), so the old PC stops the moment the new one is in. Returns
    (kiosk id, code)."""
    kiosk = find_kiosk(conn, ref)
    if kiosk.revoked_at is not None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"kiosk {kiosk.kiosk_id} is already revoked; "
                                                  "a plain enrollment code will do")
    code = stores.new_enroll_code(conn, kiosk.store_id, actor)
    conn.execute(update(enroll_code).where(enroll_code.c.code_sha256 == stores.sha256_text(
        codes.normalise_enroll_code(code))).values(replaces_kiosk_id=kiosk.kiosk_id))
    audit.record(conn, actor, "KIOSK_REPLACE_CODE", "kiosk", kiosk.kiosk_id)
    return str(kiosk.kiosk_id), code


def name_for_hello(conn: Connection, kiosk_id: str) -> str:
    """The kiosk's name, giving one (`<store>-<n>`) to a kiosk enrolled before names were kept (inside
    db.write; written once, so the steady state writes nothing)."""
    row = conn.execute(select(store_token.c.store_id, store_token.c.kiosk_name, store_token.c.named_at)
                       .where(store_token.c.kiosk_id == kiosk_id)).one()
    if row.named_at is not None:
        return str(row.kiosk_name)
    name = stores.default_name(conn, row.store_id)
    conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk_id)
                 .values(kiosk_name=name, named_at=clock.now_text()))
    audit.record(conn, f"kiosk:{kiosk_id}", "KIOSK_RENAME", "kiosk", kiosk_id, name=name, was=row.kiosk_name)
    return name

