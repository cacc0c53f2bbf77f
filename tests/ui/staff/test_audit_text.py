"""The review page's audit trail reads as sentences in the UI's language, at the store's local time, naming the
style's code (#22.7; before: "SET_PRICE - → -")."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from nailmirror_desktop.core.catalog import StyleSource, read_style_folder
from nailmirror_desktop.core.catalog.records import AuditEntry
from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.audit_text import actor_text, audit_sentence, local_time
from nailmirror_desktop.ui.staff.review_page import ReviewPage
from tests.support.style_fixtures import make_style_folder, repository

pytestmark = pytest.mark.qt


@pytest.fixture
def trail(qtbot, tmp_path):
    i18n.install_language("en")
    repo = repository()
    folder = read_style_folder(make_style_folder(tmp_path / "s"))
    style = repo.create_style_with_content("奶白贝壳", StyleSource.MANUAL, folder.content, actor="staff")
    repo.set_price(style.id, 16800, actor="staff")
    repo.set_price(style.id, 12850, actor="cli:anna")
    repo.transit(style.style_code, StyleStatus.PENDING_REVIEW, actor="staff")
    repo.transit(style.style_code, StyleStatus.REJECTED, actor="hq:wang", reason="颜色太暗")
    repo.set_price(style.id, None, actor="staff")
    page = ReviewPage(repo, currency_code="CNY", time_zone="Asia/Shanghai")
    qtbot.addWidget(page)
    page.select_code(style.style_code)
    yield page, repo, style
    i18n.install_language("en")


def test_the_trail_is_sentences_with_the_code_and_the_stores_local_time(trail):
    page, repo, style = trail
    lines = page.history.toPlainText().splitlines()
    assert len(lines) == 6
    code = style.style_code
    assert all(code in line for line in lines)
    assert not any(raw in page.history.toPlainText() for raw in ("SET_PRICE", "→", " - ", "PENDING_REVIEW"))
    # newest first
    assert lines[0].endswith(f"Staff cleared the price of {code} (was ¥128.50).")
    assert lines[1].endswith(f"HQ reviewer wang rejected {code}. Reason: “颜色太暗”")
    assert lines[2].endswith(f"Staff sent {code} for review.")
    assert lines[3].endswith(f"Staff on the kiosk PC (anna) set the price of {code} to ¥128.50 (was ¥168).")
    assert lines[4].endswith(f"Staff set the price of {code} to ¥168 (it had none).")
    assert lines[5].endswith(f"Staff added {code} as a draft.")
    first = repo.audit_trail(style.id)[0]
    utc = datetime.fromisoformat(first.created_at.replace("Z", "+00:00"))
    shanghai = utc.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M")
    assert lines[5].startswith(f"{shanghai} · ")


def test_the_trail_follows_the_language_and_the_zone(qtbot, trail):
    page, _repo, style = trail
    i18n.install_language("zh_CN")
    qtbot.waitUntil(lambda: "店员" in page.history.toPlainText(), timeout=3000)  # LanguageChange is posted
    text = page.history.toPlainText()
    assert f"店员清除了 {style.style_code} 的价格" in text and "总部审核员 wang" in text
    page.set_time_zone("Europe/Paris")
    assert page.history.toPlainText() != text  # seven hours earlier


def test_times_are_local_and_unknown_rows_still_read():
    assert local_time("2026-12-04T13:03:00.123Z", "Asia/Shanghai") == "2026-12-04 21:03"
    assert local_time("2026-12-04T13:03:00.123Z", "Mars/Olympus") == "2026-12-04 21:03"  # the stores' zone
    assert local_time("not a time", "Asia/Shanghai") == "not a time"
    assert actor_text("sync") == "HQ" and actor_text("robot") == "robot"
    hidden = AuditEntry(1, "SYNC", None, None, "hidden here", "cli:li", None, "2026-01-01T00:00:00.000Z")
    assert audit_sentence(hidden, "AB12CD", time_zone="UTC", currency_code="CNY", language="en") == (
        "2026-01-01 00:00 · Staff on the kiosk PC (li) hid AB12CD in this store.")
    odd = AuditEntry(2, "FUTURE_ACTION", None, "DRAFT", None, "staff", "{not json", "2026-01-01T00:00:00Z")
    assert "FUTURE_ACTION" in audit_sentence(odd, "AB12CD", time_zone="UTC", currency_code="CNY", language="en")
