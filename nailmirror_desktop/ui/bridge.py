"""The one doorway between worker threads and the GUI.

`run_in_background(fn, on_done)` runs `fn()` on a QThreadPool and calls `on_done(result, error)` on the main
thread: exactly one of them is None unless `fn` returned None. `run_on_main(fn)` posts a callable to the main
thread from anywhere. Callers never touch threads or locks themselves; `fn` must not call UI routines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, Qt, QThread, QThreadPool, Signal, Slot

from nailmirror_desktop.ui.shell.qt_runtime import protect_none_refcount

Done = Callable[[Any, "BaseException | None"], None]


class _MainThreadPost(QObject):
    """Lives on the main thread; a queued signal carries callables there."""

    posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.posted.connect(self._on_posted, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _on_posted(self, call: Callable[[], None]) -> None:
        call()


_post: _MainThreadPost | None = None


def _main_post() -> _MainThreadPost:
    global _post
    if _post is None:
        protect_none_refcount()  # each emit costs True a reference under PySide6 6.12 on 3.11 (see qt_runtime)
        app = QCoreApplication.instance()
        if app is None:
            raise RuntimeError("the bridge needs a QCoreApplication (create the app first)")
        post = _MainThreadPost()
        if post.thread() is not app.thread():
            post.moveToThread(app.thread())
        _post = post
    return _post


def install() -> None:
    """Create the bridge on the main thread. Call once after the QApplication exists (idempotent)."""
    app = QCoreApplication.instance()
    if app is not None and QThread.currentThread() is not app.thread():
        raise RuntimeError("install the bridge from the main thread")
    _main_post()


def run_on_main(call: Callable[[], None]) -> None:
    """Run `call()` on the main thread, soon (queued; never synchronously)."""
    _main_post().posted.emit(call)


class _Job(QRunnable):
    def __init__(self, fn: Callable[[], Any], on_done: Done) -> None:
        super().__init__()
        self._fn = fn
        self._on_done = on_done

    def run(self) -> None:
        try:
            result, error = self._fn(), None
        except BaseException as exc:  # noqa: BLE001 — handed to the caller, who decides
            result, error = None, exc
        on_done = self._on_done
        run_on_main(lambda: on_done(result, error))


def run_in_background(fn: Callable[[], Any], on_done: Done, *, pool: QThreadPool | None = None) -> None:
    """Run `fn()` off the GUI thread; deliver `(result, error)` to `on_done` on the main thread."""
    _main_post()  # created here on the caller's (main) thread if it does not exist yet
    (pool or QThreadPool.globalInstance()).start(_Job(fn, on_done))
