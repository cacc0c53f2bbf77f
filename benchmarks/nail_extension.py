"""Nail extensions on the demo video: does the extension's tip jitter more than the nail paint itself, and what
does it cost per frame?

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/nail_extension.py [--video resources/demo/hand_demo.mp4]
     [--style resources/demo/styles/rose_gloss] [--shape almond] [--length long] [--loops 1]

The demo video, mirrored as the kiosk shows it, goes through the live pipeline (`process_video_frame`, two hands,
the segmenter on every frame) with the chosen shape and length. Per painted nail and frame two points are kept:
the nail paint's own free edge (the painted mask's quad, top middle) and the extension's tip. Jitter is the
frame-to-frame wobble that is not motion: the second difference |p(t+1) − 2·p(t) + p(t−1)| in pixels (a finger
moving steadily scores 0), over every nail seen in three consecutive frames; `step` is the plain frame-to-frame
displacement. The extension's tip lies a multiple of the nail's length past its free edge, so its jitter is the
free edge's plus that multiple of the length's; `ratio` is tip jitter over free-edge jitter.

Frame time: the whole live frame (`frame_ms`, wall time, track to composite, serial) with the extension, and the
composite stage alone painted twice on the same frame and nails, without and with the extension, in thread CPU
time (`composite_ms`, `composite_extended_ms`; `extend_ms`: what the extension adds to a frame's paint stage).
Budget: two hands at 30 FPS on two cores, with the two stages overlapped (benchmarks/overlap.py).
The last line is JSON.
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

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from nailmirror_desktop.core.nail_form import NailLength, NailShape, parse_form  # noqa: E402
from nailmirror_desktop.vision.nails.extension import extend_nails  # noqa: E402
from nailmirror_desktop.vision.paint.style_textures import load_style  # noqa: E402
from nailmirror_desktop.vision.pipeline import TryOnPipeline  # noqa: E402

FPS = 30
Point = tuple[float, float]


def read_frames(video: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(video))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(cv2.flip(frame, 1))
    capture.release()
    return frames


def jitter(tracks: dict[tuple[str, int], dict[int, Point]]) -> tuple[list[float], list[float]]:
    """(second differences, steps) in pixels over every track's consecutive frames."""
    wobble, steps = [], []
    for points in tracks.values():
        for frame, here in points.items():
            before, after = points.get(frame - 1), points.get(frame + 1)
            if after is not None:
                steps.append(float(np.hypot(after[0] - here[0], after[1] - here[1])))
            if before is not None and after is not None:
                wobble.append(float(np.hypot(after[0] - 2 * here[0] + before[0], after[1] - 2 * here[1] + before[1])))
    return wobble, steps


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "p95": 0.0}
    ordered = sorted(values)
    return {"mean": round(statistics.fmean(values), 3), "median": round(statistics.median(values), 3),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "resources" / "demo" / "hand_demo.mp4")
    parser.add_argument("--style", type=Path, default=ROOT / "resources" / "demo" / "styles" / "rose_gloss")
    parser.add_argument("--shape", choices=[s.value for s in NailShape], default="almond")
    parser.add_argument("--length", choices=[n.value for n in NailLength], default="long")
    parser.add_argument("--loops", type=int, default=1)
    args = parser.parse_args()
    form = parse_form(args.shape, args.length)
    frames = read_frames(args.video)
    style = load_style(args.style)
    edges: dict[tuple[str, int], dict[int, Point]] = {}
    tips: dict[tuple[str, int], dict[int, Point]] = {}
    totals: list[float] = []
    plain_ms: list[float] = []
    extended_ms: list[float] = []
    with TryOnPipeline(style.compositor(), mirrored=True) as pipeline:
        pipeline.nail_form = form
        index = 0
        for _ in range(args.loops):
            pipeline.reset_tracking()
            for frame in frames:
                result = pipeline.process_video_frame(frame, int(index * 1000 / FPS))
                totals.append(result.timings.total)
                masks = result.masks or [None] * len(result.quads)
                extensions = result.extensions or [None] * len(result.quads)
                for quad, mask, extension in zip(result.quads, masks, extensions, strict=True):
                    if mask is None or extension is None or quad.opacity <= 0:
                        continue
                    key = (result.hands[quad.hand_index].handedness if quad.hand_index < len(result.hands)
                           else "?", int(quad.finger))
                    corners = mask.quad.corners
                    edges.setdefault(key, {})[index] = (float(corners[0][0] + corners[1][0]) / 2,
                                                        float(corners[0][1] + corners[1][1]) / 2)
                    tips.setdefault(key, {})[index] = extension.tip
                # the composite stage alone, the same frame and nails, without and with the extension
                # (thread CPU time: on a shared machine wall time is mostly other processes' turns)
                start = time.thread_time()
                pipeline.compositor.composite(frame, result.quads, masks=result.masks)
                middle = time.thread_time()
                shaped = extend_nails(result.quads, result.masks, result.hands, form, frame.shape)
                pipeline.compositor.composite(frame, result.quads, masks=result.masks, extensions=shaped)
                end = time.thread_time()
                plain_ms.append((middle - start) * 1000)
                extended_ms.append((end - middle) * 1000)
                index += 1
            index += 2  # no second difference across a loop's restart
    edge_wobble, edge_steps = jitter(edges)
    tip_wobble, tip_steps = jitter(tips)
    edge_jitter = _summary(edge_wobble)
    tip_jitter = _summary(tip_wobble)
    report = {
        "benchmark": "nail_extension", "shape": form.shape.value, "length": form.length.value,
        "frames": len(totals), "nails": len(tip_wobble),
        "tip_jitter_px": tip_jitter, "free_edge_jitter_px": edge_jitter,
        "ratio": round(tip_jitter["mean"] / edge_jitter["mean"], 3) if edge_jitter["mean"] else None,
        "tip_step_px": _summary(tip_steps), "free_edge_step_px": _summary(edge_steps),
        "frame_ms": _summary(totals), "composite_ms": _summary(plain_ms),
        "composite_extended_ms": _summary(extended_ms),
        "extend_ms": round(statistics.median(extended_ms) - statistics.median(plain_ms), 3) if plain_ms else None,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
