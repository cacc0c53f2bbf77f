"""GET /metrics (issue #25 §9): Prometheus' text format read back by a strict parser written here, counters that
move when kiosks poll, download and enroll and when reviewers log in and publish, no login needed, and nothing
in it that names a store, a kiosk, a token or a hash. On SQLite + files and on PostgreSQL (+ S3: blobs by
redirect)."""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, metrics, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths
from tests.support.hq_fixtures import new_kiosk, style_folder

PASSWORD = "correct horse battery"
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(rf"^({NAME})(?:\{{(.*)\}})? (\S+)$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


@dataclass
class Parsed:
    types: dict[str, str] = field(default_factory=dict)
    helps: dict[str, str] = field(default_factory=dict)
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = field(default_factory=dict)

    def value(self, name: str, **labels: str) -> float:
        return self.samples.get((name, tuple(sorted(labels.items()))), 0.0)

    def total(self, name: str) -> float:
        return sum(v for (n, _), v in self.samples.items() if n == name)


def parse(text: str) -> Parsed:
    """The exposition format 0.0.4, strictly: HELP then TYPE before a family's samples, each family once, sample
    names of the declared family (histograms: _bucket with le, _sum, _count), well-formed labels, numbers,
    cumulative buckets ending at +Inf = _count, counters named *_total, a final newline."""
    assert text.endswith("\n") and "\r" not in text
    out, family = Parsed(), None
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert re.fullmatch(NAME, name) and name not in out.helps and help_text, line
            out.helps[name], family = help_text, name
            continue
        if line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert name == family and name not in out.types and kind in ("counter", "histogram"), line
            assert kind != "counter" or name.endswith("_total"), line
            out.types[name] = kind
            continue
        assert not line.startswith("#") and line, f"stray line {line!r}"
        match = SAMPLE.match(line)
        assert match, f"not a sample: {line!r}"
        name, label_text, number = match.groups()
        assert family is not None and family in out.types
        allowed = {family} if out.types[family] == "counter" else {f"{family}_{s}" for s in ("bucket", "sum", "count")}
        assert name in allowed, f"{name} outside its family {family}"
        labels: list[tuple[str, str]] = []
        rest = label_text or ""
        while rest:
            found = LABEL.match(rest)
            assert found, f"bad labels in {line!r}"
            labels.append((found.group(1), found.group(2)))
            rest = rest[found.end():]
        assert len({k for k, _ in labels}) == len(labels)
        assert (name == f"{family}_bucket") == any(k == "le" for k, _ in labels), line
        value = math.inf if number == "+Inf" else float(number)
        key = (name, tuple(sorted(labels)))
        assert key not in out.samples, f"duplicate {line!r}"
        out.samples[key] = value
    for name, kind in out.types.items():
        if kind == "histogram":
            buckets = [(float(dict(k)["le"]) if dict(k)["le"] != "+Inf" else math.inf, v)
                       for (n, k), v in out.samples.items() if n == f"{name}_bucket"]
            assert buckets and buckets[-1][0] == math.inf, name
            assert [b for b, _ in buckets] == sorted(b for b, _ in buckets), name
            assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:], strict=False)), f"{name} not cumulative"
            assert buckets[-1][1] == out.value(f"{name}_count")
    return out


def scrape(client: TestClient) -> Parsed:
    answer = client.get("/metrics")  # no session, no token: a monitoring system's scrape
    assert answer.status_code == 200 and answer.headers["content-type"] == metrics.CONTENT_TYPE
    return parse(answer.text)


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:300]
    return found.group(1)


@pytest.fixture
def fast_passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id at its lowest cost: the counters are under test, not the hash's cost."""
    monkeypatch.setattr(reviewers, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    reviewers._no_such_reviewer.cache_clear()


@pytest.mark.slow
def test_counters_move_with_polls_downloads_logins_and_publishes_and_name_no_store(
        hq: HQ, tmp_path: Path, fast_passwords: None) -> None:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    style = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path / "folders"), actor="test")
    client = TestClient(create_app(hq))
    before = scrape(client)
    assert before.total("nailmirror_hq_requests_total") == 0 and set(before.types) == {f.name for f in metrics.FAMILIES}

    store_id, headers = new_kiosk(hq, client, name="Secret Store 淮海路")
    token = headers["Authorization"].split()[1]
    hello = client.get(paths.HELLO, headers=headers).json()
    cursor = f"{hello['epoch']}.0"
    for _ in range(3):
        assert client.get(paths.CATALOG_CHANGES, params={"since": cursor}, headers=headers).status_code == 200
    snapshot = client.get(paths.CATALOG_SNAPSHOT, headers=headers).json()
    assert client.post(paths.ENROLL, json={"nm": 1, "code": "WRONG-CODE-0000-0000"}).status_code == 400

    page = client.get("/review/login")
    assert client.post("/review/login", data={"csrf": _csrf(page.text), "name": "li.wang", "password": "nope"},
                       follow_redirects=False).status_code == 401
    page = client.get("/review/login")
    assert client.post("/review/login", data={"csrf": _csrf(page.text), "name": "li.wang", "password": PASSWORD},
                       follow_redirects=False).status_code == 303
    csrf = _csrf(client.get("/review/catalog").text)
    assert client.post(f"/review/styles/{style.id}/publish", data={"csrf": csrf},
                       follow_redirects=False).status_code == 303
    published = client.get(paths.CATALOG_CHANGES, params={"since": cursor}, headers=headers).json()
    sha256 = next(a["sha256"] for c in published["changes"] if c["type"] == "style" for a in c["style"]["assets"])
    blob = client.get(f"/v1/blobs/{sha256}", headers=headers, follow_redirects=False)
    assert blob.status_code in (200, 307)

    text = client.get("/metrics").text
    after = parse(text)
    assert after.value("nailmirror_hq_requests_total", method="GET", route=paths.CATALOG_CHANGES, status="2xx") == 4
    assert after.value("nailmirror_hq_requests_total", method="GET", route="/v1/blobs/{sha256}",
                       status=f"{blob.status_code // 100}xx") == 1
    assert after.value("nailmirror_hq_poll_duration_seconds_count") == 4
    assert 0 < after.value("nailmirror_hq_poll_duration_seconds_sum") < 60
    assert after.value("nailmirror_hq_feed_page_changes_count") == 4
    assert after.value("nailmirror_hq_feed_page_changes_sum") == len(published["changes"]) >= 1
    assert after.value("nailmirror_hq_snapshot_styles_count") == 1
    assert after.value("nailmirror_hq_snapshot_styles_sum") == len(snapshot["styles"])
    assert after.value("nailmirror_hq_failed_logins_total", door="review") == 1
    assert after.value("nailmirror_hq_failed_logins_total", door="enroll") == 1
    assert after.value("nailmirror_hq_catalog_decisions_total", action="publish") == 1
    assert after.value("nailmirror_hq_publish_fanout_changes_count") == 1
    assert after.value("nailmirror_hq_publish_fanout_changes_sum") >= 1  # one change per channel it reached
    if blob.status_code == 200:  # HQ sent the bytes itself (filesystem store)
        assert after.value("nailmirror_hq_blob_egress_bytes_total") == len(blob.content) > 0
    else:  # S3: a presigned URL, bytes never through HQ
        assert after.value("nailmirror_hq_blob_redirects_total") == 1
        assert after.value("nailmirror_hq_blob_egress_bytes_total") == 0
    kiosk_id = hello["kiosk_id"]
    for secret in (store_id, "Secret Store", "淮海路", kiosk_id, token, token[:12], sha256, style.id, hello["epoch"],
                   "li.wang", PASSWORD):
        assert secret not in text, f"{secret!r} in /metrics"


def test_a_counter_only_goes_up_and_labels_are_declared() -> None:
    registry = metrics.Metrics()
    with pytest.raises(ValueError):
        registry.inc(metrics.BLOB_BYTES, -1)
    with pytest.raises(KeyError):
        registry.inc(metrics.FAILED_LOGINS, door="review", store="st_SH-0012")  # no room for a store label
    registry.inc(metrics.REQUESTS, method="GET", route='/a"b\\c\nd', status="2xx")
    parsed = parse(registry.render())
    assert parsed.value("nailmirror_hq_requests_total", method="GET", route='/a\\"b\\\\c\\nd', status="2xx") == 1


@pytest.mark.slow
def test_counting_costs_a_poll_nothing_measurable(hq_sqlite: HQ) -> None:
    """A poll with the counting layer and without it (the same app, the layer taken out), in alternating
    rounds; and what the layer's recording (one counter, two histograms) costs on its own."""
    from nailmirror_hq.api.observe import CountRequests

    counted = create_app(hq_sqlite)
    bare = create_app(hq_sqlite)
    bare.user_middleware = [m for m in bare.user_middleware if m.cls is not CountRequests]
    clients = {"counted": TestClient(counted), "bare": TestClient(bare)}
    _, headers = new_kiosk(hq_sqlite, clients["counted"])
    since = f"{clients['counted'].get(paths.HELLO, headers=headers).json()['epoch']}.0"
    rounds: dict[str, list[float]] = {"counted": [], "bare": []}
    for _ in range(5):
        for name, client in clients.items():
            started = time.perf_counter()
            for _ in range(40):
                assert client.get(paths.CATALOG_CHANGES, params={"since": since}, headers=headers).status_code == 200
            rounds[name].append((time.perf_counter() - started) / 40)
    poll_s = {name: sorted(times)[len(times) // 2] for name, times in rounds.items()}
    registry = metrics.Metrics()
    started = time.perf_counter()
    for _ in range(2000):
        registry.inc(metrics.REQUESTS, method="GET", route=paths.CATALOG_CHANGES, status="2xx")
        registry.observe(metrics.POLL_SECONDS, 0.004)
        registry.observe(metrics.FEED_PAGE, 0)
    record_s = (time.perf_counter() - started) / 2000
    print(f"poll median: {poll_s['counted'] * 1e3:.2f} ms counted, {poll_s['bare'] * 1e3:.2f} ms without; "
          f"recording {record_s * 1e6:.1f} us")
    assert scrape(clients["counted"]).value("nailmirror_hq_poll_duration_seconds_count") == 200
    assert scrape(clients["bare"]).value("nailmirror_hq_poll_duration_seconds_count") == 0
    assert record_s < poll_s["bare"] / 100
