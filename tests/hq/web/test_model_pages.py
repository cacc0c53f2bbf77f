"""Model releases on the review pages through the real app (issue #27 §5–§7): the Fleet tab shows each kiosk's
model per slot, a rollback or refusal with the kiosk's reason, "waiting for HQ's key", and the "model problems"
filter; the Rollouts tab lists a model release and rolls it back after its confirmation. (The storage under them
is tested on every engine in tests/hq/test_model_fleet.py and test_model_releases.py.)"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from nailmirror_hq import db, feed, rollouts
from nailmirror_hq.service import HQ
from tests.hq.test_model_fleet import REASON, slot
from tests.hq.test_model_releases import publish
from tests.hq.web.test_credits_page import _signed_in
from tests.support.hq_fixtures import add_store, enroll


@pytest.mark.slow  # about 1.5 s: a dozen requests through the real app
def test_fleet_and_rollouts_pages_show_model_releases(hq_sqlite: HQ, tmp_path: Path) -> None:
    hq = hq_sqlite
    browser = _signed_in(hq)
    kiosks = {}
    for store, name in (("SH-0012", "Front desk"), ("BJ-0001", "Window seat"), ("GZ-0100", "Back room")):
        _, code = add_store(hq, store)
        kiosks[name] = enroll(browser, code, name)
        assert browser.get("/v1/hello", headers=kiosks[name]).status_code == 200
    first = publish(hq, tmp_path, salt=1)
    second = publish(hq, tmp_path, salt=2)
    version = second.manifest["version"]
    for name, body in (
            ("Front desk", {"model_signing": "ok", "model_slots": {"live": slot(version, "active", 2)}}),
            ("Window seat", {"model_signing": "ok", "model_slots": {
                "live": slot("nail_segmenter-2ae635817291", "rolled_back", 2, REASON)}}),
            ("Back room", {"model_signing": "no_key", "model_slots": {}})):
        assert browser.put("/v1/kiosks/me/sync-report", headers=kiosks[name], json={"nm": 1, **body}).status_code \
            == 200

    page = html.unescape(browser.get("/review/fleet?lang=en").text)
    assert f"Live mirror: {version} (#2) — running" in page
    assert f"Live mirror: nail_segmenter-2ae635817291 (#2) — rolled back: {REASON}" in page
    assert "Waiting for HQ's key" in page and 'class="alert-model_failed"' in page
    filtered = browser.get("/review/fleet?filter=model_problems&lang=en").text
    names = re.findall(r'<b class="name">([^<]+)</b>', filtered)
    assert names == ["Window seat", "Back room"]

    rollouts_page = browser.get("/review/rollouts?lang=en").text
    assert f"Nail model all/live: {version}" in rollouts_page
    confirm = browser.get(f"/review/rollouts/{second.rollout_id}/rollback?lang=en")
    assert confirm.status_code == 200 and "Release 1 of the live model becomes current again in place of " \
                                          "release 2 on channel all: 3 store(s), 3 kiosk(s)" in confirm.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', confirm.text)
    assert csrf
    done = browser.post(f"/review/rollouts/{second.rollout_id}/rollback", data={"csrf": csrf.group(1)},
                        follow_redirects=False)
    assert done.status_code == 303 and "refused" not in done.headers["location"]
    with db.read(hq.engine) as conn:
        assert rollouts.get(conn, second.rollout_id).stage == rollouts.ROLLED_BACK
        ((_, live_version, body),) = feed.live(conn, "all", "model")
    assert live_version == 3 and body["manifest"] == first.manifest
