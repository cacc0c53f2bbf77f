"""The kiosk's logs: a rotating file in the data directory, a quiet terminal, and native libraries hushed.

MediaPipe (absl, TFLite, EGL) and OpenCV write to the process's stderr (file descriptor 2) from C++, in lines
that look like crashes to staff ("Unable to initialize EGL", "WARNING: All log messages before
absl::InitializeLog() ..."). OpenCV obeys an environment variable read when it loads, so that is set first,
before anything imports cv2. absl's lines and TFLite's "Created TensorFlow Lite XNNPACK delegate" obey none,
so by default descriptor 2 itself is pointed at a pipe whose
lines go to the log file (logger `native`), and Python's `sys.stderr` keeps the real terminal: our own
one-line errors still reach staff, nothing is lost. `verbose=True` (`nailmirror kiosk --verbose`) leaves all
of it on the terminal as before.

The file: `data_dir()/logs/kiosk.log`, rotated at 1 MB, five old files kept, owner-only (it may name styles
and prompts customers typed). The other commands write `logs/cli.log` the same way (`command_logging`). An
uncaught exception goes to the file with its traceback; the terminal gets one line naming the file.
"""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

LOG_DIR_NAME = "logs"
LOG_FILE_NAME = "kiosk.log"
CLI_LOG_FILE_NAME = "cli.log"  # the other commands' own file: two processes must not rotate one file
MAX_BYTES = 1_000_000
BACKUP_COUNT = 5
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# Read by the native libraries when they load: set before the first import of cv2 or mediapipe.
QUIET_ENVIRONMENT = {
    "OPENCV_LOG_LEVEL": "ERROR",  # OpenCV's V4L2/FFmpeg "[ WARN:0@…]" lines
}
# Tried and without effect on mediapipe 0.10.21's absl logging: GLOG_minloglevel, TF_CPP_MIN_LOG_LEVEL (hence the
# descriptor redirection below; the lines also come from its worker threads during the first detections, not
# only at model load, so the redirection spans the whole run). Qt's offscreen "does not support
# propagateSizeHints()" has no category either.


def quiet_native_libraries() -> None:
    """Set the environment the native libraries read at load time; values already set by the user win."""
    for name, value in QUIET_ENVIRONMENT.items():
        os.environ.setdefault(name, value)


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A RotatingFileHandler whose files are created owner-only whatever the umask (rotation makes new ones)."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.fchmod(fd, 0o600)
        return open(fd, "a", encoding=self.encoding or "utf-8")  # noqa: SIM115 - the handler owns and closes it


def log_file_path(name: str = LOG_FILE_NAME) -> Path:
    """data_dir()/logs/<name> (the folder made owner-only); raises DataDirUnusable."""
    from nailmirror_desktop.core.paths import data_dir, private_dir

    return private_dir(data_dir() / LOG_DIR_NAME) / name


def log_file() -> Path | None:
    """The rotating log file this process writes now, if any (named in the one line a user gets)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, _PrivateRotatingFileHandler):
            return Path(handler.baseFilename)
    return None


class OneLineFormatter(logging.Formatter):
    """The terminal's format: a record that carries an exception gets its type and message on the same line and
    the log file's name, never the traceback (that goes to the file)."""

    def format(self, record: logging.LogRecord) -> str:
        if not record.exc_info and not record.stack_info:
            return super().format(record)
        plain = logging.makeLogRecord(record.__dict__)
        exc = record.exc_info[1] if record.exc_info else None
        plain.exc_info, plain.exc_text, plain.stack_info = None, None, None
        line = super().format(plain)
        if exc is not None:
            line += f" ({type(exc).__name__}: {' '.join(str(exc).split())})"
        where = log_file()
        return line + (f"; details in {where}" if where is not None else "")


def install_exception_hooks() -> None:
    """Every uncaught exception (the main thread, a Qt slot, a worker thread) goes to the log: its traceback to
    the file, one line to the terminal (OneLineFormatter). Before, they were printed whole to the terminal and
    the rotating file never saw them."""
    log = logging.getLogger("nailmirror_desktop.uncaught")

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        log.critical("uncaught exception", exc_info=(kind, value, tb))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.critical("uncaught exception in thread %s", name, exc_info=(args.exc_type, args.exc_value,
                                                                        args.exc_traceback))

    sys.excepthook = hook
    threading.excepthook = thread_hook


class NativeStderr:
    """Descriptor 2 redirected into a pipe read by a daemon thread that logs each line; `sys.stderr` rebound to
    a copy of the original descriptor so Python's own output still reaches the terminal."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger
        sys.stderr.flush()
        self.terminal_fd = os.dup(2)
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self.terminal = os.fdopen(self.terminal_fd, "w", buffering=1, encoding="utf-8", errors="replace")
        self._python_stderr = sys.stderr
        if _on_descriptor_2(sys.stderr):  # else it is already elsewhere (a test's capture): left there
            sys.stderr = self.terminal
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self._thread = threading.Thread(target=self._pump, name="native-stderr", daemon=True)
        self._thread.start()

    def restore(self) -> None:
        """Point descriptor 2 back at the terminal (before an exec: the pipe's reader does not survive it)."""
        sys.stderr.flush()
        os.dup2(self.terminal_fd, 2)

    def close(self) -> None:
        """Undo it all: descriptor 2 and `sys.stderr` as they were, every line already written logged."""
        self.restore()  # the pipe's last writer gone: the reader ends once it has read everything
        self._thread.join(timeout=2)
        if sys.stderr is self.terminal:
            sys.stderr = self._python_stderr
        self._reader.close()
        self.terminal.close()

    def _pump(self) -> None:
        for raw in iter(self._reader.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self._logger.info("%s", line)


def _on_descriptor_2(stream: object) -> bool:
    try:
        return stream is not None and stream.fileno() == 2  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return False


_native: NativeStderr | None = None


def restore_native_stderr() -> None:
    """Undo the redirection of descriptor 2, if any, and flush the log handlers (before the kiosk re-executes)."""
    for handler in logging.getLogger().handlers:
        handler.flush()
    if _native is not None:
        _native.restore()


def configure_logging(verbose: bool) -> Path | None:
    """Set up the kiosk's logging: INFO and up to the file, WARNING and up to the terminal (INFO, and every
    native line, with `verbose`). The log file's path, or None when the data directory cannot hold one (the
    kiosk then reports that directory's problem itself when it opens the database); without a file nothing is
    redirected, so no native line is swallowed."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    path: Path | None
    try:
        path = log_file_path()
        file_handler = _PrivateRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT,
                                                   encoding="utf-8")
    except Exception:  # noqa: BLE001 - an unusable data directory is reported by the kiosk, not here
        path = None
    else:
        file_handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(file_handler)
        if not verbose:
            global _native
            _native = NativeStderr(logging.getLogger("native"))
    console = logging.StreamHandler(sys.stderr)  # made after the redirection: the real terminal
    console.setFormatter(logging.Formatter(FORMAT) if verbose else OneLineFormatter(FORMAT))
    console.setLevel(logging.INFO if verbose else logging.WARNING)
    root.addHandler(console)
    install_exception_hooks()
    return path


# The terminal's handler of a CLI command: a command that says what went wrong on its own one line (`sync now`)
# quiets it while it runs, and the file still gets every record.
CLI_CONSOLE_HANDLER = "nailmirror-cli-console"


@contextlib.contextmanager
def command_logging(native: bool) -> Iterator[Path | None]:
    """For one CLI command (not the kiosk, which has configure_logging): records to data_dir()/logs/cli.log,
    rotated like the kiosk's, warnings also to the terminal on one line; with `native`, descriptor 2 into that
    file too while the command runs, so MediaPipe's and TFLite's lines (about ten per `tryon`, which obey no
    environment variable in mediapipe 0.10.21) stay off the terminal. Everything is undone at the end (the
    tests run many commands in one process). Yields the file, or None when the data directory cannot hold it:
    then nothing is redirected and no line is lost."""
    root = logging.getLogger()
    try:
        path = log_file_path(CLI_LOG_FILE_NAME)
        file_handler: logging.Handler = _PrivateRotatingFileHandler(path, maxBytes=MAX_BYTES,
                                                                    backupCount=BACKUP_COUNT, encoding="utf-8")
    except Exception:  # noqa: BLE001 - the command reports an unusable data directory itself
        yield None
        return
    file_handler.setFormatter(logging.Formatter(FORMAT))
    console = logging.StreamHandler(sys.stderr)
    console.set_name(CLI_CONSOLE_HANDLER)
    console.setFormatter(OneLineFormatter("%(levelname)s: %(message)s"))
    console.setLevel(logging.WARNING)
    level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(file_handler)
    root.addHandler(console)
    native_stderr = NativeStderr(logging.getLogger("native")) if native else None
    try:
        yield path
    finally:
        if native_stderr is not None:
            native_stderr.close()
        for handler in (console, file_handler):
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
