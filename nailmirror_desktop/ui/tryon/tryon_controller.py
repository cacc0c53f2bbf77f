"""The try-on flow (ARCHITECTURE.md §3): the mirror loop, the style browser and its accent picker, and the
before/after snapshot. Thin: each handler is a few lines; the session holds the state, the widgets show it.

Work goes through the runner the shell hands in (the bridge); an answer that comes back after the kiosk shut
down is dropped there, so nothing here checks for it.

A snapshot shows and saves the live pair at once; with a task executor it then queues an EFFECT_PREVIEW task
(core/tryon/effect_preview.py) that renders the frozen frame again by the still path over the saved "after". The
page shows its progress and swaps the render in when it is done; a failure keeps the live image and logs a line.

Answers from workers carry the customer they were asked for (`_customer`, a number the idle reset moves on): one
that comes back after the reset (a style decoded, a snapshot saved) is dropped, so nothing of the last customer
reaches the next one's mirror, snapshot page or "send to my phone".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.price import DEFAULT_CURRENCY, format_price
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets
from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.core.nail_form import NATURAL, NailForm
from nailmirror_desktop.core.paths import DataDirUnusable
from nailmirror_desktop.core.tasks import TaskStatus
from nailmirror_desktop.core.tryon.effect_preview import (
    BIZ_TYPE,
    EFFECT_PREVIEW,
    MAX_ATTEMPTS,
    PreviewRequest,
    PreviewResult,
    remove_frame,
)
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.generation.generate_panel import StyleCard
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.forget import forget_each
from nailmirror_desktop.ui.shell.main_window import COMPARE, CUSTOMER, SNAPSHOT, MainWindow
from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage
from nailmirror_desktop.ui.tryon.compare_page import ComparePage
from nailmirror_desktop.ui.tryon.countdown import SnapshotCountdown
from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
from nailmirror_desktop.ui.tryon.nail_form_picker import form_words
from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage, purge_expired_snapshots, save_frozen_frame, save_snapshot
from nailmirror_desktop.ui.tryon.style_browser import LOADING, READY, UNAVAILABLE, StyleBrowser
from nailmirror_desktop.ui.tryon.tryon_session import FramePair, LoadedStyle, TryOnSession, load_style_textures
from nailmirror_desktop.vision.sources.image_io import read_image
from nailmirror_desktop.vision.sources.supervisor import DEMO, SourceSupervisor

log = logging.getLogger(__name__)
_PREVIEW_ENDS = {TaskStatus.SUCCESS.value, TaskStatus.FAILED.value, TaskStatus.DEAD.value, TaskStatus.CANCELED.value}


class TryOnController(QObject):
    """Builds the mirror loop, the style browser (when there is a catalog) and the snapshot page."""

    snapshot_taken = Signal()  # a new pair is on the snapshot page (its save under way)
    snapshot_saved = Signal(bool)  # that snapshot's save ended: saved (last_snapshot set) or not

    def __init__(self, window: MainWindow, session: TryOnSession, supervisor: SourceSupervisor,
                 repository: StyleRepository | None, run_in_background: RunInBackground,
                 parent: QObject | None = None, *, executor: TaskExecutor | None = None) -> None:
        super().__init__(parent)
        self._window = window
        self._executor = executor  # None: snapshots keep the live "after" (no task engine)
        self._preview_task: str | None = None  # the EFFECT_PREVIEW task the snapshot page follows
        if executor is not None:
            executor.task_changed.connect(self._on_preview_change)
            executor.task_progress.connect(self._on_preview_progress)
        self.session = session
        self._repository = repository
        self._run = run_in_background
        # two stages: frame N+1 is tracked while frame N is painted (ARCHITECTURE.md §3)
        self.mirror_loop = MirrorLoop(window.mirror, supervisor, session.track, run_in_background,
                                      paint_frame=session.paint, parent=self,
                                      hands_wanted=int(getattr(session.pipeline, "max_hands", 2)))
        self.mirror_loop.source_state_changed.connect(self._on_source_state_change)
        self.style_browser = self._build_style_browser(repository)
        self.snapshot_page = SnapshotPage()
        self.snapshot_page.back_requested.connect(self.back_to_mirror)
        window.set_page_widget(SNAPSHOT, self.snapshot_page)
        # the snapshot button counts 3-2-1 on the mirror first; take_snapshot() itself still saves at once
        self.countdown = SnapshotCountdown(self, ready=self._hands_in_frame)
        self.countdown.number_changed.connect(self._on_countdown_number)
        self.countdown.finished.connect(self._on_countdown_end)
        window.snapshot_requested.connect(self.request_snapshot)
        window.mirror.pressed.connect(self.countdown.cancel)
        window.staff_requested.connect(self.countdown.cancel)  # the PIN pad opens over the mirror
        window.pages.currentChanged.connect(lambda _index: self._cancel_countdown_off_the_mirror())
        self.compare_page = ComparePage()
        self.compare_page.back_requested.connect(self.back_to_mirror)
        self.compare_page.chosen.connect(self._on_compare_choice)
        window.set_page_widget(COMPARE, self.compare_page)
        # The newest snapshot's "after" file once saved; None while a new one is being saved and after the reset
        # ("send to my phone" offers only this file).
        self.last_snapshot: Path | None = None
        self.last_hands_box: tuple[int, int, int, int] | None = None  # the newest snapshot's painted hands
        self.last_nail_form: NailForm = NATURAL  # the shape and length the newest snapshot was painted with
        self._customer = 0  # moved on by the idle reset: answers asked for an earlier customer are dropped
        self._snapshot_no = 0  # moved on by each snapshot and the reset: an older snapshot's save is not offered
        self.currency = DEFAULT_CURRENCY  # the store's (KioskConfig.currency); the shell keeps it current

    def _build_style_browser(self, repository: StyleRepository | None) -> StyleBrowser | None:
        if repository is None:
            return None
        browser = StyleBrowser(repository)
        browser.style_chosen.connect(self.apply_style)
        browser.accent_changed.connect(self._on_accent_change)
        browser.nail_form_changed.connect(self.set_nail_form)
        browser.compare_requested.connect(self.compare)
        return browser

    def start(self) -> None:
        self.mirror_loop.start()

    def stop(self) -> None:
        self.mirror_loop.stop()
        if self.style_browser is not None:  # the database closes next (KioskController.shutdown)
            self.style_browser.model.detach()

    # --- styles -------------------------------------------------------------------------------------------
    def apply_style(self, code: str) -> bool:
        """Put a style on the customer's nails; the next frame the pipeline starts is painted with it."""
        try:
            loaded = self.session.cached(code) or self._load_style(code)
        except Exception as exc:
            self._on_style_unusable(code, exc)
            return False
        self._show_style(loaded)
        return True

    def apply_style_in_background(self, code: str, done: Callable[[bool], None]) -> None:
        """apply_style with the textures decoded on a worker (a new style is not cached yet): the asset lookup
        stays on this thread with its database connection; `done(applied)` is called back on this thread."""
        cached = self.session.cached(code)
        if cached is not None:
            self._show_style(cached)
            done(True)
            return
        customer = self._customer
        try:
            assets = try_on_assets(self._require_repository(), code)
            name_en = self._require_repository().get_by_code(code).name_en
        except Exception as exc:
            self._on_style_unusable(code, exc)
            done(False)
            return

        def decoded(loaded: LoadedStyle | None, error: BaseException | None) -> None:
            if customer != self._customer:
                log.info("style %s decoded after the customer left: not put on", code)
                done(False)
                return
            if error is not None or loaded is None:
                self._on_style_unusable(code, error or RuntimeError("no textures"))
                done(False)
                return
            self._show_style(loaded)
            done(True)

        self._run(lambda: load_style_textures(assets.style_code, assets.name, assets.textures,
                                              assets.accent_fingers, name_en, assets.design, assets.recommended),
                  decoded)

    def put_on_a_first_style(self) -> None:
        """The mirror opens with the catalog's newest style on (never a customer's AI design), so a passer-by
        sees what it does at once."""
        if self.session.style is None and self.style_browser is not None:
            code = self.style_browser.default_code()
            if code:
                self.apply_style(code)

    def load_catalog(self, load: Callable[[], object]) -> None:
        """Run the first-start catalog import on a worker, then show the catalog with a first style on."""
        if self.style_browser is not None:
            self.style_browser.set_catalog_state(LOADING)
        self._run(load, self._on_catalog_loaded)

    def reload_catalog(self) -> None:
        if self.style_browser is not None:
            self.style_browser.reload()
        style = self.session.style
        if style is not None:  # staff may have set or cleared its price: the overlay follows at once
            self._window.mirror.set_style(style.code, style.name, style.name_en, self.style_price(style.code))

    def _on_catalog_loaded(self, _report: object, error: BaseException | None) -> None:
        if error is not None:
            log.error("starter catalog could not be loaded: %s", error)
        if self.style_browser is not None:
            self.style_browser.set_catalog_state(UNAVAILABLE if error is not None else READY)
        self.reload_catalog()
        self.put_on_a_first_style()

    def style_card(self, code: str) -> StyleCard:
        """A style's names and preview card file, for the AI panel (read here, with this thread's connection)."""
        repository = self._require_repository()
        style = repository.get_by_code(code)
        return StyleCard(style.style_code, style.name, style.name_en, try_on_assets(repository, code).preview)

    def style_picture(self, code: str) -> Path | None:
        """A style's own picture file (its preview card), or None; read with this thread's connection."""
        return try_on_assets(self._require_repository(), code).preview

    def compare(self, first: str, second: str) -> bool:
        """Show two styles side by side (their preview cards); False when one of them cannot be read."""
        try:
            cards = self.style_card(first), self.style_card(second)
        except Exception as exc:
            self._on_style_unusable(second, exc)
            return False
        self.compare_page.show_styles(*cards)
        self._window.show_page(COMPARE)
        return True

    def _on_compare_choice(self, code: str) -> None:
        self.apply_style(code)
        self.back_to_mirror()

    def _require_repository(self) -> StyleRepository:
        if self._repository is None:
            raise LookupError("no style catalog")
        return self._repository

    def _load_style(self, code: str) -> LoadedStyle:
        repository = self._require_repository()
        assets = try_on_assets(repository, code)
        return load_style_textures(assets.style_code, assets.name, assets.textures, assets.accent_fingers,
                                   repository.get_by_code(code).name_en, assets.design, assets.recommended)

    def _on_style_unusable(self, code: str, error: BaseException) -> None:
        log.warning("style %s cannot be tried on: %s", code, error)
        self._window.mirror.set_banner(self.tr("This style can't be tried on right now."))

    def style_price(self, code: str) -> tuple[int, str] | None:
        """(minor units, currency) of the store's price of a style, or None: no price, or no such style."""
        if self._repository is None or not code:
            return None
        try:
            minor = self._repository.get_by_code(code).price_minor
        except StyleError:
            return None
        return None if minor is None else (minor, self.currency)

    def style_price_text(self, code: str) -> str | None:
        """The price as the customer reads it now (¥128), or None when the store set none."""
        price = self.style_price(code)
        return None if price is None else format_price(price[0], price[1], i18n.current_language())

    def _show_style(self, loaded: LoadedStyle) -> None:
        self.session.apply(loaded)
        self._window.mirror.set_banner("")
        self._window.mirror.set_style(loaded.code, loaded.name, loaded.name_en, self.style_price(loaded.code))
        if self.style_browser is not None:
            self.style_browser.show_current(loaded.code, loaded.name, loaded.name_en)
            self.style_browser.set_accent_options(loaded.accent is not None, self.session.accent_fingers)
            self.style_browser.nail_form_picker.set_recommended(loaded.recommended)

    def set_nail_form(self, form: NailForm) -> None:
        """The customer's shape and length, for the rest of her session (the idle reset puts natural back)."""
        self.session.set_nail_form(form)
        if self.style_browser is not None:
            self.style_browser.nail_form_picker.set_form(form)

    def snapshot_form_words(self) -> str:
        """The newest snapshot's shape and length as the take-home card names them; '' for natural nails."""
        form = self.last_nail_form
        return form_words(form) if form.extends else ""

    def _on_accent_change(self, fingers: frozenset[Finger]) -> None:
        self.session.set_accent_fingers(fingers)

    # --- snapshots ----------------------------------------------------------------------------------------
    def request_snapshot(self) -> None:
        """The snapshot button: start the 3-2-1 on the mirror, or cancel it when it is counting."""
        if self.countdown.running:
            self.countdown.cancel()
        else:
            self.countdown.start()

    def _hands_in_frame(self) -> bool:
        return self.mirror_loop.hands_tracked() >= self.mirror_loop.hands_wanted

    def _on_countdown_number(self, number: int) -> None:
        self._window.mirror.set_countdown(number)
        self._window.set_snapshot_counting(number > 0)

    def _on_countdown_end(self) -> None:
        if self._window.current_page() == CUSTOMER:  # never jump off a page the customer or staff went to
            self.take_snapshot()

    def _cancel_countdown_off_the_mirror(self) -> None:
        if self._window.current_page() != CUSTOMER:
            self.countdown.cancel()

    def take_snapshot(self) -> bool:
        """Freeze the best painted recent before/after pair on the snapshot page and save it (on a worker)."""
        pair = self.session.snapshot_pair()
        if pair is None:
            return False
        style = self.session.style
        code = style.code if style is not None else ""
        label = (style.name_en or style.name if i18n.current_language() == "en" else style.name) if style else ""
        self.mirror_loop.set_paused(True)
        self.snapshot_page.show_pair(bgr_to_qimage(pair.before), bgr_to_qimage(pair.after), label or code,
                                     pair.paint_span)
        self._window.show_page(SNAPSHOT)
        self._preview_task = None
        self.last_snapshot = None  # until this one is saved, there is no photo to send
        self.last_hands_box = pair.hands_box
        self.last_nail_form = self.session.nail_form
        self._snapshot_no += 1
        number = self._snapshot_no
        render = self._executor is not None and self._executor.running and bool(code) and pair.nails > 0
        accent = tuple(sorted(f.name.lower() for f in self.session.accent_fingers))
        form = self.session.nail_form
        if render:
            self.snapshot_page.show_render_progress(0.0)
        self.snapshot_taken.emit()  # before the save: its answer may come back at once
        # the render must match the nails the frame shows; a held nail is a guess (FramePair.seen_nails)
        self._run(lambda: _save(pair, code, render),
                  lambda saved, error: self._on_snapshot_saved(number, saved, error, code, accent, pair.seen_nails,
                                                               form))
        return True

    def _on_snapshot_saved(self, number: int, saved: tuple[Path, Path | None] | None, error: BaseException | None,
                           code: str, accent: tuple[str, ...], live_nails: int,
                           form: NailForm = NATURAL) -> None:
        if number != self._snapshot_no:
            # a newer snapshot, or the next customer, came meanwhile: the file stays for the staff gallery only
            if saved is not None and saved[1] is not None:
                remove_frame(saved[1])
            return
        if error is not None or saved is None:
            log.error("snapshot not saved: %s", error)
            self.snapshot_page.show_saved(None)
            self.snapshot_page.show_render(None)
            self.last_snapshot = None
            self.snapshot_saved.emit(False)
            return
        after, frame = saved
        self.snapshot_page.show_saved(after)
        self.last_snapshot = after
        self.snapshot_saved.emit(True)
        if frame is not None:
            self._submit_preview(PreviewRequest(frame, code, after, accent, live_nails, form))
        else:
            self.snapshot_page.show_render(None)  # nothing to wait for

    def _submit_preview(self, request: PreviewRequest) -> None:
        """Queue the still render of the saved "after"; the page follows its signals."""
        executor = self._executor
        if executor is None or not self.snapshot_page.is_rendering():
            remove_frame(request.frame)  # the customer went back before the save ended: no one waits for it
            return
        try:
            task = executor.submit(EFFECT_PREVIEW, request.to_payload(), biz_type=BIZ_TYPE,
                                   biz_id=request.after.name, max_attempts=MAX_ATTEMPTS)
        except Exception as exc:
            remove_frame(request.frame)
            self.snapshot_page.show_render(None)
            log.warning("still render of the snapshot not queued (the live image stays): %s", exc)
            return
        self._preview_task = task.task_no

    def _on_preview_progress(self, task_no: str, fraction: float, _note: str) -> None:
        if task_no == self._preview_task:
            self.snapshot_page.show_render_progress(fraction)

    def _on_preview_change(self, task_no: str, status: str) -> None:
        if task_no != self._preview_task or status not in _PREVIEW_ENDS:
            return
        task = self._executor.engine.get(task_no) if self._executor is not None else None
        result = PreviewResult.from_result(task.result if task is not None else None)
        if status != TaskStatus.SUCCESS.value or result.path is None:
            if status != TaskStatus.SUCCESS.value:
                error = task.last_error_code if task is not None else None
                log.warning("still render %s ended %s (%s): the live image stays", task_no, status, error)
            self._preview_task = None
            self.snapshot_page.show_render(None)
            return
        path = result.path  # decoded on a worker; the page keeps following this task until it is shown
        self._run(lambda: bgr_to_qimage(read_image(path)),
                  lambda image, error: self._on_render_read(task_no, image, error))

    def _on_render_read(self, task_no: str, image: QImage | None, error: BaseException | None) -> None:
        if task_no != self._preview_task:
            return  # the customer left this snapshot (or took another) meanwhile
        self._preview_task = None
        if error is not None:
            log.warning("still render %s could not be read (the live image stays): %s", task_no, error)
        self.snapshot_page.show_render(None if error else image)

    def back_to_mirror(self) -> None:
        self._preview_task = None  # a render still running goes on saving the better photo; no one waits for it
        self.snapshot_page.clear()
        self._window.show_page(CUSTOMER)
        self.mirror_loop.set_paused(False)

    def purge_expired_snapshots(self, keep_days: int) -> None:
        """Customers' photos older than `keep_days` go (on a worker)."""
        self._run(lambda: purge_expired_snapshots(keep_days), self._on_snapshots_purged)

    def _on_snapshots_purged(self, _deleted: object, error: BaseException | None) -> None:
        if error is not None:
            log.error("expired snapshots not deleted: %s", error)

    # --- the customer leaves ------------------------------------------------------------------------------
    def forget_customer(self) -> None:
        """No style, no images of the customer on screen or in memory, no photo to send; the browser back to its
        first view and the mirror on screen. Each part on its own (ui/shell/forget.py): one failing part is
        logged and the others still go."""
        forget_each("try-on", [
            ("snapshot countdown", self.countdown.cancel),
            ("answers on their way", self._drop_answers),
            ("style", self.session.clear),
            ("snapshot page", self.snapshot_page.clear),
            ("compare page", self.compare_page.clear),
            ("mirror", self._clear_mirror),
            ("style browser", self._reset_browser),
            ("mirror page", self.back_to_mirror),
        ])

    def _drop_answers(self) -> None:
        self._customer += 1
        self._snapshot_no += 1
        self._preview_task = None
        self.last_snapshot = None
        self.last_hands_box = None
        self.last_nail_form = NATURAL

    def _clear_mirror(self) -> None:
        self._window.mirror.clear_frame()
        self._window.mirror.set_style("", "")
        self._window.mirror.set_banner("")

    def _reset_browser(self) -> None:
        if self.style_browser is not None:
            self.style_browser.reset_filters()
            self.style_browser.show_current("")
            self.style_browser.nail_form_picker.reset()
            self.style_browser.nail_form_picker.set_recommended(None)

    def _on_source_state_change(self, state: str) -> None:
        self._window.set_demo_badge(state == DEMO)
        log.info("frame source: %s", state)


def _save(pair: FramePair, code: str, with_frame: bool) -> tuple[Path, Path | None]:
    """On a worker: the live pair's files, and the frozen frame's temp file for the still render if wanted."""
    after = save_snapshot(pair.before, pair.after, code)
    if not with_frame:
        return after, None
    try:
        return after, save_frozen_frame(pair.before)
    except (OSError, DataDirUnusable) as exc:  # the snapshot is saved; only the better render is lost
        log.warning("still render of the snapshot not queued (the live image stays): %s", exc)
        return after, None
