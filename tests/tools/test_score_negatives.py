"""tools/score_negatives.py: nails the still path paints on hand-free images, counted as phantoms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "score_negatives.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow  # the still path's hand search in its own process
def test_an_empty_counter_gets_no_phantom_at_any_threshold(tmp_path):
    for k, colour in enumerate(((40, 45, 50), (150, 150, 150))):  # a dark mat, a grey counter-top
        cv2.imwrite(str(tmp_path / f"counter{k}.png"), np.full((240, 320, 3), colour, np.uint8))
    done = _run("--data", str(tmp_path), "--threshold", "0.5", "0.9")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["images"] == 2
    for threshold in ("0.5", "0.9"):
        assert report[threshold] == {"images_with_phantom": 0, "phantom_nails": 0, "from_phantom_hands": 0,
                                     "from_fallback": 0}


def test_a_folder_without_images_and_an_unreadable_one_are_one_line(tmp_path):
    done = _run("--data", str(tmp_path))
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "no images" in done.stderr
    (tmp_path / "broken.png").write_bytes(b"not a png")
    done = _run("--data", str(tmp_path))
    assert done.returncode == 2 and "not a readable image" in done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr


@pytest.mark.slow  # the video path in its own process
def test_video_frames_count_what_the_live_mirror_paints_on_each_scene(tmp_path, nails_eval_dir):
    # an empty counter, and a fingertip close-up (cut from a nails_eval photo: three nails, no palm) standing in for
    # a hand-free image the checked fallback paints: the count must see it, frame by frame
    cv2.imwrite(str(tmp_path / "counter.png"), np.full((240, 320, 3), (40, 45, 50), np.uint8))
    photo = cv2.imread(str(nails_eval_dir / "images" / "d61d6de4-db67-11e8-9658-0242ac1c0002.jpg"))
    cv2.imwrite(str(tmp_path / "closeup.png"), photo[0:425, 189:706])
    done = _run("--data", str(tmp_path), "--video-frames", "4")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    video = report["video"][next(iter(report["video"]))]
    assert video["images_with_phantom"] == 1 and video["phantom_nails_per_frame"] >= 0.5  # ≥ 1 nail a frame there
    assert "video counter.png: 0 of 4 frames painted" in done.stderr
