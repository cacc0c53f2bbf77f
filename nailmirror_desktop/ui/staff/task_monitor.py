"""Task monitor: counts per state, a filterable table, dead letters with replay / ignore, cancel — refreshed
live from the executor's `task_changed` signal (coalesced, so a burst of changes costs one refresh).

Rows read as staff speak: a short number (#42; the full task number in its tooltip), the type by name
("AI design"), the customer's prompt. The actions are enabled only for a selected row they apply to."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.tasks import Task, TaskEngine
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.shell.messages import task_status_text
from nailmirror_desktop.ui.staff.touch_controls import TouchComboBox

STATUSES = ("PENDING", "PROCESSING", "SUCCESS", "FAILED", "CANCELED", "DEAD")
UNFINISHED = ("PENDING", "PROCESSING", "FAILED")
COLUMNS = ("task_no", "task_type", "prompt", "status", "attempts", "error", "created")
ROW_PX = 56  # a row is a touch target: staff select a task with a finger
PROMPT_CHARS = 40


def short_task_no(task: Task) -> str:
    """'#42' for T000000000000002A: what staff can read out; the full number is the row's tooltip."""
    return f"#{task.id}"


def task_type_text(task_type: str) -> str:
    """A task type as staff call it; an unknown type shows as it is."""
    names = {
        "STYLE_GENERATION": QCoreApplication.translate("TaskMonitor", "AI design"),
        "EFFECT_PREVIEW": QCoreApplication.translate("TaskMonitor", "Photo render"),
    }
    return names.get(task_type, task_type)


def prompt_of(task: Task) -> str:
    prompt = (task.payload or {}).get("prompt")
    if not isinstance(prompt, str):
        return ""
    prompt = " ".join(prompt.split())
    return prompt if len(prompt) <= PROMPT_CHARS else prompt[: PROMPT_CHARS - 1] + "…"
_ROOT = QModelIndex()
ModelIndex = QModelIndex | QPersistentModelIndex


class TaskTableModel(QAbstractTableModel):
    def __init__(self, engine: TaskEngine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self._rows: list[Task] = []
        self.status: str | None = None
        self.task_type: str | None = None

    def refresh(self) -> None:
        self.beginResetModel()
        self._rows = self._engine.list_tasks(self.status, self.task_type, limit=200)
        self.endResetModel()

    def task_at(self, row: int) -> Task:
        return self._rows[row]

    def task_nos(self) -> list[str]:
        return [t.task_no for t in self._rows]

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        task = self._rows[index.row()]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {"task_no": task.task_no, "prompt": (task.payload or {}).get("prompt")}.get(column)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == "task_no":
            return short_task_no(task)
        if column == "task_type":
            return task_type_text(task.task_type)
        if column == "prompt":
            return prompt_of(task)
        if column == "status":
            return task_status_text(task.status.value)
        if column == "attempts":
            return f"{task.attempt_count}/{task.max_attempts}"
        if column == "error":
            return task.last_error_code or ""
        return task.created_at.strftime("%m-%d %H:%M:%S")

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        return None

    _headers = list(COLUMNS)


class TaskMonitorPage(QWidget):
    def __init__(self, engine: TaskEngine, executor: TaskExecutor | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self.model = TaskTableModel(engine, self)
        self._refresh_soon = QTimer(self)
        self._refresh_soon.setSingleShot(True)
        self._refresh_soon.setInterval(150)
        self._refresh_soon.timeout.connect(self.reload)
        if executor is not None:
            executor.task_changed.connect(self._on_task_change)
        self._build()
        self._retranslate()
        self.reload()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.counts = QLabel()
        self.counts.setObjectName("title")
        self.counts.setWordWrap(True)
        filters = QHBoxLayout()
        self.status_filter = TouchComboBox()
        self.status_filter.addItem("", None)
        for status in STATUSES:
            self.status_filter.addItem("", status)
        self.status_filter.currentIndexChanged.connect(self._on_filter_change)
        self.type_filter = TouchComboBox()
        self.type_filter.addItem("", None)
        for task_type in getattr(self._engine, "task_types", ()):
            self.type_filter.addItem(task_type_text(task_type), task_type)
        self.type_filter.currentIndexChanged.connect(self._on_filter_change)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.type_filter)
        filters.addStretch(1)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("prompt"), QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.table.selectionModel().selectionChanged.connect(self._update_actions)
        self.model.modelReset.connect(self._update_actions)
        actions = QHBoxLayout()
        self.replay_button, self.ignore_button, self.cancel_button = QPushButton(), QPushButton(), QPushButton()
        self.replay_button.clicked.connect(lambda: self._act("replay"))
        self.ignore_button.clicked.connect(lambda: self._act("ignore"))
        self.cancel_button.clicked.connect(lambda: self._act("cancel"))
        self.feedback = QLabel()
        for button in (self.replay_button, self.ignore_button, self.cancel_button):
            actions.addWidget(button)
        actions.addWidget(self.feedback, 1)
        self._update_actions()
        layout.addWidget(self.counts)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)

    def reload(self) -> None:
        stats = self._engine.stats()
        by_status = stats["by_status"]
        parts = [f"{task_status_text(s)} {by_status.get(s, 0)}" for s in STATUSES]
        parts.append(self.tr("open dead letters %1").replace("%1", str(stats.get("open_dead_letters", 0))))
        self.counts.setText("   ".join(parts))
        self.model.refresh()

    def select_task(self, task_no: str) -> bool:
        nos = self.model.task_nos()
        if task_no not in nos:
            return False
        self.table.selectRow(nos.index(task_no))
        return True

    def _selected_task(self) -> Task | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.task_at(rows[0].row()) if rows else None

    def _update_actions(self, *_args: object) -> None:
        """Each action only when the selected row allows it: nothing selected, nothing to press."""
        task = self._selected_task()
        status = task.status.value if task is not None else ""
        self.replay_button.setEnabled(status == "DEAD")
        self.ignore_button.setEnabled(status == "DEAD" and getattr(task, "dead_letter_state", None) == "OPEN")
        self.cancel_button.setEnabled(status in UNFINISHED)

    def _act(self, verb: str) -> bool:
        task = self._selected_task()
        if task is None:
            return False
        try:
            getattr(self._engine, verb)(task.task_no)
        except Exception as exc:  # InvalidTransition etc. carry a code
            self.feedback.setText(self.tr("Not done: %1").replace("%1", getattr(exc, "code", type(exc).__name__)))
            return False
        self.feedback.setText(self.tr("Done: %1").replace("%1", short_task_no(task)))
        self.reload()
        return True

    def _on_filter_change(self, _index: int) -> None:
        self.model.status = self.status_filter.currentData()
        self.model.task_type = self.type_filter.currentData()
        self.model.refresh()

    def _on_task_change(self, _task_no: str, _status: str) -> None:
        self._refresh_soon.start()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.status_filter.setItemText(0, self.tr("All states"))
        for i, status in enumerate(STATUSES, start=1):
            self.status_filter.setItemText(i, task_status_text(status))
        self.type_filter.setItemText(0, self.tr("All types"))
        for i in range(1, self.type_filter.count()):
            self.type_filter.setItemText(i, task_type_text(str(self.type_filter.itemData(i))))
        self.replay_button.setText(self.tr("Replay dead letter"))
        self.ignore_button.setText(self.tr("Ignore dead letter"))
        self.cancel_button.setText(self.tr("Cancel task"))
        self.model._headers = [self.tr("Task"), self.tr("Type"), self.tr("Prompt"), self.tr("State"),
                               self.tr("Attempts"), self.tr("Error"), self.tr("Created")]
