"""The one doorway between worker threads and the GUI (ARCHITECTURE.md §6).

`run_in_background(fn, on_done)` runs `fn()` on a QThreadPool and calls `on_done(result, error)` on the main
thread: exactly one of them is None unless `fn` returned None. `run_on_main(fn)` posts a callable to the main
thread from anywhere. Callers never touch threads or locks themselves; `fn` must not call UI routines.

A `Channel` is that door for one owner: what it posts or runs reaches the main thread only while the channel is
open. Its owner closes it when it shuts down, and an answer still in flight then is dropped here, so no caller
checks "am I shut down yet?" itself. `BackgroundRunner` is a channel with a thread pool of its own.

The bridge also outlives the Qt application safely. At interpreter exit PySide deletes every QObject Python owns
(the bridge's poster among them) and then the application, while a worker may still be finishing (a slow catalog
import outlives the runner's 3 s close). Every emit therefore goes through one lock, and the bridge retires
before PySide's teardown (an exit handler registered after PySide's, so run before it) or when its poster is
destroyed: from then on a post is dropped, never raised on the worker (`RuntimeError: Signal source has been
deleted`) nor emitted on a half-deleted object.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, Qt, QThread, QThreadPool, Signal, Slot

Done = Callable[[Any, BaseException | None], None]


class RunInBackground(Protocol):
    """The bridge's contract as the UI receives it: `fn()` off the GUI thread, `on_done(result, error)` on it."""

    def __call__(self, fn: Callable[[], Any], on_done: Done, /) -> None: ...


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
_gate = threading.Lock()  # held for each emit and for retiring: no emit overlaps the poster's deletion
_retired = False  # the application is being torn down: nothing can run on its main thread any more
_exit_hook = False


def _main_post(*, required: bool = True) -> _MainThreadPost | None:
    """The poster, made on first use; None once the bridge retired or, unless `required`, when there is no
    application (any more). Call with `_gate` held."""
    global _post, _exit_hook
    if _retired:
        return None
    if _post is not None and shiboken6.isValid(_post):
        return _post
    _post = None
    app = QCoreApplication.instance()
    if app is None:
        if required:
            raise RuntimeError("the bridge needs a QCoreApplication (create the app first)")
        return None
    post = _MainThreadPost()
    if post.thread() is not app.thread():
        post.moveToThread(app.thread())
    post.destroyed.connect(_forget_post, Qt.ConnectionType.DirectConnection)
    if not _exit_hook:
        atexit.register(_retire)  # registered after PySide's own exit handler, so it runs before it
        _exit_hook = True
    _post = post
    return post


def _forget_post() -> None:
    """The poster is being deleted (the application went away without our exit handler): stop using it."""
    global _post
    with _gate:
        _post = None


def _retire() -> None:
    global _retired
    with _gate:
        _retired = True


def install() -> None:
    """Create the bridge on the main thread. Call once after the QApplication exists (idempotent)."""
    app = QCoreApplication.instance()
    if app is not None and QThread.currentThread() is not app.thread():
        raise RuntimeError("install the bridge from the main thread")
    with _gate:
        _main_post()


def run_on_main(call: Callable[[], None]) -> None:
    """Run `call()` on the main thread, soon (queued; never synchronously). Dropped once the application is
    being torn down."""
    with _gate:
        post = _main_post(required=False)
        if post is not None:
            post.posted.emit(call)


class _Job(QRunnable):
    def __init__(self, fn: Callable[[], Any], on_done: Done, post: Callable[[Callable[[], None]], None]) -> None:
        super().__init__()
        self._fn = fn
        self._on_done = on_done
        self._post = post

    def run(self) -> None:
        try:
            result, error = self._fn(), None
        except BaseException as exc:  # noqa: BLE001 — handed to the caller, who decides
            result, error = None, exc
        on_done = self._on_done
        self._post(lambda: on_done(result, error))


def run_in_background(fn: Callable[[], Any], on_done: Done, *, pool: QThreadPool | None = None) -> None:
    """Run `fn()` off the GUI thread; deliver `(result, error)` to `on_done` on the main thread."""
    with _gate:
        _main_post()  # created here on the caller's (main) thread if it does not exist yet
    (pool or QThreadPool.globalInstance()).start(_Job(fn, on_done, run_on_main))


class Channel:
    """One owner's door to the main thread. Open when made; `close()` (on the main thread) drops whatever is
    still on its way. Make it on the main thread, after the QApplication."""

    def __init__(self, pool: QThreadPool | None = None) -> None:
        with _gate:
            _main_post()
        self._pool = pool
        self._open = True

    @property
    def is_open(self) -> bool:
        return self._open

    def post(self, call: Callable[[], None]) -> None:
        """From any thread: `call()` on the main thread, unless the channel was closed before it got there."""
        if self._open:  # closed already: not even posted (the application may be gone by now)
            run_on_main(lambda: self._deliver(call))

    def run_in_background(self, fn: Callable[[], Any], on_done: Done) -> None:
        """`fn()` on the channel's pool (the global one if none); `on_done(result, error)` while still open.
        A closed channel starts nothing: its owner shut down, and its pool may be gone."""
        if not self._open:
            return
        (self._pool or QThreadPool.globalInstance()).start(_Job(fn, on_done, self.post))

    __call__ = run_in_background  # a channel is a RunInBackground

    def close(self) -> None:
        self._open = False

    def _deliver(self, call: Callable[[], None]) -> None:
        if self._open:
            call()


class BackgroundRunner(Channel):
    """A channel on a pool of its own, so its work never waits behind work queued on the global pool."""

    def __init__(self, max_threads: int) -> None:
        pool = QThreadPool()
        pool.setMaxThreadCount(max_threads)
        super().__init__(pool)
        self.pool = pool

    def close(self, wait_ms: int = 3000) -> None:
        """Drop answers still on their way, then let running work finish (up to `wait_ms`)."""
        super().close()
        self.pool.waitForDone(wait_ms)
