"""Diagnostics, refreshed once a second: frame rate, per-stage latency, queue depths, disk space, whether the
task engine has found the disk full (its finished tasks' results then wait in memory until space returns), and
where catalog sync with HQ stands (staff only: a customer never sees sync)."""

from __future__ import annotations

import shutil

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from nailmirror_desktop.core.paths import data_dir
from nailmirror_desktop.core.sync.state import status_report
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor

STAGES = ("track", "smooth", "geometry", "composite", "total")


class DiagnosticsPage(QWidget):
    def __init__(self, mirror_loop: MirrorLoop, supervisor: SourceSupervisor, engine: TaskEngine | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loop, self._supervisor, self._engine = mirror_loop, supervisor, engine
        layout = QVBoxLayout(self)
        self.form = QFormLayout()
        self.values = {key: QLabel("—") for key in ("fps", "source", "latency", "mirror_queue", "tasks", "disk",
                                                 "storage", "sync")}
        self.labels = {key: QLabel() for key in self.values}
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

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        texts = {"fps": self.tr("Frames per second"), "source": self.tr("Frame source"),
                 "latency": self.tr("Latency per stage"), "mirror_queue": self.tr("Frames waiting (mirror)"),
                 "tasks": self.tr("Task queue"), "disk": self.tr("Free disk space"),
                 "storage": self.tr("Saving results"), "sync": self.tr("Catalog sync (HQ)")}
        for key, label in self.labels.items():
            label.setText(texts[key])
