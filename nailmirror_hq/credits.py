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
entry. HQ records it again as the HQ grant it was (`learned_from_entry`) only when the entry carries HQ's
signature of the grant (`grant_sig`, made by `grant` with HQ's key and sent in the inbox event, keys.py) and HQ's
public key verifies it: a kiosk's word alone never adds to HQ's grants. An entry that claims an HQ grant id HQ
does not hold, without a signature that verifies, is stored PARKED: counted nowhere, listed for an operator
(`nailmirror-hq credits parked`), who accepts it as an HQ grant or rejects it. An entry re-sent under a new id
after a 409 (`replaces`) supersedes the old one.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, func, select, update

from nailmirror_hq import audit, clock, inbox, keys, stores
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
    signature: str | None = None  # HQ's signature of (grant_id, store_id, amount), keys.sign_grant


@dataclass(frozen=True)
class ParkedGrant:
    """A kiosk's GRANT entry naming an HQ grant HQ neither holds nor can verify (issue 25 §1)."""

    store_id: str
    entry_id: str
    kiosk_id: str
    grant_id: str
    amount: int
    reason: str | None
    created_at: str  # the kiosk's time of the entry
    received_at: str
    state: str  # PARKED | ACCEPTED | REJECTED

    def as_json(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "entry_id": self.entry_id, "kiosk_id": self.kiosk_id,
                "grant_id": self.grant_id, "amount": self.amount, "reason": self.reason,
                "created_at": self.created_at, "received_at": self.received_at, "state": self.state}


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
    parked_grants: int = 0  # kiosk entries claiming an HQ grant HQ cannot verify: waiting for an operator
    parked_amount: int = 0  # their credits, counted nowhere

    @property
    def balance(self) -> int:
        return self.granted + self.granted_locally - self.confirmed

    def as_json(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "name": self.name, "granted": self.granted,
                "granted_locally": self.granted_locally, "confirmed": self.confirmed, "refunded": self.refunded,
                "balance": self.balance, "generations": self.generations,
                "unfunded_confirmed": self.unfunded_confirmed, "grants": self.grants_total,
                "grants_applied": self.grants_applied, "last_upload_at": self.last_upload_at,
                "parked_grants": self.parked_grants, "parked_amount": self.parked_amount,
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


def grant(conn: Connection, store_id: str, amount: int, reason: str, actor: str, *, key: keys.SigningKey,
          kiosk_id: str | None = None) -> Grant:
    """Grant `amount` credits to one kiosk of an active store (`kiosk_id`, required when it has several active
    kiosks): the grant row, its inbox event and the audit line at once, the grant signed with HQ's `key`."""
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
    signature = key.sign_grant(grant_id, store_id, amount)
    seq = inbox.append(conn, store_id, CREDITS_GRANT, grant_id=grant_id, amount=amount, reason=reason,
                       kiosk_id=kiosk, grant_sig=signature)
    now = clock.now_text()
    conn.execute(credit_grant.insert().values(grant_id=grant_id, store_id=store_id, amount=amount, reason=reason,
                                              actor=actor, inbox_seq=seq, created_at=now, kiosk_id=kiosk,
                                              signature=signature))
    audit.record(conn, actor, "CREDITS_GRANT", "store", store_id, grant_id=grant_id, amount=amount, reason=reason,
                 kiosk_id=kiosk)
    return Grant(grant_id, store_id, amount, reason, actor, seq, now, kiosk, signature=signature)


def grants(conn: Connection, store_id: str | None = None) -> list[Grant]:
    query = select(credit_grant).order_by(credit_grant.c.created_at, credit_grant.c.grant_id)
    if store_id is not None:
        query = query.where(credit_grant.c.store_id == store_id)
    return [Grant(r.grant_id, r.store_id, int(r.amount), r.reason, r.actor,
                  None if r.inbox_seq is None else int(r.inbox_seq), r.created_at, r.kiosk_id, r.learned_from_entry,
                  r.signature)
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


def _grant_sig(body: dict[str, Any], kind: str) -> None:
    if _text(body, "grant_sig", 200) is not None and kind != "GRANT":
        raise _invalid("only a GRANT entry carries grant_sig")


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
    _grant_sig(body, kind)
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
    with HQ's grant id that HQ does not know is a grant a restore lost: it is recorded again (learn_grant) when
    HQ's signature on it verifies, and parked for an operator when not."""
    if not ENTRY_ID.match(entry_id):
        raise _invalid("entry_id is 1 to 64 characters of A-Z, a-z, 0-9, _ . : -")
    columns = _validate(body)
    if columns["replaces"] == entry_id:
        raise _invalid("an entry cannot replace itself")
    # `replaces` says which id the entry was re-sent under, not what it is: the same entry sent again without it
    # (after a restore re-offers everything) is the same entry, a 200. `grant_sig` is HQ's evidence about the
    # entry, not the entry: a kiosk that learned it later sends the same entry.
    digest = body_sha256({k: v for k, v in body.items() if k not in ("replaces", "grant_sig")})
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
        _claim_of_hq_grant(conn, store_id, kiosk_id, entry_id, body)
    return True


def _claim_of_hq_grant(conn: Connection, store_id: str, kiosk_id: str, entry_id: str, body: dict[str, Any]) -> None:
    """A GRANT entry naming an HQ grant id: nothing when HQ holds that grant; learned back when HQ's signature of
    it (this id, this store, this amount) verifies; else parked for an operator, so no token can add to HQ's
    grants by saying so."""
    grant_id = body["grant_id"]
    if conn.execute(select(credit_grant.c.grant_id).where(credit_grant.c.grant_id == grant_id)).first():
        return
    signature = body.get("grant_sig")
    # Any of HQ's keys: a grant signed before a key rotation still verifies with the key that signed it.
    if isinstance(signature, str) and keys.verify_any(
            conn, keys.GRANT_PURPOSE, keys.grant_payload(grant_id, store_id, body["amount"]), signature):
        learn_grant(conn, store_id, kiosk_id, entry_id, body, signature)
        return
    conn.execute(update(credit_ledger_entry).where(credit_ledger_entry.c.store_id == store_id,
                                                   credit_ledger_entry.c.entry_id == entry_id)
                 .values(grant_parked="PARKED"))
    audit.record(conn, f"kiosk:{kiosk_id}", "CREDITS_GRANT_PARKED", "store", store_id, grant_id=grant_id,
                 amount=body["amount"], entry_id=entry_id,
                 why="no signature" if signature is None else "signature does not verify")


def learn_grant(conn: Connection, store_id: str, kiosk_id: str, entry_id: str, body: dict[str, Any],
                signature: str) -> bool:
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
        actor=actor, inbox_seq=None, created_at=body["created_at"], kiosk_id=kiosk_id, learned_from_entry=entry_id,
        signature=signature))
    audit.record(conn, actor, "CREDITS_GRANT_LEARNED", "store", store_id, grant_id=grant_id, amount=body["amount"],
                 entry_id=entry_id)
    return True


# --- parked claims of HQ grants -----------------------------------------------------------------------------

def parked(conn: Connection, store_id: str | None = None, *, every_state: bool = False,
           entry_id: str | None = None) -> list[ParkedGrant]:
    """GRANT entries parked for an operator (with `every_state`, also those already accepted or rejected),
    oldest first."""
    e = credit_ledger_entry
    query = select(e).where(e.c.grant_parked.in_(("PARKED", "ACCEPTED", "REJECTED") if every_state else ("PARKED",))
                            ).order_by(e.c.received_at, e.c.store_id, e.c.entry_id)
    if store_id is not None:
        query = query.where(e.c.store_id == store_id)
    if entry_id is not None:
        query = query.where(e.c.entry_id == entry_id)
    return [ParkedGrant(r.store_id, r.entry_id, r.kiosk_id, r.grant_id, int(r.amount), json.loads(r.body).get("reason"),
                        r.created_at, r.received_at, r.grant_parked) for r in conn.execute(query)]


def _parked_one(conn: Connection, store_id: str, entry_id: str) -> ParkedGrant:
    found = parked(conn, store_id, every_state=True, entry_id=entry_id)
    if not found:
        raise not_found(f"parked grant entry {entry_id} in store {store_id} (see `credits parked`)")
    if found[0].state != "PARKED":
        raise HQError(409, "not_parked", f"entry {entry_id} of store {store_id} was {found[0].state} already")
    return found[0]


def accept_parked(conn: Connection, store_id: str, entry_id: str, actor: str, reason: str, *,
                  key: keys.SigningKey) -> ParkedGrant:
    """An operator vouches for a parked entry (HQ's own records show the grant was made): HQ records the grant
    as its own, signed now, addressed to the kiosk that holds it, and counts it from here on."""
    reason = (reason or "").strip()
    if not reason:
        raise HQError(400, ErrorCode.BAD_REQUEST, "say why the grant is HQ's (--reason)")
    found = _parked_one(conn, store_id, entry_id)
    if not conn.execute(select(credit_grant.c.grant_id).where(credit_grant.c.grant_id == found.grant_id)).first():
        conn.execute(credit_grant.insert().values(
            grant_id=found.grant_id, store_id=store_id, amount=found.amount,
            reason=found.reason or "(accepted from a parked entry)", actor=actor, inbox_seq=None,
            created_at=found.created_at, kiosk_id=found.kiosk_id, learned_from_entry=entry_id,
            signature=key.sign_grant(found.grant_id, store_id, found.amount)))
    return _resolve(conn, found, "ACCEPTED", actor, reason)


def reject_parked(conn: Connection, store_id: str, entry_id: str, actor: str, reason: str) -> ParkedGrant:
    """An operator refuses a parked entry: it stays stored (the kiosk's word, for the record) and is never
    counted, neither as HQ's grant nor as one made at the store."""
    reason = (reason or "").strip()
    if not reason:
        raise HQError(400, ErrorCode.BAD_REQUEST, "say why the grant is refused (--reason)")
    return _resolve(conn, _parked_one(conn, store_id, entry_id), "REJECTED", actor, reason)


def _resolve(conn: Connection, found: ParkedGrant, state: str, actor: str, reason: str) -> ParkedGrant:
    conn.execute(update(credit_ledger_entry).where(
        credit_ledger_entry.c.store_id == found.store_id, credit_ledger_entry.c.entry_id == found.entry_id,
        credit_ledger_entry.c.grant_parked == "PARKED").values(grant_parked=state))
    audit.record(conn, actor, f"CREDITS_GRANT_{state}", "store", found.store_id, grant_id=found.grant_id,
                 amount=found.amount, entry_id=found.entry_id, reason=reason)
    return replace(found, state=state)


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
        func.coalesce(func.sum(e.c.amount).filter(e.c.kind == "GRANT", e.c.grant_id.not_in(hq_grant_ids),
                                                  e.c.grant_parked.is_(None)), 0).label("local"),
        func.count().filter(e.c.grant_parked == "PARKED").label("parked"),
        func.coalesce(func.sum(e.c.amount).filter(e.c.grant_parked == "PARKED"), 0).label("parked_amount"),
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
            sum(int(r.generations) for r in rows), sum(int(r.unfunded) for r in rows), last, shares,
            sum(int(r.parked) for r in rows), sum(int(r.parked_amount) for r in rows)))
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
