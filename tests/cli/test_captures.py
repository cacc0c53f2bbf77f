"""Issue #26's "Done when": two kiosks capture real photos (the CI's read-only data folder, read through the
camera path's still source), one with consent and one without (nothing of that one leaves it); HQ holds the
consented captures, no kiosk token can read them; a withdrawal deletes one everywhere; on SQLite and on
PostgreSQL + S3. The kiosks are the real `nailmirror` command, HQ the real app on loopback."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from nailmirror_desktop.core.model_version import bundled_model_version
from nailmirror_hq import captures, db
from nailmirror_hq.schema import audit_log, capture, capture_withdrawal
from nailmirror_protocol import paths
from tests.support.sync_fixtures import rig_on
from tests.support.sync_rig import FaultProxy, HqRig, enroll, nailmirror

# Photos the still path finds a hand in (one hand, five nails each, at the time of writing).
PHOTOS = ("4c484f8c-e402-11e8-97db-0242ac1c0002.jpg", "4c48acb6-e402-11e8-97db-0242ac1c0002.jpg",
          "4c49b502-e402-11e8-97db-0242ac1c0002.jpg", "4c490eae-e402-11e8-97db-0242ac1c0002.jpg")


# SQLite ~20 s on a loaded 2-core box (slow); PostgreSQL + S3 ~45 s there (soak: ./dev soak runs it).
@pytest.fixture(params=[pytest.param("sqlite", marks=pytest.mark.slow),
                        pytest.param("postgresql+s3", marks=[pytest.mark.slow, pytest.mark.soak])])
def any_rig(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HqRig]:
    hq = rig_on(request.param, request, tmp_path, monkeypatch)
    yield hq
    hq.stop()


def _kiosk(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("NAILMIRROR_HOME", str(home))


def _hq_codes(rig: HqRig) -> set[str]:
    with db.read(rig.hq.engine) as conn:
        return set(conn.execute(capture.select().with_only_columns(capture.c.code)).scalars())


def _take(photo: Path, *extra: str) -> str:
    run = nailmirror("captures", "take", "--image", str(photo), "--json", *extra)
    assert run.rc == 0, run.err
    return str(run.json()["code"])


def test_two_kiosks_capture_consented_photos_reach_hq_only_and_a_withdrawal_deletes_one_everywhere(
        any_rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nails_eval_dir: Path) -> None:
    rig = any_rig
    photos = [nails_eval_dir / "images" / name for name in PHOTOS]
    proxy = FaultProxy(rig.server.port)  # counts what each kiosk sends
    try:
        # Kiosk A: a customer consents twice, staff once (after consenting once, recorded).
        _kiosk(monkeypatch, tmp_path / "kiosk-a")
        store_a = enroll(rig, proxy.url)
        first, second = _take(photos[0], "--consent", "customer"), _take(photos[1], "--consent", "customer")
        assert nailmirror("captures", "take", "--image", str(photos[2]), "--consent", "staff").rc == 1
        assert nailmirror("captures", "staff-consent").rc == 0
        staff = _take(photos[2], "--consent", "staff")
        assert nailmirror("sync", "status", "--json").json()["pending_captures"] == 3
        # Kiosk B: the same kind of photo, never consented: nothing kept, nothing sent.
        _kiosk(monkeypatch, tmp_path / "kiosk-b")
        enroll(rig, proxy.url)
        refused = nailmirror("captures", "take", "--image", str(photos[3]))
        assert refused.rc == 1 and "no consent" in refused.err and "Traceback" not in refused.err
        synced_b = nailmirror("sync", "now", "--json")
        assert synced_b.rc == 0, synced_b.err
        assert synced_b.json()["pending_captures"] == 0 and synced_b.json()["model_version"].startswith(
            "nail_segmenter-")
        assert not [p for p in proxy.paths() if p.startswith(paths.CAPTURES)]
        assert not list((tmp_path / "kiosk-b").glob("captures/*"))
        # Kiosk A syncs: HQ holds all three, and A's copies are gone.
        _kiosk(monkeypatch, tmp_path / "kiosk-a")
        synced_a = nailmirror("sync", "now", "--json")
        assert synced_a.rc == 0, synced_a.err
        assert synced_a.json()["pending_captures"] == 0
        assert not list((tmp_path / "kiosk-a" / "captures").glob("*.png"))
        codes = {paths.normalise_capture_code(c) for c in (first, second, staff)}
        assert _hq_codes(rig) == codes
        with db.read(rig.hq.engine) as conn:
            rows = {r.code: r for r in conn.execute(capture.select()).all()}
        assert {r.store_id for r in rows.values()} == {store_a}
        assert {r.consent_by for r in rows.values()} == {"customer", "staff"}
        # a capture's proposal is painted by the stills' model: its record names that build
        assert {r.model_version for r in rows.values()} == {bundled_model_version("still")}
        # What HQ holds is the hands crop, no face, no EXIF: a PNG made from pixels.
        reader = captures.Operator("test")
        image = captures.read_image(rig.hq.engine, rig.hq.require_captures(), reader, first)
        assert image.startswith(b"\x89PNG") and b"eXIf" not in image and b"Exif" not in image
        shown = captures.show(rig.hq.engine, reader, first)
        assert shown.facts["hands"] and shown.facts["nails"] and "faces_blurred" in shown.facts
        assert base64.b64decode(shown.facts["proposed_mask_png_b64"]).startswith(b"\x89PNG")
        # No kiosk token reads a capture: not on /v1/blobs, and no capture route answers a GET.
        token = _token(tmp_path / "kiosk-a")
        sha256 = rows[paths.normalise_capture_code(first)].image_sha256
        for path in (paths.blob(sha256), paths.capture(first), paths.capture(first) + "/image"):
            status = _get(rig.url + path, token)
            assert status in (404, 405), (path, status)
        # The customer of the first capture asks kiosk B's staff to withdraw it: gone at HQ at B's next sync.
        _kiosk(monkeypatch, tmp_path / "kiosk-b")
        withdrawn = nailmirror("captures", "withdraw", first.lower(), "--json")
        assert withdrawn.rc == 0 and withdrawn.json()["held_here"] is False
        assert nailmirror("sync", "now").rc == 0
        assert _hq_codes(rig) == codes - {paths.normalise_capture_code(first)}
        with db.read(rig.hq.engine) as conn:
            recorded = conn.execute(capture_withdrawal.select()).all()
            audited = {r.action for r in conn.execute(audit_log.select()).all()}
        assert [(r.code, r.held) for r in recorded] == [(paths.normalise_capture_code(first), 1)]
        assert {"CAPTURE_RECEIVE", "CAPTURE_WITHDRAW", "CAPTURE_IMAGE", "CAPTURE_SHOW"} <= audited
        assert not rig.hq.require_captures().has(sha256)  # the image itself is gone from HQ's store
        assert nailmirror("sync", "status", "--json").json()["pending_capture_withdrawals"] == 0
    finally:
        proxy.stop()


def _token(home: Path) -> str:
    import sqlite3

    conn = sqlite3.connect(home / "nailmirror.db")
    try:
        return str(conn.execute("SELECT token FROM sync_state").fetchone()[0])
    finally:
        conn.close()


def _get(url: str, token: str) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "NM-Protocol": "1"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.slow
def test_an_hq_without_the_capture_route_keeps_the_capture_and_sync_now_does_not_wait(rig: HqRig) -> None:
    """An older HQ answers 404 on /v1/captures: the catalog still syncs, `sync now` returns at once, the capture
    waits here (asked again a day later, no dead letter each cycle) and `sync status` counts it."""
    from nailmirror_desktop.core.captures import store
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path
    from tests.support.sync_rig import Rule, answer

    proxy = FaultProxy(rig.server.port)
    try:
        enroll(rig, proxy.url)
        conn = open_database(database_path())
        kept = store.save(conn, b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, store.Consent("customer", "t"), {}, "m",
                          1.8e9, 10_000_000)
        conn.close()
        proxy.rules.append(Rule(paths.CAPTURES, times=10, answer=answer(
            404, "Not Found", {"Content-Type": "application/json"},
            b'{"nm": 1, "error": "not_found", "message": "Not Found", "retryable": false}')))
        synced = nailmirror("sync", "now", "--json", "--timeout", "60")
        assert synced.rc == 0, synced.err
        assert synced.json()["pending_captures"] == 1
        again = nailmirror("sync", "now", "--json", "--timeout", "60")
        assert again.rc == 0 and sum(p.startswith(paths.CAPTURES) for p in proxy.paths()) == 1  # not re-sent
        listed = nailmirror("captures", "list", "--json").json()["captures"]
        assert [c["code"] for c in listed] == [paths.show_capture_code(kept.code)]
        assert "not_found" in (listed[0]["last_error"] or "")
    finally:
        proxy.stop()
