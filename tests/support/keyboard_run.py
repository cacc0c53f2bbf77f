"""A kiosk window (demo video, real services) with the on-screen keyboard, run in its own process by
tests/ui/shell/test_on_screen_keyboard.py under Xvfb: it taps the AI prompt, types "ni" on the keyboard,
picks the first pinyin candidate, saves a screenshot and prints one JSON line of what it saw.

    python -m tests.support.keyboard_run SHOT.png [LANGUAGE]
"""

from __future__ import annotations

import json
import sys

from nailmirror_desktop.ui.shell import on_screen_keyboard

on_screen_keyboard.prepare_environment()

from PySide6.QtCore import QPoint, Qt, QTimer  # noqa: E402 - after the environment the input method reads
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from nailmirror_desktop.app.kiosk import KioskOptions, build_services  # noqa: E402
from nailmirror_desktop.core.config import load_config  # noqa: E402
from nailmirror_desktop.ui import bridge  # noqa: E402
from nailmirror_desktop.ui.shell import i18n, theme  # noqa: E402
from nailmirror_desktop.ui.shell.kiosk_controller import KioskController  # noqa: E402


def main(shot: str, language: str = "zh_CN") -> int:
    app = QApplication(["nailmirror"])
    theme.apply_theme(app)
    i18n.install_language(language)
    bridge.install()
    controller = KioskController(build_services(load_config(), KioskOptions(demo=True)))
    keyboard = on_screen_keyboard.OnScreenKeyboard(controller.window, parent=controller)
    window = controller.window
    window.resize(1280, 800)
    window.show()
    controller.start()
    prompt = controller.generation.panel.prompt
    seen: dict[str, object] = {"shown_before_focus": keyboard.shown}

    def focus_prompt() -> None:
        window.side_tabs.setCurrentIndex(1)
        window.activateWindow()  # no window manager under Xvfb: nothing else makes the window active
        prompt.setFocus()
        seen["prompt_focused"] = prompt.hasFocus()

    def type_pinyin() -> None:
        keyboard.tap_keys("ni")

    def choose() -> None:
        seen["candidates_shown_preedit"] = prompt.text() == "" or prompt.text()
        keyboard.choose_candidate(0)
        keyboard.tap_keys("hao")  # composing again: the screenshot shows the candidates row

    def finish() -> None:
        top_of_keyboard = keyboard.view.mapTo(window, QPoint(0, 0)).y()
        bottom_of_prompt = prompt.mapTo(window, QPoint(0, prompt.height())).y()
        seen.update(shown=keyboard.shown, locale=keyboard.keyboard_locale(), prompt_text=prompt.text(),
                    keyboard_top=top_of_keyboard, keyboard_height=keyboard.view.height(),
                    keyboard_width=keyboard.view.width(), window_height=window.height(),
                    root_height=keyboard.view.rootObject().height(),
                    panel_height=keyboard.view.rootObject().property("panelHeight"),
                    prompt_bottom=bottom_of_prompt, mirror_height=window.mirror.height(),
                    saved=window.grab().save(shot))
        # the keyboard's own hide key, then a tap on the same field, which kept its focus: the keyboard is back
        QGuiApplication.inputMethod().hide()
        seen["hidden_by_its_key"] = not keyboard.shown
        QTest.mouseClick(prompt, Qt.MouseButton.LeftButton)
        seen["reopened_on_same_field"] = keyboard.shown
        prompt.clearFocus()
        window.setFocus()
        seen["shown_after_focus_left"] = keyboard.shown
        print(json.dumps(seen), flush=True)
        controller.shutdown()
        app.quit()

    QTimer.singleShot(2500, focus_prompt)
    QTimer.singleShot(3500, type_pinyin)
    QTimer.singleShot(4500, choose)
    QTimer.singleShot(5500, finish)
    app.exec()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
