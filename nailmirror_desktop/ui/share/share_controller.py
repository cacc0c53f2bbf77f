"""Connects the snapshot page's "take it home" button, the share page and the one-time link server.

The server (adapters/share) is built by the composition root only when staff turned sharing on
(KioskConfig.share_to_phone); without it the button still offers the style card. A download is reported on
the server's thread and crosses to the GUI through the bridge. The idle reset withdraws every link.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QPushButton

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.share.share_page import NO_NETWORK, OFF, SAVING, SENT, UNAVAILABLE, SharePage
from nailmirror_desktop.ui.shell.main_window import SNAPSHOT, MainWindow
from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage

log = logging.getLogger(__name__)
SHARE = 3  # the window's page index after CUSTOMER, SNAPSHOT, STAFF

StyleInfo = tuple[str, str]  # (name, code)


class ShareController(QObject):
    def __init__(self, window: MainWindow, snapshot_page: SnapshotPage, server: ShareServer | None,
                 last_snapshot: Callable[[], Path | None], current_style: Callable[[], StyleInfo | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._window = window
        self._server = server
        self._last_snapshot = last_snapshot
        self._current_style = current_style
        self._token: str | None = None
        self.page = SharePage()
        self.page.back_requested.connect(self.back_to_snapshot)
        window.set_page_widget(SHARE, self.page)
        self.button = QPushButton()
        self.button.setObjectName("shareButton")
        self.button.setMinimumHeight(64)
        self.button.clicked.connect(self.take_home)
        snapshot_page.add_action(self.button)
        if server is not None:
            server.on_download = lambda token: bridge.run_on_main(lambda: self._on_download(token))
        self.button.installEventFilter(self)
        self._retranslate()

    def take_home(self) -> None:
        """Show the share page: the QR code for this snapshot when sharing is on, and the style card."""
        name, code = self._current_style() or ("", "")
        self.page.show_style(name, code)
        self._window.show_page(SHARE)
        if self._server is None:
            self.page.show_state(OFF)
            return
        path = self._last_snapshot()
        if path is None or not path.is_file():
            self.page.show_state(SAVING)
            return
        try:
            link = self._server.offer(path)
        except OSError as exc:  # the port is taken or not allowed: the card still works
            log.warning("share server unavailable: %s", exc)
            self.page.show_state(UNAVAILABLE)
            return
        self._token = link.token
        if link.reachable:
            self.page.show_link(link.url, max(1, round(link.expires_in_s / 60)))
        else:
            self._server.withdraw_all()  # only this machine could open it: no use showing it
            self.page.show_state(NO_NETWORK)

    def back_to_snapshot(self) -> None:
        self._window.show_page(SNAPSHOT)

    def forget_customer(self) -> None:
        """The idle reset: no link of this customer's photo stays open."""
        if self._server is not None:
            self._server.withdraw_all()
        self._token = None
        self.page.clear()

    def _on_download(self, token: str) -> None:
        if token == self._token:
            self.page.show_state(SENT)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.button and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False

    def _retranslate(self) -> None:
        self.button.setText(self.tr("Send to my phone") if self._server is not None else self.tr("Style card"))
