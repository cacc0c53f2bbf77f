"""The generation flow alone, synchronously: a real engine, task signals emitted by hand (what the executor
delivers through the bridge), a try-on that answers at once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Qt, Signal

from nailmirror_desktop.core.generation.flow import STYLE_GENERATION
from nailmirror_desktop.core.tasks import ErrorClass, TaskEngine, TaskError
from nailmirror_desktop.ui.generation.generation_controller import GenerationController


class SignalsOnly(QObject):
    """The executor's two signals, emitted by the test."""

    task_changed = Signal(str, str)
    task_progress = Signal(str, float, str)


@pytest.fixture
def engine(tmp_path):
    with TaskEngine(tmp_path / "gen.db") as eng:
        yield eng


def controller_for(engine, *, applies: bool = True):
    executor = SignalsOnly()
    tried: list[str] = []

    def try_on(code, done):
        tried.append(code)
        done(applies)

    controller = GenerationController(engine, executor, "offline", try_on)
    return controller, executor, tried


def test_without_an_engine_the_customer_is_told_to_ask_staff(qtbot):
    controller = GenerationController(None, None, "offline", lambda code, done: done(True))
    assert controller.generate("red") is None
    assert "staff" in controller.panel.status.text()


def test_a_finished_task_is_tried_on_and_other_tasks_are_ignored(qtbot, engine):
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST01"})
    controller, executor, tried = controller_for(engine)
    task_no = controller.generate("粉色法式")
    assert task_no and "Sent" in controller.panel.status.text()
    executor.task_changed.emit("T-someone-else", "SUCCESS")
    assert tried == []
    executor.task_progress.emit(task_no, 0.5, "")
    assert controller.panel.progress.value() == 50
    engine.run_due()
    executor.task_changed.emit(task_no, "SUCCESS")
    assert tried == ["AIS-TEST01"] and controller.panel.result_code.text() == "AIS-TEST01"
    executor.task_changed.emit(task_no, "SUCCESS")  # followed once: a repeat does nothing
    assert tried == ["AIS-TEST01"]


def test_a_retry_says_so_and_a_dead_task_shows_why(qtbot, engine):
    def rejected(ctx):
        raise TaskError("moderation_blocked", "no", ErrorClass.CONTENT_REJECTED)

    engine.register_handler(STYLE_GENERATION, rejected)
    controller, executor, tried = controller_for(engine)
    task_no = controller.generate("something refused")
    executor.task_changed.emit(task_no, "FAILED")
    assert "Trying again" in controller.panel.status.text()
    engine.run_due()
    executor.task_changed.emit(task_no, "DEAD")
    assert "describe it differently" in controller.panel.status.text() and tried == []


def test_the_idle_reset_forgets_the_task(qtbot, engine):
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST02"})
    controller, executor, tried = controller_for(engine)
    task_no = controller.generate("red")
    controller.panel.prompt.setText("red")
    controller.forget_customer()
    assert controller.panel.prompt.text() == ""
    executor.task_changed.emit(task_no, "SUCCESS")  # the next customer does not get it
    assert tried == []


def press_enter(qtbot, panel, times: int) -> None:
    for _ in range(times):
        qtbot.keyClick(panel.prompt, Qt.Key.Key_Return)


def test_enter_pressed_eleven_times_while_one_runs_queues_one_task(qtbot, engine):
    """The button is disabled while a generation runs, the text box's Enter is not: every way to submit goes
    through the controller's one guarded path. Nothing runs the engine here, so the first task stays unfinished
    (a blocked handler) while Enter is pressed."""
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST03"})
    controller, executor, tried = controller_for(engine)
    qtbot.addWidget(controller.panel)
    controller.panel.prompt.setText("粉色法式")
    press_enter(qtbot, controller.panel, 11)
    controller.panel.generate_button.click()  # disabled: nothing
    controller.panel.generate_requested.emit("another way in")  # a future chip or shortcut: refused too
    assert engine.count(task_type=STYLE_GENERATION) == 1
    assert "one design at a time" in controller.panel.status.text()
    [task] = engine.list_tasks(task_type=STYLE_GENERATION)
    engine.run_due()
    executor.task_changed.emit(task.task_no, "SUCCESS")
    assert tried == ["AIS-TEST03"]
    press_enter(qtbot, controller.panel, 1)  # after it ended (and was tried on) the customer may make another
    assert engine.count(task_type=STYLE_GENERATION) == 2


def test_a_failed_generation_frees_the_customer_to_try_again(qtbot, engine):
    def rejected(ctx):
        raise TaskError("moderation_blocked", "no", ErrorClass.CONTENT_REJECTED)

    engine.register_handler(STYLE_GENERATION, rejected)
    controller, executor, tried = controller_for(engine)
    first = controller.generate("something refused")
    assert controller.generate("again") is None
    engine.run_due()
    executor.task_changed.emit(first, "DEAD")
    assert controller.generate("something else") not in (None, first)


def test_the_next_customer_is_not_blocked_by_the_last_ones_generation(qtbot, engine):
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST04"})
    controller, executor, tried = controller_for(engine)
    first = controller.generate("red")
    assert controller.generate("red") is None
    controller.forget_customer()  # the idle reset ends the session
    second = controller.generate("red")
    assert second is not None and second != first
    assert controller.generate("blue") is None


def test_a_late_try_on_of_the_last_customers_design_is_not_shown_to_the_next(qtbot, engine):
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST05"})
    executor = SignalsOnly()
    pending: list = []
    controller = GenerationController(engine, executor, "offline", lambda code, done: pending.append(done))
    task_no = controller.generate("red")
    engine.run_due()
    executor.task_changed.emit(task_no, "SUCCESS")
    controller.forget_customer()
    pending[0](True)  # the texture decode answers after the idle reset
    assert controller.panel.result_code.text() == ""
