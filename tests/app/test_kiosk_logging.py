"""The kiosk's logs, in a real kiosk process (offscreen, demo video): a quiet terminal, a log file that holds
what the native libraries said, and `--verbose` bringing it all back."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.app.kiosk_logging import LOG_DIR_NAME, LOG_FILE_NAME

pytestmark = [pytest.mark.qt, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
# What staff used to see on every start: absl's and TFLite's lines, EGL, OpenCV's camera warnings.
NOISE = re.compile(r"absl|EGL|TensorFlow Lite|\[ WARN|VIDEOIO|^[IWE]\d{4} ", re.MULTILINE)


def _run_kiosk(home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NAILMIRROR_HOME": str(home), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(ROOT), "MPLCONFIGDIR": str(home / "mpl")}
    for name in ("OPENCV_LOG_LEVEL", "QT_LOGGING_RULES"):
        env.pop(name, None)
    # until the first frame is painted: the tracker (MediaPipe) has loaded and run by then
    return subprocess.run([sys.executable, "-m", "nailmirror_desktop", "kiosk", "--windowed",
                           "--quit-after-frames", "1", "--quit-after", "60", *extra],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_kiosk_prints_no_library_noise_and_writes_its_log_file(tmp_path):
    run = _run_kiosk(tmp_path)  # no --demo: the camera probe runs (and finds none here) before the demo plays
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])  # stdout keeps the run's report
    assert report["source"] == "DEMO" and report["frames_painted"] == 1
    assert NOISE.search(run.stderr) is None, run.stderr
    log = tmp_path / LOG_DIR_NAME / LOG_FILE_NAME
    text = log.read_text(encoding="utf-8")
    assert "nailmirror_desktop" in text  # our own records
    # mediapipe loaded and had its say before the first frame was painted, and the lines were kept
    assert re.search(r"native: .*(absl|XNNPACK)", text), text
    assert log.stat().st_mode & 0o077 == 0  # owner-only, like the rest of the data directory


def test_verbose_brings_the_native_lines_back_to_the_terminal(tmp_path):
    run = _run_kiosk(tmp_path, "--demo", "--verbose")
    assert run.returncode == 0, run.stderr
    assert re.search(r"absl|XNNPACK", run.stderr), run.stderr
    assert "INFO nailmirror_desktop" in run.stderr


def test_an_uncaught_exception_goes_to_the_log_file_whole_and_to_the_terminal_on_one_line(capsys, tmp_path):
    """The kiosk's hooks (configure_logging installs them): a Qt slot's or a worker thread's exception reached
    the terminal as a traceback and never the rotating file (#22.8)."""
    import sys
    import threading

    from nailmirror_desktop.app.kiosk_logging import CLI_LOG_FILE_NAME, command_logging, install_exception_hooks

    hooks = sys.excepthook, threading.excepthook
    try:
        with command_logging(native=False) as log:
            install_exception_hooks()
            try:
                raise ValueError("a slot went wrong")
            except ValueError:
                sys.excepthook(*sys.exc_info())

            def worker() -> None:
                raise KeyError("a worker went wrong")

            thread = threading.Thread(target=worker, name="texture-decode")
            thread.start()
            thread.join()
    finally:
        sys.excepthook, threading.excepthook = hooks
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    assert "ValueError: a slot went wrong" in lines[0] and str(log) in lines[0]
    assert "texture-decode" in lines[1] and "KeyError" in lines[1]
    assert log is not None and log.name == CLI_LOG_FILE_NAME
    text = log.read_text(encoding="utf-8")
    assert text.count("Traceback (most recent call last)") == 2 and "raise ValueError" in text
