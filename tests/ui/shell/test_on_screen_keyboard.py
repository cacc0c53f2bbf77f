"""The on-screen keyboard in a real kiosk window under Xvfb: it opens when the AI prompt takes focus, fits
under the pages (the prompt stays above it), composes pinyin into Chinese, follows the kiosk's language and
closes when focus leaves text. The screenshot is kept in test-artifacts/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from tests.support.ui_support import ROOT
from tests.support.xvfb import xvfb_display

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.qt]
ARTIFACTS = ROOT / "test-artifacts"


def run_keyboard_kiosk(tmp_path, nailmirror_home, language: str) -> tuple[dict, object]:
    shot = tmp_path / f"keyboard_{language}.png"
    with xvfb_display() as display:
        env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "QT_IM_MODULE")}
        env.update(DISPLAY=display, NAILMIRROR_HOME=str(nailmirror_home), QT_QPA_PLATFORM="xcb",
                   PYTHONPATH=str(ROOT), HOME=str(tmp_path))  # HOME: the pinyin user dictionary goes there
        run = subprocess.run([sys.executable, "-m", "tests.support.keyboard_run", str(shot), language],
                             env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1]), shot


def test_the_keyboard_opens_on_the_prompt_and_types_pinyin(tmp_path, nailmirror_home):
    seen, shot = run_keyboard_kiosk(tmp_path, nailmirror_home, "zh_CN")
    assert seen["shown_before_focus"] is False and seen["shown"] is True
    assert seen["locale"] == "zh_CN"
    assert seen["prompt_text"].startswith("你")  # "ni" on the keys, the first candidate picked
    assert seen["window_height"] == 800  # the window did not grow to make room
    assert seen["keyboard_top"] + seen["keyboard_height"] == seen["window_height"]
    # the first show draws the whole panel: the scene as tall as the view and the panel, no rows above it (#22)
    assert seen["root_height"] == seen["keyboard_height"] >= seen["panel_height"] > 160
    assert seen["prompt_bottom"] <= seen["keyboard_top"]  # the field being typed in stays in sight
    assert seen["mirror_height"] >= 300  # and so does the mirror
    assert seen["hidden_by_its_key"] is True and seen["reopened_on_same_field"] is True  # #22
    assert seen["shown_after_focus_left"] is False
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(shot, ARTIFACTS / "keyboard_open_on_prompt_zh.png")
    image = np.asarray(Image.open(shot).convert("RGB"))
    keys = image[seen["keyboard_top"]:, :]
    assert keys.std() > 10, "the keyboard area is blank: the InputPanel did not render"


def test_in_english_the_keyboard_is_english(tmp_path, nailmirror_home):
    seen, shot = run_keyboard_kiosk(tmp_path, nailmirror_home, "en")
    assert seen["shown"] is True and seen["locale"] == "en_US"
    assert seen["prompt_text"].lower().startswith("ni")  # no composition in English
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(shot, ARTIFACTS / "keyboard_open_on_prompt_en.png")
