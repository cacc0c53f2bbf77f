"""Screens a person should look at, shot from a real kiosk window: `python -m tests.support.xvfb_screens OUT`.

Run under an X server (tests/ui/test_xvfb.py starts Xvfb): the kiosk as the app builds it (demo video, the
starter catalog), full screen; once a painted hand is on the mirror it writes
  grid.png                 the customer page (mirror and the style grid)
  before_after_after.png   the snapshot page, the line dragged to the left end: all after
  before_after_before.png  the same, dragged to the right end: all before
  before_after_default.png the first split
  capture_offer.png        the same page with "help us improve the mirror" and its sentence (once saved)
  capture_code.png         after the tap: the capture's code shown to her
and prints one JSON line: the visible tile count, the first split and the painted span of the frozen pair.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from nailmirror_desktop.app.kiosk import KioskOptions, build_services
from nailmirror_desktop.core.config import load_config
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.shell.kiosk_controller import KioskController

TIMEOUT_S = 60


def main(out: Path) -> int:
    app = QApplication(["nailmirror"])
    theme.apply_theme(app)
    i18n.install_language("zh_CN")
    bridge.install()
    controller = KioskController(build_services(load_config(), KioskOptions(demo=True)))
    controller.window.showFullScreen()
    controller.start()
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {}
    started = time.monotonic()
    tryon = controller.tryon

    def shoot(name: str) -> None:
        app.processEvents()
        controller.window.grab().save(str(out / name))

    def poll() -> None:
        pair = controller.services.session.snapshot_pair()
        browser = tryon.style_browser
        ready = pair is not None and pair.paint >= 4 and browser is not None and browser.model.rowCount() >= 20
        if not ready and time.monotonic() - started < TIMEOUT_S:
            QTimer.singleShot(200, poll)
            return
        report["visible_tiles"] = browser.visible_tile_count() if browser is not None else 0
        shoot("grid.png")
        tryon.take_snapshot()
        page = tryon.snapshot_page
        report["default_split"] = page.view.split()
        report["paint_span"] = pair.paint_span if pair is not None else None
        shoot("before_after_default.png")
        page.view.set_split(0.0)
        shoot("before_after_after.png")
        page.view.set_split(1.0)
        shoot("before_after_before.png")
        report["window"] = [controller.window.width(), controller.window.height()]
        page.view.set_split(page.view.split())
        QTimer.singleShot(200, offer)

    def offer() -> None:
        consent = controller.capture
        if not consent.button.isEnabled() and time.monotonic() - started < TIMEOUT_S:
            QTimer.singleShot(200, offer)
            return
        shoot("capture_offer.png")
        consent.button.click()
        QTimer.singleShot(200, kept)

    def kept() -> None:
        consent = controller.capture
        if not consent.code and time.monotonic() - started < 2 * TIMEOUT_S:
            QTimer.singleShot(200, kept)
            return
        shoot("capture_code.png")
        report["capture_code"] = consent.code
        print(json.dumps(report), flush=True)
        controller.shutdown()
        app.quit()

    QTimer.singleShot(500, poll)
    app.exec()
    return 0 if report else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
