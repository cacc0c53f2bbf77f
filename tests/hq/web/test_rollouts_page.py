"""The Rollouts tab's rules through the real app: CSRF on every form, a refusal said on the page, a stale page that
cannot roll back a newer publish; and the CLI's refusals, one line each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, reviewers, rollout_report, rollouts
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.test_rollouts import new_version
from tests.hq.web.test_routes import PASSWORD, _csrf, sign_in
from tests.support.hq_cli import run_hq
from tests.support.hq_fixtures import add_store, enroll, style_folder


def _signed_in(hq: HQ) -> TestClient:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    return browser


@pytest.mark.slow  # a reviewer's sign-in (argon2) and four versions
def test_forms_need_the_csrf_token_and_a_stale_page_rolls_back_nothing(hq: HQ, tmp_path: Path) -> None:
    browser = _signed_in(hq)
    store_id, _ = add_store(hq, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path / "v1", name="一版", salt=1),
                                  actor="t", publish=True)  # before the canary set: every store shows version 2
    csrf = _csrf(browser.get("/review/rollouts").text)
    assert browser.post("/review/channels/all/canary", data={"store": store_id, "action": "add"}).status_code == 403
    added = browser.post("/review/channels/all/canary", data={"csrf": csrf, "store": store_id, "action": "add"},
                         follow_redirects=False)
    assert added.status_code == 303
    with db.read(hq.engine) as conn:
        assert rollouts.canary_stores(conn, "all") == [store_id]
    refused = browser.post("/review/channels/all/canary", data={"csrf": csrf, "store": "st_NOPE", "action": "add"})
    assert "未执行" in refused.text and "not_found" not in refused.text  # a line in words, not the code
    assert browser.get("/review/rollouts?refused=<b>odd</b>&lang=en").text.count("HQ refused this change") == 1

    new_version(hq, style.id, tmp_path / "v2", "二版", salt=2)
    with db.read(hq.engine) as conn:
        first = rollouts.list_rollouts(conn, subject_id=style.id)[0]
    confirm = browser.get(f"/review/rollouts/{first.id}/rollback?lang=en")
    assert "Version 2 becomes current again in place of version 3, for every store: 1 store(s), 0 kiosk(s)." in (
        confirm.text)
    assert browser.post(f"/review/rollouts/{first.id}/widen", data={}).status_code == 403
    new_version(hq, style.id, tmp_path / "v3", "三版", salt=3)  # a newer publish after the page was read
    stale = browser.post(f"/review/rollouts/{first.id}/rollback", data={"csrf": csrf})
    assert "a newer publish of this style came since" in stale.text  # the page's language is English now
    with db.read(hq.engine) as conn:
        assert catalog.get_style(conn, style.id).body["name"]["zh"] == "三版"  # type: ignore[union-attr]


def test_cli_refusals_are_one_line(hq_sqlite: HQ) -> None:
    env = {**os.environ, "NAILMIRROR_HQ_HOME": str(hq_sqlite.settings.data_dir), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)
    for args, said in ((("channels", "canary", "all", "--add", "st_NOPE"), "no such store st_NOPE"),
                       (("channels", "canary", "nowhere", "--list"), "no such channel nowhere"),
                       (("channels", "canary", "all", "--remove", "st_NOPE"), "is not a canary store"),
                       (("rollouts", "widen", "99"), "no such rollout 99"),
                       (("styles", "rollback", "NOPE-1"), "no style NOPE-1")):
        done = run_hq(env, *args)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1 and said in done.stderr, (args, done.stderr)
    assert run_hq(env, "rollouts", "widen", "x").returncode == 2  # argparse: not a number


@pytest.mark.slow  # a reviewer's sign-in (argon2)
def test_an_older_kiosk_without_a_cursor_is_counted_unknown_not_not_yet(hq: HQ, tmp_path: Path) -> None:
    browser = _signed_in(hq)
    _, code = add_store(hq, "SH-0012")
    old = enroll(browser, code, "old one")
    _, other_code = add_store(hq, "BJ-0001")
    new = enroll(browser, other_code, "new one")
    catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path / "v1", name="一版", salt=1), actor="t",
                          publish=True)
    assert browser.get("/v1/hello", headers=new).status_code == 200  # synced since, no report yet: not yet
    sent = browser.put("/v1/kiosks/me/sync-report", headers=old, json={"nm": 1, "failed_downloads": []})
    assert sent.status_code == 200, sent.text  # a kiosk from before the cursor field
    with db.read(hq.engine) as conn:
        (r,) = rollouts.list_rollouts(conn)
        shown = rollout_report.report(conn, r).as_json()  # what `rollouts show --json` prints
    assert (shown["kiosks_in_scope"], shown["kiosks_pending"], shown["kiosks_unknown"]) == (2, 1, 1)
    assert [k["state"] for k in shown["kiosks"]] == ["pending", "unknown"]  # BJ-0001's, then SH-0012's
    page = browser.get("/review/rollouts?lang=en").text
    row = page[page.index(f'id="rollout-{r.id}"'):]
    assert '<td class="pending">1</td>' in row and '<td class="unknown">1</td>' in row
    assert "Unknown (older kiosk)" in page
