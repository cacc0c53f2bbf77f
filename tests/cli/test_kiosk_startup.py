"""`nailmirror kiosk` from source as the store build's smoke test runs it: the models preloaded while the UI
builds (app/preload.py), frames painted, and `--check-keyboard` typing pinyin on the on-screen keyboard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.qt]


def test_a_timed_run_paints_hands_and_types_pinyin_on_the_keyboard(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "NAILMIRROR_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    completed = subprocess.run(
        [sys.executable, "-m", "nailmirror_desktop", "kiosk", "--demo", "--windowed", "--quit-after", "8",
         "--check-keyboard"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads([line for line in completed.stdout.splitlines() if line.startswith('{"frames_painted"')][-1])
    assert report["frames_with_hands"] > 0 and report["first_frame_epoch_s"] is not None
    assert report["keyboard"] == {"prompt_focused": True, "shown": True, "ready": True, "locale": "zh_CN",
                                  "typed": "你"}
    # MediaPipe's native lines went to the log file, not the terminal, although the preload starts them early
    assert "absl::InitializeLog" not in completed.stderr
    assert "absl::InitializeLog" in (tmp_path / "data" / "logs" / "kiosk.log").read_text()
