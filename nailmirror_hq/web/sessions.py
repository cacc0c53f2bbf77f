"""Reviewer sessions: a random cookie id (HQ keeps its sha256), 12 h lifetime, and a CSRF token per session
that every form posts back. A disabled reviewer's sessions stop working at once (checked on every request)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import Connection, delete, select

from nailmirror_hq import clock, roles
from nailmirror_hq.schema import reviewer, web_session

COOKIE = "nm_hq_session"
LIFETIME = timedelta(hours=12)


@dataclass(frozen=True)
class Session:
    reviewer: str
    csrf: str
    role: str = roles.DEFAULT_ROLE.value  # read from the account on every request: a new role applies at once

    def can(self, permission: roles.Permission | str) -> bool:
        """What pages ask to show a button; routes ask the same through web/routes.py `Allowed`."""
        return roles.allows(self.role, roles.Permission(permission))


def _key(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start(conn: Connection, name: str) -> str:
    session_id = secrets.token_urlsafe(32)
    conn.execute(web_session.insert().values(id_sha256=_key(session_id), reviewer=name,
                                             csrf=secrets.token_urlsafe(24), created_at=clock.now_text(),
                                             expires_at=clock.now_text(LIFETIME)))
    return session_id


def find(conn: Connection, session_id: str | None) -> Session | None:
    if not session_id:
        return None
    row = conn.execute(select(web_session.c.reviewer, web_session.c.csrf, web_session.c.expires_at,
                              reviewer.c.disabled_at, reviewer.c.role)
                       .join(reviewer, reviewer.c.name == web_session.c.reviewer)
                       .where(web_session.c.id_sha256 == _key(session_id))).one_or_none()
    if row is None or row.disabled_at is not None or row.expires_at < clock.now_text():
        return None
    return Session(row.reviewer, row.csrf, row.role)


def end(conn: Connection, session_id: str | None) -> None:
    if session_id:
        conn.execute(delete(web_session).where(web_session.c.id_sha256 == _key(session_id)))


def csrf_ok(session: Session, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(session.csrf, str(token))
