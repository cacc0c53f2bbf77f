"""The labelling page through the real app (web/labels_page.py): a posted mask of the wrong size, grey or not a
PNG is refused with one line on the page and nothing kept; a good one is kept as a version started from the
kiosk's proposal; a trainer (reads captures, does not label) and a content reviewer are refused, nothing written."""

from __future__ import annotations

import base64
import re

import pytest
from sqlalchemy import select

from nailmirror_hq import db, mask_png, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import audit_log, label_version
from nailmirror_hq.service import HQ
from tests.hq.web.test_roles import PASSWORD, signed_in
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import HEIGHT, PROPOSED, WIDTH, day_for, put_capture, rect_mask

CODE = "K7QH3MPX"


def _url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


@pytest.fixture
def hq_with_capture(hq_sqlite: HQ) -> HQ:
    from fastapi.testclient import TestClient

    with db.write(hq_sqlite.engine) as conn:
        for name, role in (("li.label", "labeller"), ("wu.train", "trainer"), ("zhang.review", "content_reviewer")):
            reviewers.add(conn, name, PASSWORD, "test", role=role)
    api = TestClient(create_app(hq_sqlite))
    store_id, headers = new_kiosk(hq_sqlite, api)
    put_capture(api, headers, CODE, day_for(store_id, False))
    return hq_sqlite


@pytest.mark.slow  # three accounts (argon2) and a capture per case
@pytest.mark.parametrize(("mask", "says"), [
    (_url(mask_png.write_mask(rect_mask(width=60), 60, HEIGHT)), "the mask is 60×90; the capture is 120×90"),
    (_url(mask_png.write_mask(b"\x40" * WIDTH * HEIGHT, WIDTH, HEIGHT)), "grey pixels"),
    ("data:image/png;base64,not base64!", "not base64"),
    ("https://example.com/mask.png", "PNG data URL"),
])
def test_a_wrong_mask_is_refused_on_the_page_in_one_line(hq_with_capture: HQ, mask: str, says: str) -> None:
    hq = hq_with_capture
    browser, csrf = signed_in(hq, "li.label")
    answer = browser.post(f"/review/labels/{CODE}", data={
        "csrf": csrf, "decision": "accepted", "mask": mask, "source": "kiosk", "skin_tone": "I-II",
        "nail_kind": "bare"}, follow_redirects=False)
    assert answer.status_code == 400
    shown = re.search(r'id="label-error-server" class="error">([^<]*)<', answer.text)
    assert shown and says in shown.group(1) and "\n" not in shown.group(1)
    with db.read(hq.engine) as conn:
        assert conn.execute(select(label_version)).first() is None


@pytest.mark.slow
def test_a_good_mask_is_kept_and_only_labellers_may_post(hq_with_capture: HQ) -> None:
    hq = hq_with_capture
    good = _url(mask_png.write_mask(rect_mask(PROPOSED, (60, 40, 90, 70)), WIDTH, HEIGHT))
    form = {"decision": "accepted", "mask": good, "source": "kiosk", "skin_tone": "V-VI", "nail_kind": "long"}
    for name in ("wu.train", "zhang.review"):
        browser, csrf = signed_in(hq, name)
        assert browser.get("/review/labels").status_code == 403
        assert browser.get(f"/review/labels/{CODE}/proposal.png").status_code == 403
        assert browser.post(f"/review/labels/{CODE}", data={"csrf": csrf, **form}).status_code == 403
    browser, csrf = signed_in(hq, "li.label")
    proposal = browser.get(f"/review/labels/{CODE}/proposal.png")
    assert proposal.status_code == 200 and proposal.headers["cache-control"].startswith("no-store")
    answer = browser.post(f"/review/labels/{CODE}", data={"csrf": csrf, **form}, follow_redirects=False)
    assert answer.status_code == 303 and "saved=K7QH3MPX" in answer.headers["location"]
    with db.read(hq.engine) as conn:
        kept = conn.execute(select(label_version)).one()
    assert (kept.source, kept.skin_tone, kept.nail_kind, kept.labeller) == ("kiosk", "V-VI", "long", "li.label")
    page = browser.get("/review/labels?code=K7QH3MPX")
    assert page.status_code == 200 and f"/review/labels/mask/{kept.id}.png" in page.text  # starts from it now
    assert browser.get(f"/review/labels/mask/{kept.id}.png").content.startswith(mask_png.SIGNATURE)
    with db.read(hq.engine) as conn:
        reads = {r.action for r in conn.execute(select(audit_log).where(audit_log.c.actor == "li.label"))}
    assert {"LABEL_PROPOSAL", "LABEL_SAVE", "LABEL_QUEUE", "LABEL_VERSIONS", "LABEL_MASK", "CAPTURE_SHOW"} <= reads
