"""The append-only audit log of every decision HQ makes (publish, take-down, approve, reject, enroll, revoke)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection

from nailmirror_hq import clock
from nailmirror_hq.schema import audit_log


def record(conn: Connection, actor: str, action: str, entity_type: str, entity_id: str,
           **detail: Any) -> None:
    conn.execute(audit_log.insert().values(
        at=clock.now_text(), actor=actor, action=action, entity_type=entity_type, entity_id=entity_id,
        detail=json.dumps(detail, ensure_ascii=False, sort_keys=True)))
