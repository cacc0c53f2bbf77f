"""The review login's throttle (issue 25.2): by account and by address, a delay that grows with every miss, and
while it lasts a 429 with Retry-After that never looks at the password, not even the right one. Time is the
test's own clock (create_app's `ticks`)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from nailmirror_hq import db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import Ticks

PASSWORD = "correct horse battery"


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def _try(browser: TestClient, name: str, password: str) -> Any:
    page = browser.get("/review/login")
    return browser.post("/review/login", data={"csrf": _csrf(page.text), "name": name, "password": password},
                        follow_redirects=False)


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names whose password HQ actually checked. Hashes are argon2id at its lowest cost here: the throttle is
    under test, and HQ's real cost is most of a second a check on a small machine."""
    monkeypatch.setattr(reviewers, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    reviewers._no_such_reviewer.cache_clear()
    seen: list[str] = []
    real: Callable[..., bool] = reviewers.verify

    def spy(conn: Any, name: str, password: str) -> bool:
        seen.append(name)
        return real(conn, name, password)

    monkeypatch.setattr(reviewers, "verify", spy)
    return seen


def _reviewers(hq: HQ, *names: str) -> None:
    with db.write(hq.engine) as conn:
        for name in names:
            reviewers.add(conn, name, PASSWORD, "test")


def test_thirty_wrong_passwords_in_fifteen_seconds_then_the_right_one_is_refused_unchecked(
        hq_sqlite: HQ, checked: list[str], caplog: pytest.LogCaptureFixture) -> None:
    _reviewers(hq_sqlite, "li.wang")
    ticks = Ticks()
    browser = TestClient(create_app(hq_sqlite, ticks))
    statuses, waits = [], []
    with caplog.at_level(logging.WARNING, logger="nailmirror_hq"):
        for _ in range(30):  # the attack: 30 guesses in 15 s
            answer = _try(browser, "li.wang", "wrong password!")
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                waits.append(int(answer.headers["Retry-After"]))
            ticks.advance(0.5)
        right = _try(browser, "li.wang", PASSWORD)
    assert statuses[:6] == [401] * 6  # five free misses, the sixth locks
    assert statuses.count(401) == 9 and statuses.count(429) == 21 and len(checked) == 9
    assert right.status_code == 429 and int(right.headers["Retry-After"]) >= 1 and len(checked) == 9
    assert "nm_hq_session" not in browser.cookies
    assert max(waits) == 8  # the locks so far: 1, 2, 4 and 8 s
    assert any("review login throttled" in r.getMessage() and "'li.wang'" in r.getMessage() for r in caplog.records)
    assert any(r.getMessage() == "review login failed" and getattr(r, "fields", {}).get("locked_s") == 8
               for r in caplog.records)
    assert "登录失败次数过多" in right.text
    ticks.advance(int(right.headers["Retry-After"]))
    assert _try(browser, "li.wang", PASSWORD).status_code == 303  # the lock ran out: the right password works
    assert _try(TestClient(create_app(hq_sqlite, ticks)), "li.wang", "wrong password!").status_code == 401


def test_the_delay_grows_with_every_miss_and_a_success_starts_the_account_afresh(
        hq_sqlite: HQ, checked: list[str]) -> None:
    _reviewers(hq_sqlite, "li.wang")
    ticks = Ticks()
    browser = TestClient(create_app(hq_sqlite, ticks))
    for _ in range(5):
        assert _try(browser, "li.wang", "wrong password!").status_code == 401
    waits = []
    for _ in range(5):
        assert _try(browser, "li.wang", "wrong password!").status_code == 401  # checked: the lock had run out
        locked = _try(browser, "LI.WANG ", PASSWORD)  # the same account however it is typed
        assert locked.status_code == 429
        waits.append(int(locked.headers["Retry-After"]))
        ticks.advance(waits[-1])
    assert waits == [1, 2, 4, 8, 16]
    assert _try(browser, "li.wang", PASSWORD).status_code == 303
    assert [_try(browser, "li.wang", "wrong password!").status_code for _ in range(6)] == [401] * 6


def test_one_address_guessing_many_accounts_is_throttled_and_other_addresses_are_not(
        hq_sqlite: HQ, checked: list[str]) -> None:
    _reviewers(hq_sqlite, "li.wang", "zhang.min")
    ticks = Ticks()
    app = create_app(hq_sqlite, ticks)
    guesser = TestClient(app, client=("203.0.113.7", 50000))
    office = TestClient(app, client=("198.51.100.20", 50000))
    statuses = [_try(guesser, f"made-up-{n}", "wrong password!").status_code for n in range(21)]
    assert statuses == [401] * 21  # 20 free misses per address, the 21st locks it
    assert len(checked) == 21
    refused = _try(guesser, "zhang.min", PASSWORD)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1" and len(checked) == 21
    assert _try(office, "zhang.min", PASSWORD).status_code == 303  # the address lock is that address's


def test_one_account_guessed_from_many_addresses_is_throttled(hq_sqlite: HQ, checked: list[str]) -> None:
    _reviewers(hq_sqlite, "li.wang")
    ticks = Ticks()
    app = create_app(hq_sqlite, ticks)
    for n in range(6):
        answer = _try(TestClient(app, client=(f"203.0.113.{n}", 50000)), "li.wang", "wrong password!")
        assert answer.status_code == 401
    elsewhere = _try(TestClient(app, client=("198.51.100.20", 50000)), "li.wang", PASSWORD)
    assert elsewhere.status_code == 429 and len(checked) == 6
    english = TestClient(app, client=("198.51.100.21", 50000), cookies={"nm_hq_login_csrf": "x"})
    page = english.post("/review/login?lang=en", data={"csrf": "x", "name": "li.wang", "password": PASSWORD})
    assert page.status_code == 429 and "Too many failed sign-ins. Try again in 1 s." in page.text
