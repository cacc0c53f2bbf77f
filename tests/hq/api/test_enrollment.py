"""Enrollment as a guesser meets it (issue 25.3): one answer for unknown, used and expired codes; a throttle per
address that answers before any look at the code (or at HQ's writer); codes of 80 bits, while codes of 8
characters issued before keep enrolling until they expire. Time is the test's own clock (create_app's `ticks`)."""

from __future__ import annotations

import logging
import re
import threading
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from nailmirror_hq import clock, codes, db, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import enroll_code
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import Ticks, add_store


def _enroll(client: TestClient, code: str) -> tuple[int, dict[str, object], str | None]:
    answer = client.post("/v1/enroll", json={"nm": 1, "code": code, "kiosk_name": "front desk",
                                             "app_version": "0.1.0"})
    return answer.status_code, answer.json(), answer.headers.get("retry-after")


def _unused(hq: HQ, code: str) -> bool:
    key = stores.sha256_text(codes.normalise_enroll_code(code))
    with db.read(hq.engine) as conn:
        return conn.execute(select(enroll_code.c.used_at).where(enroll_code.c.code_sha256 == key)).scalar() is None


def test_unknown_used_and_expired_codes_get_one_answer(hq: HQ, client: TestClient) -> None:
    _, used = add_store(hq, "SH-0001")
    assert _enroll(client, used)[0] == 201
    _, expired = add_store(hq, "SH-0002")
    with db.write(hq.engine) as conn:
        conn.execute(enroll_code.update().where(
            enroll_code.c.code_sha256 == stores.sha256_text(expired)).values(expires_at="2000-01-01T00:00:00.000Z"))
    answers = [_enroll(client, code) for code in (used, expired, "7Q4K-M2XD-9RTB-C3PF", "0000-0000")]
    assert all(a == answers[0] for a in answers), answers
    status, body, _ = answers[0]
    assert status == 400 and body["error"] == "enroll_code_invalid" and body["retryable"] is False
    assert "unknown, used or expired" in str(body["message"]) and "stores enroll-code" in str(body["message"])


def test_a_wrong_code_is_answered_without_hqs_writer(hq: HQ, client: TestClient) -> None:
    """Another transaction holds the single writer: a wrong code is still answered at once (before, every try
    queued for the writer; here it would wait for the holder's whole 20 s)."""
    holding, release = threading.Event(), threading.Event()

    def hold_the_writer() -> None:
        with db.write(hq.engine):
            holding.set()
            release.wait(20)

    holder = threading.Thread(target=hold_the_writer)
    holder.start()
    try:
        assert holding.wait(10)
        started = time.monotonic()
        assert _enroll(client, "7Q4K-M2XD-9RTB-C3PF")[0] == 400
        assert time.monotonic() - started < 5
    finally:
        release.set()
        holder.join()


def test_one_address_is_throttled_before_its_codes_are_looked_at(hq_sqlite: HQ,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    _, good = add_store(hq_sqlite)
    ticks = Ticks()
    app = create_app(hq_sqlite, ticks)
    guesser = TestClient(app, client=("203.0.113.7", 50000))
    with caplog.at_level(logging.INFO, logger="nailmirror_hq"):
        # The 17 tries in one second from one client: ten free misses, the eleventh locks.
        tries = [_enroll(guesser, f"0000-0000-0000-{n:04d}") for n in range(17)]
        assert [t[0] for t in tries] == [400] * 11 + [429] * 6
        status, body, retry_after = tries[-1]
        assert body["error"] == "too_many_attempts" and body["retryable"] is True and retry_after == "1"
        assert "try again in 1 s" in str(body["message"])
        refused = _enroll(guesser, good)  # the right code too, unlooked at
        assert refused[0] == 429 and _unused(hq_sqlite, good)
    messages = [r.getMessage() for r in caplog.records]
    assert sum("enrollment refused: unknown code from 203.0.113.7" in m for m in messages) == 11
    assert sum("enrollment throttled: 203.0.113.7" in m for m in messages) == 7
    assert TestClient(app, client=("198.51.100.20", 50000)).post(  # another address is not held up
        "/v1/enroll", json={"nm": 1, "code": "0000-0000-0000-0000"}).status_code == 400
    waits = []
    for _ in range(4):
        ticks.advance(int(_enroll(guesser, "0000-0000")[2] or 0))
        assert _enroll(guesser, "0000-0000-0000-0000")[0] == 400
        waits.append(int(_enroll(guesser, good)[2] or 0))
    assert waits == [2, 4, 8, 16]  # the lock doubles with every further miss
    ticks.advance(waits[-1])
    assert _enroll(guesser, good)[0] == 201


def test_new_codes_have_80_bits_and_forgive_how_staff_type_them(hq: HQ, client: TestClient) -> None:
    _, code = add_store(hq)
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}", code), code
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert _enroll(client, typed)[0] == 201


def test_a_code_of_8_characters_issued_before_the_upgrade_still_enrolls(hq: HQ, client: TestClient) -> None:
    store_id, _ = add_store(hq)
    with db.write(hq.engine) as conn:  # what HQ stored for the codes it issued before: sha256 of "XXXX-XXXX"
        conn.execute(enroll_code.insert().values(code_sha256=stores.sha256_text("7Q4K-M2XD"), store_id=store_id,
                                                 created_at=clock.now_text(),
                                                 expires_at=clock.now_text(stores.ENROLL_CODE_TTL)))
    status, body, _ = _enroll(client, "7q4k m2xd")
    assert status == 201 and body["store_id"] == store_id
    assert _enroll(client, "7Q4K-M2XD")[0] == 400  # still single use
