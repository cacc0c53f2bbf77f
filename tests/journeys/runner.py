"""The journey runner: the real kiosk, started through its real entry point (`nailmirror kiosk
--demo-if-no-camera`, what `./dev kiosk` runs) in this process, on the Xvfb display of conftest.py, driven as a
customer or staff member would: taps and key presses go to the kiosk's top-level window at the screen
coordinates of the widgets found on screen (QTest on the QWindow, so Qt routes them as it routes a real touch),
keys of the on-screen keyboard are found in its Qt Quick scene and tapped the same way.

A `Journey` runs named steps. Each step acts, waits for a condition (event-based: the event loop runs while it
waits, never a fixed sleep), saves a screenshot of the screen to test-artifacts/journeys/<journey>/<nn>-<step>.png
and checks. Any Python exception (sys.excepthook, threading.excepthook, an exception the kiosk logs) and any
critical Qt message fails the journey at the step it happened in.

Where the kiosk has no handle for a step (the idle timeout, the take-home link's address) the journey sets it
through the kiosk's config before the start, as staff would. Widgets are read to check, never to act.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "journeys"
KEEP_SHOTS_ENV = "NAILMIRROR_KEEP_JOURNEY_SHOTS"  # "1": keep the screenshots of passed journeys too
WAIT_S = float(os.environ.get("NAILMIRROR_JOURNEY_WAIT_S", "90"))  # generous: a loaded 2-core PC
COVER_SETTLE_S = 3.0  # how long a tap waits for a layout still moving under it before the widget counts as covered


class JourneyFailed(AssertionError):
    pass


# --- errors anywhere fail the journey ---------------------------------------------------------------------
# Qt's critical and fatal messages, marked in the lines Qt writes (conftest sets QT_MESSAGE_PATTERN before the
# QApplication exists); the kiosk logs native stderr lines as the "native" logger (app/kiosk_logging.py).
# Not qInstallMessageHandler: a Python handler deadlocks the kiosk. Qt Quick's type loader thread reports through
# the handler, which needs the GIL, while the main thread holds the GIL in QQuickWidget.setSource waiting for that
# thread (measured: the on-screen keyboard's load never returned, with pytest-qt's handler as with ours).
QT_CRITICAL = "QT-CRITICAL"
QT_MESSAGE_PATTERN = f"%{{if-critical}}{QT_CRITICAL} %{{endif}}%{{if-fatal}}{QT_CRITICAL} %{{endif}}%{{message}}"


@dataclass
class ErrorTrap:
    """Collects Python exceptions (main thread, other threads, exceptions the kiosk logs) and critical Qt
    messages while installed."""

    errors: list[str] = field(default_factory=list)

    def install(self) -> Callable[[], None]:
        old_hook, old_thread_hook = sys.excepthook, threading.excepthook

        def excepthook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
            self.errors.append("".join(traceback.format_exception(kind, value, tb)))

        def thread_hook(args: threading.ExceptHookArgs) -> None:
            self.errors.append(f"thread {args.thread}: " + "".join(
                traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)))

        trap = self

        class LoggedExceptions(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if record.name == "native" and QT_CRITICAL in record.getMessage():
                    trap.errors.append(record.getMessage())
                    return
                if record.levelno >= logging.ERROR and record.exc_info and record.exc_info[0] is not None:
                    trap.errors.append(f"logged by {record.name}: {record.getMessage()}\n"
                                       + "".join(traceback.format_exception(*record.exc_info)))

        handler = LoggedExceptions(logging.INFO)
        sys.excepthook, threading.excepthook = excepthook, thread_hook
        logging.getLogger().addHandler(handler)

        def uninstall() -> None:
            sys.excepthook, threading.excepthook = old_hook, old_thread_hook
            logging.getLogger().removeHandler(handler)

        return uninstall

    def take(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors


# --- the kiosk as a person sees it --------------------------------------------------------------------------
class Screen:
    """The kiosk on the screen: finds widgets by what they show, taps them, types, reads the mirror."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller  # read to check; every action goes through the window
        self.window = controller.window

    # waiting
    def wait_until(self, condition: Callable[[], Any], what: str, timeout_s: float = WAIT_S) -> Any:
        from PySide6.QtTest import QTest

        deadline = time.monotonic() + timeout_s
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise JourneyFailed(f"waited {timeout_s:.0f} s for: {what}")
            QTest.qWait(40)

    def settle(self, ms: int = 150) -> None:
        """Let queued events and repaints run (an event-loop turn, not a wait for anything in particular)."""
        from PySide6.QtTest import QTest

        QTest.qWait(ms)

    # finding
    def visible(self, widget: Any) -> bool:
        return bool(widget.isVisible()) and widget.window().isVisible() and not widget.visibleRegion().isEmpty()

    def windows(self) -> list[Any]:
        """The kiosk window and the dialogs it shows (the PIN pad, notices), topmost first."""
        from PySide6.QtWidgets import QApplication

        dialogs = [w for w in QApplication.topLevelWidgets() if w.isVisible() and w is not self.window]
        return [*dialogs, self.window]

    def buttons(self, text: str) -> list[Any]:
        from PySide6.QtWidgets import QAbstractButton

        return [b for window in self.windows() for b in window.findChildren(QAbstractButton)
                if _plain(b.text()) == _plain(text) and self.visible(b)]

    def button(self, text: str) -> Any:
        return self.wait_until(lambda: next(iter(self.buttons(text)), None), f"a button '{text}' on screen")

    def texts(self) -> list[str]:
        """Every text a visible label or button shows."""
        from PySide6.QtWidgets import QAbstractButton, QLabel

        shown: list[str] = []
        for window in self.windows():
            shown += [w.text() for w in window.findChildren(QLabel) if self.visible(w) and w.text()]
            shown += [w.text() for w in window.findChildren(QAbstractButton) if self.visible(w) and w.text()]
        return shown

    def shows_text(self, text: str) -> bool:
        return any(_plain(text) in _plain(t) for t in self.texts())

    # acting
    def tap_at(self, widget: Any, point: Any = None) -> None:
        """A tap on `widget` (at `point` in its coordinates, else its middle), delivered to the top-level window
        at that screen position; the widget must be the one on top there."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        self.wait_until(lambda: self.visible(widget) and widget.isEnabled(), f"{_describe(widget)} visible, enabled")
        top = widget.window()
        # A finger taps what the screen shows once it stopped moving: a layout still settling (the chips coming
        # back as the keyboard goes, a grid laid out again for taller tiles) is waited out for a moment, with the
        # place asked again each time; something that stays on top of the widget fails the step.
        deadline = time.monotonic() + COVER_SETTLE_S
        while True:
            local = widget.rect().center() if point is None else point() if callable(point) else point
            at = top.mapFromGlobal(widget.mapToGlobal(local))
            hit = top.childAt(at)
            if hit is not None and (hit is widget or widget.isAncestorOf(hit)):
                break
            if time.monotonic() > deadline:
                raise JourneyFailed(f"{_describe(widget)} ({widget.width()}×{widget.height()}) is covered at "
                                    f"{at.toTuple()} (its {local.toTuple()}) by {_describe(hit)}")
            QTest.qWait(40)
        if not top.isActiveWindow():
            # Xvfb runs no window manager and a synthesized tap does not move the X pointer: the window a finger
            # touches gets the X focus on the kiosk's bare X session, here it is given it (after a dialog closed)
            top.activateWindow()
            self.wait_until(top.isActiveWindow, f"{_describe(top)} active", 10)
        QTest.mouseClick(top.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
        self.settle(60)

    def scroll_to(self, widget: Any) -> None:
        """Scroll the page that holds `widget` until it is in sight, as staff swipe a long settings page."""
        from PySide6.QtWidgets import QScrollArea

        parent = widget.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            parent.ensureWidgetVisible(widget)
            self.settle(60)

    def tap(self, text: str) -> None:
        self.tap_at(self.button(text))

    def tap_tab(self, tabs: Any, title: str) -> None:
        bar = tabs.tabBar()
        index = self.wait_until(lambda: next((i for i in range(bar.count()) if bar.tabText(i) == title), None)
                                is not None, f"a tab '{title}'")
        index = next(i for i in range(bar.count()) if bar.tabText(i) == title)
        self.tap_at(bar, bar.tabRect(index).center())

    def tap_list_row(self, view: Any, row: int) -> None:
        index = view.model().index(row, 0)
        view.scrollTo(index)
        self.settle(60)
        # the middle of what shows of the row: a finger taps the part of a tile that is on screen
        self.tap_at(view.viewport(), lambda: view.visualRect(index).intersected(view.viewport().rect()).center())

    def press_key(self, key: Any) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        QTest.keyClick(self.window.windowHandle(), key, Qt.KeyboardModifier.NoModifier)
        self.settle(60)

    def type_keys(self, digits: str) -> None:
        """Digits typed on a physical keyboard: key presses at the kiosk window."""
        from PySide6.QtCore import Qt

        for digit in digits:
            self.press_key(Qt.Key(Qt.Key.Key_0.value + int(digit)))

    # the mirror
    def painted_nails(self) -> tuple[int, int]:
        """Painted nails on the frame the mirror shows, (on the left half, on the right half): blobs where the
        painted frame differs from the same instant unpainted."""
        import cv2

        pair = self.controller.services.session.latest_pair()
        if pair is None:
            return 0, 0
        changed = (np.abs(pair.after.astype(np.int16) - pair.before.astype(np.int16)).max(axis=2) > 30)
        count, _labels, stats, centroids = cv2.connectedComponentsWithStats(changed.astype(np.uint8), 8)
        min_area = changed.shape[0] * changed.shape[1] * 0.00015
        blobs = [centroids[i][0] for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= min_area]
        half = changed.shape[1] / 2
        return sum(1 for x in blobs if x < half), sum(1 for x in blobs if x >= half)

    def screenshot(self, path: Path) -> np.ndarray:
        """The whole screen as the X server has it ((H, W, 3) uint8 RGB), saved to `path`."""
        from PySide6.QtGui import QImage

        self.settle(30)
        image = self.window.screen().grabWindow(0).toImage().convertToFormat(QImage.Format.Format_RGB888)
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(path))
        width, height, stride = image.width(), image.height(), image.bytesPerLine()
        data = np.frombuffer(image.constBits(), np.uint8, count=stride * height).reshape(height, stride)
        return data[:, :width * 3].reshape(height, width, 3).copy()


class OnScreenKeyboard:
    """The kiosk's on-screen keyboard (a Qt Quick scene in the window): keys found by their label, tapped
    at their screen position."""

    def __init__(self, screen: Screen) -> None:
        from PySide6.QtQuickWidgets import QQuickWidget

        self.screen = screen
        self.view = screen.window.findChild(QQuickWidget, "onScreenKeyboard")

    @property
    def shown(self) -> bool:
        return self.view is not None and self.view.isVisible() and self.view.height() > 0

    def _items(self) -> list[Any]:
        root = self.view.rootObject() if self.view is not None else None
        found: list[Any] = []
        stack = [root] if root is not None else []
        while stack:
            item = stack.pop()
            if not item.isVisible() or item.opacity() == 0:
                continue
            found.append(item)
            stack.extend(item.childItems())
        return found

    def _in_view(self, item: Any) -> bool:
        middle = item.mapToScene(item.boundingRect().center())
        return 0 <= middle.x() < self.view.width() and 0 <= middle.y() < self.view.height() and item.width() > 4

    def key(self, label: str, timeout_s: float = 30) -> Any:
        def find() -> Any:
            for item in self._items():
                if item.property("keyType") is None and item.property("key") is None:
                    continue
                text = item.property("displayText") or item.property("text")
                if isinstance(text, str) and text.lower() == label.lower() and self._in_view(item):
                    return item
            return None

        try:
            return self.screen.wait_until(find, f"the key '{label}' on the on-screen keyboard", timeout_s)
        except JourneyFailed as exc:
            keys = [(_qml_type(i), i.property("text"), i.property("key"), self._in_view(i),
                     i.mapToScene(i.boundingRect().center()).toTuple()) for i in self._items()
                    if i.property("text")]
            raise JourneyFailed(f"{exc}; view {self.view.size().toTuple()}; keys {keys[:40]}") from exc

    def key_of_type(self, type_name: str) -> Any:
        """A function key by its QML type name (HideKeyboardKey, BackspaceKey, ChangeLanguageKey…)."""
        def find() -> Any:
            return next((i for i in self._items() if _qml_type(i).startswith(type_name) and self._in_view(i)), None)

        return self.screen.wait_until(find, f"a {type_name} on the on-screen keyboard", 30)

    def candidate(self, word: str) -> Any:
        def find() -> Any:
            for item in self._items():
                if _qml_type(item).startswith("QQuickText") and item.property("text") == word and self._in_view(item):
                    return item
            return None

        return self.screen.wait_until(find, f"the candidate '{word}' above the keys", 30)

    def tap_item(self, item: Any) -> None:
        from PySide6.QtCore import QPoint

        middle = item.mapToScene(item.boundingRect().center())
        self.screen.tap_at(self.view, QPoint(round(middle.x()), round(middle.y())))

    def type(self, letters: str) -> None:
        for letter in letters:
            self.tap_item(self.key(letter))

    def type_digits(self, digits: str) -> None:
        """Digits: from the letter layout's number keys when it has them, else through its "&123" key."""
        try:
            self.key(digits[0], timeout_s=1)
        except JourneyFailed:
            self.tap_item(self.key("&123"))
        for digit in digits:
            self.tap_item(self.key(digit))

    def choose(self, word: str) -> None:
        self.tap_item(self.candidate(word))

    def describe(self) -> list[str]:
        """Every visible item's type and text (for failure messages)."""
        return [f"{_qml_type(i)} {i.property('text')!r}" for i in self._items() if i.property("text")]


def _qml_type(item: Any) -> str:
    return str(item.metaObject().className())


def _plain(text: str) -> str:
    return text.replace("&", "").strip()


def _describe(widget: Any) -> str:
    if widget is None:
        return "nothing"
    name = widget.objectName() or type(widget).__name__
    text = widget.text() if hasattr(widget, "text") and callable(widget.text) else ""
    return f"{name}({text!r})" if text else name


# --- a journey -----------------------------------------------------------------------------------------------
class Journey:
    """Named steps on a running kiosk; each ends with a screenshot and a check for errors anywhere."""

    def __init__(self, name: str, screen: Screen, trap: ErrorTrap) -> None:
        self.name = name
        self.screen = screen
        self.keyboard = OnScreenKeyboard(screen)
        self.trap = trap
        self.folder = ARTIFACTS / name
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.number = 0
        self.last_shot: np.ndarray | None = None
        self.timings: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def step(self, title: str) -> Iterator[Screen]:
        self.number += 1
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        shot = self.folder / f"{self.number:02d}-{slug}.png"
        started = time.monotonic()
        try:
            yield self.screen
            self.last_shot = self.screen.screenshot(shot)
            self._raise_errors()
        except Exception as exc:
            with contextlib.suppress(Exception):
                self.screen.screenshot(shot.with_name(shot.stem + "-FAILED.png"))
            errors = self.trap.take()
            detail = "\n".join(errors) if errors else ""
            message = (f"journey '{self.name}', step {self.number} '{title}': {exc}\n{detail}\n"
                       f"screenshots: {self.folder}")
            (self.folder / "FAILED.txt").write_text(message, encoding="utf-8")
            raise JourneyFailed(message) from exc
        finally:
            self.timings.append((title, time.monotonic() - started))

    def _raise_errors(self) -> None:
        errors = self.trap.take()
        if errors:
            raise JourneyFailed("errors while the step ran:\n" + "\n".join(errors))


# --- starting the kiosk --------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_config(home: Path, **values: Any) -> dict[str, Any]:
    """The kiosk's config.json before its first start, as staff would leave it: the idle timeout at its minimum
    and the take-home link on this machine's loopback address, on a free port."""
    from nailmirror_desktop.core.config import KioskConfig, save_config, validated

    config = validated(KioskConfig(idle_timeout_s=0, share_address="127.0.0.1", share_port=free_port()))
    config = config.with_changes(**values)
    save_config(config, home / "config.json")
    return json.loads((home / "config.json").read_text(encoding="utf-8"))


def run_journey(name: str, body: Callable[[Journey], None], monkeypatch: Any) -> Journey:
    """Start the kiosk through `nailmirror kiosk --demo-if-no-camera` and run `body` on it once its window is up;
    the kiosk quits when `body` ends. Raises the journey's failure, if any."""
    from nailmirror_desktop.cli import main
    from nailmirror_desktop.ui.shell import kiosk_app
    from nailmirror_desktop.ui.shell.kiosk_controller import KioskController

    outcome: dict[str, Any] = {}
    trap = ErrorTrap()

    class Observed(KioskController):  # the kiosk's own controller; the journey reads it to check
        def start(self) -> None:
            super().start()
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, lambda: drive(self))

    def drive(controller: KioskController) -> None:
        from PySide6.QtWidgets import QApplication

        screen = Screen(controller)
        journey = Journey(name, screen, trap)
        outcome["journey"] = journey
        try:
            screen.wait_until(lambda: controller.window.isVisible() and controller.window.windowHandle() is not None
                              and controller.window.windowHandle().isExposed(), "the kiosk window on screen")
            controller.window.activateWindow()  # no window manager under Xvfb to make it active
            body(journey)
        except BaseException as exc:  # re-raised after the event loop ends
            outcome["error"] = exc
        finally:
            controller.shutdown()  # as a timed run ends (kiosk_app.run_kiosk_app): the window may close now
            app = QApplication.instance()
            if app is not None:
                app.quit()

    monkeypatch.setattr(kiosk_app, "KioskController", Observed)
    uninstall = trap.install()
    started = time.monotonic()
    handlers, stderr_fd = list(logging.getLogger().handlers), os.dup(2)
    try:
        status = main(["kiosk", "--demo-if-no-camera"])
    finally:
        uninstall()
        # the kiosk's logging set-up is per process: undo it for the next journey in this one
        for handler in logging.getLogger().handlers:
            if handler not in handlers:
                logging.getLogger().removeHandler(handler)
                handler.close()
        os.dup2(stderr_fd, 2)
        os.close(stderr_fd)
        sys.stderr = sys.__stderr__
    journey = outcome.get("journey")
    if "error" in outcome:
        raise outcome["error"]
    if journey is None:
        raise JourneyFailed(f"the kiosk ended (status {status}) before its window came up")
    late = trap.take()
    if late:
        raise JourneyFailed(f"journey '{name}': errors at the kiosk's end:\n" + "\n".join(late))
    assert status == 0, f"the kiosk exited with {status}"
    journey.timings.append(("total", time.monotonic() - started))
    if os.environ.get(KEEP_SHOTS_ENV) != "1":
        shutil.rmtree(journey.folder, ignore_errors=True)
    return journey
