"""Connects the kiosk's widgets to each other and to the services (thin: each handler is a few lines).

The window shows; the controller decides what happens on a tap, a source change, an idle timeout or a
language switch.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject

from nailmirror_desktop.ui.main_window import MainWindow, placeholder
from nailmirror_desktop.ui.mirror_loop import MirrorLoop
from nailmirror_desktop.ui.source_supervisor import DEMO, LIVE, LOST, STARTING

log = logging.getLogger(__name__)


class KioskController(QObject):
    def __init__(self, services, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.window = MainWindow()
        self.mirror_loop = MirrorLoop(
            self.window.mirror, services.supervisor, services.session.process, services.run_in_background, parent=self
        )
        self.mirror_loop.source_state_changed.connect(self._on_source_state_change)
        self.window.set_side_panels(placeholder(""), placeholder(""))
        self._shut_down = False

    def start(self) -> None:
        self.mirror_loop.start()

    def shutdown(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        self.mirror_loop.stop()
        self.window.allow_close = True
        self.services.close()

    def save_screenshot(self, path: Path) -> bool:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        saved = self.window.grab().save(str(path))
        log.info("screenshot %s: %s", path, saved)
        return bool(saved)

    # --- handlers ---------------------------------------------------------------------------------------
    def _on_source_state_change(self, state: str) -> None:
        mirror = self.window.mirror
        if state == LOST:
            mirror.set_banner(self.tr("The camera is not responding. Reconnecting…"))
        elif state == STARTING:
            mirror.set_banner(self.tr("Looking for a camera…"))
        else:
            mirror.set_banner("")
        self.window.set_demo_badge(state == DEMO)
        if state == LIVE:
            log.info("camera live")
