"""The Qt application around the kiosk window: the QApplication, the theme and language, the event loop, and
for a timed run (`--quit-after` seconds, or `--quit-after-frames` painted frames) the one-line JSON report. The
composition root (app.kiosk) calls `run_kiosk_app` with a function that builds the services once the
QApplication exists.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.services import KioskServices
from nailmirror_desktop.ui.shell import i18n, on_screen_keyboard, theme
from nailmirror_desktop.ui.shell.kiosk_controller import KioskController

# run_kiosk_app's status when staff asked for a restart (a setting read only at start changed); the CLI then
# starts the kiosk again in place (EX_TEMPFAIL's number: "try again").
EXIT_RESTART = 75


@dataclass(frozen=True)
class WindowOptions:
    fullscreen: bool = True
    screenshot: Path | None = None  # save the window to this PNG when the timed run ends
    quit_after_s: float | None = None
    check_keyboard: bool = False  # with quit_after_s: type on the on-screen keyboard before the end; in the JSON
    quit_after_frames: int | None = None  # end the run once this many frames are painted (or at quit_after_s)


class KeyboardCheck:
    """For the store build's smoke test: in the last seconds of a timed run, tap the AI prompt (the keyboard
    opens as for a finger), type "ni" on the keyboard's keys and pick the first pinyin candidate. Proves the
    bundle carries the input-context plugin, the QML modules and the Pinyin plugin."""

    STEP_MS = 1000

    def __init__(self, controller: KioskController, keyboard: on_screen_keyboard.OnScreenKeyboard,
                 quit_after_s: float) -> None:
        self._controller = controller
        self._keyboard = keyboard
        self.focused = False
        start_ms = max(0, int(quit_after_s * 1000) - 3 * self.STEP_MS - 200)
        QTimer.singleShot(start_ms, self._focus_prompt)
        QTimer.singleShot(start_ms + self.STEP_MS, lambda: keyboard.tap_keys("ni"))
        QTimer.singleShot(start_ms + 2 * self.STEP_MS, lambda: keyboard.choose_candidate(0))

    def _focus_prompt(self) -> None:
        window = self._controller.window
        window.side_tabs.setCurrentIndex(1)  # the AI design tab
        window.activateWindow()  # offscreen and Xvfb have no window manager to make it active
        prompt = self._controller.generation.panel.prompt
        prompt.setFocus()
        self.focused = prompt.hasFocus()

    def summary(self) -> dict[str, Any]:
        return {"prompt_focused": self.focused, "shown": self._keyboard.shown, "ready": self._keyboard.ready,
                "locale": self._keyboard.keyboard_locale(),
                "typed": self._controller.generation.panel.prompt.text()}


class RunReport:
    """What a timed run did, printed as one JSON line: the smoke test and the startup benchmark read it.
    first_frame_epoch_s: wall-clock time of the first frame painted with the pipeline; fps: the shown-frame
    rate (the last 60 frames); max_hands: the tracker's configured hands; nails_painted_mean: nails painted
    per shown frame after the first (the first comes before the hands are tracked and the style is on)."""

    def __init__(self, controller: KioskController) -> None:
        self._controller = controller
        self.first_frame_epoch_s: float | None = None
        self.frames = 0
        self.frames_with_hands = 0
        self._nails_after_first = 0
        self._hand = False
        self._at_frames: tuple[int, Callable[[], None]] | None = None
        controller.tryon.mirror_loop.frame_shown.connect(self._on_frame)
        controller.tryon.mirror_loop.hand_seen_changed.connect(self._on_hand_change)

    def _on_frame(self) -> None:
        if self.first_frame_epoch_s is None:
            self.first_frame_epoch_s = time.time()
        self.frames += 1
        self.frames_with_hands += int(self._hand)
        if self.frames > 1:
            self._nails_after_first += self._controller.tryon.mirror_loop.last_nails
        if self._at_frames is not None and self.frames == self._at_frames[0]:
            QTimer.singleShot(0, self._at_frames[1])  # after this frame's signal, not inside it

    def when_painted(self, frames: int, call: Callable[[], None]) -> None:
        """Call `call()` once `frames` frames have been painted."""
        self._at_frames = (frames, call)

    def _on_hand_change(self, seen: bool) -> None:
        self._hand = seen

    def summary(self, screenshot: Path | None) -> dict[str, Any]:
        loop = self._controller.tryon.mirror_loop
        services = self._controller.services
        style = services.session.style
        return {
            "frames_painted": self.frames,
            "frames_with_hands": self.frames_with_hands,
            "first_frame_epoch_s": self.first_frame_epoch_s,
            "fps": round(loop.fps(), 2),
            "max_hands": int(services.session.pipeline.max_hands),
            "nails_painted_mean": round(self._nails_after_first / (self.frames - 1), 2) if self.frames > 1 else 0.0,
            "stage_ms": {k: round(v, 2) for k, v in loop.last_timings_ms.items()},
            "style_code": style.code if style is not None else None,
            "source": services.supervisor.state,
            "frozen": bool(getattr(sys, "frozen", False)),
            "screenshot": str(screenshot) if screenshot else None,
        }


def run_kiosk_app(language: str, build_services: Callable[[], KioskServices], options: WindowOptions) -> int:
    """Create the QApplication, build the services, show the kiosk and run the event loop; the exit status."""
    on_screen_keyboard.prepare_environment()  # the input method is chosen when the QApplication starts
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["nailmirror"])
    theme.apply_theme(app)
    i18n.install_language(language)
    bridge.install()
    controller = KioskController(build_services())
    keyboard = on_screen_keyboard.OnScreenKeyboard(controller.window, parent=controller)
    keyboard.shown_changed.connect(controller.make_room_for_keyboard)
    _show(controller, options)
    controller.start()
    report = RunReport(controller)
    check = None
    if options.check_keyboard and options.quit_after_s is not None:
        check = KeyboardCheck(controller, keyboard, options.quit_after_s)
    exit_code = 0
    finished = False

    def finish() -> None:
        nonlocal exit_code, finished
        if finished:  # the frame count and the time limit may both come
            return
        finished = True
        if options.screenshot is not None:
            exit_code = 0 if controller.save_screenshot(options.screenshot) else 1
        summary = report.summary(options.screenshot)
        if check is not None:
            summary["keyboard"] = check.summary()
        print(json.dumps(summary), flush=True)
        controller.shutdown()
        app.quit()

    if options.quit_after_s is not None:
        QTimer.singleShot(int(options.quit_after_s * 1000), finish)
    if options.quit_after_frames is not None:
        report.when_painted(options.quit_after_frames, finish)

    def restart() -> None:
        nonlocal exit_code
        exit_code = EXIT_RESTART
        controller.shutdown()
        app.quit()

    controller.staff.restart_was_requested.connect(restart)

    def on_quit() -> None:
        if not options.fullscreen and options.screenshot is None:
            controller.window.save_geometry()
        controller.shutdown()

    app.aboutToQuit.connect(on_quit)
    app.exec()
    del keyboard
    return exit_code


def _show(controller: KioskController, options: WindowOptions) -> None:
    window = controller.window
    if options.fullscreen:
        window.showFullScreen()
        return
    window.resize(1280, 800)
    if options.screenshot is None:  # screenshots keep a known size; otherwise staff's last window placement
        window.restore_geometry()
    window.show()
