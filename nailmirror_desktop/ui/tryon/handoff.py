"""\"I want this one\" on the snapshot page (issue #22 §3): the style on her nails (name, code, price) and her
snapshot go to the staff pages as a request (core/tryon/handoff.py), and she is shown its number, on the page and
on the mirror, to show or read out at the counter. The nail artist gets her choice without a photo of a screen.

The snapshot is copied on a worker (through the bridge); the row is written here, on the GUI thread's
connection. An answer that comes back after the idle reset is dropped and its copy deleted: the request of a
customer who left is not made for the next one. The idle reset clears her number from the screen; the request
itself stays for staff (that is the point) until they mark it done or the day ends (the purge).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from nailmirror_desktop.core.catalog.price import DEFAULT_CURRENCY
from nailmirror_desktop.core.tryon.handoff import HandoffRequest, HandoffRequests, copy_photo
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell import theme
from nailmirror_desktop.ui.shell.forget import forget_each
from nailmirror_desktop.ui.shell.state_button import StateButton
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController

log = logging.getLogger(__name__)

TICKET_STYLE = (f"QLabel {{ background: {theme.ACCENT}; color: #1b1218; font-size: 28px; font-weight: 700;"
                " border-radius: 14px; padding: 6px 18px; }")
TICKET_MAX_PX = 440  # wider, and the English line pushed "Back to the mirror" off a 1280 px screen: it wraps


class HandoffController(QObject):
    request_did_create = Signal(str)  # the new request's number (the staff list reloads)

    def __init__(self, tryon: TryOnController, mirror: MirrorView, requests: HandoffRequests | None,
                 run_in_background: RunInBackground, zone: Callable[[], str], parent: QObject | None = None) -> None:
        """zone: the store's time zone now (KioskConfig.store_time_zone): its day numbers the requests."""
        super().__init__(parent)
        self._tryon = tryon
        self._mirror = mirror
        self._requests = requests
        self._run = run_in_background
        self._zone = zone
        self._customer = 0  # moved on by the idle reset: a copy finished for an earlier customer is dropped
        self._sending = False
        self.ticket = ""  # the number of this customer's last request
        self.button = _WantButton()
        self.button.setObjectName("primary")
        self.button.setMinimumHeight(64)
        self.button.clicked.connect(self.send)
        self.ticket_label = _TicketLabel()
        self.ticket_label.hide()
        self.button.setVisible(requests is not None)  # no database: nowhere to hand it to
        tryon.snapshot_page.add_action(self.ticket_label)
        tryon.snapshot_page.add_action(self.button)
        tryon.snapshot_taken.connect(self._on_snapshot_taken)
        tryon.snapshot_saved.connect(self._on_snapshot_saved)

    # --- the snapshot page --------------------------------------------------------------------------------
    def _on_snapshot_taken(self) -> None:
        """A new photo: a new choice to hand off (until it is saved the button waits)."""
        self.ticket_label.hide()
        self.button.set_state(_WantButton.WAITING)
        self.button.setVisible(self._requests is not None)

    def _on_snapshot_saved(self, _saved: bool) -> None:
        if not self._sending and self.ticket_label.isHidden():
            self.button.set_state(_WantButton.READY)  # unsaved: the request goes without the photo

    def send(self) -> None:
        """Copy the snapshot (on a worker), then write the request with the style on her nails."""
        style = self._tryon.session.style
        if self._requests is None or style is None or self._sending:
            return
        self._sending = True
        self.button.set_state(_WantButton.SENDING)
        photo, customer = self._tryon.last_snapshot, self._customer
        price = self._tryon.style_price(style.code)
        details = (style.code, style.name, style.name_en, price)

        def copy() -> str | None:
            return copy_photo(photo) if photo is not None else None

        self._run(copy, lambda name, error: self._on_copied(customer, details, name, error))

    def _on_copied(self, customer: int, details: tuple[str, str, str, tuple[int, str] | None], photo: str | None,
                   error: BaseException | None) -> None:
        self._sending = False
        if customer != self._customer:
            self._drop_copy(photo)
            return
        if error is not None:
            log.warning("handoff: snapshot not copied, the request goes without it: %s", error)
            photo = None
        code, name, name_en, price = details
        try:
            assert self._requests is not None
            request = self._requests.create(style_code=code, style_name=name, style_name_en=name_en,
                                            price_minor=price[0] if price else None,
                                            currency=price[1] if price else DEFAULT_CURRENCY, photo=photo,
                                            zone=self._zone())
        except Exception as exc:
            log.error("handoff: request not written: %s", exc)
            self._drop_copy(photo)
            self.button.set_state(_WantButton.FAILED)
            return
        self._show_ticket(request)
        self.request_did_create.emit(request.number)

    def _show_ticket(self, request: HandoffRequest) -> None:
        self.ticket = request.number
        self.button.hide()
        self.ticket_label.set_number(request.number)
        self.ticket_label.show()
        self._mirror.set_ticket(request.number)

    def _drop_copy(self, photo: str | None) -> None:
        if photo is not None and self._requests is not None:
            self._requests.delete_photo(photo)

    # --- upkeep -------------------------------------------------------------------------------------------
    def purge(self) -> None:
        """Requests done or of an earlier day go, with their photo copies (README: customers' photos)."""
        if self._requests is not None:
            self._requests.purge(self._zone())

    def forget_customer(self) -> None:
        """Her number off the screen; the request stays for staff."""
        forget_each("handoff", [
            ("answers on their way", self._drop_answers),
            ("number on the mirror", lambda: self._mirror.set_ticket("")),
            ("number on the snapshot page", self.ticket_label.hide),
            ("button", lambda: self.button.set_state(_WantButton.WAITING)),
        ])

    def _drop_answers(self) -> None:
        self._customer += 1
        self._sending = False
        self.ticket = ""


class _WantButton(StateButton):
    """"I want this one", or what it is doing; retranslated with the language."""

    READY, SENDING, FAILED = "ready", "sending", "failed"
    TAPPABLE = (READY, FAILED)

    def _retranslate(self) -> None:
        texts = {self.SENDING: self.tr("Sending to our staff…"),
                 self.FAILED: self.tr("Not sent. Tap to try again")}
        self.setText(texts.get(self._state, self.tr("I want this one")))


class _TicketLabel(QLabel):
    """"Show this to our staff: A012", large on the accent colour; retranslated with the language."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("handoffTicket")
        self.setStyleSheet(TICKET_STYLE)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setMaximumWidth(TICKET_MAX_PX)
        self._number = ""

    def set_number(self, number: str) -> None:
        self._number = number
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setText(self.tr("Show this to our staff: %1").replace("%1", self._number) if self._number else "")
