"""The kiosk raises its soft open-file limit to the hard one at start (issue #20, point 8)."""

from __future__ import annotations

import pytest

from nailmirror_desktop.app.open_files import raise_open_file_limit

resource = pytest.importorskip("resource")


@pytest.fixture
def low_soft_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(256, hard) if hard != resource.RLIM_INFINITY else 256
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    yield low, hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_soft_open_file_limit_is_raised_to_the_hard_one(low_soft_limit):
    low, hard = low_soft_limit
    before, after = raise_open_file_limit()
    assert before == low and resource.getrlimit(resource.RLIMIT_NOFILE) == (after, hard)
    assert after == hard or hard == resource.RLIM_INFINITY
    assert raise_open_file_limit() == (after, after)  # a second call changes nothing


def test_the_kiosk_raises_it_at_start(low_soft_limit, monkeypatch):
    pytest.importorskip("PySide6")  # app/kiosk.py hands over to the Qt application
    from nailmirror_desktop.app import kiosk

    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(kiosk.kiosk_app, "run_kiosk_app",
                        lambda *args: seen.append(resource.getrlimit(resource.RLIMIT_NOFILE)) or 0)
    assert kiosk.run_kiosk(kiosk.KioskOptions(fullscreen=False)) == 0
    assert seen and seen[0][0] > low_soft_limit[0]
