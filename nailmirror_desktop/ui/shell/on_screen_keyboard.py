"""The on-screen keyboard (issue #13, point 1): Qt Virtual Keyboard, pinyin and English, inside the window.

A widgets program using `QT_IM_MODULE=qtvirtualkeyboard` gets the keyboard in a window of its own, which a
full-screen kiosk hides or lets float over the mirror. Here its `InputPanel` is embedded instead: a
`QQuickWidget` (resources/keyboard/keyboard.qml) at the bottom of the main window, under the pages, so the
layout makes room for it (the mirror shrinks; nothing is covered). It shows whenever a text field takes focus
(the prompt, the style search, the staff fields) and hides when focus leaves text; the language key on it
switches zh (pinyin) / en, and it follows the kiosk's language.

`prepare_environment()` must run before the QApplication exists: the input method is chosen when Qt starts.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from PySide6.QtCore import Q_ARG, Q_RETURN_ARG, SIGNAL, QEvent, QMetaObject, QObject, QSizeF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtQuickWidgets import QQuickWidget
from PySide6.QtWidgets import QApplication, QMainWindow, QVBoxLayout, QWidget

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.ui.shell import i18n, theme

log = logging.getLogger(__name__)
KEYBOARD_QML = ("keyboard", "keyboard.qml")
SALON_WORDS = ("keyboard", "salon_words.txt")
HEIGHT_FRACTION = 0.36  # of the window: room for four key rows and the pinyin candidates at 1280×800
MIN_HEIGHT_PX = 160
LOAD_AFTER_MS = 3000
KEYS_ASPECT = 3.2  # the default style's key block: width / height
LOCALES = {"zh_CN": "zh_CN", "en": "en_US"}


def prepare_environment() -> None:
    """Before QApplication: the virtual keyboard as input method, not in a window of its own, and Qt Quick's
    software renderer (offscreen and Xvfb have no OpenGL; store PCs' drivers vary). Values already set win."""
    os.environ.setdefault("QT_IM_MODULE", "qtvirtualkeyboard")
    os.environ.setdefault("QT_VIRTUALKEYBOARD_DESKTOP_DISABLE", "1")
    os.environ.setdefault("QT_QUICK_BACKEND", "software")


class OnScreenKeyboard(QObject):
    """Embeds the keyboard under `window`'s central widget and shows it while a text field has focus.
    `shown_changed(bool)` says when it comes and goes, so the pages can make room (KioskController)."""

    shown_changed = Signal(bool)

    def __init__(self, window: QMainWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._window = window
        self.view = QQuickWidget()
        self.view.setObjectName("onScreenKeyboard")
        self.view.setResizeMode(QQuickWidget.ResizeMode.SizeRootObjectToView)
        self.view.setAttribute(Qt.WidgetAttribute.WA_AcceptTouchEvents)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a key press must not take focus from the field
        self.view.setClearColor(QColor(theme.BACKGROUND))  # beside the keys, when the window is wider
        self.view.hide()
        self.view.installEventFilter(self)  # its Show and Hide: shown_changed
        self._loaded = False
        pages = window.takeCentralWidget()
        if pages is None:
            raise RuntimeError("the keyboard goes under the window's central widget: set one first")
        # The pages give up height to the keyboard even below their natural minimum (an explicit minimum wins
        # over the size hint): on a fixed full screen the window cannot grow, so the keyboard must not push it.
        pages.setMinimumHeight(1)
        host = QWidget()
        layout = QVBoxLayout(host)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(pages, 1)
        layout.addWidget(self.view)
        window.setCentralWidget(host)
        window.installEventFilter(self)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_change)
            app.installEventFilter(self)  # LanguageChange reaches the application first
            QGuiApplication.inputMethod().visibleChanged.connect(self._on_input_method_visibility)
        # Loading the keyboard's QML costs ~100 ms: not before the mirror's first frame, and at the latest when
        # a text field first takes focus.
        QTimer.singleShot(LOAD_AFTER_MS, self.load)

    def load(self) -> None:
        """Load the keyboard (once)."""
        if self._loaded:
            return
        self._loaded = True
        self.view.setSource(QUrl.fromLocalFile(str(resources_dir().joinpath(*KEYBOARD_QML))))
        if self.view.status() != QQuickWidget.Status.Ready:
            log.error("on-screen keyboard unavailable: %s", [e.toString() for e in self.view.errors()])
        root = self.view.rootObject()
        if root is not None:  # the panel's height follows its width (and the candidates row): follow it
            QObject.connect(root, SIGNAL("panelHeightChanged()"), self._fit)
            root.setProperty("salonWords", salon_words())
        self._fit()
        self.follow_language()

    @property
    def ready(self) -> bool:
        return self.view.status() == QQuickWidget.Status.Ready and self.view.rootObject() is not None

    @property
    def shown(self) -> bool:
        return self.view.isVisible()

    def keyboard_locale(self) -> str:
        root = self.view.rootObject()
        return str(root.property("keyboardLocale")) if root is not None else ""

    def follow_language(self) -> None:
        root = self.view.rootObject()
        if root is not None:
            root.setProperty("kioskLocale", LOCALES.get(i18n.current_language(), "en_US"))

    def show_keyboard(self) -> None:
        self.load()
        if self.ready:
            self._fit()
            self.view.show()
            QGuiApplication.inputMethod().show()

    def hide_keyboard(self) -> None:
        self.view.hide()
        QGuiApplication.inputMethod().hide()

    def tap_keys(self, letters: str) -> None:
        """Press letter keys on the keyboard as a finger would (pinyin composes): tests and the smoke test."""
        root = self.view.rootObject()
        if root is not None:
            QMetaObject.invokeMethod(root, "tapKeys", Q_ARG("QVariant", letters))

    def choose_candidate(self, index: int = 0) -> None:
        root = self.view.rootObject()
        if root is not None:
            QMetaObject.invokeMethod(root, "chooseCandidate", Q_ARG("QVariant", index))

    def candidate_words(self) -> list[str]:
        """The pinyin candidates as the row shows them, salon words first (tests)."""
        root = self.view.rootObject()
        if root is None:
            return []
        words: Any = QMetaObject.invokeMethod(root, "candidateWords", Qt.ConnectionType.DirectConnection,
                                              Q_RETURN_ARG("QVariant"))
        if hasattr(words, "toVariant"):  # a QJSValue (a JavaScript array)
            words = words.toVariant()
        return [str(w) for w in words or []]

    def _on_input_method_visibility(self) -> None:
        if not QGuiApplication.inputMethod().isVisible():
            self.view.hide()  # the keyboard's own "hide" key

    def _on_focus_change(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is self.view:
            return
        if _takes_text(new) and new is not None and new.window() is self._window:
            self.show_keyboard()
        else:
            self.hide_keyboard()

    def _fit(self) -> None:
        """Keys as wide as HEIGHT_FRACTION of the window's height allows; the widget as tall as the panel."""
        root = self.view.rootObject()
        if root is None:
            return
        if not self.view.isVisible():
            # Hidden, the view has no width of its own yet (the layout gives it one when shown), so the panel
            # measured itself for a narrow root and asked for MIN_HEIGHT_PX: the first show drew the panel at
            # that height, only its two bottom rows, and kept that picture when the height was corrected.
            # The keyboard spans the window: measure the panel at that width before anything is drawn.
            self.view.resize(self._window.width(), self.view.height())
        root.setProperty("maxPanelWidth", self._window.height() * HEIGHT_FRACTION * KEYS_ASPECT)
        height = float(root.property("panelHeight") or 0)
        self.view.setFixedHeight(max(MIN_HEIGHT_PX, int(height + 0.5)))
        # Resized from inside the panel's own height signal, the view does not pass its new size on to the root
        # item (SizeRootObjectToView): the root kept MIN_HEIGHT_PX and the panel, anchored to its bottom, drew
        # its top rows above the view. The root follows the view here.
        root.setSize(QSizeF(self.view.size()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.view and event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            self.shown_changed.emit(event.type() == QEvent.Type.Show)
        elif watched is self._window and event.type() == QEvent.Type.Resize:
            self._fit()
        elif event.type() == QEvent.Type.LanguageChange and watched is QApplication.instance():
            self.follow_language()
        elif event.type() in _TAP_ENDS and not self.view.isVisible() and isinstance(watched, QWidget) \
                and watched.hasFocus() and _takes_text(watched) and watched.window() is self._window:
            # A tap on the field that has focus: after the keyboard's own hide key the field keeps its focus, so
            # no focus change comes (the only other way the keyboard shows) and the keyboard stayed away.
            self.show_keyboard()
        return False


_TAP_ENDS = (QEvent.Type.MouseButtonRelease, QEvent.Type.TouchEnd)


def salon_words() -> list[str]:
    """The words the keyboard offers first when the pinyin engine offers them too: the prompt vocabulary's
    Chinese terms (colours, finishes, patterns…) and resources/keyboard/salon_words.txt. The engine's general
    dictionary put everyday words first (maoyan: 冒烟 before 猫眼)."""
    from nailmirror_desktop.core.generation import vocabulary

    words: dict[str, None] = {}
    path = resources_dir().joinpath(*SALON_WORDS)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        log.warning("salon words unavailable (%s): the keyboard keeps its own order", exc)
        lines = []
    for line in lines:
        word = line.strip()
        if word and not word.startswith("#"):
            words[word] = None
    groups = [forms for _rgb, _en, forms in vocabulary.COLORS.values()]
    groups += [forms for _phrase, forms in (*vocabulary.FINISHES.values(), *vocabulary.PATTERNS.values())]
    for forms in groups:
        for form in forms:
            if len(form) > 1 and not form.isascii():
                words[form] = None
    return list(words)


def _takes_text(widget: QWidget | None) -> bool:
    """A focused widget that accepts typed text (line edits, text edits, editable combo boxes)."""
    return (widget is not None and widget.testAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)
            and not getattr(widget, "isReadOnly", lambda: False)())
