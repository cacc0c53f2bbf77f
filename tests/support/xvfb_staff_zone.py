"""The staff settings' store time zone shot from a real kiosk window: `python -m tests.support.xvfb_staff_zone OUT`.

Run under an X server (tests/ui/staff/test_hq_time_zone.py starts Xvfb) on a data directory whose kiosk already
synced with HQ: the kiosk as the app builds it, full screen, the staff pages open on Settings scrolled to the
zone; writes settings_zone_from_hq.png and prints one JSON line: the zone shown and whether it can be changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QScrollArea

from nailmirror_desktop.app.kiosk import KioskOptions, build_services
from nailmirror_desktop.core.config import load_config
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.shell.kiosk_controller import KioskController


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

    def shoot() -> None:
        staff = controller.staff
        staff.enter()
        settings = staff.settings_page
        assert staff.staff_page is not None and settings is not None
        tabs = staff.staff_page.tabs
        for index in range(tabs.count()):
            scroll = tabs.widget(index)
            if isinstance(scroll, QScrollArea) and scroll.widget() is settings:
                tabs.setCurrentIndex(index)
                app.processEvents()
                scroll.ensureWidgetVisible(settings.credit_settings.hq_note, 50, 300)
        for _ in range(5):
            app.processEvents()
        box = settings.credit_settings
        controller.window.grab().save(str(out / "settings_zone_from_hq.png"))
        report.update(zone=box.zone_name(), zone_text=box.zone.currentText(), note=box.hq_note.text(),
                      editable=box.zone.isEnabled() or box.region.isEnabled(), window=[controller.window.width(),
                                                                                          controller.window.height()])
        print(json.dumps(report, ensure_ascii=False), flush=True)
        controller.shutdown()
        app.quit()

    QTimer.singleShot(1500, shoot)
    app.exec()
    return 0 if report else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
