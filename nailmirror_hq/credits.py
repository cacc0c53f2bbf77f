"""Credits at HQ (issue 14): grants to a store, the kiosks' ledger entries they upload, and each store's books.

A grant is one transaction: the credit_grant row, its `credits.grant` inbox event (grant_id, amount, reason) and
the audit line commit together, so a grant HQ shows is always on its way to the store, and the kiosk applies it
once by grant_id however often the event is delivered.

Kiosks upload only *settled* entries (CONFIRMED or REFUNDED): a settled entry never changes, so the upload is
idempotent by entry id (same body: 200, a different body: 409). HQ's view of a store is therefore behind the
kiosk by what is still pending there:
    balance (as HQ knows it) = granted + granted locally by staff - confirmed (funded charges)

Several kiosks in one store each keep their own ledger, so a grant is addressed to one kiosk (`kiosk_id` on the
grant and its inbox event; the others skip it): required when the store has more than one active kiosk, the
only one otherwise. HQ's books are per store and per kiosk.

A grant HQ lost in a restore (made after the backup, applied by the kiosk) comes back with the kiosk's GRANT
entry: its grant id has HQ's form, so HQ records it again as the HQ grant it was (`learned_from_entry`), not
as a grant made at the store. An entry re-sent under a new id after a 409 (`replaces`) supersedes the old one.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select, update

from nailmirror_hq import audit, clock, inbox, stores
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import credit_grant, credit_ledger_entry, store_token
from nailmirror_protocol.canonical import body_sha256, canonical_json
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import CREDITS_GRANT, GRANT_MAX_AMOUNT, GRANT_MAX_REASON

ENTRY_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
HQ_GRANT_ID = re.compile(r"^gr_[0-9a-f]{24}$")  # what grant() makes: a kiosk's own grants never look like it
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
MAX_AMOUNT = 10 * GRANT_MAX_AMOUNT  # a charge is a few images; anything near this is a corrupt entry
MAX_TEXT = 500


@dataclass(frozen=True)
class Grant:
    grant_id: str
    store_id: str
    amount: int
    reason: str
    actor: str
    inbox_seq: int | None  # None: learned back from a kiosk after a restore (no inbox event of this HQ)
    created_at: str
    kiosk_id: str | None = None  # the kiosk that applies it; None: granted before grants were addressed
    learned_from_entry: str | None = None


@dataclass(frozen=True)
class KioskCredits:
    """One kiosk's share of its store's books: the grants addressed to it and the entries it uploaded.
    kiosk_id None: grants made before grants were addressed (no one kiosk can be named for them)."""

    kiosk_id: str | None
    kiosk_name: str | None
    active: bool
    granted: int
    granted_locally: int
    confirmed: int
    refunded: int
    generations: int
    last_upload_at: str | None

    @property
    def balance(self) -> int:
        return self.granted + self.granted_locally - self.confirmed

    def as_json(self) -> dict[str, Any]:
        return {"kiosk_id": self.kiosk_id, "kiosk_name": self.kiosk_name, "active": self.active,
                "granted": self.granted, "granted_locally": self.granted_locally, "confirmed": self.confirmed,
                "refunded": self.refunded, "balance": self.balance, "generations": self.generations,
                "last_upload_at": self.last_upload_at}


@dataclass(frozen=True)
class StoreCredits:
    """One store's books as HQ knows them from its own grants and the entries its kiosks uploaded."""

    store_id: str
    name: str
    granted: int  # HQ's grants
    granted_locally: int  # staff grants made at the kiosk (no HQ grant id), as uploaded
    grants_applied: int  # HQ grants a kiosk has reported applied (their GRANT entry came back)
    grants_total: int
    confirmed: int  # credits spent: confirmed amounts of funded charges
    refunded: int  # credits given back: refunded parts of funded charges
    generations: int  # paid generations not refunded, funded or not
    unfunded_confirmed: int  # charges before the first grant (the store paid its provider itself)
    last_upload_at: str | None
    kiosks: tuple[KioskCredits, ...] = ()

    @property
    def balance(self) -> int:
        return self.granted + self.granted_locally - self.confirmed

    def as_json(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "name": self.name, "granted": self.granted,
                "granted_locally": self.granted_locally, "confirmed": self.confirmed, "refunded": self.refunded,
                "balance": self.balance, "generations": self.generations,
                "unfunded_confirmed": self.unfunded_confirmed, "grants": self.grants_total,
                "grants_applied": self.grants_applied, "last_upload_at": self.last_upload_at,
                "kiosks": [k.as_json() for k in self.kiosks]}


# --- grants -------------------------------------------------------------------------------------------------

def active_kiosks(conn: Connection, store_id: str) -> list[tuple[str, str]]:
    """(kiosk_id, kiosk_name) of the store's kiosks whose token is not revoked, oldest enrollment first."""
    return [(r.kiosk_id, r.kiosk_name) for r in conn.execute(
        select(store_token.c.kiosk_id, store_token.c.kiosk_name)
        .where(store_token.c.store_id == store_id, store_token.c.revoked_at.is_(None))
        .order_by(store_token.c.created_at, store_token.c.kiosk_id))]


def _addressee(conn: Connection, store_id: str, kiosk_id: str | None) -> str:
    """The one kiosk that applies the grant: the named one (active, of this store), else the store's only one."""
    active = active_kiosks(conn, store_id)
    listed = ", ".join(f"{k} ({name})" for k, name in active)
    if kiosk_id is not None:
        if kiosk_id not in {k for k, _name in active}:
            raise not_found(f"active kiosk {kiosk_id} in store {store_id} (active: {listed or 'none'})")
        return kiosk_id
    if not active:
        raise HQError(409, "no_kiosk", f"store {store_id} has no enrolled kiosk: a grant is applied by one kiosk's "
                                       "ledger, so enroll one first")
    if len(active) > 1:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"store {store_id} has {len(active)} active kiosks, each with its "
                                                  f"own ledger: name the one to credit with --kiosk ({listed})")
    return active[0][0]


def grant(conn: Connection, store_id: str, amount: int, reason: str, actor: str,
          kiosk_id: str | None = None) -> Grant:
    """Grant `amount` credits to one kiosk of an active store (`kiosk_id`, required when it has several active
    kiosks): the grant row, its inbox event and the audit line at once."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= GRANT_MAX_AMOUNT:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a grant is a whole number of credits, 1 to {GRANT_MAX_AMOUNT}")
    reason = (reason or "").strip()
    if not reason:
        raise HQError(400, ErrorCode.BAD_REQUEST, "a grant needs a reason")
    if len(reason) > GRANT_MAX_REASON:  # the kiosk keeps 500 characters: refuse rather than cut it silently
        raise HQError(400, ErrorCode.BAD_REQUEST, f"the reason is over {GRANT_MAX_REASON} characters")
    found = stores.get_store(conn, store_id)
    if found is None:
        raise not_found(f"store {store_id}")
    if found.status != "ACTIVE":
        raise HQError(409, "store_revoked", f"store {store_id} is revoked: it would never receive the grant")
    kiosk = _addressee(conn, store_id, kiosk_id)
    grant_id = f"gr_{secrets.token_hex(12)}"
    seq = inbox.append(conn, store_id, CREDITS_GRANT, grant_id=grant_id, amount=amount, reason=reason,
                       kiosk_id=kiosk)
    now = clock.now_text()
    conn.execute(credit_grant.insert().values(grant_id=grant_id, store_id=store_id, amount=amount, reason=reason,
                                              actor=actor, inbox_seq=seq, created_at=now, kiosk_id=kiosk))
    audit.record(conn, actor, "CREDITS_GRANT", "store", store_id, grant_id=grant_id, amount=amount, reason=reason,
                 kiosk_id=kiosk)
    return Grant(grant_id, store_id, amount, reason, actor, seq, now, kiosk)


def grants(conn: Connection, store_id: str | None = None) -> list[Grant]:
    query = select(credit_grant).order_by(credit_grant.c.created_at, credit_grant.c.grant_id)
    if store_id is not None:
        query = query.where(credit_grant.c.store_id == store_id)
    return [Grant(r.grant_id, r.store_id, int(r.amount), r.reason, r.actor,
                  None if r.inbox_seq is None else int(r.inbox_seq), r.created_at, r.kiosk_id, r.learned_from_entry)
            for r in conn.execute(query)]


# --- ledger upload ------------------------------------------------------------------------------------------

def _invalid(message: str) -> HQError:
    return HQError(400, ErrorCode.INVALID_LEDGER_ENTRY, message)


def _whole(body: dict[str, Any], key: str, required: bool = True) -> int | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise _invalid(f"{key} must be a whole number 0 to {MAX_AMOUNT}")
    return value


def _text(body: dict[str, Any], key: str, limit: int = MAX_TEXT) -> str | None:
    value = body.get(key)
    if value is not None and (not isinstance(value, str) or len(value) > limit):
        raise _invalid(f"{key} must be text of at most {limit} characters or null")
    return value


def _time(body: dict[str, Any], key: str, required: bool) -> str | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not TIME.match(value):
        raise _invalid(f"{key} must be a UTC time YYYY-MM-DDTHH:MM:SS.fffZ")
    return value


def _validate(body: dict[str, Any]) -> dict[str, Any]:
    """The columns HQ keeps of a LedgerEntryUpload, or 400 invalid_ledger_entry naming the first bad field."""
    if body.get("nm") != 1:
        raise _invalid('a ledger entry carries "nm": 1')
    kind, status = body.get("kind"), body.get("status")
    if kind not in ("GRANT", "CHARGE"):
        raise _invalid("kind must be GRANT or CHARGE")
    if status not in ("CONFIRMED", "REFUNDED"):
        raise _invalid("status must be CONFIRMED or REFUNDED: only settled entries are uploaded")
    amount, confirmed = _whole(body, "amount"), _whole(body, "confirmed_amount")
    assert amount is not None and confirmed is not None
    if confirmed > amount:
        raise _invalid("confirmed_amount is more than amount")
    if status == "REFUNDED" and confirmed:
        raise _invalid("a REFUNDED entry has confirmed_amount 0")
    funded = body.get("funded")
    if not isinstance(funded, bool):
        raise _invalid("funded must be true or false")
    grant_id, task_no = _text(body, "grant_id", 200), _text(body, "task_no", 64)
    if kind == "GRANT" and (not grant_id or status != "CONFIRMED" or amount < 1):
        raise _invalid("a GRANT entry is CONFIRMED, has a grant_id and an amount of 1 or more")
    if kind == "CHARGE" and (grant_id is not None or not task_no):
        raise _invalid("a CHARGE entry has a task_no and no grant_id")
    for key in ("provider", "model", "reason", "note"):
        _text(body, key)
    for key in ("unit_price", "variations"):
        _whole(body, key, required=False)
    replaces = _text(body, "replaces", 64)
    if replaces is not None and not ENTRY_ID.match(replaces):
        raise _invalid("replaces is an entry id: 1 to 64 characters of A-Z, a-z, 0-9, _ . : -")
    return {"replaces": replaces, "kind": kind, "status": status, "amount": amount, "confirmed_amount": confirmed,
            "funded": 1 if funded else 0, "grant_id": grant_id, "task_no": task_no,
            "created_at": _time(body, "created_at", True), "settled_at": _time(body, "settled_at", False)}


def put_entry(conn: Connection, store_id: str, kiosk_id: str, entry_id: str, body: dict[str, Any]) -> bool:
    """Store one uploaded entry. True: stored now (201); False: the identical entry was stored before (200).
    A different body under a stored entry id is 409 ledger_entry_conflict, its details carrying the body HQ
    holds (`stored`) so the kiosk can show both: an entry never changes once settled, so a different one means
    two ledgers (a kiosk restored from an old disk image settled the same charge again) reused an id; keep the
    first. An entry with `replaces` (re-sent under a new id after such a 409) supersedes that one. A GRANT entry
    with HQ's grant id that HQ does not know is a grant a restore lost: it is recorded again (learn_grant)."""
    if not ENTRY_ID.match(entry_id):
        raise _invalid("entry_id is 1 to 64 characters of A-Z, a-z, 0-9, _ . : -")
    columns = _validate(body)
    if columns["replaces"] == entry_id:
        raise _invalid("an entry cannot replace itself")
    # `replaces` says which id the entry was re-sent under, not what it is: the same entry sent again without it
    # (after a restore re-offers everything) is the same entry, a 200.
    digest = body_sha256({k: v for k, v in body.items() if k != "replaces"})
    stored = conn.execute(select(credit_ledger_entry.c.body_sha256, credit_ledger_entry.c.body).where(
        credit_ledger_entry.c.store_id == store_id, credit_ledger_entry.c.entry_id == entry_id)).one_or_none()
    if stored is not None:
        if stored.body_sha256 == digest:
            return False
        raise HQError(409, ErrorCode.LEDGER_ENTRY_CONFLICT,
                      f"ledger entry {entry_id} was uploaded before with a different body",
                      {"entry_id": entry_id, "stored": json.loads(stored.body)})
    conn.execute(credit_ledger_entry.insert().values(
        store_id=store_id, entry_id=entry_id, kiosk_id=kiosk_id, body=canonical_json(body).decode("utf-8"),
        body_sha256=digest, received_at=clock.now_text(), **columns))
    if columns["replaces"] is not None:
        conn.execute(update(credit_ledger_entry).where(
            credit_ledger_entry.c.store_id == store_id, credit_ledger_entry.c.entry_id == columns["replaces"],
            credit_ledger_entry.c.superseded_by.is_(None)).values(superseded_by=entry_id))
        audit.record(conn, f"kiosk:{kiosk_id}", "LEDGER_ENTRY_REPLACED", "store", store_id,
                     entry_id=entry_id, replaces=columns["replaces"])
    if columns["kind"] == "GRANT" and HQ_GRANT_ID.match(columns["grant_id"] or ""):
        learn_grant(conn, store_id, kiosk_id, entry_id, body)
    return True


def learn_grant(conn: Connection, store_id: str, kiosk_id: str, entry_id: str, body: dict[str, Any]) -> bool:
    """Record an HQ grant that the kiosk applied and HQ no longer knows (made after the backup HQ was restored
    from): the grant as it was (id, amount, reason, the kiosk's time), addressed to the kiosk that holds it, with
    no inbox event (the kiosk has applied it; a new event would be skipped anyway, once per grant id). True when
    learned now; a grant id HQ knows (here or, impossibly, in another store) is left as it is."""
    grant_id = body["grant_id"]
    if conn.execute(select(credit_grant.c.grant_id).where(credit_grant.c.grant_id == grant_id)).first():
        return False
    actor = f"kiosk:{kiosk_id}"
    conn.execute(credit_grant.insert().values(
        grant_id=grant_id, store_id=store_id, amount=body["amount"], reason=body.get("reason") or "(learned back)",
        actor=actor, inbox_seq=None, created_at=body["created_at"], kiosk_id=kiosk_id, learned_from_entry=entry_id))
    audit.record(conn, actor, "CREDITS_GRANT_LEARNED", "store", store_id, grant_id=grant_id, amount=body["amount"],
                 entry_id=entry_id)
    return True


# --- the books ----------------------------------------------------------------------------------------------

def books(conn: Connection, store_id: str | None = None) -> list[StoreCredits]:
    """Every store's books (or one store's: 404 when it does not exist), ordered by store id, each with its
    kiosks' shares. Entries superseded by a re-sent one (`replaces`) are not counted."""
    if store_id is not None and stores.get_store(conn, store_id) is None:
        raise not_found(f"store {store_id}")
    granted: dict[tuple[str, str | None], tuple[int, int]] = {
        (r.store_id, r.kiosk_id): (int(r.total), int(r.n)) for r in conn.execute(
            select(credit_grant.c.store_id, credit_grant.c.kiosk_id, func.sum(credit_grant.c.amount).label("total"),
                   func.count().label("n")).group_by(credit_grant.c.store_id, credit_grant.c.kiosk_id))}
    hq_grant_ids = select(credit_grant.c.grant_id)
    e = credit_ledger_entry
    charge, funded = e.c.kind == "CHARGE", e.c.funded == 1
    totals = {(r.store_id, r.kiosk_id): r for r in conn.execute(select(
        e.c.store_id, e.c.kiosk_id,
        func.coalesce(func.sum(e.c.amount).filter(e.c.kind == "GRANT", e.c.grant_id.not_in(hq_grant_ids)), 0
                      ).label("local"),
        func.count().filter(e.c.kind == "GRANT", e.c.grant_id.in_(hq_grant_ids)).label("applied"),
        func.coalesce(func.sum(e.c.confirmed_amount).filter(charge, funded), 0).label("confirmed"),
        func.coalesce(func.sum(e.c.amount - e.c.confirmed_amount).filter(charge, funded), 0).label("refunded"),
        func.count().filter(charge, e.c.status != "REFUNDED").label("generations"),
        func.coalesce(func.sum(e.c.confirmed_amount).filter(charge, e.c.funded == 0), 0).label("unfunded"),
        func.max(e.c.received_at).label("last"),
    ).where(e.c.superseded_by.is_(None)).group_by(e.c.store_id, e.c.kiosk_id))}
    out = []
    for found in stores.list_stores(conn):
        if store_id is not None and found.id != store_id:
            continue
        shares = _kiosk_shares(conn, found.id, granted, totals)
        rows = [totals[key] for key in totals if key[0] == found.id]
        total = sum(v[0] for k, v in granted.items() if k[0] == found.id)
        n = sum(v[1] for k, v in granted.items() if k[0] == found.id)
        last = max((r.last for r in rows if r.last), default=None)
        out.append(StoreCredits(
            found.id, found.name, total, sum(int(r.local) for r in rows), sum(int(r.applied) for r in rows), n,
            sum(int(r.confirmed) for r in rows), sum(int(r.refunded) for r in rows),
            sum(int(r.generations) for r in rows), sum(int(r.unfunded) for r in rows), last, shares))
    return out


def _kiosk_shares(conn: Connection, store_id: str, granted: dict[tuple[str, str | None], tuple[int, int]],
                  totals: dict[tuple[str, str], Any]) -> tuple[KioskCredits, ...]:
    """Every kiosk the store ever enrolled (revoked ones too: their books stay), then the unaddressed grants."""
    tokens = conn.execute(select(store_token.c.kiosk_id, store_token.c.kiosk_name, store_token.c.revoked_at)
                          .where(store_token.c.store_id == store_id)
                          .order_by(store_token.c.created_at, store_token.c.kiosk_id)).all()
    shares = []
    for token in tokens:
        row = totals.get((store_id, token.kiosk_id))
        shares.append(KioskCredits(
            token.kiosk_id, token.kiosk_name, token.revoked_at is None, granted.get((store_id, token.kiosk_id),
                                                                                    (0, 0))[0],
            int(row.local) if row else 0, int(row.confirmed) if row else 0, int(row.refunded) if row else 0,
            int(row.generations) if row else 0, row.last if row else None))
    if (store_id, None) in granted:
        shares.append(KioskCredits(None, None, False, granted[(store_id, None)][0], 0, 0, 0, 0, None))
    return tuple(shares)
