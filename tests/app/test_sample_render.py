"""Issue #25.12: a kiosk submitting a draft to the real HQ on loopback paints it on the bundled sample hand photo
(the still try-on path, in the DRAFT_PUSH task) and uploads the render with the draft; HQ keeps it with the draft
for the reviewer and never publishes it. A render that fails never holds the submission up."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_desktop.app import sample_render
from nailmirror_desktop.core.paths import resources_dir
from nailmirror_hq import catalog, db, drafts, reviewers
from nailmirror_hq.api.app import create_app
from tests.hq.web.test_routes import PASSWORD, sign_in
from tests.support.sync_fixtures import rig  # noqa: F401 (fixture)
from tests.support.sync_rig import HqRig, enroll, local_styles, nailmirror

STYLE = resources_dir() / "demo" / "styles" / "rose_gloss"


def _submit(rig: HqRig) -> tuple[str, drafts.Revision]:  # noqa: F811
    enroll(rig)
    code = nailmirror("styles", "import", str(STYLE)).out.strip()
    assert nailmirror("styles", "submit", code).rc == 0
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    draft_id = next(s["client_uid"] for s in local_styles() if s["style_code"] == code)
    with db.read(rig.hq.engine) as conn:
        revision = drafts.get_revision(conn, draft_id, 1)
    assert revision is not None
    return code, revision


@pytest.mark.slow  # the still path: hand landmarker and nail segmenter
def test_a_submitted_draft_reaches_hq_with_its_sample_render(rig: HqRig) -> None:  # noqa: F811
    code, revision = _submit(rig)
    render = revision.body.get("sample_render")
    assert render and render["format"] == "JPEG" and render["width"] <= sample_render.MAX_WIDTH
    stored = rig.hq.blobs.local_path(render["sha256"])
    assert stored is not None and Path(stored).read_bytes()[:2] == b"\xff\xd8"
    assert hashlib.sha256(Path(stored).read_bytes()).hexdigest() == render["sha256"]
    # Painted the same on every attempt, so a retry to an HQ that predates the field replays the same revision.
    from nailmirror_desktop.app.services import open_repository

    repo = open_repository()
    try:
        again = sample_render.render_sample(repo, repo.get_by_code(code).id)
    finally:
        repo.conn.close()
    assert again is not None and hashlib.sha256(again.data).hexdigest() == render["sha256"]
    with db.write(rig.hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test")
    browser = TestClient(create_app(rig.hq))
    assert sign_in(browser, "li.wang") == 303
    page = browser.get("/review/")
    assert f"/review/blobs/{render['sha256']}" in page.text and "sample-render" in page.text
    rig.approve(revision.draft_id)
    with db.read(rig.hq.engine) as conn:
        published = catalog.get_style(conn, revision.draft_id)
    assert published is not None and render["sha256"] not in json.dumps(published.body)


@pytest.mark.slow  # a real sync round trip
def test_a_failed_render_never_holds_the_draft_up(rig: HqRig, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(sample_render, "SAMPLE_PHOTO", "demo/no_such_photo.jpg")  # a bundle missing its photo
    _, revision = _submit(rig)
    assert "sample_render" not in revision.body and revision.state == "PENDING_REVIEW"
    assert "goes without its sample render" in caplog.text
