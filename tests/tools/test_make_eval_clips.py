"""tools/make_eval_clips.py: where the synthetic camera looks past the photo's edge the clip shows nothing and the
truth holds no nail — no mirror image of a fingertip at the border (they were 614 of the eval clips' 13,459
nail-frames when borders reflected: nails on no hand)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import make_eval_clips  # noqa: E402


def test_past_the_photo_s_edge_the_frame_is_black_and_the_truth_empty(tmp_path):
    h, w = 240, 320
    image = np.full((h, w, 3), 180, np.uint8)
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(mask, (6, 120), (14, 22), 0, 0, 360, 255, -1)  # a "nail" cut by the left edge
    cv2.ellipse(mask, (160, 6), (22, 14), 0, 0, 360, 255, -1)  # and one cut by the top
    image[mask > 0] = (90, 60, 200)
    seed = 11
    frames = make_eval_clips.make_clip(image, mask, tmp_path / "clip", 45, seed)
    phases = np.random.default_rng(seed).uniform(0, 2 * math.pi, 8)
    outside_seen = 0
    capture = cv2.VideoCapture(str(tmp_path / "clip" / "clip.mp4"))
    for index in range(frames):
        ok, frame = capture.read()
        assert ok
        matrix = make_eval_clips.camera(index / (frames - 1), (w, h), phases)
        inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), matrix, (w, h), flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
        outside = ~cv2.dilate(inside.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)  # edge blur aside
        truth = cv2.imread(str(tmp_path / "clip" / "gt" / f"{index:06d}.png"), cv2.IMREAD_GRAYSCALE)
        assert truth.shape == (h, w)
        outside_seen += int(outside.sum())
        assert not truth[outside].any(), f"frame {index}: truth past the photo's edge"
        if outside.any():  # black there, but for the codec's ringing at the edge
            assert frame[outside].mean() < 6, f"frame {index}: the frame shows something past the edge"
    assert outside_seen > 0  # the camera did look past the edge, so the checks above checked something
