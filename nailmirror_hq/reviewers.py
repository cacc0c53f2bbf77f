"""HQ's people (called reviewers for history): argon2id password hashes (never the password), a role (roles.py)
and a display name, disable and password change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, select, update

from nailmirror_hq import audit, clock, roles
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import reviewer
from nailmirror_protocol.errors import ErrorCode

NAME_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,80}$")
MIN_PASSWORD = 10
MAX_DISPLAY_NAME = 40
_hasher = PasswordHasher()


@dataclass(frozen=True)
class Account:
    name: str
    role: str  # a roles.Role value (kept as text: a role a newer HQ wrote still lists, and allows nothing)
    display_name: str | None
    created_at: str
    disabled_at: str | None

    @property
    def shown_name(self) -> str:
        return self.display_name or self.name


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a password needs at least {MIN_PASSWORD} characters")


def _role(text: str) -> roles.Role:
    try:
        return roles.parse_role(text)
    except ValueError as exc:
        raise HQError(400, ErrorCode.BAD_REQUEST, str(exc)) from None


def _display_name(text: str | None) -> str | None:
    shown = " ".join((text or "").split())
    if len(shown) > MAX_DISPLAY_NAME:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a display name is at most {MAX_DISPLAY_NAME} characters")
    return shown or None


def add(conn: Connection, name: str, password: str, actor: str, role: str = roles.DEFAULT_ROLE,
        display_name: str | None = None) -> None:
    if not NAME_PATTERN.match(name):
        raise HQError(400, ErrorCode.BAD_REQUEST, "a reviewer name is 1-80 letters, digits, '.', '_' or '-'")
    chosen, shown = _role(role), _display_name(display_name)
    _check_password(password)
    if conn.execute(select(reviewer.c.name).where(reviewer.c.name == name)).first():
        raise HQError(409, ErrorCode.BAD_REQUEST, f"reviewer {name} exists")
    conn.execute(reviewer.insert().values(name=name, password_hash=_hasher.hash(password),
                                          created_at=clock.now_text(), role=chosen.value, display_name=shown))
    audit.record(conn, actor, "REVIEWER_ADD", "reviewer", name, role=chosen.value, display_name=shown)


def set_role(conn: Connection, name: str, role: str, actor: str) -> None:
    chosen = _role(role)
    was = conn.execute(select(reviewer.c.role).where(reviewer.c.name == name)).scalar_one_or_none()
    if was is None:
        raise not_found(f"reviewer {name}")
    conn.execute(update(reviewer).where(reviewer.c.name == name).values(role=chosen.value))
    audit.record(conn, actor, "REVIEWER_ROLE", "reviewer", name, role=chosen.value, was=was)


def set_display_name(conn: Connection, name: str, display_name: str, actor: str) -> None:
    shown = _display_name(display_name)
    result = conn.execute(update(reviewer).where(reviewer.c.name == name).values(display_name=shown))
    if result.rowcount != 1:
        raise not_found(f"reviewer {name}")
    audit.record(conn, actor, "REVIEWER_NAME", "reviewer", name, display_name=shown)


def get(conn: Connection, name: str) -> Account | None:
    row = conn.execute(select(reviewer).where(reviewer.c.name == name)).one_or_none()
    return _account(row) if row is not None else None


def _account(row: Any) -> Account:
    return Account(row.name, row.role, row.display_name, row.created_at, row.disabled_at)


def shown_name(conn: Connection, actor: str) -> str:
    """How a person who acted is named to others (a kiosk's audit, HQ's pages): an HQ account's display name,
    else the actor without its kind ("hq:li.wang" → "li.wang", "cli:root" → "root")."""
    kind, _, name = actor.partition(":")
    if kind == "hq" and name:
        account = get(conn, name)
        return account.shown_name if account else name
    return name or actor


def set_password(conn: Connection, name: str, password: str, actor: str) -> None:
    _check_password(password)
    result = conn.execute(update(reviewer).where(reviewer.c.name == name)
                          .values(password_hash=_hasher.hash(password)))
    if result.rowcount != 1:
        raise not_found(f"reviewer {name}")
    audit.record(conn, actor, "REVIEWER_PASSWD", "reviewer", name)


def disable(conn: Connection, name: str, actor: str) -> None:
    result = conn.execute(update(reviewer).where(reviewer.c.name == name).values(disabled_at=clock.now_text()))
    if result.rowcount != 1:
        raise not_found(f"reviewer {name}")
    audit.record(conn, actor, "REVIEWER_DISABLE", "reviewer", name)


@cache
def _no_such_reviewer() -> str:
    return _hasher.hash("no such reviewer")


def verify(conn: Connection, name: str, password: str) -> bool:
    """True for an enabled reviewer with this password (the same slow check whether or not the name exists: one
    argon2 verify either way, against a hash made once for names that do not exist)."""
    row = conn.execute(select(reviewer).where(reviewer.c.name == name)).one_or_none()
    stored = row.password_hash if row else _no_such_reviewer()
    ok: bool
    try:
        ok = _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        ok = False
    return bool(ok and row is not None and row.disabled_at is None)


def accounts(conn: Connection) -> list[Account]:
    return [_account(r) for r in conn.execute(select(reviewer).order_by(reviewer.c.name))]


def list_reviewers(conn: Connection) -> list[dict[str, str | None]]:
    return [{"name": a.name, "role": a.role, "display_name": a.display_name, "created_at": a.created_at,
             "disabled_at": a.disabled_at} for a in accounts(conn)]
