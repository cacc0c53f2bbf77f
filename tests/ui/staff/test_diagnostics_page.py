"""The diagnostics page tells staff when the disk is full (issue #12, point 12), in both languages, and clears
once the results waiting in memory are saved."""

from __future__ import annotations

from nailmirror_desktop.core.config import load_config, save_config
from nailmirror_desktop.core.tasks import TaskStatus
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.diagnostics_page import DiagnosticsPage
from tests.support.disk_full import fill_disk, free_disk
from tests.support.ui_support import started_kiosk


def test_staff_see_disk_full_while_a_result_waits_and_ok_once_it_is_saved(qtbot):
    save_config(load_config())
    with started_kiosk(qtbot) as kiosk:
        engine, executor = kiosk.services.engine, kiosk.services.executor
        engine.register_handler("BIG", lambda ctx: {"blob": "x" * 200_000})
        kiosk.staff.enter()
        page = kiosk.staff.staff_page.findChild(DiagnosticsPage)
        page.refresh()
        assert page.values["storage"].text() == page.tr("OK")
        fill_disk(engine)  # SQLite's page cap: SQLITE_FULL, as on a full disk
        task = executor.submit("BIG", {})
        qtbot.waitUntil(lambda: engine.storage_full, timeout=10000)

        i18n.install_language("en")
        page.refresh()
        assert page.values["storage"].text().startswith("DISK FULL: 1 task result(s)")
        i18n.install_language("zh_CN")
        page.refresh()
        assert "磁盘已满" in page.values["storage"].text() and "1" in page.values["storage"].text()
        qtbot.waitUntil(lambda: page.labels["storage"].text() == "结果保存", timeout=5000)  # LanguageChange

        free_disk(engine)  # space returns
        qtbot.waitUntil(lambda: engine.get(task.task_no).status is TaskStatus.SUCCESS, timeout=10000)
        page.refresh()
        assert page.values["storage"].text() == "正常"
        i18n.install_language("en")
        page.refresh()
        assert page.values["storage"].text() == "OK"


def test_staff_see_where_catalog_sync_stands_in_both_languages(qtbot):
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.errors import Fault, SyncError

    save_config(load_config())
    with started_kiosk(qtbot) as kiosk:
        kiosk.staff.enter()
        page = kiosk.staff.staff_page.findChild(DiagnosticsPage)
        i18n.install_language("en")
        page.refresh()
        assert page.values["sync"].text().startswith("Not enrolled with HQ")
        conn = kiosk.services.engine.connection()
        state.save_enrollment(conn, "https://hq.example.com", "st_x", "k_x", "all", "secret-token-value")
        state.record_failure(conn, SyncError(Fault.OFFLINE, "network_unreachable", "no route"))
        page.refresh()
        assert page.values["sync"].text().startswith("Offline since 20")
        assert "0 download(s), 0 upload(s) pending" in page.values["sync"].text()
        i18n.install_language("zh_CN")
        page.refresh()
        assert "离线" in page.values["sync"].text() and "待下载 0 个" in page.values["sync"].text()
        qtbot.waitUntil(lambda: page.labels["sync"].text() == "款式同步（总部）", timeout=5000)
        state.record_success(conn)
        page.refresh()
        assert page.values["sync"].text().startswith("正常，上次同步 20")
        assert "secret-token-value" not in page.values["sync"].text()
        i18n.install_language("en")
