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
and prompts customers typed).
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import sys
import threading
from pathlib import Path

LOG_DIR_NAME = "logs"
LOG_FILE_NAME = "kiosk.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 5
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# Read by the native libraries when they load: set before the first import of cv2 or mediapipe.
QUIET_ENVIRONMENT = {
    "OPENCV_LOG_LEVEL": "ERROR",  # OpenCV's V4L2/FFmpeg "[ WARN:0@…]" lines
}
# Tried and without effect on mediapipe 0.10.21's absl logging: GLOG_minloglevel, TF_CPP_MIN_LOG_LEVEL (hence the
# descriptor redirection below). Qt's offscreen "does not support propagateSizeHints()" has no category either.


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


def log_file_path() -> Path:
    """data_dir()/logs/kiosk.log (the folder made owner-only); raises DataDirUnusable."""
    from nailmirror_desktop.core.paths import data_dir, private_dir

    return private_dir(data_dir() / LOG_DIR_NAME) / LOG_FILE_NAME


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
        sys.stderr = self.terminal
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self._thread = threading.Thread(target=self._pump, name="native-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        for raw in iter(self._reader.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self._logger.info("%s", line)


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
            NativeStderr(logging.getLogger("native"))
    console = logging.StreamHandler(sys.stderr)  # made after the redirection: the real terminal
    console.setFormatter(logging.Formatter(FORMAT))
    console.setLevel(logging.INFO if verbose else logging.WARNING)
    root.addHandler(console)
    return path
