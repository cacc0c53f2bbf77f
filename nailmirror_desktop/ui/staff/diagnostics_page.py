"""Diagnostics, refreshed once a second: frame rate, per-stage latency, queue depths, disk space, whether the
task engine has found the disk full (its finished tasks' results then wait in memory until space returns), and
where catalog sync with HQ stands (staff only: a customer never sees sync), and the nail model the mirror runs:
the bundled one or HQ's release, whether its first sessions are still being watched, and why the last release
was rolled back (issue #27 §7; the same reason HQ reads in the sync report, its measure in the staff's words)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from nailmirror_desktop.core.model_releases.switch import ModelStatus
from nailmirror_desktop.core.paths import data_dir
from nailmirror_desktop.core.sync.state import status_report
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor

STAGES = ("track", "smooth", "geometry", "composite", "total")
# core/model_releases/watch.py judge()'s detail: "<measure> <value> vs median <median> of <n> sessions[ (fewer than k)]"
_REGRESSION = re.compile(r"^(painted nails per frame|blink rate|segment ms per hand) (\S+) vs median (\S+) "
                         r"of (\d+) sessions( \(fewer than \d+\))?$")
_LOAD_FAILED = "failed to load: "


class DiagnosticsPage(QWidget):
    def __init__(self, mirror_loop: MirrorLoop, supervisor: SourceSupervisor, engine: TaskEngine | None = None,
                 parent: QWidget | None = None, *, model_status: Callable[[], ModelStatus] | None = None) -> None:
        super().__init__(parent)
        self._loop, self._supervisor, self._engine = mirror_loop, supervisor, engine
        self._model_status = model_status  # the model switcher's (GUI thread); None: no database, bundled model
        layout = QVBoxLayout(self)
        self.form = QFormLayout()
        self.values = {key: QLabel("—") for key in ("fps", "source", "latency", "mirror_queue", "tasks", "disk",
                                                 "storage", "sync", "model", "rollback")}
        self.labels = {key: QLabel() for key in self.values}
        self.values["rollback"].setWordWrap(True)  # a reason is a sentence: it wraps rather than runs off the page
        for key, value in self.values.items():
            self.form.addRow(self.labels[key], value)
        layout.addLayout(self.form)
        layout.addStretch(1)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.refresh)
        self._retranslate()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.refresh()
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        self._timer.stop()
        super().hideEvent(event)

    def refresh(self) -> None:
        self.values["fps"].setText(f"{self._loop.fps():.1f}")
        self.values["source"].setText(self._supervisor.state)
        timings = self._loop.last_timings_ms
        latency = "  ".join(f"{s} {timings.get(s, 0):.1f} ms" for s in STAGES) if timings else "—"
        self.values["latency"].setText(latency)
        self.values["mirror_queue"].setText(str(self._loop.queue_depth()))
        if self._engine is not None:
            stats = self._engine.stats()
            by_status = stats["by_status"]
            self.values["tasks"].setText(f"PENDING {by_status.get('PENDING', 0)}  PROCESSING "
                                         f"{by_status.get('PROCESSING', 0)}  FAILED {by_status.get('FAILED', 0)}")
            self._show_storage(bool(stats["storage_full"]), int(stats["outcomes_waiting"]))
            self._show_sync(status_report(self._engine.connection()))
        if self._model_status is not None:
            self._show_model(self._model_status())
        usage = shutil.disk_usage(data_dir())
        self.values["disk"].setText(f"{usage.free / 2**30:.1f} GiB / {usage.total / 2**30:.1f} GiB")

    def _show_storage(self, full: bool, waiting: int) -> None:
        label = self.values["storage"]
        if full:
            text = self.tr("DISK FULL: %1 task result(s) wait to be saved. Free some space; they are saved then.")
            label.setText(text.replace("%1", str(waiting)))
            label.setStyleSheet("color: #c62828; font-weight: bold;")
        else:
            label.setText(self.tr("OK"))
            label.setStyleSheet("")

    def _show_sync(self, report: dict[str, object]) -> None:
        state = str(report["state"])
        texts = {
            "OK": self.tr("OK, last synced %1"),
            "OFFLINE": self.tr("Offline since %1; the kiosk keeps its catalog and retries"),
            "REVOKED": self.tr("HQ revoked this kiosk: enroll it again"),
            "UPGRADE_REQUIRED": self.tr("HQ needs a newer kiosk version"),
            "NOT_ENROLLED": self.tr("Not enrolled with HQ"),
        }
        when = report["last_success_at"] if state == "OK" else report["offline_since"]
        text = texts.get(state, state).replace("%1", str(when or "—").replace("T", " ")[:19])
        pending = self.tr("%1 download(s), %2 upload(s) pending")
        text += "  " + pending.replace("%1", str(report["pending_downloads"])).replace(
            "%2", str(report["pending_uploads"]))
        if report.get("kiosk_name"):  # the name HQ's fleet page shows this kiosk under
            text += "  " + self.tr("HQ knows this kiosk as “%1”").replace("%1", str(report["kiosk_name"]))
        self.values["sync"].setText(text)
        self.values["sync"].setStyleSheet("" if state in ("OK", "NOT_ENROLLED") else "color: #c62828;")

    def _show_model(self, status: ModelStatus) -> None:
        if status.release is None:
            text = self.tr("%1 (bundled with the kiosk)").replace("%1", status.version)
        elif status.watching:
            text = self.tr("%1 (HQ release %2, its first customers are being watched)")
        else:
            text = self.tr("%1 (HQ release %2)")
        self.values["model"].setText(text.replace("%1", status.version).replace("%2", str(status.release)))
        rolled = status.last_rollback
        if rolled is None:
            self.values["rollback"].setText(self.tr("None"))
            self.values["rollback"].setStyleSheet("")
            return
        text = self.tr("Release %1 (%2) went back at %3: %4")
        self.values["rollback"].setText(
            text.replace("%1", str(rolled.release)).replace("%2", rolled.version)
            .replace("%3", rolled.at.replace("T", " ")[:16]).replace("%4", self.rollback_reason(rolled.detail)))
        self.values["rollback"].setStyleSheet("color: #c62828;")

    def rollback_reason(self, detail: str) -> str:
        """The switcher's one-line reason in the staff's language (a reason it does not know: as it is)."""
        if detail.startswith(_LOAD_FAILED):
            return self.tr("it did not load (%1)").replace("%1", detail[len(_LOAD_FAILED):])
        match = _REGRESSION.match(detail)
        if match is None:
            return detail
        measure, value, median, sessions, few = match.groups()
        words = {"painted nails per frame": self.tr("painted nails per frame"),
                 "blink rate": self.tr("nails blinking off"),
                 "segment ms per hand": self.tr("nail model time per hand (ms)")}[measure]
        text = self.tr("%1 was %2 against %3, the previous model's median over its last %4 customers")
        if few:
            text += self.tr(" (few customers to compare with)")
        return text.replace("%1", words).replace("%2", value).replace("%3", median).replace("%4", sessions)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        texts = {"fps": self.tr("Frames per second"), "source": self.tr("Frame source"),
                 "latency": self.tr("Latency per stage"), "mirror_queue": self.tr("Frames waiting (mirror)"),
                 "tasks": self.tr("Task queue"), "disk": self.tr("Free disk space"),
                 "storage": self.tr("Saving results"), "sync": self.tr("Catalog sync (HQ)"),
                 "model": self.tr("Nail model"), "rollback": self.tr("Last model rollback")}
        for key, label in self.labels.items():
            label.setText(texts[key])
