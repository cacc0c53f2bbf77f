"""Nails painted off their fingers, and nails left bare, on the demo video: live frames and the snapshot's choice.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/stray_nails.py [--video resources/demo/hand_demo.mp4]
     [--style resources/demo/styles/rose_gloss]

The mirror paints the newest frame whenever a stage is free, so a busy kiosk skips frames and a finger moves
further between two painted frames. The demo video, mirrored and with two hands as the kiosk runs it, is painted
by `TryOnSession` (the live pipeline, and the snapshot's choice of frame) on three schedules:
- `every_frame`: all frames (30 FPS), 2 loops;
- `every_5th`: every 5th frame (6 FPS), 4 loops;
- `busy`: steps of 1 to 6 frames drawn from a seeded generator (an unevenly loaded kiosk), 4 loops.
Each painted frame is judged by `vision/evaluation/stray.py` against reference hands: a VIDEO-mode landmarker's
over every frame (its second loop), so the judge never skips a frame. Per schedule: `painted` (nails per frame),
`held` (painted nails not seen in their frame, per frame), `stray` (painted nails off their finger, all frames),
`frames_with_stray`, `bare` (facing nails left bare, per frame), `facing` (per frame); and for the snapshot, the
pair `TryOnSession.snapshot_pair()` would freeze after each frame: `snapshot_stray` (how many of those pairs
have a stray nail) and `snapshot_held` (held nails per frozen pair).
The last line is JSON: the schedules, `stray` (all schedules, target 0), `snapshot_stray` (target 0) and
`bare_per_frame` (per schedule; it must not rise with a change to the hold or the snapshot).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from nailmirror_desktop.ui.tryon.tryon_session import LoadedStyle, TryOnSession  # noqa: E402
from nailmirror_desktop.vision.evaluation.stray import FrameCheck, check_frame  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import Compositor  # noqa: E402
from nailmirror_desktop.vision.paint.style_textures import load_style  # noqa: E402
from nailmirror_desktop.vision.pipeline import (  # noqa: E402
    TrackedFrame,
    TryOnPipeline,
    TryOnResult,
    video_tracker_settings,
)
from nailmirror_desktop.vision.sources.supervisor import FramePacket  # noqa: E402
from nailmirror_desktop.vision.tracking.tracker import HandTracker  # noqa: E402
from nailmirror_desktop.vision.types import HandObservation  # noqa: E402

FPS = 30
SEED = 1
SCHEDULES = {"every_frame": (1, 1, 2), "every_5th": (5, 5, 4), "busy": (1, 6, 4)}  # step from, to; loops


def read_frames(video: Path) -> list[np.ndarray]:
    """The video's frames, mirrored as the kiosk shows them (TryOnSession flips them itself)."""
    capture = cv2.VideoCapture(str(video))
    frames = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        frames.append(image)
    capture.release()
    return frames


def reference_hands(frames: list[np.ndarray]) -> list[list[HandObservation]]:
    """Each frame's hands by a landmarker that saw every frame, on the loop's second pass (warmed up, as the
    looping demo is)."""
    found: list[list[HandObservation]] = []
    with HandTracker("video", video_tracker_settings(2)) as tracker:
        for k in range(2 * len(frames)):
            hands = tracker.track(cv2.flip(frames[k % len(frames)], 1), round(k * 1000 / FPS))
            if k >= len(frames):
                found.append(hands)
    return found


def schedule(first: int, last: int, loops: int, frames: int) -> list[int]:
    rng = random.Random(SEED)
    steps, k = [], 0
    while k < frames * loops:
        steps.append(k)
        k += rng.randint(first, last)
    return steps


def run_schedule(frames: list[np.ndarray], reference: list[list[HandObservation]], style: LoadedStyle,
                 steps: list[int]) -> dict[str, float]:
    checks: dict[int, tuple[FrameCheck, int]] = {}  # timestamp → the frame's check, its held nails
    frozen: list[int] = []
    with TryOnPipeline(Compositor(), mirrored=True, max_hands=2) as pipeline:
        session = TryOnSession(pipeline, mirror=True)
        session.apply(style)  # the style's compositor, as the kiosk builds it
        paint = pipeline.paint_video_frame
        results: list[TryOnResult] = []

        def judged(tracked: TrackedFrame, **options: bool) -> TryOnResult:  # the session's call, its result kept
            result = paint(tracked, **options)
            results.append(result)
            return result

        pipeline.paint_video_frame = judged
        for sequence, k in enumerate(steps):
            timestamp = round(k * 1000 / FPS)
            session.process(FramePacket(frames[k % len(frames)], timestamp, sequence))
            result = results[-1]
            checks[timestamp] = (check_frame(result.quads, result.masks, reference[k % len(frames)], mirrored=True),
                                 result.held)
            pair = session.snapshot_pair()
            if pair is not None:
                frozen.append(pair.timestamp_ms)
    per_frame = [check for check, _ in checks.values()]
    held = [held for _, held in checks.values()]
    n = len(per_frame)
    return {
        "frames": n,
        "painted": round(sum(c.painted for c in per_frame) / n, 3),
        "held": round(sum(held) / n, 3),
        "stray": sum(c.stray for c in per_frame),
        "frames_with_stray": sum(1 for c in per_frame if c.stray),
        "facing": round(sum(c.facing for c in per_frame) / n, 3),
        "bare": round(sum(c.bare for c in per_frame) / n, 3),
        "snapshot_stray": sum(1 for t in frozen if checks[t][0].stray),
        "snapshot_held": round(sum(checks[t][1] for t in frozen) / max(len(frozen), 1), 3),
    }


def session_style(folder: Path) -> LoadedStyle:
    textures = load_style(folder)
    return LoadedStyle("BENCH", folder.name, textures.default, None, dict(textures.per_finger), (),
                       looks=dict(textures.looks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "resources/demo/hand_demo.mp4")
    parser.add_argument("--style", type=Path, default=ROOT / "resources/demo/styles/rose_gloss")
    args = parser.parse_args()
    start = time.perf_counter()
    frames = read_frames(args.video)
    reference = reference_hands(frames)
    style = session_style(args.style)
    runs = {}
    for name, (first, last, loops) in SCHEDULES.items():
        runs[name] = run_schedule(frames, reference, style, schedule(first, last, loops, len(frames)))
        print(name, json.dumps(runs[name]))
    print(json.dumps({
        "benchmark": "stray_nails",
        "schedules": runs,
        "stray": sum(run["stray"] for run in runs.values()),
        "snapshot_stray": sum(run["snapshot_stray"] for run in runs.values()),
        "bare_per_frame": {name: run["bare"] for name, run in runs.items()},
        "painted_per_frame": {name: run["painted"] for name, run in runs.items()},
        "targets": {"stray": 0, "snapshot_stray": 0},
        "reference_hands_per_frame": round(sum(len(h) for h in reference) / len(reference), 3),
        "seconds": round(time.perf_counter() - start, 1),
    }))


if __name__ == "__main__":
    main()
