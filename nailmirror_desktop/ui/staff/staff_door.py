"""The staff door: the PIN, and behind it the staff pages (review, tasks, settings, diagnostics).

There is no default PIN: until one is set on the kiosk PC (`nailmirror staff set-pin`), tapping ⋯ says so in a
panel over the mirror (no_pin_panel.py) and opens nothing, so a customer who taps it first cannot set one. The
pages are built on the first entry. What staff change that the customer screen must follow is told through the
door's signals; the shell connects them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from nailmirror_desktop.core.config import KioskConfig
from nailmirror_desktop.core.credits import CreditHooks
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION
from nailmirror_desktop.core.staff_pin import StaffPin
from nailmirror_desktop.core.sync import state as sync_state
from nailmirror_desktop.core.sync.tasks import submit_cycle
from nailmirror_desktop.ui.services import KioskServices
from nailmirror_desktop.ui.shell.main_window import CUSTOMER, STAFF, MainWindow
from nailmirror_desktop.ui.staff.camera_preview import PreviewFeeds
from nailmirror_desktop.ui.staff.captures_page import CapturesPage
from nailmirror_desktop.ui.staff.credits_page import CreditsPage
from nailmirror_desktop.ui.staff.diagnostics_page import DiagnosticsPage
from nailmirror_desktop.ui.staff.folder_chooser import import_failure_text
from nailmirror_desktop.ui.staff.no_pin_panel import NoPinPanel
from nailmirror_desktop.ui.staff.pin_dialog import PinDialog
from nailmirror_desktop.ui.staff.requests_page import RequestsPage
from nailmirror_desktop.ui.staff.review_page import ReviewPage
from nailmirror_desktop.ui.staff.settings_page import SettingsPage
from nailmirror_desktop.ui.staff.snapshot_gallery import SnapshotGallery
from nailmirror_desktop.ui.staff.staff_page import StaffPage
from nailmirror_desktop.ui.staff.task_monitor import TaskMonitorPage
from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
from nailmirror_desktop.ui.tryon.snapshot import snapshots_dir


class StaffDoor(QObject):
    catalog_did_change = Signal()  # a style was published, taken off the shelf, … or staff left the pages
    config_did_save = Signal(object)  # KioskConfig
    quit_was_requested = Signal()
    restart_was_requested = Signal()  # a saved setting is read only at start: staff asked to restart now
    snapshots_deleted = Signal(list)  # list[Path]: snapshot files staff deleted (a share link to one must stop)

    def __init__(self, window: MainWindow, services: KioskServices, mirror_loop: MirrorLoop,
                 config: Callable[[], KioskConfig], parent: QObject | None = None, *,
                 staff_pin: StaffPin | None = None, last_snapshot: Callable[[], Path | None] = lambda: None) -> None:
        super().__init__(parent)
        self._staff_pin = staff_pin or StaffPin()
        self.pin_dialog: PinDialog | None = None
        self.no_pin_notice: NoPinPanel | None = None
        self._window = window
        self._services = services
        self._mirror_loop = mirror_loop
        self._config = config
        self._last_snapshot = last_snapshot  # staff's own hands are captured from the last snapshot
        self.captures_page: CapturesPage | None = None
        self.staff_page: StaffPage | None = None
        self.review_page: ReviewPage | None = None
        self.task_monitor: TaskMonitorPage | None = None
        self.settings_page: SettingsPage | None = None
        self.credits_page: CreditsPage | None = None
        self.snapshot_gallery: SnapshotGallery | None = None
        self.requests_page: RequestsPage | None = None
        window.staff_requested.connect(self.ask_for_pin)

    def ask_for_pin(self) -> None:
        """The ⋯ button: the keypad, or, with no PIN set yet, a notice saying how staff set one (not here)."""
        if not self._staff_pin.is_set():
            self._show_no_pin_notice()
            return
        dialog = PinDialog(self._staff_pin, self._window)
        dialog.accepted.connect(self.enter)
        dialog.finished.connect(self._on_pin_dialog_finished)
        self.pin_dialog = dialog
        dialog.open()

    def _on_pin_dialog_finished(self) -> None:
        if self.pin_dialog is not None:
            self.pin_dialog.deleteLater()
            self.pin_dialog = None

    def _show_no_pin_notice(self) -> None:
        if self.no_pin_notice is None:
            self.no_pin_notice = NoPinPanel(self._window)
        self.no_pin_notice.open()

    def enter(self) -> None:
        """Only after the PIN: the customer has no other way to reach these pages."""
        if self.staff_page is None:
            self.staff_page = self._build_staff_page()
            self._window.set_page_widget(STAFF, self.staff_page)
        else:  # a sync since the pages were built may have set or changed the store's zone
            self.adopt_store_time_zone()
        if self.review_page is not None:
            self.review_page.reload()
        if self.task_monitor is not None:
            self.task_monitor.reload()
        self._window.show_page(STAFF)

    def reload_requests(self) -> None:
        """A customer made a request: the list shows it (if staff have opened the pages once)."""
        if self.requests_page is not None:
            self.requests_page.reload()

    def stop(self) -> None:
        """Before the kiosk closes its database: the review page's list stops reading it."""
        if self.review_page is not None:
            self.review_page.model.detach()

    def leave(self) -> None:
        """Back to the customer page (idle reset); a PIN keypad or the no-PIN notice left open closes (the keypad
        with what was typed on it)."""
        if self.pin_dialog is not None:
            self.pin_dialog.reject()
        if self.no_pin_notice is not None:
            self.no_pin_notice.close_panel()
        if self._window.current_page() == STAFF:
            self._window.show_page(CUSTOMER)
            self.catalog_did_change.emit()

    def import_style_folder(self, folder: str) -> None:
        """Import a style folder as a new draft, on a worker; the review page shows the outcome."""
        import_folder = self._services.import_style_folder
        if import_folder is None:
            self._on_style_imported(None, LookupError("NO_CATALOG"))
            return
        self._services.run_in_background(lambda: import_folder(folder), self._on_style_imported)

    def import_style_folders(self, folders: list[str]) -> None:
        """Import the chosen style folders one after another, each on a worker (through the bridge): the review
        page shows which one is under way, then one line for the lot and one per failure."""
        import_folder = self._services.import_style_folder
        queue = list(folders)
        results: list[tuple[str, str | None, str | None]] = []

        def next_one() -> None:
            page = self.review_page
            if not queue:
                if page is not None:
                    page.show_import_results(results)
                return
            folder = queue.pop(0)
            if page is not None:
                page.show_import_progress(len(results), len(results) + len(queue) + 1, folder)
            if import_folder is None:
                done(folder, None, LookupError("NO_CATALOG"))
                return
            self._services.run_in_background(lambda: import_folder(folder),
                                             lambda code, error: done(folder, code, error))

        def done(folder: str, code: str | None, error: BaseException | None) -> None:
            results.append((folder, code, None if error is None else import_failure_text(folder, error)))
            next_one()

        next_one()

    def _build_staff_page(self) -> StaffPage:
        services = self._services
        pages: list[tuple[str, QWidget]] = []
        if services.handoffs is not None:  # first: what the nail artist comes in for most
            self.requests_page = RequestsPage(services.handoffs, services.run_in_background,
                                              lambda: self._config().store_time_zone)
            pages.append(("requests", self.requests_page))
        if services.repository is not None:
            self.review_page = ReviewPage(services.repository, currency_code=self._config().currency,
                                          time_zone=self._config().store_time_zone)
            self.review_page.catalog_changed.connect(self.catalog_did_change)
            self.review_page.import_requested.connect(self.import_style_folder)
            self.review_page.import_folders_requested.connect(self.import_style_folders)
            pages.append(("review", self.review_page))
        if services.engine is not None:
            self.task_monitor = TaskMonitorPage(services.engine, services.executor)
            pages.append(("tasks", self.task_monitor))
            self.credits_page = CreditsPage(services.engine)
            self.credits_page.config_saved.connect(self.config_did_save)
            pages.append(("credits", self.credits_page))
        if services.withdraw_capture is not None:
            self.captures_page = CapturesPage(services.run_in_background, services.withdraw_capture,
                                              sync_now=self._sync_now if services.engine is not None else None,
                                              staff_consent=services.staff_consent,
                                              take_staff_capture=services.take_staff_capture,
                                              last_snapshot=self._last_snapshot)
            pages.append(("captures", self.captures_page))
        self.snapshot_gallery = SnapshotGallery(snapshots_dir, services.run_in_background,
                                                style_names=self._style_names,
                                                time_zone=self._config().store_time_zone)
        self.snapshot_gallery.snapshots_deleted.connect(self.snapshots_deleted)
        pages.append(("snapshots", self.snapshot_gallery))
        # The preview shares the mirror's camera, or pauses the mirror while it holds another (camera_preview.py).
        feeds = PreviewFeeds(services.run_in_background, supervisor=services.supervisor,
                             pause_mirror=self._mirror_loop.set_paused)
        self.settings_page = SettingsPage(self._config(), self._staff_pin, running=services.config,
                                          camera_feeds=feeds, hq_time_zone=self._hq_time_zone())
        self.settings_page.config_saved.connect(self.config_did_save)
        if self.review_page is not None:  # prices in the store's currency, as soon as it is saved
            review_page = self.review_page
            self.settings_page.config_saved.connect(lambda config: review_page.set_currency(config.currency))
            self.settings_page.config_saved.connect(lambda config: review_page.set_time_zone(config.store_time_zone))
        if self.credits_page is not None:  # the time zone and prices take effect for the next generation
            self.settings_page.config_saved.connect(self.credits_page.apply_config)
        self.settings_page.restart_requested.connect(self.restart_was_requested)
        pages.append(("settings", self.settings_page))
        models = services.models
        pages.append(("diagnostics", DiagnosticsPage(self._mirror_loop, services.supervisor, services.engine,
                                                     model_status=models.status if models is not None else None)))
        page = StaffPage(pages)
        page.leave_requested.connect(self.leave)
        page.quit_requested.connect(self.quit_was_requested)
        return page

    def adopt_store_time_zone(self) -> None:
        """The store's zone HQ set, as the last sync recorded it (and wrote into config.json), becomes the running
        kiosk's: the hand-off day, the pages' local times, the daily cap's day. The controller calls this between
        customers (the idle reset), and staff opening the pages does; settings show it read-only while enrolled."""
        zone = self._hq_time_zone()
        if self.settings_page is not None:
            self.settings_page.set_hq_time_zone(zone)
        config = self._config()
        if zone is None or zone == config.store_time_zone:
            return
        adopted = config.with_changes(store_time_zone=zone)
        if self.credits_page is not None:
            self.credits_page.apply_config(adopted)
        elif self._services.engine is not None:  # the pages not built yet: the running hooks all the same
            hooks = self._services.engine.hooks_for(STYLE_GENERATION)
            if isinstance(hooks, CreditHooks):
                hooks.policy = replace(hooks.policy, time_zone=zone)
        if self.review_page is not None:
            self.review_page.set_time_zone(zone)
        self.config_did_save.emit(adopted)
    def _sync_now(self) -> None:
        """An enrolled kiosk syncs at once (a withdrawal reaches HQ now when online); else nothing to do."""
        engine = self._services.engine
        if engine is not None and sync_state.load(engine.connection()) is not None:
            submit_cycle(engine, spread=False)

    def _hq_time_zone(self) -> str | None:
        """The store's zone as HQ recorded it for an enrolled kiosk (read-only in settings), else None."""
        engine = self._services.engine
        return None if engine is None else sync_state.store_time_zone(engine.connection())

    def _style_names(self, code: str) -> tuple[str, str] | None:
        repository = self._services.repository
        if repository is None:
            return None
        try:
            style = repository.get_by_code(code)
        except Exception:  # noqa: BLE001 - a deleted or unknown style: the gallery shows its code
            return None
        return style.name, style.name_en

    def _on_style_imported(self, code: str | None, error: BaseException | None) -> None:
        if self.review_page is not None:
            self.review_page.show_import_result(code, None if error is None else getattr(error, "code", str(error)))
