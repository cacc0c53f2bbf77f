"""HQ reviewers: argon2id password hashes (never the password), disable and password change."""

from __future__ import annotations

import re
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, select, update

from nailmirror_hq import audit, clock
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import reviewer
from nailmirror_protocol.errors import ErrorCode

NAME_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,80}$")
MIN_PASSWORD = 10
_hasher = PasswordHasher()


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a password needs at least {MIN_PASSWORD} characters")


def add(conn: Connection, name: str, password: str, actor: str) -> None:
    if not NAME_PATTERN.match(name):
        raise HQError(400, ErrorCode.BAD_REQUEST, "a reviewer name is 1-80 letters, digits, '.', '_' or '-'")
    _check_password(password)
    if conn.execute(select(reviewer.c.name).where(reviewer.c.name == name)).first():
        raise HQError(409, ErrorCode.BAD_REQUEST, f"reviewer {name} exists")
    conn.execute(reviewer.insert().values(name=name, password_hash=_hasher.hash(password),
                                          created_at=clock.now_text()))
    audit.record(conn, actor, "REVIEWER_ADD", "reviewer", name)


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


def list_reviewers(conn: Connection) -> list[dict[str, str | None]]:
    return [{"name": r.name, "created_at": r.created_at, "disabled_at": r.disabled_at}
            for r in conn.execute(select(reviewer).order_by(reviewer.c.name))]
