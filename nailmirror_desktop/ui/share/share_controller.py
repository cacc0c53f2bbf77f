"""Connects the snapshot page's "take it home" button, the share page and the one-time link server.

The server (adapters/share) is built by the composition root only when staff turned sharing on
(KioskConfig.share_to_phone); without it the button still offers the style card. The card shows the style's picture
and the customer's painted nails, cropped to her hands (vision/paint/framing.py) from the "after" on the snapshot
page; the phone gets a picture made for it (adapters/share/share_image.py), composed on the server's thread from the
snapshot's files when she first opens the link, with the words translated here and now. A download is reported on the
server's thread and crosses to the GUI through the bridge. The idle reset withdraws every link at once (the old link
answers 404 from then on) and clears the page; the shell runs it first of the reset's steps.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QPushButton

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.adapters.share.share_image import ShareText, share_jpeg
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.share.share_page import NO_NETWORK, OFF, SAVING, SENT, UNAVAILABLE, SharePage
from nailmirror_desktop.ui.share.style_card import HANDS_ASPECT
from nailmirror_desktop.ui.shell.forget import forget_each
from nailmirror_desktop.ui.shell.main_window import SHARE, SNAPSHOT, MainWindow
from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage, before_file
from nailmirror_desktop.vision.paint.framing import Box, fit_aspect

log = logging.getLogger(__name__)
__all__ = ["SHARE", "ShareController", "StyleInfo"]  # SHARE: the window's page (ui/shell/main_window.Page)

# (name, code) or (name, code, price as shown or None): the card shows the price only when the store set one
StyleInfo = tuple[str, str] | tuple[str, str, str | None]
HandsBox = tuple[int, int, int, int]  # the snapshot's painted hands, frame pixels (left, top, right, bottom)


class ShareController(QObject):
    def __init__(self, window: MainWindow, snapshot_page: SnapshotPage, server: ShareServer | None,
                 last_snapshot: Callable[[], Path | None], current_style: Callable[[], StyleInfo | None],
                 parent: QObject | None = None, *, sharing: bool | None = None,
                 hands_box: Callable[[], HandsBox | None] = lambda: None,
                 style_picture: Callable[[str], Path | None] = lambda _code: None, store_name: str = "",
                 nail_form: Callable[[], str] = lambda: "") -> None:
        """`sharing`: whether staff turned "send to my phone" on (default: whenever there is a server). The kiosk
        always has a server, which opens its port only on the first offer, so `set_sharing` turns it on and off
        when staff save the settings, without a restart. `hands_box`: the last snapshot's painted hands (None:
        the whole frame); `style_picture`: a style's own picture file by code; `store_name`: on the card and the
        phone's picture ('' leaves the line out; the shell keeps it current); `nail_form`: the snapshot's nail
        shape and length in words ('' for natural nails), on the card and the phone's picture."""
        super().__init__(parent)
        self._window = window
        self._server = server
        self._sharing = server is not None if sharing is None else sharing
        self._last_snapshot = last_snapshot
        self._current_style = current_style
        self._hands_box = hands_box
        self._style_picture = style_picture
        self._nail_form = nail_form
        self.store_name = store_name
        self._token: str | None = None
        self._offered: Path | None = None  # the file behind self._token
        self.page = SharePage()
        self.page.back_requested.connect(self.back_to_snapshot)
        window.set_page_widget(SHARE, self.page)
        self.button = _TakeHomeButton(sharing=self._sharing and server is not None)
        self.button.setObjectName("shareButton")
        self.button.setMinimumHeight(64)
        self.button.clicked.connect(self.take_home)
        snapshot_page.add_action(self.button)
        self._snapshot_page = snapshot_page
        if server is not None:
            server.on_download = _downloads_to(weakref.ref(self))

    def take_home(self) -> None:
        """Show the share page: the QR code for this snapshot when sharing is on, and the style card."""
        info = self._current_style() or ("", "")
        name, code, price = info[0], info[1], info[2] if len(info) > 2 else None
        picture_file = self._picture_file(code)
        form = self._nail_form()
        self.page.show_style(name, code, price, picture=_read_qimage(picture_file), hands=self._hands_image(),
                             store=self.store_name, form=form)
        self._window.show_page(SHARE)
        if self._server is None or not self._sharing:
            self.page.show_state(OFF)
            return
        path = self._last_snapshot()
        if path is None or not path.is_file():
            self.page.show_state(SAVING)
            return
        text = self._share_text(name, code, price, form)
        before, box = before_file(path), self._hands_box()
        try:
            link = self._server.offer(path, "image/jpeg",
                                      build=lambda: share_jpeg(before, path, box, text, picture_file))
        except OSError as exc:  # the port is taken or not allowed: the card still works
            log.warning("share server unavailable: %s", exc)
            self.page.show_state(UNAVAILABLE)
            return
        self._token, self._offered = link.token, path
        if link.reachable:
            self.page.show_link(link.url, max(1, round(link.expires_in_s / 60)))
        else:
            self._server.withdraw_all()  # only this machine could open it: no use showing it
            self.page.show_state(NO_NETWORK)

    def _picture_file(self, code: str) -> Path | None:
        if not code:
            return None
        try:
            return self._style_picture(code)
        except Exception as exc:  # the card and the picture go without it
            log.warning("style %s: no picture for the take-home card (%s)", code, exc)
            return None

    def _hands_image(self) -> QImage | None:
        """The painted nails of the "after" on the snapshot page, cropped to the card's shape around the hands."""
        after = self._snapshot_page.view.after_image()
        if after is None or after.isNull():
            return None
        frame = (after.width(), after.height())
        found = self._hands_box()
        box = Box.from_tuple(found) if found is not None else Box(0, 0, *frame)
        crop = fit_aspect(box, HANDS_ASPECT, frame)
        return after.copy(QRect(crop.left, crop.top, crop.width, crop.height))

    def _share_text(self, name: str, code: str, price: str | None, form: str = "") -> ShareText:
        """The phone picture's words in the customer's language now (the server draws them later)."""
        return ShareText(name or code, self.tr("Style code %1").replace("%1", code) if code else "", price,
                         self.store_name or None, self.tr("Before"), self.tr("After"),
                         self.tr("Show this picture to your nail artist"), form or None)

    def set_sharing(self, on: bool) -> None:
        """Staff turned "send to my phone" on or off in the settings: the next take-home follows at once; turned
        off, a link already offered stops working now."""
        self._sharing = on
        self.button.set_sharing(on and self._server is not None)
        if not on:
            self._withdraw()

    def back_to_snapshot(self) -> None:
        self._window.show_page(SNAPSHOT)

    def forget_customer(self) -> None:
        """The idle reset: no link of this customer's photo stays open, and the page shows nothing of theirs."""
        forget_each("share", [("links", self._withdraw), ("share page", self.page.clear)])

    def _withdraw(self) -> None:
        self._token = self._offered = None
        if self._server is not None:
            self._server.withdraw_all()

    def forget_snapshots(self, paths: list[Path]) -> None:
        """Staff deleted these snapshot files (ui/staff/snapshot_gallery.py): a link to one of them stops working
        now (404, not a landing page for a file that is gone). Only one file is offered at a time."""
        offered = self._offered
        if self._token is not None and offered is not None and any(_same_file(offered, path) for path in paths):
            self._withdraw()

    def _on_download(self, token: str) -> None:
        if token == self._token:
            self.page.show_state(SENT)


def _read_qimage(path: Path | None) -> QImage | None:
    """A style's picture (a small PNG, as the compare page reads them), or None when it cannot be read."""
    if path is None:
        return None
    image = QImage(str(path))
    return None if image.isNull() else image


def _downloads_to(controller: weakref.ReferenceType[ShareController]) -> Callable[[str], None]:
    """The server's `on_download` for `controller`, holding it weakly. The server outlives the window in tests
    and is closed apart from it: a strong hold made server → controller → window a reference cycle, which only
    Python's cyclic collector frees, at whatever allocation it runs on. Run inside a paint event of that window,
    it deleted the window and its backing store under the painter (a segfault in QPainter::fillRect)."""

    def downloaded(token: str) -> None:
        if controller() is not None:
            bridge.run_on_main(lambda: _tell(controller, token))

    return downloaded


def _tell(controller: weakref.ReferenceType[ShareController], token: str) -> None:
    alive = controller()
    if alive is not None:
        alive._on_download(token)


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


class _TakeHomeButton(QPushButton):
    """"Send to my phone" when sharing is on, else "Style card"; retranslated with the language."""

    def __init__(self, *, sharing: bool) -> None:
        super().__init__()
        self._sharing = sharing
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def set_sharing(self, sharing: bool) -> None:
        self._sharing = sharing
        self._retranslate()

    def _retranslate(self) -> None:
        self.setText(self.tr("Send to my phone") if self._sharing else self.tr("Style card"))
