"""The fleet fields of the sync report and of hello (issue #25 §7, §8), old ↔ new: every field optional both
ways, a known one checked, an unknown one left out."""

from __future__ import annotations

from typing import Any, cast

import pytest

from nailmirror_protocol import wire
from nailmirror_protocol.shapes import SyncReport

SHA = "ab" * 32
NEW_REPORT: dict[str, Any] = {
    "nm": 1, "failed_downloads": [{"style_code": "HQ-0001", "sha256": SHA, "attempts": 2, "last_error": "x"}],
    "app_version": "0.2.0", "model_version": "2ae635817291", "sync_state": "OK", "cursor": "e1.12",
    "dead_letters": {"BLOB_FETCH": 2, "STYLE_GENERATION": 1}, "disk_free_bytes": 5 * 2**30,
    "camera_state": "LIVE", "fps": 27.5, "health_at": "2026-12-04T10:00:00.000Z",
    "fleet_results": [{"id": "fr_0011223344556677", "kind": "retry_downloads", "outcome": "DONE",
                       "detail": "1 failed download(s) queued again", "done_at": "2026-12-04T10:00:01.000Z"}],
}


def old_read_sync_report(document: object) -> SyncReport:
    """HQ's reader as it was before the fleet fields (failed_downloads only), built from the protocol's own
    checks: what an HQ not yet upgraded does with a new kiosk's report."""
    reading = wire.Reading()
    top = wire._top(document, reading)
    report: dict[str, Any] = {"nm": 1}
    if "failed_downloads" in top.value:
        report["failed_downloads"] = [dict(item) for item in top.items("failed_downloads", 200)]
    top.done("a sync report")
    return cast(SyncReport, report)


def test_an_old_kiosks_report_reads_as_it_did() -> None:
    assert wire.read_sync_report({"nm": 1}) == {"nm": 1}
    assert wire.read_sync_report({"nm": 1, "failed_downloads": []}) == {"nm": 1, "failed_downloads": []}


def test_a_new_report_reads_whole_here_and_an_old_hq_keeps_what_it_knows() -> None:
    reading = wire.Reading()
    read = wire.read_sync_report({**NEW_REPORT, "from_the_future": 1}, reading)
    assert read == NEW_REPORT and reading.skipped == {"unknown field 'from_the_future' in a sync report"}
    old = old_read_sync_report(NEW_REPORT)
    assert old == {"nm": 1, "failed_downloads": NEW_REPORT["failed_downloads"]}


@pytest.mark.parametrize(("field", "value"), [
    ("fps", "fast"), ("fps", -1), ("fps", True), ("disk_free_bytes", -5), ("cursor", "not a cursor"),
    ("dead_letters", {"../x": 1}), ("dead_letters", {"BLOB_FETCH": -1}), ("dead_letters", [1]),
    ("camera_state", 3), ("app_version", "x" * 41),
    ("fleet_results", [{"id": "fr_1", "kind": "resync", "outcome": "MAYBE", "done_at": "t"}]),
    ("fleet_results", [{"id": "../../x", "kind": "resync", "outcome": "DONE", "done_at": "t"}]),
])
def test_a_known_field_of_the_wrong_shape_refuses_the_report(field: str, value: object) -> None:
    with pytest.raises(wire.WireError, match=field):
        wire.read_sync_report({**NEW_REPORT, field: value})


HELLO = {"nm": 1, "epoch": "e1", "store_id": "st_A", "kiosk_id": "k_1", "channel": "all", "poll_interval_s": 300}


def test_hello_carries_requests_an_old_kiosk_leaves_unread_and_a_new_one_skips_kinds_it_does_not_know() -> None:
    asked = [{"id": "fr_1", "kind": "resync"}, {"id": "fr_2", "kind": "reboot_the_pc"},
             {"id": "fr_3", "kind": "replay_dead_letters"}]
    reading = wire.Reading()
    hello = wire.read_hello({**HELLO, "kiosk_name": "SH-0012-1", "fleet_requests": asked}, reading)
    assert hello["fleet_requests"] == [{"id": "fr_1", "kind": "resync"}, {"id": "fr_3", "kind": "replay_dead_letters"}]
    assert hello["kiosk_name"] == "SH-0012-1" and "fleet request kind 'reboot_the_pc'" in reading.skipped
    assert "fleet_requests" not in wire.read_hello(HELLO)  # an older HQ: nothing asked
    with pytest.raises(wire.WireError, match="fleet_requests"):
        wire.read_hello({**HELLO, "fleet_requests": [{"id": "../x", "kind": "resync"}]})
