"""The full hand-landmark model against the lite one from the same mediapipe 0.10.21 wheel: speed and accuracy
on the live (video) path, to decide which one the mirror runs.

    PYTHONPATH=$PWD .venv/bin/python tools/compare_hand_models.py [--clips DIR] [--video resources/demo/hand_demo.mp4]
        [--clip-limit N]

Both bundles hold the same palm detector (`palm_detection_full.tflite`); they differ only in the landmark model
(`hand_landmark_full.tflite`, shipped, against `hand_landmark_lite.tflite`). The lite bundle is built here in a
temporary folder from the installed package (`hand_model.build_bundle`, the lite member's sha256 pinned below)
and never shipped. Per model:
- speed on the demo video (1280×720, two hands): VIDEO mode with num_hands 1 and 2 (once the hands are tracked
  MediaPipe skips the palm detector, so this is the landmark model's cost plus the image conversion) and IMAGE
  mode with num_hands 2 (palm detector + landmarks on every frame); `palm_ms_estimate` is the difference;
- accuracy on moving clips (`tools/make_eval_clips.py` from the eval photos; `--clips`): the video path
  (`TryOnPipeline.process_video_frame`, re-detection by the still cascade, which keeps the full model in both
  runs) scored by `vision/evaluation/video.py`: iou_frames, nail_recall, blink_rate.
Stills always keep the full model: they run once per snapshot, off the camera-frame budget.
Prints one JSON line per model and a last line with both; figures depend on the machine's load (reported).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))

from nailmirror_desktop.vision.tracking import hand_model  # noqa: E402

LITE_MEMBER = "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite"
LITE_SHA256 = "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"
PALM_MEMBER = "mediapipe/modules/palm_detection/palm_detection_full.tflite"
WARMUP = 5


def lite_bundle(folder: Path) -> tuple[Path, str]:
    """The lite bundle (shipped palm detector + lite landmark model) in `folder`, and its sha256."""
    import importlib.util

    spec = importlib.util.find_spec("mediapipe")
    if spec is None or spec.origin is None:
        raise SystemExit("mediapipe is not installed")
    site = Path(spec.origin).resolve().parents[1]
    lite = (site / LITE_MEMBER).read_bytes()
    if hashlib.sha256(lite).hexdigest() != LITE_SHA256:
        raise SystemExit(f"{LITE_MEMBER}: sha256 mismatch, not the mediapipe 0.10.21 model")
    palm = hand_model.read_members_from_site(site)[0]
    assert palm.name == "hand_detector.tflite"
    data = hand_model.build_bundle([palm, hand_model.ModelMember("hand_landmarks_detector.tflite", lite)])
    path = folder / "hand_landmarker_lite.task"
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def make_tracker(mode: str, max_hands: int, bundle: tuple[Path, str] | None):  # type: ignore[no-untyped-def]
    from nailmirror_desktop.vision.tracking.tracker import HandTracker, TrackerSettings

    settings = TrackerSettings(max_hands=max_hands)
    if bundle is None:
        return HandTracker(mode, settings)  # type: ignore[arg-type]
    return HandTracker(mode, settings, bundle[0], bundle_sha256=bundle[1])  # type: ignore[arg-type]


def speed(video: Path, bundles: dict[str, tuple[Path, str] | None]) -> dict[str, dict[str, object]]:
    """Per model and scenario, ms per frame on the demo video. Both models run on every frame, alternating which
    goes first, so load from other processes on a shared machine lands on both alike."""
    from contextlib import ExitStack

    from nailmirror_desktop.vision.sources.readers import VideoFileSource

    with VideoFileSource(video) as source:
        frames = list(iter(source.read, None))
    result: dict[str, dict[str, object]] = {name: {} for name in bundles}
    for scenario, mode, hands in (("video_1_hand", "video", 1), ("video_2_hands", "video", 2),
                                  ("image_2_hands", "image", 2)):
        times: dict[str, list[float]] = {name: [] for name in bundles}
        found: dict[str, list[int]] = {name: [] for name in bundles}
        with ExitStack() as stack:
            trackers = {name: stack.enter_context(make_tracker(mode, hands, bundle))
                        for name, bundle in bundles.items()}
            for index, frame in enumerate(frames):
                order = list(trackers) if index % 2 == 0 else list(reversed(trackers))
                for name in order:
                    start = time.perf_counter()
                    if mode == "video":
                        seen = trackers[name].track(frame.image, frame.timestamp_ms)
                    else:
                        seen = trackers[name].detect(frame.image)
                    if index >= WARMUP:
                        times[name].append((time.perf_counter() - start) * 1000)
                        found[name].append(len(seen))
        for name in bundles:
            result[name][scenario] = {"median_ms": round(statistics.median(times[name]), 2),
                                      "mean_ms": round(statistics.fmean(times[name]), 2),
                                      "hands_per_frame": round(statistics.fmean(found[name]), 2)}
    for name in bundles:
        video_two = result[name]["video_2_hands"]["median_ms"]  # type: ignore[index]
        image_two = result[name]["image_2_hands"]["median_ms"]  # type: ignore[index]
        result[name]["palm_ms_estimate"] = round(image_two - video_two, 2)
    return result


def accuracy(clips_dir: Path, bundle: tuple[Path, str] | None, limit: int) -> dict[str, object]:
    import numpy as np

    from nailmirror_desktop.vision.evaluation.video import (
        evaluate_clips,
        score_clip,
        video_clips,
        video_path_coverages,
    )
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

    clips = video_clips(clips_dir)[: limit or None]
    segmenter = NailSegmenter()
    white = np.full((8, 8, 3), 255, np.uint8)  # any polish: what is scored is the coverage (as `nailmirror eval`)

    def score(clip):  # type: ignore[no-untyped-def]
        with TryOnPipeline(Compositor(white), max_hands=2, segmenter=segmenter,
                           video_tracker=make_tracker("video", 2, bundle)) as pipeline:
            return score_clip(clip, video_path_coverages(clip, pipeline))

    summary = evaluate_clips(clips, score)
    return {"clips": len(clips), **{k: v for k, v in summary.as_dict().items()
                                    if k in ("iou_frames", "nail_recall", "blink_rate")}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "resources" / "demo" / "hand_demo.mp4")
    parser.add_argument("--clips", type=Path, help="moving eval clips (tools/make_eval_clips.py); omit: speed only")
    parser.add_argument("--clip-limit", type=int, default=0, help="score only the first N clips (0: all)")
    args = parser.parse_args()
    load_before = [round(v, 2) for v in os.getloadavg()]
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="hand-models-") as folder:
        bundles = {"full": None, "lite": lite_bundle(Path(folder))}
        speeds = speed(args.video, bundles)
        report["speed_load"] = [round(v, 2) for v in os.getloadavg()]
        print(f"speed: {json.dumps(speeds)} load {report['speed_load']}", flush=True)
        for name, bundle in bundles.items():
            entry: dict[str, object] = {"speed": speeds[name]}
            if args.clips is not None:
                entry["clips"] = accuracy(args.clips, bundle, args.clip_limit)
                entry["clips_load"] = [round(v, 2) for v in os.getloadavg()]
            report[name] = entry
            print(f"{name}: {json.dumps(entry)}", flush=True)
    print(json.dumps({"cpus": os.cpu_count(), "load_before": load_before, **report}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
