"""The live-quality watch of a nail model release (issue #27 §7; ARCHITECTURE.md §3 "model releases").

A customer session is what the mirror showed between two idle resets. While it runs, the paint stage tallies each
frame with a hand in it (`SessionTally`, fed from a worker thread): nails painted, blinks (a nail painted in the
frame before and not in this one while its hand is still tracked), and the segmenter's milliseconds per hand. At
the idle reset a session of at least `MIN_FRAMES` such frames is kept in `model_session` under the version that
ran it (migration 0018).

After a switch (`model_watch` names the release and the model it replaced), the new release's first
`JUDGED_SESSIONS` sessions are compared with the previous model's median over its last `BASELINE_SESSIONS`
sessions on this kiosk (`judge`). A regression past a threshold below is a verdict with its reason in one line;
core/model_releases/switch.py rolls back on it. Stdlib only: the numbers come in as plain floats.
"""

from __future__ import annotations

import sqlite3
import statistics
import threading
from dataclasses import dataclass
from typing import Literal

from nailmirror_desktop.core.db import write_transaction

# A session shorter than this many frames with a hand (about 2 s at the mirror's rate) is a passer-by, not a
# customer: too few frames to say anything about the model, so it is not kept.
MIN_FRAMES = 60
BASELINE_SESSIONS = 20  # the previous model's last sessions on this kiosk: its median is the bar
FEW_BASELINE = 5  # under this many previous sessions the detail says the bar is thin
JUDGED_SESSIONS = 3  # a new release's first sessions (with enough frames) that decide: one odd customer is not enough
# Painted nails per frame is what the customer sees of the model: a model that finds fewer nails leaves them bare.
# Customers differ (one hand or two, bare or long nails): 15 % below the median is outside what one kiosk's sessions
# of the same model vary by, and a model that paints fewer nails than that is worse.
PAINTED_FLOOR = 0.85
# Blinks are rare (a few in a thousand nail-frames), so a ratio alone would fire on noise near zero: twice the
# median plus half a percentage point.
BLINK_FACTOR = 2.0
BLINK_MARGIN = 0.005
# The segmenter's budget is 4 ms per hand (vision/pipeline.py SEGMENT_EVERY); a release is slower only when it is
# past the budget and also well past what the previous model took on this very PC (a slow PC is slow for both).
SEGMENT_BUDGET_MS = 4.0
SEGMENT_FACTOR = 1.5
SESSIONS_KEPT = 200  # per slot and version: the baseline needs 20, the rest is history for staff
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


@dataclass(frozen=True)
class SessionQuality:
    """One customer session measured on one model: frames with a hand in them, and per such frame the mean of
    nails painted, the share of painted nails that blinked off the next frame, and segmenter ms per hand."""

    frames: int
    painted_per_frame: float
    blink_rate: float
    segment_ms_per_hand: float


@dataclass(frozen=True)
class ModelSession:
    """A `model_session` row."""

    id: int
    slot: str
    version: str
    release: int | None
    quality: SessionQuality
    ended_at: str


@dataclass(frozen=True)
class Watch:
    """A `model_watch` row: `release`/`version` run now since `switched_at`; `previous_*` ran before it
    (previous_release None: the bundled model)."""

    slot: str
    release: int
    version: str
    previous_release: int | None
    previous_version: str
    switched_at: str


@dataclass(frozen=True)
class Verdict:
    """"watching": not enough sessions yet; "passed": as good as before; "regressed": roll back, `detail` says why."""

    outcome: Literal["watching", "passed", "regressed"]
    detail: str = ""


class SessionTally:
    """The running session's counts. `observe` runs on the paint worker, `take` on the GUI thread (idle reset).
    min_frames: frames with a hand a session needs to be kept (MIN_FRAMES; tests use fewer)."""

    def __init__(self, min_frames: int = MIN_FRAMES) -> None:
        self.min_frames = max(1, min_frames)
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self._frames = 0
        self._painted = 0
        self._blinks = 0
        self._chances = 0
        self._segment_ms = 0.0
        self._segmented_hands = 0

    def observe(self, *, hands: int, painted: int, blinks: int, chances: int, segment_ms: float) -> None:
        """One shown frame: `hands` tracked, `painted` nails painted, `blinks` of the `chances` nails painted in
        the frame before (whose hand is still here) not painted now, `segment_ms` in the segmenter (0: the
        masks were carried, it did not run)."""
        if hands <= 0:
            return  # nobody at the mirror: not the model's doing
        with self._lock:
            self._frames += 1
            self._painted += painted
            self._blinks += blinks
            self._chances += chances
            if segment_ms > 0:
                self._segment_ms += segment_ms
                self._segmented_hands += hands

    def frames(self) -> int:
        with self._lock:
            return self._frames

    def take(self) -> SessionQuality | None:
        """The session so far, and a new one begins; None when it had fewer than `min_frames` frames."""
        with self._lock:
            frames, painted, blinks, chances = self._frames, self._painted, self._blinks, self._chances
            segment_ms, hands = self._segment_ms, self._segmented_hands
            self._clear()
        if frames < self.min_frames:
            return None
        return SessionQuality(frames, painted / frames, blinks / chances if chances else 0.0,
                              segment_ms / hands if hands else 0.0)


def record_session(conn: sqlite3.Connection, slot: str, version: str, release: int | None,
                   quality: SessionQuality) -> None:
    with write_transaction(conn):
        conn.execute(
            "INSERT INTO model_session (slot, version, release, frames, painted_per_frame, blink_rate, "
            f"segment_ms_per_hand, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, {_NOW})",
            (slot, version, release, quality.frames, quality.painted_per_frame, quality.blink_rate,
             quality.segment_ms_per_hand))
        conn.execute(
            "DELETE FROM model_session WHERE slot = ? AND version = ? AND id NOT IN "
            "(SELECT id FROM model_session WHERE slot = ? AND version = ? ORDER BY id DESC LIMIT ?)",
            (slot, version, slot, version, SESSIONS_KEPT))


def last_sessions(conn: sqlite3.Connection, slot: str, version: str,
                  limit: int = BASELINE_SESSIONS) -> list[ModelSession]:
    """The newest `limit` sessions of `version` in `slot`, newest first."""
    rows = conn.execute("SELECT * FROM model_session WHERE slot = ? AND version = ? ORDER BY id DESC LIMIT ?",
                        (slot, version, limit)).fetchall()
    return [_session(row) for row in rows]


def release_sessions(conn: sqlite3.Connection, slot: str, release: int,
                     limit: int = JUDGED_SESSIONS) -> list[ModelSession]:
    """The first `limit` sessions a release ran (a rolled-back release never runs again, so these are its watch's)."""
    rows = conn.execute("SELECT * FROM model_session WHERE slot = ? AND release = ? ORDER BY id LIMIT ?",
                        (slot, release, limit)).fetchall()
    return [_session(row) for row in rows]


def _session(row: sqlite3.Row) -> ModelSession:
    return ModelSession(row["id"], row["slot"], row["version"], row["release"],
                        SessionQuality(row["frames"], row["painted_per_frame"], row["blink_rate"],
                                       row["segment_ms_per_hand"]), row["ended_at"])


def begin_watch(conn: sqlite3.Connection, watch: Watch) -> None:
    with write_transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO model_watch (slot, release, version, previous_release, previous_version, "
            f"switched_at) VALUES (?, ?, ?, ?, ?, {_NOW})",
            (watch.slot, watch.release, watch.version, watch.previous_release, watch.previous_version))


def current_watch(conn: sqlite3.Connection, slot: str) -> Watch | None:
    row = conn.execute("SELECT * FROM model_watch WHERE slot = ?", (slot,)).fetchone()
    if row is None:
        return None
    return Watch(row["slot"], row["release"], row["version"], row["previous_release"], row["previous_version"],
                 row["switched_at"])


def end_watch(conn: sqlite3.Connection, slot: str) -> None:
    with write_transaction(conn):
        conn.execute("DELETE FROM model_watch WHERE slot = ?", (slot,))


def judge(baseline: list[SessionQuality], candidate: list[SessionQuality]) -> Verdict:
    """The new release's sessions (`candidate`, its first ones) against the previous model's (`baseline`, its
    last ones): each measure's median against the baseline's. The first regression found is the verdict."""
    if len(candidate) < JUDGED_SESSIONS:
        return Verdict("watching")
    if not baseline:
        return Verdict("passed", "no sessions of the previous model to compare with")
    of = f"of {len(baseline)} sessions" + (f" (fewer than {FEW_BASELINE})" if len(baseline) < FEW_BASELINE else "")
    painted = statistics.median(s.painted_per_frame for s in candidate)
    painted_bar = statistics.median(s.painted_per_frame for s in baseline)
    if painted < PAINTED_FLOOR * painted_bar:
        return Verdict("regressed", f"painted nails per frame {painted:.2f} vs median {painted_bar:.2f} {of}")
    blink = statistics.median(s.blink_rate for s in candidate)
    blink_bar = statistics.median(s.blink_rate for s in baseline)
    if blink > BLINK_FACTOR * blink_bar + BLINK_MARGIN:
        return Verdict("regressed", f"blink rate {blink:.4f} vs median {blink_bar:.4f} {of}")
    segment = statistics.median(s.segment_ms_per_hand for s in candidate)
    segment_bar = statistics.median(s.segment_ms_per_hand for s in baseline)
    if segment > SEGMENT_BUDGET_MS and segment > SEGMENT_FACTOR * segment_bar:
        return Verdict("regressed", f"segment ms per hand {segment:.2f} vs median {segment_bar:.2f} {of}")
    return Verdict("passed", f"as good as the previous model's median {of}")
