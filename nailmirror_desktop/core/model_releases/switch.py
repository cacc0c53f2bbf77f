"""Running a verified nail model release (issue #27 §7): load it beside the running one, switch at an idle
moment, watch it, roll it back on its own (ARCHITECTURE.md §3 "model releases").

`ModelSwitcher` lives on the GUI thread with that thread's connection; the loading runs on a worker through the
runner it is given (the bridge). Its steps:

1. `prepare()`: the release to load (`store.waiting`: verified, newer than the active one, never rolled back; or,
   at start, the active one itself) is loaded and checked by the `ModelLoader` port (vision does the work: a
   second onnxruntime session, run once on a sample batch) on a worker. A release that fails to load is rolled
   back at once ("failed to load: …"); the running model is never touched.
2. The switch: at the idle reset (`at_idle`), or as soon as it is loaded if no customer has been at the mirror
   since the last reset (`SessionTally` is empty). `install(model)` swaps the pipelines' segmenter in one
   assignment between frames; `store.mark_active`, and a `model_watch` row remembers what ran before.
3. The watch: every idle reset keeps the session that ended (watch.py) under the version that ran it and judges
   the watched release's first sessions against the previous model's last ones. A regression: the previous model
   is installed again (still in memory, or loaded again after a restart), the release `mark_rolled_back` with the
   reason, which the sync report carries to HQ (store.slot_reports).

Only one change at a time per slot: nothing new is loaded while a switch is watched. The "still" slot's switcher
is not watched (`watched=False`): a photo has no live measure to judge it by, so its release switches at the idle
reset and stays until HQ withdraws it or a newer one comes. Stdlib only: models are opaque objects here.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.model_releases.store import ModelReleaseRow
from nailmirror_desktop.core.model_releases.watch import (
    MIN_FRAMES,
    SessionQuality,
    SessionTally,
    Verdict,
    Watch,
    begin_watch,
    current_watch,
    end_watch,
    judge,
    last_sessions,
    record_session,
    release_sessions,
)

log = logging.getLogger(__name__)
LIVE = "live"
STILL = "still"


@dataclass(frozen=True)
class RolledBack:
    release: int
    version: str
    detail: str  # why, in one line: "painted nails per frame 1.20 vs median 6.80 of 20 sessions", "failed to load: …"
    at: str  # UTC text


@dataclass(frozen=True)
class ModelStatus:
    """What staff see: the model running in the slot now, whether its switch is still watched, the last rollback."""

    version: str
    release: int | None  # None: the bundled model
    watching: bool
    last_rollback: RolledBack | None


class ModelLoadFailed(Exception):
    """A release that cannot run here: its file, its hash, its graph, or its answer to the sample batch."""


class ModelLoader(Protocol):
    def load(self, release: ModelReleaseRow) -> object:
        """The release's model, loaded and checked (raises ModelLoadFailed with one line). Runs on a worker."""
        ...


# (work, on_done(result, error)): the bridge's contract (ui/bridge.py), so core never touches a thread
RunInBackground = Callable[[Callable[[], object], Callable[[object, BaseException | None], None]], None]
# the model to run in the slot from the next frame on; None: the bundled one
Install = Callable[[object | None], None]


class ModelSwitcher:
    """One slot's releases on the running kiosk (the live slot; the still path follows it, vision's holder)."""

    def __init__(self, conn: sqlite3.Connection, loader: ModelLoader, install: Install,
                 run_in_background: RunInBackground, *, bundled_version: str, slot: str = LIVE,
                 min_frames: int = MIN_FRAMES, watched: bool = True,
                 customer_present: Callable[[], bool] | None = None) -> None:
        self._conn = conn
        self._loader = loader
        self._install = install
        self._run = run_in_background
        self.bundled_version = bundled_version
        self.slot = slot
        self.watched = watched  # the live slot's quality is watched; the stills' has no live measure to judge by
        self.tally = SessionTally(min_frames)  # fed by the paint stage (TryOnSession), taken at each idle reset
        # whether a customer has been at the mirror since the last idle reset (the still slot asks the live tally)
        self._customer_present = customer_present or (lambda: self.tally.frames() > 0)
        self.running: ModelReleaseRow | None = None  # the release installed now; None: the bundled model
        self._previous: tuple[int | None, object | None] | None = None  # (release, model) a rollback goes back to
        self._loading: int | None = None  # the release a worker is loading
        self._ready: tuple[ModelReleaseRow, object] | None = None  # loaded and checked, waiting for an idle moment
        self._current_model: object | None = None  # the installed release's model (None: bundled)
        self.last_verdict: Verdict | None = None

    @property
    def loaded_release(self) -> int | None:
        """The release loaded beside the running model, waiting for an idle moment."""
        return None if self._ready is None else self._ready[0].release

    @property
    def running_version(self) -> str:
        return self.bundled_version if self.running is None else self.running.version

    def status(self) -> ModelStatus:
        watch = current_watch(self._conn, self.slot)
        rolled = [row for row in store.rows(self._conn, self.slot) if row.state == "rolled_back"]
        last = max(rolled, key=lambda row: row.updated_at, default=None)
        return ModelStatus(self.running_version, None if self.running is None else self.running.release,
                           watch is not None and self.running is not None and watch.release == self.running.release,
                           None if last is None else RolledBack(last.release, last.version, last.detail,
                                                                last.updated_at))

    # --- loading (the side session) -----------------------------------------------------------------------
    def prepare(self) -> bool:
        """Start loading the next release on a worker, if there is one to load and nothing else is under way."""
        row = self._next_to_load()
        if row is None:
            return False
        self._loading = row.release
        log.info("model %s: loading release %d (%s) beside the running model", self.slot, row.release, row.version)
        self._run(lambda: self._loader.load(row), lambda model, error: self._on_loaded(row, model, error))
        return True

    def _next_to_load(self) -> ModelReleaseRow | None:
        if self._loading is not None or self._ready is not None:
            return None
        active = store.active(self._conn, self.slot)
        if active is not None and (self.running is None or self.running.release != active.release):
            return active  # a restart: the release that ran before runs again
        if current_watch(self._conn, self.slot) is not None:
            return None  # one change at a time: the watched release first passes or rolls back
        return store.waiting(self._conn, self.slot)

    def _on_loaded(self, row: ModelReleaseRow, model: object, error: BaseException | None) -> None:
        self._loading = None
        now = store.get(self._conn, self.slot, row.release)
        if now is None or now.state not in ("verified", "active"):
            log.info("model %s: release %d was withdrawn or replaced while it loaded", self.slot, row.release)
            return
        if error is not None or model is None:
            detail = store.one_line(f"failed to load: {error}")
            log.warning("model %s: release %d %s; the running model stays", self.slot, row.release, detail)
            store.mark_rolled_back(self._conn, self.slot, row.release, detail)
            end_watch_if(self._conn, self.slot, row.release)
            return
        self._ready = (row, model)
        if not self._customer_present():  # nobody at the mirror since the last reset: no customer sees the switch
            self._switch()

    # --- the idle moment ----------------------------------------------------------------------------------
    def at_idle(self) -> Verdict | None:
        """The idle reset: keep the session that ended, judge a watched release, switch to a ready one, and start
        loading the next. Returns the watch's verdict when one was reached."""
        quality = self.tally.take()
        if quality is not None:
            self._record(quality)
        self._follow_withdrawal()
        verdict = self._judge()
        if self._ready is not None:
            self._switch()
        self.prepare()
        return verdict

    def _record(self, quality: SessionQuality) -> None:
        release = None if self.running is None else self.running.release
        record_session(self._conn, self.slot, self.running_version, release, quality)

    def _judge(self) -> Verdict | None:
        watch = current_watch(self._conn, self.slot)
        if watch is None or self.running is None or self.running.release != watch.release:
            return None
        baseline = [s.quality for s in last_sessions(self._conn, self.slot, watch.previous_version)]
        candidate = [s.quality for s in release_sessions(self._conn, self.slot, watch.release)]
        verdict = judge(baseline, candidate)
        if verdict.outcome == "regressed":
            self._roll_back(watch, verdict.detail)
        elif verdict.outcome == "passed":
            log.info("model %s: release %d passed its watch (%s)", self.slot, watch.release, verdict.detail)
            end_watch(self._conn, self.slot)
            self._previous = None
        if verdict.outcome != "watching":
            self.last_verdict = verdict
        return verdict

    def _switch(self) -> None:
        assert self._ready is not None
        row, model = self._ready
        self._ready = None
        previous = self.running
        already_active = (active := store.active(self._conn, self.slot)) is not None and active.release == row.release
        self._install(model)
        self._previous = (None if previous is None else previous.release, self._current_model)
        self._current_model = model
        self.running = row
        if already_active:  # a restart: the release was switched to before, its watch (if any) goes on
            log.info("model %s: release %d (%s) runs again", self.slot, row.release, row.version)
            return
        store.mark_active(self._conn, self.slot, row.release)
        if not self.watched:
            log.info("model %s: switched to release %d (%s)", self.slot, row.release, row.version)
            return
        begin_watch(self._conn, Watch(self.slot, row.release, row.version,
                                      None if previous is None else previous.release,
                                      self.bundled_version if previous is None else previous.version, ""))
        log.info("model %s: switched to release %d (%s) at an idle moment", self.slot, row.release, row.version)

    def _roll_back(self, watch: Watch, detail: str) -> None:
        detail = store.one_line(detail)
        model = self._previous_model(watch)
        self._install(model)
        self._current_model = model
        store.mark_rolled_back(self._conn, self.slot, watch.release, detail)
        if watch.previous_release is not None and model is not None:
            store.mark_active(self._conn, self.slot, watch.previous_release)
            self.running = store.active(self._conn, self.slot)
        else:
            self.running = None
        end_watch(self._conn, self.slot)
        self._previous = None
        log.warning("model %s: release %d rolled back: %s", self.slot, watch.release, detail)

    def _previous_model(self, watch: Watch) -> object | None:
        """What ran before: kept since the switch, or (after a restart) loaded again here; the bundled model when
        that fails too."""
        if self._previous is not None and self._previous[0] == watch.previous_release:
            return self._previous[1]
        if watch.previous_release is None:
            return None
        row = store.get(self._conn, self.slot, watch.previous_release)
        if row is None:
            return None
        try:
            return self._loader.load(row)
        except Exception as error:  # the rollback must happen whatever the old file does now
            log.warning("model %s: previous release %d failed to load again (%s): the bundled model runs",
                        self.slot, row.release, error)
            return None

    def _follow_withdrawal(self) -> None:
        """HQ withdrew the slot (store.withdraw_slot removed its rows): the bundled model runs from this idle
        moment on, and a watch of the withdrawn release has nothing left to decide."""
        if self.running is None or store.get(self._conn, self.slot, self.running.release) is not None:
            return
        log.info("model %s: release %d withdrawn: the bundled model runs", self.slot, self.running.release)
        self._install(None)
        self._current_model = None
        self.running = None
        self._previous = None
        end_watch(self._conn, self.slot)


def end_watch_if(conn: sqlite3.Connection, slot: str, release: int) -> None:
    watch = current_watch(conn, slot)
    if watch is not None and watch.release == release:
        end_watch(conn, slot)
