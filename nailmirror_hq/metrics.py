"""HQ's operational counters, served at GET /metrics in the Prometheus text format (version 0.0.4), written here
by hand: a few counters and histograms need no client library.

Every family is declared once in FAMILIES with its help text and label names. Labels are of low cardinality only
(method, route template, status class, door, action): never a store's name or id, a kiosk, a token, a hash or a
path with an id in it, so the page may be scraped without a login and kept in any monitoring system. The values
live in this process (`create_app` makes one `Metrics` per app) and start again from zero when it restarts;
Prometheus' rate() and increase() treat such a reset as a counter reset. Behind a load balancer each HQ process is
scraped on its own, and commands run from a shell (`nailmirror-hq styles publish`) count in no process.

Recording is a dict update under one lock: a few microseconds, against a poll's milliseconds.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Family:
    name: str
    kind: str  # "counter" or "histogram"
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()  # histograms: upper bounds, ascending; +Inf is added


REQUESTS = Family("nailmirror_hq_requests_total", "counter",
                  "HTTP requests answered, by method, route template and status class.", ("method", "route", "status"))
POLL_SECONDS = Family("nailmirror_hq_poll_duration_seconds", "histogram",
                      "Time to answer a kiosk's feed poll (GET /v1/catalog/changes), in seconds.",
                      buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
FEED_PAGE = Family("nailmirror_hq_feed_page_changes", "histogram",
                   "Feed changes in each page answered to a poll (0: the kiosk was up to date).",
                   buckets=(0, 1, 5, 10, 50, 100, 250, 500))
SNAPSHOT_STYLES = Family("nailmirror_hq_snapshot_styles", "histogram",
                         "Live styles in each catalog snapshot answered (a channel's catalog size).",
                         buckets=(0, 10, 50, 100, 500, 1000, 5000, 10000, 50000))
PUBLISHES = Family("nailmirror_hq_catalog_decisions_total", "counter",
                   "Catalog decisions taken on the review page that reach kiosks, by action.", ("action",))
FANOUT = Family("nailmirror_hq_publish_fanout_changes", "histogram",
                "Feed changes one catalog decision appended across all channels (its fan-out).",
                buckets=(0, 1, 2, 5, 10, 20, 50, 100, 500))
BLOB_BYTES = Family("nailmirror_hq_blob_egress_bytes_total", "counter",
                    "Blob bytes HQ itself sent to kiosks (GET /v1/blobs; Range answers count what was sent).")
BLOB_REDIRECTS = Family("nailmirror_hq_blob_redirects_total", "counter",
                        "Blob requests answered with a redirect to the object store or CDN (bytes not sent by HQ).")
FAILED_LOGINS = Family("nailmirror_hq_failed_logins_total", "counter",
                       "Wrong review-page passwords (door=review) and wrong enrollment codes (door=enroll).",
                       ("door",))
THROTTLED = Family("nailmirror_hq_throttled_total", "counter",
                   "Attempts refused unchecked while an account or address waits (429), by door.", ("door",))
FAMILIES = (REQUESTS, POLL_SECONDS, FEED_PAGE, SNAPSHOT_STYLES, PUBLISHES, FANOUT, BLOB_BYTES, BLOB_REDIRECTS,
            FAILED_LOGINS, THROTTLED)


class Metrics:
    """One process's counters and histograms; thread-safe (sync routes run in the server's thread pool)."""

    def __init__(self, families: Iterable[Family] = FAMILIES) -> None:
        self._families = {f.name: f for f in families}
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = {name: {} for name in self._families}
        # per histogram: its bucket counts (one per bound, +Inf last), sum and count
        self._histograms: dict[str, tuple[list[int], list[float]]] = {
            f.name: ([0] * (len(f.buckets) + 1), [0.0, 0.0]) for f in self._families.values() if f.kind == "histogram"}

    def inc(self, family: Family, amount: float = 1.0, **labels: str) -> None:
        key = self._key(family, "counter", labels)
        if amount < 0:
            raise ValueError("a counter only goes up")
        with self._lock:
            values = self._counters[family.name]
            values[key] = values.get(key, 0.0) + amount

    def observe(self, family: Family, value: float) -> None:
        self._key(family, "histogram", {})
        counts, total = self._histograms[family.name]
        with self._lock:
            for i, bound in enumerate(family.buckets):
                if value <= bound:
                    counts[i] += 1
                    break
            else:
                counts[-1] += 1
            total[0] += value
            total[1] += 1

    def _key(self, family: Family, kind: str, labels: dict[str, str]) -> Labels:
        if self._families.get(family.name) != family or family.kind != kind:
            raise KeyError(f"{family.name} is not a {kind} of this registry")
        if set(labels) != set(family.labels):
            raise KeyError(f"{family.name} takes labels {family.labels}, not {tuple(labels)}")
        return tuple((name, str(labels[name])) for name in family.labels)

    def render(self) -> str:
        """The exposition: every family with HELP and TYPE, a counter without labels at 0 until it moves."""
        lines: list[str] = []
        with self._lock:
            for family in self._families.values():
                lines.append(f"# HELP {family.name} {_escape_help(family.help)}")
                lines.append(f"# TYPE {family.name} {family.kind}")
                if family.kind == "counter":
                    values = self._counters[family.name]
                    if not values and not family.labels:
                        lines.append(f"{family.name} 0")
                    for key in sorted(values):
                        lines.append(f"{family.name}{_labels(key)} {_number(values[key])}")
                else:
                    counts, (total, count) = self._histograms[family.name]
                    running = 0
                    for bound, n in zip((*family.buckets, math.inf), counts, strict=True):
                        running += n
                        lines.append(f'{family.name}_bucket{{le="{_number(bound)}"}} {running}')
                    lines.append(f"{family.name}_sum {_number(total)}")
                    lines.append(f"{family.name}_count {_number(count)}")
        return "\n".join(lines) + "\n"


def status_class(status: int) -> str:
    return f"{status // 100}xx" if 100 <= status <= 599 else "other"


def _labels(key: Labels) -> str:
    if not key:
        return ""
    return "{" + ",".join(f'{name}="{_escape_value(value)}"' for name, value in key) + "}"


def _escape_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if value == math.inf:
        return "+Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))
