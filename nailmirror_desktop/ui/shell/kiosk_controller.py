"""Connects the kiosk's widgets to each other and to the services (thin: each handler is a few lines).

The window shows; the controller decides what happens on a tap, a source change, an idle timeout or a
language switch.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets
from nailmirror_desktop.core.generation.flow import submit_generation
from nailmirror_desktop.core.generation.provider_config import ConfigError
from nailmirror_desktop.core.tasks import TaskError
from nailmirror_desktop.ui.generation.generate_panel import GeneratePanel
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.main_window import CUSTOMER, SNAPSHOT, STAFF, MainWindow, placeholder
from nailmirror_desktop.ui.shell.messages import generation_error_text
from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage
from nailmirror_desktop.ui.staff.diagnostics_page import DiagnosticsPage
from nailmirror_desktop.ui.staff.pin_dialog import PinDialog
from nailmirror_desktop.ui.staff.review_page import ReviewPage
from nailmirror_desktop.ui.staff.settings_page import SettingsPage
from nailmirror_desktop.ui.staff.staff_page import StaffPage
from nailmirror_desktop.ui.staff.task_monitor import TaskMonitorPage
from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
from nailmirror_desktop.ui.tryon.snapshot import IdleWatcher, SnapshotPage, purge_expired_snapshots, save_snapshot
from nailmirror_desktop.ui.tryon.style_browser import StyleBrowser
from nailmirror_desktop.ui.tryon.tryon_session import load_style_textures
from nailmirror_desktop.vision.supervisor import DEMO

log = logging.getLogger(__name__)


class KioskController(QObject):
    session_did_reset = Signal()
    def __init__(self, services, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.window = MainWindow()
        self.mirror_loop = MirrorLoop(
            self.window.mirror, services.supervisor, services.session.process, services.run_in_background, parent=self
        )
        self.mirror_loop.source_state_changed.connect(self._on_source_state_change)
        self.style_browser = self._build_style_browser()
        self.generate_panel = self._build_generate_panel()
        self.window.set_side_panels(self.style_browser or placeholder(""), self.generate_panel)
        self._generation_task: str | None = None
        self.snapshot_page = SnapshotPage()
        self.snapshot_page.back_requested.connect(self.back_to_mirror)
        self.window.set_page_widget(SNAPSHOT, self.snapshot_page)
        self.window.snapshot_requested.connect(self.take_snapshot)
        self.window.language_toggle_requested.connect(self.toggle_language)
        self.idle = IdleWatcher(services.config.idle_timeout_s * 1000, self)
        self.idle.idle.connect(self.reset_session)
        self.window.staff_requested.connect(self.ask_for_staff_pin)
        self.staff_page: StaffPage | None = None
        self.review_page: ReviewPage | None = None
        self.task_monitor: TaskMonitorPage | None = None
        self.settings_page: SettingsPage | None = None
        self._shut_down = False

    def _build_style_browser(self):
        if self.services.repository is None:
            return None
        browser = StyleBrowser(self.services.repository)
        browser.style_chosen.connect(self.apply_style)
        browser.accent_changed.connect(self._on_accent_change)
        return browser

    def _build_generate_panel(self) -> GeneratePanel:
        panel = GeneratePanel()
        panel.generate_requested.connect(self.generate)
        panel.try_on_requested.connect(self.apply_style)
        executor = self.services.executor
        if executor is not None:
            executor.task_changed.connect(self._on_task_change)
            executor.task_progress.connect(self._on_task_progress)
        return panel

    def start(self) -> None:
        self.idle.start(QCoreApplication.instance())
        if self.services.executor is not None:
            self.services.executor.start()
        self.mirror_loop.start()
        if self.services.load_catalog is not None:
            self.services.run_in_background(self.services.load_catalog, self._on_catalog_loaded)
        self._purge_expired_snapshots()
        # Everything built so far (models, Qt objects, modules) lives as long as the kiosk: freeze it out of the
        # garbage collector's reach. Otherwise a full collection walks all of it — 62 ms measured on a pool thread,
        # holding the GIL, so the mirror's event loop stalled 78 ms (the budget is one frame).
        gc.freeze()

    # --- try-on -------------------------------------------------------------------------------------------
    def apply_style(self, code: str) -> bool:
        """Put a style on the customer's nails; the next frame the pipeline starts is painted with it."""
        try:
            loaded = self.services.session.cached(code) or self._load_style(code)
        except Exception as exc:
            self._on_style_unusable(code, exc)
            return False
        self._show_style(loaded)
        return True

    def apply_style_in_background(self, code: str, done: Callable[[bool], None]) -> None:
        """apply_style with the textures decoded on a worker (a new style is not cached yet): the asset lookup
        stays on this thread with its database connection; `done(applied)` is called back on this thread."""
        cached = self.services.session.cached(code)
        if cached is not None:
            self._show_style(cached)
            done(True)
            return
        try:
            assets = try_on_assets(self.services.repository, code)
        except Exception as exc:
            self._on_style_unusable(code, exc)
            done(False)
            return

        def decoded(loaded, error) -> None:
            if self._shut_down:
                return  # a worker's answer that arrived after the services closed
            if error is not None:
                self._on_style_unusable(code, error)
                done(False)
                return
            self._show_style(loaded)
            done(True)

        self.services.run_in_background(
            lambda: load_style_textures(assets.style_code, assets.name, assets.textures, assets.accent_fingers),
            decoded,
        )

    def _on_style_unusable(self, code: str, error: BaseException) -> None:
        log.warning("style %s cannot be tried on: %s", code, error)
        self.window.mirror.set_banner(self.tr("This style can't be tried on right now."))

    def _show_style(self, loaded) -> None:
        session = self.services.session
        session.apply(loaded)
        self.window.mirror.set_banner("")
        self.window.mirror.set_style(loaded.code, loaded.name)
        if self.style_browser is not None:
            self.style_browser.show_current(loaded.code)
            self.style_browser.set_accent_options(loaded.accent is not None, session.accent_fingers)

    def _load_style(self, code: str):
        assets = try_on_assets(self.services.repository, code)
        return load_style_textures(assets.style_code, assets.name, assets.textures, assets.accent_fingers)

    def _on_accent_change(self, fingers) -> None:
        self.services.session.set_accent_fingers(fingers)

    # --- snapshots, idle reset, language -----------------------------------------------------------------
    def take_snapshot(self) -> bool:
        """Freeze the newest before/after pair on the snapshot page and save it (on a worker)."""
        pair = self.services.session.latest_pair()
        if pair is None:
            return False
        style = self.services.session.style
        code = style.code if style is not None else ""
        self.mirror_loop.set_paused(True)
        self.snapshot_page.show_pair(bgr_to_qimage(pair.before), bgr_to_qimage(pair.after), code)
        self.window.show_page(SNAPSHOT)
        self.services.run_in_background(lambda: save_snapshot(pair.before, pair.after, code), self._on_snapshot_saved)
        return True

    def _purge_expired_snapshots(self) -> None:
        """Customers' photos older than the salon's setting go (on a worker): at start-up and after every session."""
        keep_days = self.services.config.snapshot_keep_days
        self.services.run_in_background(lambda: purge_expired_snapshots(keep_days), self._on_snapshots_purged)

    def _on_snapshots_purged(self, deleted, error) -> None:
        if error is not None:
            log.error("expired snapshots not deleted: %s", error)

    def _on_snapshot_saved(self, path, error) -> None:
        if self._shut_down:
            return  # a worker's answer that arrived after the services closed
        if error is not None:
            log.error("snapshot not saved: %s", error)
        self.snapshot_page.show_saved(None if error else path)
        self.last_snapshot = path

    def back_to_mirror(self) -> None:
        self.snapshot_page.clear()
        self.window.show_page(CUSTOMER)
        self.mirror_loop.set_paused(False)

    def reset_session(self) -> None:
        """The customer walked away: no style, no text, no images of them on screen or in memory."""
        log.info("idle: session reset")
        self.services.session.clear()
        self.snapshot_page.clear()
        self.generate_panel.clear()
        self._generation_task = None
        self.window.mirror.clear_frame()
        self.window.mirror.set_style("", "")
        if self.style_browser is not None:
            self.style_browser.reset_filters()
            self.style_browser.show_current("")
        self.leave_staff_mode()
        self.window.show_page(CUSTOMER)
        self.mirror_loop.set_paused(False)
        if i18n.current_language() != self.services.config.language:
            i18n.install_language(self.services.config.language)
        self._put_on_a_first_style()
        self._purge_expired_snapshots()
        self.session_did_reset.emit()

    def toggle_language(self) -> None:
        """For this customer only; the idle reset returns to the configured language."""
        i18n.install_language("en" if i18n.current_language() != "en" else "zh_CN")

    # --- staff mode ---------------------------------------------------------------------------------------
    def ask_for_staff_pin(self) -> None:
        dialog = PinDialog(self.services.config, self.window)
        if dialog.exec() == PinDialog.DialogCode.Accepted:
            self.enter_staff_mode()

    def enter_staff_mode(self) -> None:
        """Only after the PIN: the customer has no other way to reach these pages."""
        if self.staff_page is None:
            self.staff_page = self._build_staff_page()
            self.window.set_page_widget(STAFF, self.staff_page)
        if self.review_page is not None:
            self.review_page.reload()
        if self.task_monitor is not None:
            self.task_monitor.reload()
        self.window.show_page(STAFF)

    def leave_staff_mode(self) -> None:
        if self.window.current_page() == STAFF:
            self.window.show_page(CUSTOMER)
            if self.style_browser is not None:
                self.style_browser.reload()

    def _build_staff_page(self) -> StaffPage:
        pages = []
        services = self.services
        if services.repository is not None:
            self.review_page = ReviewPage(services.repository)
            self.review_page.catalog_changed.connect(self._on_catalog_change)
            self.review_page.import_requested.connect(self.import_style_folder)
            pages.append(("review", self.review_page))
        if services.engine is not None:
            self.task_monitor = TaskMonitorPage(services.engine, services.executor)
            pages.append(("tasks", self.task_monitor))
        self.settings_page = SettingsPage(services.config)
        self.settings_page.config_saved.connect(self._on_config_saved)
        pages.append(("settings", self.settings_page))
        pages.append(("diagnostics", DiagnosticsPage(self.mirror_loop, services.supervisor, services.engine)))
        page = StaffPage(pages)
        page.leave_requested.connect(self.leave_staff_mode)
        page.quit_requested.connect(self._on_quit_request)
        return page

    def import_style_folder(self, folder: str) -> None:
        self.services.run_in_background(lambda: self.services.import_style_folder(folder), self._on_style_imported)

    def _on_style_imported(self, code, error) -> None:
        if self._shut_down:
            return  # a worker's answer that arrived after the services closed
        if self.review_page is not None:
            self.review_page.show_import_result(code, None if error is None else getattr(error, "code", str(error)))

    def _on_catalog_change(self) -> None:
        if self.style_browser is not None:
            self.style_browser.reload()

    def _on_config_saved(self, config) -> None:
        self.services.config = config
        self.idle.set_timeout_ms(config.idle_timeout_s * 1000)
        i18n.install_language(config.language)

    def _on_quit_request(self) -> None:
        self.shutdown()
        QCoreApplication.instance().quit()

    # --- AI generation ----------------------------------------------------------------------------------
    def generate(self, text: str) -> str | None:
        """Queue a STYLE_GENERATION task at once (one small insert) and follow it through task signals."""
        panel = self.generate_panel
        if self.services.engine is None:
            panel.show_error(generation_error_text("CONFIG", "CONFIG"))
            return None
        try:
            task = submit_generation(self.services.engine, text, self.services.provider)
        except TaskError as exc:
            panel.show_error(generation_error_text(exc.code, exc.error_class.value))
            return None
        except ConfigError as exc:
            panel.show_error(generation_error_text(exc.code, "CONFIG"))
            return None
        self._generation_task = task.task_no
        panel.show_working(0.05, self.tr("Sent! Designing your nails…"))
        return task.task_no

    def _on_task_change(self, task_no: str, status: str) -> None:
        if self._shut_down:
            return  # a worker's answer that arrived after the services closed
        if task_no != self._generation_task:
            return
        panel = self.generate_panel
        if status == "SUCCESS":
            task = self.services.engine.get(task_no)
            code = (task.result or {}).get("style_code", "")
            self._generation_task = None
            if not code:
                panel.show_error(generation_error_text(None))
                return

            def applied(ok: bool) -> None:
                if ok:
                    panel.show_result(code)
                else:
                    panel.show_error(generation_error_text(None))

            self.apply_style_in_background(code, applied)
        elif status == "DEAD" or status == "CANCELED":
            task = self.services.engine.get(task_no)
            panel.show_error(generation_error_text(task.last_error_code, task.last_error_class))
            self._generation_task = None
        elif status == "FAILED":
            task = self.services.engine.get(task_no)
            panel.show_working(0.1, generation_error_text(task.last_error_code, task.last_error_class) + "\n"
                               + self.tr("Trying again…"))
        elif status == "PROCESSING":
            panel.show_working(0.15, self.tr("Designing your nails…"))

    def _on_task_progress(self, task_no: str, fraction: float, note: str) -> None:
        if self._shut_down:
            return  # a worker's answer that arrived after the services closed
        if task_no == self._generation_task:
            self.generate_panel.show_working(fraction, self.tr("Designing your nails…"))

    def _on_catalog_loaded(self, _report, error) -> None:
        if self._shut_down:
            return  # a worker's answer that arrived after the services closed
        if error is not None:
            log.error("starter catalog could not be loaded: %s", error)
        if self.style_browser is not None:
            self.style_browser.reload()
            self._put_on_a_first_style()

    def _put_on_a_first_style(self) -> None:
        """The mirror opens with the catalog's newest style on, so a passer-by sees what it does at once."""
        if self.services.session.style is None and self.style_browser is not None:
            code = self.style_browser.first_code()
            if code:
                self.apply_style(code)

    def shutdown(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        self.idle.stop(QCoreApplication.instance())
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
        self.window.set_demo_badge(state == DEMO)
        log.info("frame source: %s", state)
