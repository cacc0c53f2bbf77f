"""`nailmirror eval`: the still JSON line says what it scored and that the model's figures are in-sample; the
video mode scores clips made by tools/make_eval_clips.py and prints the issue's three metrics."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.cli import main

ROOT = Path(__file__).resolve().parents[2]
QUICK_PHOTO = "3493127D-7B19-4E50-94AE-2401BD2A91C8"


def _one_photo_dataset(nails_eval_dir: Path, folder: Path) -> Path:
    for sub, suffix in (("images", ".jpg"), ("masks", ".png")):
        (folder / sub).mkdir(parents=True)
        shutil.copy(nails_eval_dir / sub / f"{QUICK_PHOTO}{suffix}", folder / sub / f"{QUICK_PHOTO}{suffix}")
    return folder


def _json_line(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
def test_still_eval_says_its_masks_and_that_a_training_photo_is_in_sample(capsys, nails_eval_dir, tmp_path):
    data = _one_photo_dataset(nails_eval_dir, tmp_path / "photos")
    assert main(["eval", "--data", str(data)]) == 0
    out = capsys.readouterr().out
    line = _json_line(out)
    assert line["masks"] == "model" and line["in_sample"] == "1/1"
    assert "in-sample" in out
    assert line["images"] == 1 and line["mean_iou"] > 0.3
    assert main(["eval", "--data", str(data), "--masks", "grabcut", "--json"]) == 0
    grabcut = _json_line(capsys.readouterr().out)
    assert grabcut["masks"] == "grabcut" and "in_sample" not in grabcut


def test_video_eval_on_clips_the_project_makes(capsys, nails_eval_dir, tmp_path):
    photos = _one_photo_dataset(nails_eval_dir, tmp_path / "photos")
    clips = tmp_path / "clips"
    made = subprocess.run([sys.executable, str(ROOT / "tools" / "make_eval_clips.py"), "--data", str(photos),
                           "--out", str(clips), "--frames", "12"], capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    clip = clips / QUICK_PHOTO
    truths = sorted((clip / "gt").iterdir())
    assert [p.name for p in truths] == [f"{i:06d}.png" for i in range(12)]
    first, last = (cv2.imread(str(p), cv2.IMREAD_UNCHANGED) for p in (truths[0], truths[-1]))
    capture = cv2.VideoCapture(str(clip / "clip.mp4"))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 12
    assert (int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)), int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))) == first.shape
    capture.release()
    assert set(np.unique(first)) == {0, 255} and not np.array_equal(first, last)  # the masks move
    assert main(["eval", "--video", "--data", str(clips)]) == 0
    line = _json_line(capsys.readouterr().out)
    assert set(line) >= {"clips", "frames", "iou_frames", "nail_recall", "blink_rate"}
    assert line["clips"] == 1 and line["frames"] == 12
    assert line["iou_frames"] > 0.3 and line["nail_recall"] > 0.4 and 0.0 <= line["blink_rate"] <= 1.0


def test_video_eval_names_a_bad_folder(capsys, tmp_path):
    assert main(["eval", "--video", "--data", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nailmirror eval:") and len(err.strip().splitlines()) == 1
