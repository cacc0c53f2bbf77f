"""The kiosk's shell: builds the window and the four flows, and connects them (one door, small rooms).

- `tryon` (TryOnController): the mirror, the style choice and accent, the before/after snapshot;
- `generation` (GenerationController): the customer's prompt, the task's progress, the new style tried on;
- `share` (ShareController): the snapshot's "take it home", its one-time link and the style card;
- `staff` (StaffDoor): the PIN and the staff pages.

The shell itself owns what spans them: start and shutdown, the idle reset when the customer walks away, the
language, and the configuration staff may change while the kiosk runs.

The idle reset runs its steps one by one (ui/shell/forget.py): a step that fails is logged with its traceback
and the others still run, and the last one puts the customer page on screen, so the kiosk always ends on a fresh
start for the next customer (the store's language, the first catalog style, no photo, no link).
"""

from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from nailmirror_desktop.core.config import KioskConfig
from nailmirror_desktop.core.model_releases.switch import ModelSwitcher
from nailmirror_desktop.ui.generation.generation_controller import GenerationController
from nailmirror_desktop.ui.services import KioskServices
from nailmirror_desktop.ui.share.share_controller import ShareController
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.forget import forget_each
from nailmirror_desktop.ui.shell.main_window import MainWindow, placeholder
from nailmirror_desktop.ui.staff.staff_door import StaffDoor
from nailmirror_desktop.ui.tryon.capture_consent import CaptureConsentController
from nailmirror_desktop.ui.tryon.handoff import HandoffController
from nailmirror_desktop.ui.tryon.health_recorder import HealthRecorder
from nailmirror_desktop.ui.tryon.snapshot import IdleWatcher
from nailmirror_desktop.ui.tryon.style_browser import display_name
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController

log = logging.getLogger(__name__)
GIL_SWITCH_INTERVAL_S = 0.0005  # see start()


class KioskController(QObject):
    session_did_reset = Signal()

    def __init__(self, services: KioskServices, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.config = services.config
        self.window = MainWindow()
        self.tryon = TryOnController(self.window, services.session, services.supervisor, services.repository,
                                     services.run_in_background, parent=self, executor=services.executor)
        self.tryon.currency = self.config.currency
        self.generation = GenerationController(services.engine, services.executor, services.provider,
                                               self.tryon.apply_style_in_background, parent=self,
                                               describe=self.tryon.style_card)
        self.generation.panel.try_on_requested.connect(self.tryon.apply_style)
        self.window.set_side_panels(self.tryon.style_browser or placeholder(""), self.generation.panel)
        # "send to my phone" while staff have sharing on (switched without a restart), the style card always
        self.share = ShareController(self.window, self.tryon.snapshot_page, services.share,
                                     lambda: self.tryon.last_snapshot, self._style_on_show, parent=self,
                                     sharing=self.config.share_to_phone, hands_box=lambda: self.tryon.last_hands_box,
                                     style_picture=self.tryon.style_picture, store_name=self.config.store_name,
                                     nail_form=self.tryon.snapshot_form_words)
        # "I want this one": her choice on the staff pages, its number on her screen
        self.handoff = HandoffController(self.tryon, self.window.mirror, services.handoffs,
                                         services.run_in_background, lambda: self.config.store_time_zone, parent=self)
        # "Help us improve the mirror": a consented copy of her hands, its code on her screen (issue #26)
        self.capture = CaptureConsentController(self.tryon, services.take_capture, services.drop_capture,
                                                services.run_in_background, parent=self)
        self.staff = StaffDoor(self.window, services, self.tryon.mirror_loop, lambda: self.config, parent=self,
                               last_snapshot=lambda: self.tryon.last_snapshot)
        self.staff.snapshots_deleted.connect(self.share.forget_snapshots)
        self.handoff.request_did_create.connect(lambda _number: self.staff.reload_requests())
        self.staff.catalog_did_change.connect(self.tryon.reload_catalog)
        self.staff.config_did_save.connect(self._on_config_saved)
        self.staff.quit_was_requested.connect(self._on_quit_request)
        self.window.language_toggle_requested.connect(self.toggle_language)
        self.health = _health_recorder(services, self.tryon, self)
        self.idle = IdleWatcher(self.config.idle_timeout_s * 1000, self)
        self.idle.idle.connect(self.reset_session)
        self._shut_down = False
        self._switch_interval_before: float | None = None  # set by start()

    def start(self) -> None:
        self.idle.start(_app())
        for models in self._model_switchers():  # the release that ran before a restart, or one waiting, loads now
            models.prepare()
        self.generation.start()
        self.tryon.start()
        if self.health is not None:
            self.health.start()
        if self.services.load_catalog is not None:
            self.tryon.load_catalog(self.services.load_catalog)
        self.tryon.purge_expired_snapshots(self.config.snapshot_keep_days)
        self._purge_handoffs()
        # Everything built so far (models, Qt objects, modules) lives as long as the kiosk: freeze it out of the
        # garbage collector's reach. Otherwise a full collection walks all of it — 62 ms measured on a pool thread,
        # holding the GIL, so the mirror's event loop stalled 78 ms (the budget is one frame).
        gc.freeze()
        # The mirror's two stages run on two threads (ui/tryon/mirror_loop.py): each time the track stage comes
        # back from MediaPipe (which releases the GIL) it waits for the GIL behind the paint stage's Python, up
        # to a whole switch interval, 5 ms by default. At 0.5 ms the track stage's median on the demo with two
        # hands stayed 16.6 ms instead of 19–28 ms, and two stages showed 28.3–28.8 FPS against 16.7–27.7
        # (benchmarks/overlap.py --switch-ms, load 13–16); the GUI thread waits less for the GIL too.
        self._switch_interval_before = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)

    def shutdown(self) -> None:
        """Stop the flows and close the services; answers still on their way are dropped by the bridge."""
        if self._shut_down:
            return
        self._shut_down = True
        if self._switch_interval_before is not None:  # the interpreter's own again (tests run kiosks in-process)
            sys.setswitchinterval(self._switch_interval_before)
        self.idle.stop(_app())
        self.tryon.stop()
        if self.health is not None:
            self.health.stop()
        self.staff.stop()
        self.window.allow_close = True
        self.services.close()

    def reset_session(self) -> None:
        """The customer walked away: no link to their photo, no style, text, favourites or images of them on
        screen or in memory; the store's language and the customer page. Each step on its own: one that fails
        is logged (with its traceback) and the rest still run."""
        log.info("idle: session reset")
        failed = forget_each("idle reset", [
            ("share links", self.share.forget_customer),  # first: a link must not outlive the customer
            ("try-on", self.tryon.forget_customer),
            ("hand-off number", self.handoff.forget_customer),
            ("capture offer and code", self.capture.forget_customer),
            ("AI design", self.generation.forget_customer),
            ("staff pages", self.staff.leave),
            ("language", self._back_to_store_language),
            ("first style", self.tryon.put_on_a_first_style),
            ("expired snapshots", lambda: self.tryon.purge_expired_snapshots(self.config.snapshot_keep_days)),
            ("done hand-off requests", self.handoff.purge),
            ("store time zone", self.staff.adopt_store_time_zone),  # HQ's, if a sync changed it meanwhile
            ("nail model", self._models_at_idle),  # no customer now: a new model may take over between frames
            ("start screen", self.window.show_start),  # last: nothing after it changes pages
        ])
        if failed:
            log.error("idle: session reset with failed steps: %s", ", ".join(failed))
        self.session_did_reset.emit()

    def _model_switchers(self) -> list[ModelSwitcher]:
        return [m for m in (self.services.models, self.services.still_models) if m is not None]

    def _models_at_idle(self) -> None:
        for models in self._model_switchers():
            models.at_idle()

    def _purge_handoffs(self) -> None:
        try:
            self.handoff.purge()
        except Exception:  # a failed purge is for staff's log; the kiosk starts all the same
            log.exception("hand-off requests not purged")

    def _back_to_store_language(self) -> None:
        if i18n.current_language() != self.config.language:
            i18n.install_language(self.config.language)

    def _style_on_show(self) -> tuple[str, str, str | None] | None:
        """(name in the language on screen, code, price as shown or None) of the style on the customer's nails,
        for the style card."""
        style = self.tryon.session.style
        if style is None:
            return None
        return display_name(style.name, style.name_en), style.code, self.tryon.style_price_text(style.code)

    def make_room_for_keyboard(self, up: bool) -> None:
        """The on-screen keyboard came (`up`) or went: the side panels fold what typing does not need, so the
        style grid keeps rows of tiles and the AI card is not squeezed over its own picture."""
        if self.tryon.style_browser is not None:
            self.tryon.style_browser.set_keyboard_up(up)
        self.generation.panel.set_keyboard_up(up)

    def toggle_language(self) -> None:
        """For this customer only; the idle reset returns to the configured language."""
        i18n.install_language("en" if i18n.current_language() != "en" else "zh_CN")

    def save_screenshot(self, path: Path) -> bool:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        saved = self.window.grab().save(str(path))
        log.info("screenshot %s: %s", path, saved)
        return bool(saved)

    def _on_config_saved(self, config: KioskConfig) -> None:
        self.config = config
        self.tryon.currency = config.currency
        self.idle.set_timeout_ms(config.idle_timeout_s * 1000)
        self.share.set_sharing(config.share_to_phone)
        self.share.store_name = config.store_name
        i18n.install_language(config.language)

    def _on_quit_request(self) -> None:
        self.shutdown()
        _app().quit()


def _app() -> QCoreApplication:
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("the kiosk needs its QApplication")
    return app


def _health_recorder(services: KioskServices, tryon: TryOnController, parent: QObject) -> HealthRecorder | None:
    """The camera's state and the mirror's FPS into the database for the sync report (none without an engine)."""
    engine = services.engine
    if engine is None:
        return None
    from nailmirror_desktop.core.sync.fleet import record_health

    return HealthRecorder(lambda: services.supervisor.state, tryon.mirror_loop.fps,
                          lambda state, fps: record_health(engine.connection(), state, fps),
                          services.run_in_background, parent)
