"""The kiosk's captures waiting for HQ (core/captures/store.py) on a real database: nothing kept without a
consent record, the disk quota drops the oldest first with a log line, a withdrawal deletes the copy here and
queues the code, staff consent once."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from nailmirror_desktop.core.captures import store
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 992  # 1,000 bytes: the store never decodes it


@pytest.fixture
def conn() -> sqlite3.Connection:
    connection = open_database(database_path())
    yield connection
    connection.close()


def _consent(at: str = "2026-12-04T10:00:00.000Z") -> store.Consent:
    return store.Consent("customer", at)


def test_a_capture_is_kept_with_its_consent_record_and_its_file_private(conn: sqlite3.Connection) -> None:
    kept = store.save(conn, PNG, _consent(), {"hands": []}, "nail_segmenter-x", 1_800_000_000.0, 10_000)
    assert len(kept.code) == 8 and set(kept.code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    assert kept.consent == _consent() and kept.consent.text_version == store.CONSENT_TEXT_VERSION
    path = store.captures_dir() / kept.image
    assert path.read_bytes() == PNG and path.stat().st_mode & 0o077 == 0
    assert [c.code for c in store.queued(conn)] == [kept.code]
    with pytest.raises(sqlite3.IntegrityError):  # the schema itself refuses a capture without consent
        conn.execute("INSERT INTO capture (code, image, image_sha256, size_bytes, taken_at, consent_by,"
                     " consent_at, consent_text_version, model_version, facts) VALUES"
                     " ('ABCDEFGH', 'x.png', ?, 1, 't', 'nobody', 't', 'v', 'm', '{}')", ("a" * 64,))
    with pytest.raises(ValueError):
        store.save(conn, PNG, store.Consent("customer", "t", ""), {}, "m", 1.0, 10_000)


def test_past_the_quota_the_oldest_captures_go_first_with_a_log_line(
        conn: sqlite3.Connection, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        codes = [store.save(conn, PNG, _consent(), {}, "m", 1_800_000_000.0 + i, 2_500).code for i in range(4)]
    assert [c.code for c in store.queued(conn)] == codes[2:]
    assert {p.name for p in store.captures_dir().glob("*.png")} == {f"{code}.png" for code in codes[2:]}
    dropped = [r.getMessage() for r in caplog.records if "disk quota" in r.getMessage()]
    assert [m.split()[1] for m in dropped] == [f"{c[:4]}-{c[4:]}" for c in codes[:2]]  # one line each, oldest first
    with pytest.raises(ValueError, match="larger than the whole quota"):
        store.save(conn, PNG, _consent(), {}, "m", 1_800_000_020.0, 500)


def test_a_withdrawal_deletes_the_copy_here_and_queues_the_code_for_hq(conn: sqlite3.Connection) -> None:
    kept = store.save(conn, PNG, _consent(), {}, "m", 1_800_000_000.0, 10_000)
    shown = f"{kept.code[:4].lower()}-{kept.code[4:].lower()}"
    assert store.withdraw(conn, shown, 1_800_000_100.0) == (kept.code, True)
    assert store.get(conn, kept.code) is None and not list(store.captures_dir().glob("*.png"))
    assert store.withdraw(conn, "2345 6789", 1_800_000_100.0) == ("23456789", False)  # not held here
    assert store.pending_withdrawals(conn) == [kept.code, "23456789"]
    store.mark_withdrawal_sent(conn, kept.code, 1_800_000_200.0)
    assert store.pending_withdrawals(conn) == ["23456789"]
    with pytest.raises(ValueError, match="not a capture code"):
        store.withdraw(conn, "ABC-0O1I", 1.0)


def test_staff_consent_once_and_every_staff_capture_cites_it(conn: sqlite3.Connection) -> None:
    with pytest.raises(store.NoStaffConsent):
        store.require_staff_consent(conn)
    recorded = store.record_staff_consent(conn, 1_800_000_000.0)
    assert recorded.by == "staff" and recorded.at.startswith("2027-01-15T")
    assert store.staff_consent(conn) == recorded
