"""The staff page for consented captures (issue #26 §1, §5): a customer's withdrawal by her code, and staff's own
hands (consent once, recorded; then "capture my hands" from the last snapshot taken on the mirror).

A withdrawal deletes the copy here at once (if this kiosk holds it) and goes to HQ with the next sync; an
enrolled kiosk starts that sync now (`sync_now`), so HQ deletes it within seconds when online. Work that reads
or writes the database runs on a worker (the bridge).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.captures.store import CaptureOutcome, Consent
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX
from nailmirror_desktop.ui.tryon.snapshot import before_file
from nailmirror_protocol.paths import show_capture_code


class CapturesPage(QWidget):
    def __init__(self, run_in_background: RunInBackground, withdraw: Callable[[str], tuple[str, bool]],
                 sync_now: Callable[[], object] | None = None,
                 staff_consent: Callable[[bool], Consent | None] | None = None,
                 take_staff_capture: Callable[[Path], CaptureOutcome] | None = None,
                 last_snapshot: Callable[[], Path | None] = lambda: None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._run = run_in_background
        self._withdraw = withdraw
        self._sync_now = sync_now
        self._staff_consent = staff_consent
        self._take_staff = take_staff_capture
        self._last_snapshot = last_snapshot
        layout = QVBoxLayout(self)
        self.withdraw_title = QLabel()
        self.withdraw_title.setObjectName("title")
        self.code_edit = QLineEdit()
        self.code_edit.setMinimumHeight(TOUCH_PX)
        self.code_edit.setMaxLength(12)
        self.withdraw_button = QPushButton()
        self.withdraw_button.setMinimumHeight(TOUCH_PX)
        self.withdraw_button.clicked.connect(self.withdraw)
        self.code_edit.returnPressed.connect(self.withdraw)
        row = QHBoxLayout()
        row.addWidget(self.code_edit, 1)
        row.addWidget(self.withdraw_button)
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        self.staff_title = QLabel()
        self.staff_title.setObjectName("title")
        self.staff_text = QLabel()
        self.staff_text.setWordWrap(True)
        self.consent_button = QPushButton()
        self.consent_button.setMinimumHeight(TOUCH_PX)
        self.consent_button.clicked.connect(self.give_staff_consent)
        self.capture_button = QPushButton()
        self.capture_button.setMinimumHeight(TOUCH_PX)
        self.capture_button.clicked.connect(self.capture_staff_hands)
        self.staff_feedback = QLabel()
        self.staff_feedback.setWordWrap(True)
        layout.addWidget(self.withdraw_title)
        layout.addLayout(row)
        widgets: tuple[QWidget, ...] = (self.feedback, self.staff_title, self.staff_text, self.consent_button,
                                        self.capture_button, self.staff_feedback)
        for widget in widgets:
            layout.addWidget(widget)
        layout.addStretch(1)
        self._consent: Consent | None = None
        self._retranslate()
        self.reload()

    def reload(self) -> None:
        """Whether staff consented already (read on a worker)."""
        if self._staff_consent is None:
            self._show_staff(None)
            return
        read = self._staff_consent
        self._run(lambda: read(False), lambda consent, _error: self._show_staff(consent))

    # --- a customer's withdrawal --------------------------------------------------------------------------
    def withdraw(self) -> None:
        text = self.code_edit.text()
        withdraw = self._withdraw
        self.withdraw_button.setEnabled(False)
        self._run(lambda: withdraw(text), self._on_withdrawn)

    def _on_withdrawn(self, result: tuple[str, bool] | None, error: BaseException | None) -> None:
        self.withdraw_button.setEnabled(True)
        if error is not None or result is None:
            self.feedback.setText(self.tr("That is not a photo code (8 letters and digits, like K7QH-3MPX)")
                                  if isinstance(error, ValueError) else self.tr("Not withdrawn: %1").replace(
                                      "%1", str(error)[:120]))
            return
        code, held = result
        self.code_edit.clear()
        text = (self.tr("Photo %1 withdrawn and deleted from this kiosk; HQ deletes it at the next sync.") if held
                else self.tr("Photo %1 withdrawn; HQ and every kiosk delete it at the next sync."))
        self.feedback.setText(text.replace("%1", show_capture_code(code)))
        if self._sync_now is not None:
            self._sync_now()  # online: HQ hears it now, not at the next poll

    # --- staff's own hands --------------------------------------------------------------------------------
    def give_staff_consent(self) -> None:
        if self._staff_consent is not None:
            record = self._staff_consent
            self._run(lambda: record(True), lambda consent, _error: self._show_staff(consent))

    def capture_staff_hands(self) -> None:
        snapshot = self._last_snapshot()
        if self._take_staff is None or self._consent is None:
            return
        if snapshot is None:
            self.staff_feedback.setText(self.tr("Take a snapshot of your hands on the mirror first."))
            return
        take, before = self._take_staff, before_file(snapshot)
        self.capture_button.setEnabled(False)
        self.staff_feedback.setText(self.tr("Keeping a copy…"))
        self._run(lambda: take(before), self._on_staff_capture)

    def _on_staff_capture(self, outcome: CaptureOutcome | None, error: BaseException | None) -> None:
        self.capture_button.setEnabled(True)
        if error is not None or outcome is None or outcome.code is None:
            self.staff_feedback.setText(self.tr("Nothing kept: no hands found in the last snapshot.")
                                        if outcome is not None and outcome.refused == "no_hands"
                                        else self.tr("Nothing kept."))
            return
        self.staff_feedback.setText(self.tr("Kept as %1; it goes to HQ with the next sync.").replace(
            "%1", show_capture_code(outcome.code)))

    def _show_staff(self, consent: Consent | None) -> None:
        self._consent = consent
        available = self._staff_consent is not None
        self.consent_button.setVisible(available and consent is None)
        self.capture_button.setVisible(available and consent is not None and self._take_staff is not None)
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.withdraw_title.setText(self.tr("Withdraw a customer's photo"))
        self.code_edit.setPlaceholderText(self.tr("Her photo code, e.g. K7QH-3MPX"))
        self.withdraw_button.setText(self.tr("Withdraw"))
        self.staff_title.setText(self.tr("Your own hands"))
        consent = self._consent
        self.staff_text.setText(
            self.tr("You consented on %1 to copies of your own hands (cropped, faces blurred, kept up to 180 days)"
                    " helping improve our nail model.").replace("%1", consent.at[:10]) if consent is not None else
            self.tr("Consent once to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping"
                    " improve our nail model; a code withdraws any of them."))
        self.consent_button.setText(self.tr("I consent"))
        self.capture_button.setText(self.tr("Capture my hands from the last snapshot"))
