"""The task monitor as staff read it: short numbers, type names, the prompt, and actions only for a selected
row they apply to. A real engine on a real SQLite file, run synchronously."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from nailmirror_desktop.core.tasks import ErrorClass, TaskEngine, TaskError
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.task_monitor import COLUMNS, ROW_PX, TaskMonitorPage

pytestmark = pytest.mark.qt


def refuse(ctx):
    raise TaskError("PROMPT_EMPTY", "nothing to draw", ErrorClass.INVALID_REQUEST)


@pytest.fixture
def engine(tmp_path):
    with TaskEngine(tmp_path / "monitor.db") as eng:
        eng.register_handler("STYLE_GENERATION", refuse)
        yield eng


def cell(page: TaskMonitorPage, row: int, column: str, role=Qt.ItemDataRole.DisplayRole):
    return page.model.data(page.model.index(row, COLUMNS.index(column)), role)


def test_rows_read_as_staff_speak(qtbot, engine):
    i18n.install_language("en")
    long_prompt = "奶白色底，无名指跳色酒红猫眼，" * 5
    task = engine.submit("STYLE_GENERATION", {"prompt": long_prompt, "provider": "offline"})
    page = TaskMonitorPage(engine)
    qtbot.addWidget(page)
    assert cell(page, 0, "task_no") == f"#{task.id}" and cell(page, 0, "task_no", Qt.ItemDataRole.ToolTipRole) \
        == task.task_no
    assert cell(page, 0, "task_type") == "AI design"
    shown = cell(page, 0, "prompt")
    assert shown.startswith("奶白色底") and shown.endswith("…") and len(shown) <= 40
    assert cell(page, 0, "prompt", Qt.ItemDataRole.ToolTipRole) == long_prompt
    assert page.type_filter.itemText(1) == "AI design"
    assert page.table.verticalHeader().defaultSectionSize() >= ROW_PX >= 48
    i18n.install_language("zh_CN")
    try:
        assert cell(page, 0, "task_type") != "AI design"  # translated
    finally:
        i18n.install_language("en")


def test_actions_wait_for_a_row_they_apply_to(qtbot, engine):
    pending = engine.submit("STYLE_GENERATION", {"prompt": "a", "provider": "offline"}, request_source_id="1")
    page = TaskMonitorPage(engine)
    qtbot.addWidget(page)
    buttons = (page.replay_button, page.ignore_button, page.cancel_button)
    assert not any(b.isEnabled() for b in buttons)  # nothing selected: nothing to press
    assert page.select_task(pending.task_no)
    assert page.cancel_button.isEnabled() and not page.replay_button.isEnabled()
    engine.run_due()  # the handler refuses: DEAD
    page.reload()
    assert not any(b.isEnabled() for b in buttons)  # the reload dropped the selection
    assert page.select_task(pending.task_no)
    assert page.replay_button.isEnabled() and page.ignore_button.isEnabled() and not page.cancel_button.isEnabled()
    page.ignore_button.click()
    assert engine.get(pending.task_no).dead_letter_state == "IGNORED"
    assert page.feedback.text().endswith(f"#{pending.id}")
    assert page.select_task(pending.task_no)
    assert page.replay_button.isEnabled() and not page.ignore_button.isEnabled()  # already ignored
