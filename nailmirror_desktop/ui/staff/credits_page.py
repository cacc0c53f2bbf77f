"""Staff's view of the generation credits (ARCHITECTURE.md §14): the balance, what is held for running
generations, today's use against the caps, the low-balance alert and the ledger, newest first.

The page reads through core/credits (`show`, `ledger_entries`) with the policy the engine's credit hooks carry,
so it shows exactly what the engine enforces; it holds no SQL. Refreshed when shown and on its button.
Staff set the caps and the alert threshold here: saved to config.json (KioskConfig) and applied to the running
engine's hooks at once, so the next generation is checked against them. The store's time zone and the prices
are set on the settings page; `apply_config` (connected to its config_saved) puts them into the hooks the same way.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.clock import from_ms
from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.core.credits import CreditHooks, CreditPolicy, ledger_entries, show
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.ui.staff.touch_controls import TouchSpinBox

LEDGER_ROWS = 100
COLUMNS = ("time", "kind", "status", "amount", "paid", "task", "note")


class CreditsPage(QWidget):
    config_saved = Signal(object)  # KioskConfig, after staff saved the limits

    def __init__(self, engine: TaskEngine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        hooks = engine.hooks_for(STYLE_GENERATION)
        self._hooks = hooks if isinstance(hooks, CreditHooks) else None
        self._policy = self._hooks.policy if self._hooks is not None else CreditPolicy()
        layout = QVBoxLayout(self)
        self.alert = QLabel()
        self.alert.setStyleSheet("color: #c62828; font-weight: bold;")
        self.alert.setWordWrap(True)
        self.alert.hide()
        layout.addWidget(self.alert)
        form = QFormLayout()
        self.values = {key: QLabel("—") for key in ("balance", "pending", "today", "caps")}
        self.labels = {key: QLabel() for key in self.values}
        for key, value in self.values.items():
            form.addRow(self.labels[key], value)
        layout.addLayout(form)
        limits = QFormLayout()
        self.daily_cap, self.session_cap, self.low_balance = TouchSpinBox(), TouchSpinBox(), TouchSpinBox()
        for box, top, initial in ((self.daily_cap, 100_000, self._policy.daily_cap),
                                  (self.session_cap, 1_000, self._policy.session_cap),
                                  (self.low_balance, 1_000_000, self._policy.low_balance_threshold)):
            box.setRange(0, top)
            box.setValue(initial)
        self.limit_labels = [QLabel() for _ in range(3)]
        for label, box in zip(self.limit_labels, (self.daily_cap, self.session_cap, self.low_balance), strict=True):
            limits.addRow(label, box)
        layout.addLayout(limits)
        self.save_button = QPushButton()
        self.save_button.clicked.connect(self.save_limits)
        self.save_button.setEnabled(self._hooks is not None)
        layout.addWidget(self.save_button)
        self.refresh_button = QPushButton()
        self.refresh_button.clicked.connect(self.refresh)
        layout.addWidget(self.refresh_button)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Row numbers mean nothing here, and the header's corner button would be a 45 px target.
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        self.summary: dict[str, object] = {}
        self._retranslate()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.refresh()
        super().showEvent(event)

    def refresh(self) -> None:
        conn = self._engine.connection()
        self.summary = summary = show(conn, self._policy)
        balance = summary["balance"]
        if balance is None:
            self.values["balance"].setText(self.tr("No credits granted yet: generations are not limited by a balance"))
        else:
            self.values["balance"].setText(str(balance))
        self.values["pending"].setText(str(summary["pending"]))
        self.values["today"].setText(self.tr("%1 credit(s) spent, %2 paid generation(s) of %3")
                                     .replace("%1", str(summary["confirmed_today"]))
                                     .replace("%2", str(summary["generations_today"]))
                                     .replace("%3", self._cap(int(str(summary["daily_cap"])))))
        self.values["caps"].setText(self.tr("%1 per customer session")
                                    .replace("%1", self._cap(int(str(summary["session_cap"])))))
        if summary["low_balance"]:
            self.alert.setText(self.tr("Credits are running low: %1 left (alert below %2). Ask HQ for a grant.")
                               .replace("%1", str(balance)).replace("%2", str(summary["low_balance_threshold"])))
            self.alert.show()
        else:
            self.alert.hide()
        self._fill_ledger()

    def save_limits(self) -> KioskConfig | None:
        """Save the caps and the alert threshold (the rest of config.json as it is now) and apply them."""
        if self._hooks is None:
            return None
        config = load_config().with_changes(credits_daily_cap=self.daily_cap.value(),
                                            credits_session_cap=self.session_cap.value(),
                                            credits_low_balance=self.low_balance.value())
        save_config(config)
        self._policy = self._hooks.policy = replace(
            self._hooks.policy, daily_cap=config.credits_daily_cap, session_cap=config.credits_session_cap,
            low_balance_threshold=config.credits_low_balance)
        self.config_saved.emit(config)
        self.refresh()
        return config

    def apply_config(self, config: KioskConfig) -> None:
        """Settings saved elsewhere (time zone, prices, caps): the next generation is charged and counted with
        them, without a restart."""
        if self._hooks is None:
            return
        self._policy = self._hooks.policy = replace(
            self._hooks.policy, time_zone=config.store_time_zone, prices=dict(config.credit_prices),
            daily_cap=config.credits_daily_cap, session_cap=config.credits_session_cap,
            low_balance_threshold=config.credits_low_balance)
        for box, value in ((self.daily_cap, config.credits_daily_cap), (self.session_cap, config.credits_session_cap),
                           (self.low_balance, config.credits_low_balance)):
            box.setValue(value)
        if self.summary:
            self.refresh()

    def _cap(self, cap: int) -> str:
        return str(cap) if cap else self.tr("no cap")

    def _fill_ledger(self) -> None:
        entries = ledger_entries(self._engine.connection(), self._policy, limit=LEDGER_ROWS)
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            created = from_ms(entry.created_at)
            cells = (created.strftime("%Y-%m-%d %H:%M UTC") if created else "", entry.kind, entry.status,
                     str(entry.amount), str(entry.confirmed_amount), entry.task_no or entry.grant_id or "",
                     entry.note or entry.reason or "")
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        texts = {"balance": self.tr("Balance"), "pending": self.tr("Held for running generations"),
                 "today": self.tr("Today"), "caps": self.tr("Limit")}
        for key, label in self.labels.items():
            label.setText(texts[key])
        self.refresh_button.setText(self.tr("Refresh"))
        self.save_button.setText(self.tr("Save limits"))
        for label, text in zip(self.limit_labels, (self.tr("Paid generations per day (0: no cap)"),
                                                   self.tr("Per customer session (0: no cap)"),
                                                   self.tr("Alert when the balance is below")), strict=True):
            label.setText(text)
        self.table.setHorizontalHeaderLabels([self.tr("Time"), self.tr("Kind"), self.tr("Status"), self.tr("Credits"),
                                              self.tr("Paid"), self.tr("Task or grant"), self.tr("Note")])
        if self.summary:
            self.refresh()
