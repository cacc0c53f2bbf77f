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
    task_no = controller.generate("金色闪粉")
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
    first = controller.generate("金色闪粉")
    assert controller.generate("蓝色") is None
    engine.run_due()
    executor.task_changed.emit(first, "DEAD")
    assert controller.generate("奶白法式") not in (None, first)


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


# ---------------------------------------------------------------------------------------------- honest feedback


def test_an_empty_prompt_is_refused_with_a_sentence_and_nothing_is_queued(qtbot, engine):
    controller, executor, tried = controller_for(engine)
    qtbot.addWidget(controller.panel)
    controller.panel.prompt.setText("   ")
    controller.panel.generate_button.click()
    assert controller.panel.status.text() == "Tell us a colour or a pattern first."
    assert controller.generate("") is None
    assert engine.count(task_type=STYLE_GENERATION) == 0


def test_words_the_parser_finds_nothing_in_are_refused_with_words_to_try(qtbot, engine):
    controller, executor, tried = controller_for(engine)
    assert controller.generate("hello world") is None
    status = controller.panel.status.text()
    assert "hello world" in status and "milky white" in status and "cat eye" in status
    assert "ready" not in status and not controller.panel.try_button.isVisibleTo(controller.panel)
    assert engine.count(task_type=STYLE_GENERATION) == 0


def test_words_left_out_are_named_next_to_the_finished_design(qtbot, engine):
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST06"})
    controller, executor, tried = controller_for(engine)
    task_no = controller.generate("hello red")
    assert task_no is not None
    engine.run_due()
    executor.task_changed.emit(task_no, "SUCCESS")
    status = controller.panel.status.text()
    assert "ready" in status and "“hello”" in status


def test_the_finished_design_shows_its_preview_and_its_name_before_its_code(qtbot, engine, tmp_path):
    from PIL import Image

    from nailmirror_desktop.ui.generation.generate_panel import StyleCard

    preview = tmp_path / "preview.png"
    Image.new("RGB", (768, 512), (120, 20, 40)).save(preview)
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST07"})
    executor = SignalsOnly()
    controller = GenerationController(engine, executor, "offline", lambda code, done: done(True),
                                      describe=lambda code: StyleCard(code, "酒红磨砂", "Burgundy matte", preview))
    panel = controller.panel
    qtbot.addWidget(panel)
    panel.show()
    task_no = controller.generate("酒红磨砂")
    engine.run_due()
    executor.task_changed.emit(task_no, "SUCCESS")
    assert panel.preview.isVisible() and panel.preview.pixmap().height() == panel.preview.height()
    assert panel.preview.pixmap().toImage().pixelColor(10, 10).red() == 120
    assert panel.result_name.text() == "Burgundy matte" and panel.result_code.text() == "AIS-TEST07"
    controller.forget_customer()
    assert not panel.preview.isVisible() and panel.result_name.text() == ""


@pytest.mark.parametrize("code", ["STORAGE_FULL", "INVALID_RESPONSE", "OUTCOME_UNKNOWN", "WAIT_TIMEOUT"])
def test_these_error_codes_have_their_own_sentence(qtbot, code):
    from nailmirror_desktop.ui.shell.messages import generation_error_text

    fallback = generation_error_text(None)
    own = generation_error_text(code, "INVALID_REQUEST")
    assert own != fallback and own == generation_error_text(code.lower(), "TRANSIENT")
    assert len({generation_error_text(c) for c in ("STORAGE_FULL", "INVALID_RESPONSE", "OUTCOME_UNKNOWN",
                                                    "WAIT_TIMEOUT")}) == 4


def test_two_more_versions_are_made_on_request_and_the_customer_picks_one(qtbot, engine, tmp_path):
    from nailmirror_desktop.core.generation.flow import default_seed
    from nailmirror_desktop.ui.generation.generate_panel import StyleCard

    seeds: list[int] = []

    def handler(ctx):
        seed = ctx.payload.get("seed", default_seed(ctx.payload["prompt"]))
        seeds.append(seed)
        return {"style_code": f"AIS-{len(seeds)}"}

    engine.register_handler(STYLE_GENERATION, handler)
    executor = SignalsOnly()
    controller = GenerationController(engine, executor, "offline", lambda code, done: done(True),
                                      describe=lambda code: StyleCard(code, code, code, None))
    panel = controller.panel
    qtbot.addWidget(panel)
    picked: list[str] = []
    panel.try_on_requested.connect(picked.append)
    assert controller.more_variations() == []  # nothing on show yet: nothing to vary
    first = controller.generate("金色闪粉")
    engine.run_due()
    executor.task_changed.emit(first, "SUCCESS")
    assert panel.more_button.isVisibleTo(panel)
    panel.more_button.click()
    variations = [t.task_no for t in engine.list_tasks(task_type=STYLE_GENERATION) if t.task_no != first]
    assert len(variations) == 2
    assert controller.generate("红色") is None and "one design at a time" in panel.status.text()
    engine.run_due()
    assert len(set(seeds)) == 3, "each version has its own seed"
    for task_no in variations:
        executor.task_changed.emit(task_no, "SUCCESS")
    assert len(panel.variation_buttons) == 3 and "Tap a version" in panel.status.text()
    assert controller.more_variations() == [] and engine.count(task_type=STYLE_GENERATION) == 3  # asked once
    third = panel.variation_buttons[2]
    third.click()
    assert len(picked) == 1 and picked[0] in ("AIS-2", "AIS-3") and third.isChecked()
    assert panel.result_code.text() == picked[0]  # the card shown is the version picked
    assert not panel.variation_buttons[0].isChecked()
    assert controller.generate("红色") is not None  # the versions are done: a new design may start
    controller.forget_customer()
    assert panel.variation_buttons == [] and not panel.more_button.isVisibleTo(panel)


def test_versions_are_asked_as_versions_shown_by_name_and_an_empty_prompt_clears_them(qtbot, engine):
    from nailmirror_desktop.ui.generation.generate_panel import VERSION_TILE_MIN_HEIGHT, StyleCard

    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": f"AIS-V{ctx.payload.get('version', 0)}"})
    executor = SignalsOnly()
    names = {"AIS-V0": "酒红猫眼·杏仁形", "AIS-V1": "灰调可可猫眼", "AIS-V2": "深粉红猫眼"}
    controller = GenerationController(engine, executor, "offline", lambda code, done: done(True),
                                      describe=lambda code: StyleCard(code, names[code], names[code], None))
    panel = controller.panel
    qtbot.addWidget(panel)
    first = controller.generate("酒红猫眼")
    engine.run_due()
    executor.task_changed.emit(first, "SUCCESS")
    assert panel.yours.isVisibleTo(panel) and panel.result_name.text() == "酒红猫眼·杏仁形"
    variations = controller.more_variations()
    assert sorted(engine.get(t).payload["version"] for t in variations) == [1, 2]
    engine.run_due()
    for task_no in variations:
        executor.task_changed.emit(task_no, "SUCCESS")
    assert sorted(panel.variation_names()) == sorted(names.values())
    assert all(b.minimumHeight() >= VERSION_TILE_MIN_HEIGHT >= 140 for b in panel.variation_buttons)
    assert not panel.try_button.isVisibleTo(panel)  # a tap on a tile tries that version on
    panel.prompt.clear()
    panel.generate_button.click()
    assert panel.variation_buttons == [] and not panel.result_name.isVisibleTo(panel)
    assert not panel.yours.isVisibleTo(panel) and not panel.more_button.isVisibleTo(panel)
    assert controller.more_variations() == []  # nothing on show: nothing to vary


def test_the_result_card_never_draws_its_name_over_its_picture_and_folds_for_the_keyboard(qtbot, engine, tmp_path):
    """#22.1: squeezed (a 1280×800 screen, the keyboard up) the card laid its name over its preview."""
    from PIL import Image
    from PySide6.QtWidgets import QWidget

    from nailmirror_desktop.ui.generation.generate_panel import StyleCard
    from nailmirror_desktop.ui.shell import theme

    preview = tmp_path / "preview.png"
    Image.new("RGB", (768, 512), (120, 20, 40)).save(preview)
    engine.register_handler(STYLE_GENERATION, lambda ctx: {"style_code": "AIS-TEST08"})
    executor = SignalsOnly()
    controller = GenerationController(engine, executor, "offline", lambda code, done: done(True),
                                      describe=lambda code: StyleCard(code, "正红", "Classic red", preview))
    panel = controller.panel
    tab = QWidget()  # the AI tab: its height is the window's to give, not the panel's to ask for
    qtbot.addWidget(tab)
    tab.setStyleSheet(theme.STYLESHEET)  # the kiosk's sizes: 20 px text, 48-64 px buttons
    tab.setFixedSize(480, 600)
    panel.setParent(tab)
    panel.setGeometry(0, 0, 480, 600)  # the AI tab of a 1280×800 window
    tab.show()
    task_no = controller.generate("红")
    engine.run_due()
    executor.task_changed.emit(task_no, "SUCCESS")
    qtbot.wait(10)

    def apart() -> None:
        picture, name = panel.preview.geometry(), panel.result_name.geometry()
        shown = panel.preview.pixmap().rect().translated(picture.topLeft())
        assert shown.bottom() < name.top() and picture.bottom() < name.top(), (picture, shown, name)
        assert panel.preview.pixmap().height() >= 72  # still a picture to choose by

    apart()
    panel.set_keyboard_up(True)  # the customer taps the prompt to write the next one
    assert not panel.result_box.isVisible() and panel.generate_button.isVisible()
    assert panel.prompt.isVisible() and panel.chips[0].isVisible()
    panel.set_keyboard_up(False)
    qtbot.wait(10)
    assert panel.result_name.isVisible() and panel.result_name.text() == "Classic red"
    apart()
    assert controller.panel.offers_more()
