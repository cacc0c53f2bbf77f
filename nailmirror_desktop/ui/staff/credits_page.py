"""Staff's view of the generation credits (ARCHITECTURE.md §14): the balance, what is held for running
generations, today's use against the caps, the low-balance alert and the ledger, newest first.

The page reads through core/credits (`show`, `ledger_entries`) with the policy the engine's credit hooks carry,
so it shows exactly what the engine enforces; it holds no SQL. Refreshed when shown and on its button.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
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
from nailmirror_desktop.core.credits import CreditHooks, CreditPolicy, ledger_entries, show
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION
from nailmirror_desktop.core.tasks import TaskEngine

LEDGER_ROWS = 100
COLUMNS = ("time", "kind", "status", "amount", "paid", "task", "note")


class CreditsPage(QWidget):
    def __init__(self, engine: TaskEngine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        hooks = engine.hooks_for(STYLE_GENERATION)
        self._policy = hooks.policy if isinstance(hooks, CreditHooks) else CreditPolicy()
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
        self.refresh_button = QPushButton()
        self.refresh_button.clicked.connect(self.refresh)
        layout.addWidget(self.refresh_button)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
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
        self.table.setHorizontalHeaderLabels([self.tr("Time"), self.tr("Kind"), self.tr("Status"), self.tr("Credits"),
                                              self.tr("Paid"), self.tr("Task or grant"), self.tr("Note")])
        if self.summary:
            self.refresh()
