"""\"Help us improve the mirror\" on the snapshot page (issue #26 §1): off by default, one sentence saying what is
kept, for how long and how to withdraw, and after her tap the capture's code to keep.

The tap is the consent: only then is a copy made (app/captures.py on a worker: the saved snapshot's unpainted
frame, cropped to the hands, faces blurred). A snapshot not consented to before the idle reset is never
captured. A capture whose answer comes back after the reset is deleted at once: its customer left without
seeing her code, so she could never withdraw it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from nailmirror_desktop.core.captures.store import CaptureOutcome
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell.forget import forget_each
from nailmirror_desktop.ui.shell.state_button import StateButton
from nailmirror_desktop.ui.tryon.snapshot import before_file
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController
from nailmirror_protocol.paths import show_capture_code

log = logging.getLogger(__name__)

# Runs on a worker: the snapshot's "before" file → the capture kept (or why not).
TakeCapture = Callable[[Path], CaptureOutcome]
DropCapture = Callable[[str], object]
SENTENCE_MAX_PX = 440


class CaptureConsentController(QObject):
    capture_did_keep = Signal(str)  # the new capture's code

    def __init__(self, tryon: TryOnController, take: TakeCapture | None, drop: DropCapture | None,
                 run_in_background: RunInBackground, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tryon = tryon
        self._take = take
        self._drop = drop
        self._run = run_in_background
        self._customer = 0  # moved on by the idle reset: an answer for an earlier customer is deleted
        self.code = ""  # this customer's last capture code
        self.button = ConsentButton()
        self.button.setMinimumHeight(64)
        self.button.clicked.connect(self.consent)
        self.sentence = ConsentSentence()
        self.code_label = CaptureCodeLabel()
        self.code_label.hide()
        for widget in (self.sentence, self.code_label, self.button):
            tryon.snapshot_page.add_action(widget)
        self._show_offer(False)
        tryon.snapshot_taken.connect(self._on_snapshot_taken)
        tryon.snapshot_saved.connect(self._on_snapshot_saved)

    def _show_offer(self, visible: bool) -> None:
        visible = visible and self._take is not None
        self.button.setVisible(visible)
        self.sentence.setVisible(visible)

    def _on_snapshot_taken(self) -> None:
        self.code_label.hide()
        self.button.set_state(ConsentButton.WAITING)
        self._show_offer(True)

    def _on_snapshot_saved(self, saved: bool) -> None:
        if self.button.state() == ConsentButton.WAITING:
            self.button.set_state(ConsentButton.READY if saved else ConsentButton.WAITING)
        self._show_offer(saved)

    def consent(self) -> None:
        """Her tap: the consent record is made now, and the copy on a worker."""
        after = self._tryon.last_snapshot
        if self._take is None or after is None or self.button.state() not in (ConsentButton.READY,
                                                                               ConsentButton.FAILED):
            return
        take, customer, before = self._take, self._customer, before_file(after)
        self.button.set_state(ConsentButton.KEEPING)
        self._run(lambda: take(before), lambda outcome, error: self._on_kept(customer, outcome, error))

    def _on_kept(self, customer: int, outcome: CaptureOutcome | None, error: BaseException | None) -> None:
        if customer != self._customer:
            if outcome is not None and outcome.code and self._drop is not None:
                self._drop(outcome.code)  # she left before seeing her code: nothing kept she cannot withdraw
            return
        if error is not None or outcome is None or outcome.code is None:
            log.warning("capture not kept: %s", error if error is not None else outcome and outcome.refused)
            self.button.set_state(ConsentButton.NO_HANDS if outcome is not None and outcome.refused == "no_hands"
                                  else ConsentButton.FAILED)
            return
        self.code = outcome.code
        self.button.hide()
        self.sentence.hide()
        self.code_label.set_code(show_capture_code(outcome.code))
        self.code_label.show()
        self.capture_did_keep.emit(outcome.code)

    def forget_customer(self) -> None:
        forget_each("capture consent", [
            ("answers on their way", self._drop_answers),
            ("code on the snapshot page", self.code_label.hide),
            ("offer", self._withdraw_offer),
        ])

    def _withdraw_offer(self) -> None:
        self.button.set_state(ConsentButton.WAITING)
        self._show_offer(False)

    def _drop_answers(self) -> None:
        self._customer += 1
        self.code = ""
        self.code_label.set_code("")


class ConsentButton(StateButton):
    """"Help us improve the mirror" (off until she taps), or what it is doing; retranslated with the language."""

    READY, KEEPING, FAILED, NO_HANDS = "ready", "keeping", "failed", "no_hands"
    TAPPABLE = (READY, FAILED)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("captureConsent")

    def _retranslate(self) -> None:
        texts = {self.KEEPING: self.tr("Keeping a copy…"),
                 self.FAILED: self.tr("Not kept. Tap to try again"),
                 self.NO_HANDS: self.tr("No hands found in this photo: nothing kept")}
        self.setText(texts.get(self._state, self.tr("Help us improve the mirror")))


class ConsentSentence(QLabel):
    """What is kept, for how long, how to withdraw: one sentence, shown beside the button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("muted")
        self.setWordWrap(True)
        self.setMaximumWidth(SENTENCE_MAX_PX)
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setText(self.tr("If you tap, we keep a copy of this photo cropped to your hands (faces blurred) for up "
                             "to 180 days to improve our nail model; give the code we show you to any of our staff "
                             "to have it deleted."))


class CaptureCodeLabel(QLabel):
    """"Your photo code: K7QH-3MPX", to keep for a withdrawal; retranslated with the language."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("captureCode")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setMaximumWidth(SENTENCE_MAX_PX)
        self._code = ""

    def set_code(self, code: str) -> None:
        self._code = code
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setText(self.tr("Thank you. Your photo code: %1 (give it to our staff to delete the copy)")
                     .replace("%1", self._code) if self._code else "")
