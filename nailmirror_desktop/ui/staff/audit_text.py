"""A style's audit trail as staff read it: one sentence per row, in the UI's language, at the store's local
time, naming who did what to which style ("2026-12-04 21:03 · Staff set the price of AB12CD to ¥168 (was
none)."), instead of the raw row ("SET_PRICE - → -"). The rows themselves stay codes (core/catalog/status.py).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from PySide6.QtCore import QCoreApplication

from nailmirror_desktop.core.catalog.price import format_price
from nailmirror_desktop.core.catalog.records import AuditEntry
from nailmirror_desktop.core.config import FALLBACK_TIME_ZONE, known_time_zone
from nailmirror_desktop.ui.shell.messages import style_status_text

# Every string is a literal translate("AuditText", …) call: pyside6-lupdate finds those by name.
translate = QCoreApplication.translate


def local_time(created_at: str, time_zone: str) -> str:
    """'2026-12-04T13:03:00.123Z' (UTC, as SQLite wrote it) → '2026-12-04 21:03' in the store's zone."""
    try:
        moment = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return created_at[:16]
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    zone = ZoneInfo(time_zone if known_time_zone(time_zone) else FALLBACK_TIME_ZONE)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def actor_text(actor: str) -> str:
    """Who acted, as staff say it; an actor this does not know shows as it is."""
    kind, _, name = actor.partition(":")
    if kind == "cli" and name:
        return translate("AuditText", "Staff on the kiosk PC (%1)").replace("%1", name)
    if kind == "hq":
        return translate("AuditText", "HQ reviewer %1").replace("%1", name) if name else translate("AuditText", "HQ")
    names = {"staff": translate("AuditText", "Staff"), "cli": translate("AuditText", "Staff on the kiosk PC"),
             "sync": translate("AuditText", "HQ"), "starter_catalog": translate("AuditText", "The starter catalog"),
             "generation": translate("AuditText", "AI design")}
    return names.get(actor, actor)


def _detail(entry: AuditEntry) -> dict[str, object]:
    try:
        detail = json.loads(entry.detail_json) if entry.detail_json else {}
    except ValueError:
        return {}
    return detail if isinstance(detail, dict) else {}


def _price(value: object, currency_code: str, language: str) -> str | None:
    return format_price(value, currency_code, language) if isinstance(value, int) else None


def _what(entry: AuditEntry, code: str, currency_code: str, language: str) -> str:
    """What happened to the style, with %1 standing for who did it."""
    detail = _detail(entry)
    to_status = style_status_text(entry.to_status) if entry.to_status else ""
    action = entry.action
    if action == "SET_PRICE":
        new, old = (_price(detail.get(k), currency_code, language) for k in ("to", "from"))
        if new is None:
            return translate("AuditText", "%1 cleared the price of %2 (was %3).").replace("%3", old or "—")
        if old is None:
            return translate("AuditText", "%1 set the price of %2 to %3 (it had none).").replace("%3", new)
        return translate("AuditText", "%1 set the price of %2 to %3 (was %4).").replace("%3", new).replace("%4", old)
    if action == "SYNC" and entry.reason in ("hidden here", "shown here"):
        return (translate("AuditText", "%1 hid %2 in this store.") if entry.reason == "hidden here"
                else translate("AuditText", "%1 showed %2 in this store again."))
    if action == "SUBMIT" and detail.get("to") == "HQ":
        return translate("AuditText", "%1 sent %2 to HQ for review.")
    sentences = {
        "CREATE": translate("AuditText", "%1 added %2 as a draft."),
        "SUBMIT": translate("AuditText", "%1 sent %2 for review."),
        "APPROVE": translate("AuditText", "%1 approved %2: it is on the shelf."),
        "REJECT": translate("AuditText", "%1 rejected %2."),
        "PUBLISH": translate("AuditText", "%1 put %2 back on the shelf."),
        "OFF_SHELF": translate("AuditText", "%1 took %2 off the shelf."),
        "REVISE": translate("AuditText", "%1 sent %2 back to draft."),
        "EDIT_CONTENT": translate("AuditText", "%1 replaced the pictures of %2; it is a draft again.")
        if entry.from_status not in (None, "DRAFT") else translate("AuditText", "%1 replaced the pictures of %2."),
        "DELETE": translate("AuditText", "%1 removed %2."),
        "SYNC": translate("AuditText", "%1 updated %2 (now: %3).").replace("%3", to_status) if to_status
        else translate("AuditText", "%1 updated %2."),
    }
    unknown = translate("AuditText", "%1: %2 %3.").replace("%3", f"{action} {to_status}".strip())
    return sentences.get(action, unknown)


def audit_sentence(entry: AuditEntry, code: str, *, time_zone: str, currency_code: str, language: str) -> str:
    """One row of the trail: '<local time> · <who> <did what to> <code>[: “reason”]'."""
    what = _what(entry, code, currency_code, language).replace("%2", code).replace("%1", actor_text(entry.actor))
    if entry.reason and entry.action != "SYNC":
        what = translate("AuditText", "%1 Reason: “%2”").replace("%1", what).replace("%2", entry.reason)
    return f"{local_time(entry.created_at, time_zone)} · {what}"
