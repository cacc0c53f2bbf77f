"""Try-on pipeline speed: the whole pipeline against the landmarker alone, on the same video, in one run.

Run: .venv/bin/python benchmarks/pipeline.py [--video resources/demo/hand_demo.mp4] [--rounds 2]
     [--style resources/demo/styles/rose_gloss]

The demo video is 1280×720 with two hands. Two scenarios:
- one_hand: the landmarker tracks one hand (num_hands=1), so 5 nails are painted per frame — the FPS target
  (≥ 30) is for this one;
- two_hands: num_hands=2, 10 nails painted per frame — the compositor's full load.
Each scenario times, frame by frame, (a) the landmarker alone (`HandTracker.track`) and (b) the whole pipeline
(`TryOnPipeline.process_video_frame`: tracking, One Euro smoothing, geometry, compositing in place, as the
live loop runs it), alternating (a) and (b) over `--rounds` passes so drift on a shared machine hits both.
Decoding the video is not timed. FPS = 1000 / mean whole-pipeline ms; ratio = mean whole / mean landmarker.
The machine is shared: compare numbers within one run. The last line is JSON with `fps` and `ratio`
(the one-hand scenario's FPS and the larger of the two ratios).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))

from nailmirror_desktop.vision.pipeline import STAGES, TryOnPipeline, video_tracker_settings  # noqa: E402
from nailmirror_desktop.vision.sources import VideoFileSource  # noqa: E402
from nailmirror_desktop.vision.style_textures import load_style  # noqa: E402
from nailmirror_desktop.vision.tracker import HandTracker  # noqa: E402

WARMUP_FRAMES = 5


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"median_ms": round(statistics.median(ordered), 3), "p95_ms": round(p95, 3),
            "mean_ms": round(statistics.fmean(ordered), 3)}


def time_landmarker(video: Path, max_hands: int) -> tuple[list[float], int]:
    times, nails = [], 0
    with VideoFileSource(video) as source, HandTracker("video", video_tracker_settings(max_hands)) as tracker:
        while (frame := source.read()) is not None:
            start = time.perf_counter()
            hands = tracker.track(frame.image, frame.timestamp_ms)
            elapsed = (time.perf_counter() - start) * 1000
            if frame.sequence >= WARMUP_FRAMES:
                times.append(elapsed)
                nails += 5 * len(hands)
    return times, nails


def time_pipeline(video: Path, max_hands: int, style: Path) -> tuple[dict[str, list[float]], int, int]:
    stages: dict[str, list[float]] = {name: [] for name in (*STAGES, "total")}
    painted = frames = 0
    compositor = load_style(style).compositor()
    with VideoFileSource(video) as source, TryOnPipeline(compositor, max_hands=max_hands) as pipeline:
        while (frame := source.read()) is not None:
            result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, in_place=True)
            if frame.sequence < WARMUP_FRAMES:
                continue
            frames += 1
            painted += sum(quad.opacity > 0 for quad in result.quads)
            for name in stages:
                stages[name].append(getattr(result.timings, name))
    return stages, painted, frames


def run_scenario(video: Path, max_hands: int, style: Path, rounds: int) -> dict:
    landmarker: list[float] = []
    stages: dict[str, list[float]] = {name: [] for name in (*STAGES, "total")}
    painted = frames = 0
    for _ in range(rounds):
        times, _ = time_landmarker(video, max_hands)
        landmarker += times
        round_stages, round_painted, round_frames = time_pipeline(video, max_hands, style)
        for name, values in round_stages.items():
            stages[name] += values
        painted += round_painted
        frames += round_frames
    whole_mean = statistics.fmean(stages["total"])
    landmarker_mean = statistics.fmean(landmarker)
    return {
        "max_hands": max_hands,
        "frames_timed": frames,
        "nails_painted_per_frame": round(painted / max(frames, 1), 2),
        "landmarker_only": summary(landmarker),
        "stages": {name: summary(values) for name, values in stages.items()},
        "fps": round(1000.0 / whole_mean, 1),
        "landmarker_only_fps": round(1000.0 / landmarker_mean, 1),
        "ratio": round(whole_mean / landmarker_mean, 3),
        "ratio_median": round(statistics.median(stages["total"]) / statistics.median(landmarker), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "resources" / "demo" / "hand_demo.mp4")
    parser.add_argument("--style", type=Path, default=ROOT / "resources" / "demo" / "styles" / "rose_gloss")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with VideoFileSource(args.video) as probe:
        size = probe.size
    results = {}
    for name, max_hands in (("one_hand", 1), ("two_hands", 2)):
        results[name] = scenario = run_scenario(args.video, max_hands, args.style, args.rounds)
        print(f"{name}: {json.dumps(scenario)}")
    one, two = results["one_hand"], results["two_hands"]
    print(json.dumps({
        "video": f"{size[0]}x{size[1]}",
        "cpus": os.cpu_count(),
        "fps": one["fps"],
        "ratio": max(one["ratio"], two["ratio"]),
        "one_hand": {k: one[k] for k in ("fps", "ratio", "ratio_median", "nails_painted_per_frame")},
        "two_hands": {k: two[k] for k in ("fps", "ratio", "ratio_median", "nails_painted_per_frame")},
        "targets": {"fps_one_hand": 30, "ratio": 1.15},
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
