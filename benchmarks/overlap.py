"""The live mirror's shown frame rate: one stage against two (tracking frame N+1 while frame N is painted), with
one and two hands tracked, on the paced demo video; and whether MediaPipe's landmarker releases the GIL.

Run (one command, offscreen, ~4 min): PYTHONPATH=$PWD .venv/bin/python benchmarks/overlap.py [--seconds 6]
     [--repeats 3] [--one-core | --no-one-core]
     [--video resources/demo/hand_demo.mp4] [--style resources/demo/styles/rose_gloss] [--view 1280x720]
     [--no-kiosk] [--shape round] [--length natural]

- `mirror`: the real `MirrorLoop` + `TryOnSession` + `TryOnPipeline` on a `BackgroundRunner` (3 threads, as the
  kiosk), the demo video paced at its own 30 FPS through a `FrameReader` and the one-slot mailbox, a `MirrorView`
  of `--view` pixels (offscreen). Each of the four configs (max_hands 1/2 × one/two stages) runs `--repeats`
  times, interleaved with the others in alternating order; each run starts fresh, waits for the first painted
  frame and 2 s more, then counts frames shown for `--seconds` (the run with the median FPS is reported):
  `fps` = shown frames / seconds (30 is the source's ceiling), `nails_painted_mean` per shown frame,
  per-stage medians (ms) of the shown frames, `composite_ms` (the paint stage: extensions built and painted).
  `--shape`/`--length` put the customer's nail form on (TryOnSession.set_nail_form, as the style card does) for
  every mirror run and the one-core child; the default, natural length, paints the nails as found.
  The JSON carries `nails_extended_mean` and, per finger, [painted, extended] over the counted painted frames.
  The GIL switch interval is the kiosk's (0.5 ms) unless `--switch-ms` says otherwise (5: Python's default).
- `gil`: a pure-Python loop's rate while the landmarker tracks demo frames on another thread, over its rate
  alone (`with_tracking`; alone = the mean of a run before and one after, `alone_before_over_after` says how
  much the load moved meanwhile); for scale, the same with a pure-Python loop (which holds the GIL) on the other thread
  (`with_python_thread`, ~0.5 on any machine). Near 1.0 on a free core: MediaPipe releases the GIL; lower on a
  loaded machine because the cores are busy, not because of the GIL.
- `kiosk`: `nailmirror kiosk --demo --windowed --quit-after 25` offscreen (a fresh data folder, the default
  config: two hands), its exit line's fps, max_hands and nails_painted_mean.
- `one_core`: the kiosk's config (two hands, two stages, the live cadence governor) in a child process pinned to
  one CPU (`os.sched_setaffinity`), as a slower store PC: its shown FPS (`one_core_fps` in the last line, target
  ≥ 20), nails painted and the cadence it settled at (segmenter every n-th frame, hand search every m-th).
  `--one-core` runs only this; `--no-one-core` skips it.
The machine is shared: the JSON line carries `os.getloadavg()` before and after; compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from nailmirror_desktop.core.nail_form import NATURAL, NailForm, NailLength, NailShape, parse_form  # noqa: E402

STAGE_KEYS = ("track", "smooth", "geometry", "segment", "composite", "show", "total")
GIL_SECONDS = 3.0


def mirror_run(video: Path, style: Path, max_hands: int, two_stage: bool, seconds: float,
               view_size: tuple[int, int], form: NailForm = NATURAL) -> dict[str, object]:
    from PySide6.QtCore import QElapsedTimer
    from PySide6.QtWidgets import QApplication

    from nailmirror_desktop.ui import bridge
    from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop
    from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
    from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession, load_style_textures
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.readers import FrameReader, VideoFileSource
    from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor

    app = QApplication.instance() or QApplication(["overlap"])
    bridge.install()
    view = MirrorView()
    view.resize(*view_size)
    view.show()
    pipeline = TryOnPipeline(Compositor(), mirrored=True, max_hands=max_hands, adapt_cadence=True)  # as the kiosk
    session = TryOnSession(pipeline, mirror=True)
    textures = {slot: style / f"{slot}.png" for slot in ("nail", "accent") if (style / f"{slot}.png").is_file()}
    session.apply(load_style_textures("BENCH", style.name, textures, ("ring",)))
    session.set_nail_form(form)
    supervisor = SourceSupervisor(lambda: FrameReader(VideoFileSource(video, loop=True), paced=True))
    runner = bridge.BackgroundRunner(3)
    if two_stage:
        loop = MirrorLoop(view, supervisor, session.track, runner, paint_frame=session.paint)
    else:
        loop = MirrorLoop(view, supervisor, session.process, runner)
    counting = [False]
    painted_now = [0]  # extensions in the last frame painted
    by_finger: dict[str, list[int]] = {}  # finger → [painted, extended] over the counted painted frames
    paint = pipeline._paint

    def counted_paint(*args: Any, **kwargs: Any) -> Any:
        result = paint(*args, **kwargs)  # the pipeline's own paint stage, timed as it is; only counted here
        extensions = result.extensions or [None] * len(result.quads)
        painted_now[0] = sum(e is not None for e in extensions)
        if counting[0]:
            for quad, extension in zip(result.quads, extensions, strict=True):
                if quad.opacity > 0:
                    tally = by_finger.setdefault(quad.finger.name.lower(), [0, 0])
                    tally[0] += 1
                    tally[1] += extension is not None
        return result

    pipeline._paint = counted_paint  # type: ignore[method-assign]
    shown: list[dict[str, float]] = []
    nails: list[int] = []
    extended: list[int] = []

    def on_shown() -> None:
        if counting[0]:
            shown.append(dict(loop.last_timings_ms))
            nails.append(loop.last_nails)
            extended.append(painted_now[0])

    loop.frame_shown.connect(on_shown)
    clock = QElapsedTimer()
    clock.start()
    loop.start()
    try:
        while not view.has_frame() and clock.elapsed() < 60_000:  # the landmarker and segmenter load first
            app.processEvents()
            time.sleep(0.002)
        warm_until = clock.elapsed() + 2000  # let the hands be found and the tracks settle
        while clock.elapsed() < warm_until:
            app.processEvents()
            time.sleep(0.001)
        counting[0] = True
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            app.processEvents()
            time.sleep(0.001)
        elapsed = time.perf_counter() - start
        counting[0] = False
        settled = pipeline.cadence
    finally:
        loop.stop()
        runner.close()
        supervisor.close()
        pipeline.close()
        view.close()
        view.deleteLater()
        app.processEvents()
    stages = {key: round(statistics.median(s[key] for s in shown), 2) for key in STAGE_KEYS
              if shown and all(key in s for s in shown)}
    return {
        "shape": form.shape.value,
        "length": form.length.value,
        "max_hands": max_hands,
        "two_stage": two_stage,
        "fps": round(len(shown) / elapsed, 2),
        "frames_shown": len(shown),
        "nails_painted_mean": round(statistics.fmean(nails), 2) if nails else 0.0,
        "nails_extended_mean": round(statistics.fmean(extended), 2) if extended else 0.0,
        "composite_ms": stages.get("composite"),
        "painted_extended_by_finger": by_finger,
        "stage_ms_median": stages,
        "errors": loop.frames_dropped_errors,
        "cadence": {"segment_every": settled.segment_every, "search_every": settled.search_every},
    }


def _median_run(runs: list[dict[str, object]]) -> dict[str, object]:
    """The run with the median shown FPS, plus every run's FPS (and load) beside it."""
    ordered = sorted(runs, key=lambda run: float(run["fps"]))  # type: ignore[arg-type]
    return {**ordered[(len(ordered) - 1) // 2], "fps_runs": [run["fps"] for run in runs],
            "load_runs": [run["load"] for run in runs]}


def _python_rate(seconds: float) -> float:
    """Iterations per second of a small pure-Python loop (it holds the GIL while it runs)."""
    count, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(200):
            count += 1
    return count / seconds


def gil_measurement(video: Path) -> dict[str, float]:
    from nailmirror_desktop.vision.pipeline import video_tracker_settings
    from nailmirror_desktop.vision.sources.readers import VideoFileSource
    from nailmirror_desktop.vision.tracking.tracker import HandTracker

    with VideoFileSource(video) as source:
        frames = [f for f in iter(source.read, None)][:90]
    alone = _python_rate(GIL_SECONDS)  # measured again at the end: the baseline swings with the load
    stop = threading.Event()
    tracked = [0]

    def track_forever() -> None:
        with HandTracker("video", video_tracker_settings(2)) as tracker:
            tracker.track(frames[0].image, 0)  # loaded before the clock starts
            ready.set()
            stamp = 0
            while not stop.is_set():
                for frame in frames:
                    stamp += 33
                    tracker.track(frame.image, stamp)
                    tracked[0] += 1
                    if stop.is_set():
                        break

    def python_forever() -> None:
        ready.set()
        while not stop.is_set():
            _python_rate(0.05)

    results: dict[str, float] = {}
    rates: dict[str, float] = {}
    for name, work in (("with_tracking", track_forever), ("with_python_thread", python_forever)):
        ready = threading.Event()
        stop.clear()
        tracked[0] = 0
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        ready.wait(60)
        rate = _python_rate(GIL_SECONDS)
        stop.set()
        worker.join(30)
        rates[name] = rate
        if name == "with_tracking":
            results["tracked_fps_meanwhile"] = round(tracked[0] / GIL_SECONDS, 1)
    alone_after = _python_rate(GIL_SECONDS)
    baseline = (alone + alone_after) / 2
    results["python_loop_rate_alone"] = round(baseline)
    results["alone_before_over_after"] = round(alone / alone_after, 3)  # far from 1: the load moved, re-run
    for name, rate in rates.items():
        results[name] = round(rate / baseline, 3)
    return results


def kiosk_run(seconds: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="overlap-kiosk-") as home:
        env = {**os.environ, "NAILMIRROR_HOME": home, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
        run = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "kiosk", "--demo", "--windowed",
                              "--quit-after", str(seconds)], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=seconds + 120)
    if run.returncode != 0 or not run.stdout.strip():
        return {"error": f"exit {run.returncode}: {run.stderr.strip()[-300:]}"}
    line = json.loads(run.stdout.strip().splitlines()[-1])
    return {key: line.get(key) for key in ("fps", "max_hands", "nails_painted_mean", "frames_painted", "stage_ms")}


def one_core_run(seconds: float, view: str, form: NailForm = NATURAL) -> dict[str, object]:
    """The kiosk's config on one CPU, in a child process (affinity is set before any thread starts there)."""
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one-core-child", "--seconds",
                          str(seconds), "--view", view, "--shape", form.shape.value, "--length", form.length.value],
                         capture_output=True, text=True, timeout=seconds + 240,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if run.returncode != 0 or not lines:
        return {"error": f"exit {run.returncode}: {run.stderr.strip()[-300:]}"}
    return dict(json.loads(lines[-1]))


def _one_core_child(seconds: float, view_size: tuple[int, int], form: NailForm) -> int:
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})  # before MediaPipe, onnxruntime and Qt start their threads: they inherit it
    from nailmirror_desktop.ui.shell.kiosk_controller import GIL_SWITCH_INTERVAL_S

    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    run = mirror_run(ROOT / "resources" / "demo" / "hand_demo.mp4",
                     ROOT / "resources" / "demo" / "styles" / "rose_gloss", 2, True, seconds, view_size, form)
    print(json.dumps({**run, "cpus": sorted(os.sched_getaffinity(0)), "load": round(os.getloadavg()[0], 2)}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "resources" / "demo" / "hand_demo.mp4")
    parser.add_argument("--style", type=Path, default=ROOT / "resources" / "demo" / "styles" / "rose_gloss")
    parser.add_argument("--seconds", type=float, default=6.0, help="counted seconds per mirror run")
    parser.add_argument("--view", default="1280x720", help="the mirror view's size, WIDTHxHEIGHT")
    parser.add_argument("--repeats", type=int, default=3, help="runs per config, interleaved; medians reported")
    parser.add_argument("--switch-ms", type=float,
                        help="sys.setswitchinterval for the mirror runs in ms (default: the kiosk's 0.5; Python's 5)")
    parser.add_argument("--hands", type=int, choices=(1, 2), help="only this max_hands")
    parser.add_argument("--no-gil", dest="gil", action="store_false", help="skip the GIL measurement")
    parser.add_argument("--no-kiosk", dest="kiosk", action="store_false", help="skip the kiosk run")
    parser.add_argument("--one-core", action="store_true", help="only the one-CPU run")
    parser.add_argument("--no-one-core", dest="one_core_run", action="store_false", help="skip the one-CPU run")
    parser.add_argument("--shape", choices=[s.value for s in NailShape], default=NATURAL.shape.value,
                        help="the nail shape painted (only with a length other than natural)")
    parser.add_argument("--length", choices=[n.value for n in NailLength], default=NATURAL.length.value,
                        help="the extension's length; natural (the default) paints the nails as found")
    parser.add_argument("--one-core-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    form = parse_form(args.shape, args.length)
    width, height = (int(v) for v in args.view.lower().split("x"))
    if args.one_core_child:
        return _one_core_child(args.seconds, (width, height), form)
    if args.one_core:
        one_core = one_core_run(args.seconds, args.view, form)
        print(json.dumps({"shape": form.shape.value, "length": form.length.value,
                          "cpus": os.cpu_count(), "load": [round(v, 2) for v in os.getloadavg()],
                          "one_core": one_core, "one_core_fps": one_core.get("fps"),
                          "target": {"one_core_fps": 20}}))
        return 0
    load_before = [round(v, 2) for v in os.getloadavg()]
    if args.switch_ms is None:  # as the running kiosk has it (KioskController.start)
        from nailmirror_desktop.ui.shell.kiosk_controller import GIL_SWITCH_INTERVAL_S

        args.switch_ms = GIL_SWITCH_INTERVAL_S * 1000.0
    sys.setswitchinterval(args.switch_ms / 1000.0)
    configs = [(max_hands, two_stage) for max_hands in (1, 2) for two_stage in (False, True)
               if args.hands in (None, max_hands)]
    runs: dict[str, list[dict[str, object]]] = {}
    for repeat in range(args.repeats):  # alternating the order, so a change of load lands on every config alike
        for max_hands, two_stage in configs if repeat % 2 == 0 else reversed(configs):
            name = f"{'two' if two_stage else 'one'}_stage_{max_hands}_hand{'s' if max_hands > 1 else ''}"
            run = mirror_run(args.video, args.style, max_hands, two_stage, args.seconds, (width, height), form)
            run["load"] = round(os.getloadavg()[0], 2)
            runs.setdefault(name, []).append(run)
            print(f"{name}: {json.dumps(run)}", flush=True)
    mirror = {name: _median_run(found) for name, found in runs.items()}
    sys.setswitchinterval(0.005)  # Python's default for the GIL measurement: it reports on MediaPipe, not on us
    gil = gil_measurement(args.video) if args.gil else None
    print(f"gil: {json.dumps(gil)}", flush=True)
    kiosk = kiosk_run(25.0) if args.kiosk else None
    one_core = one_core_run(args.seconds, args.view, form) if args.one_core_run else None
    print(f"one_core: {json.dumps(one_core)}", flush=True)
    print(json.dumps({
        "shape": form.shape.value,
        "length": form.length.value,
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": [round(v, 2) for v in os.getloadavg()],
        "view": [width, height],
        "switch_ms": args.switch_ms,
        "fps": {name: run["fps"] for name, run in mirror.items()},
        "nails_painted_mean": {name: run["nails_painted_mean"] for name, run in mirror.items()},
        "nails_extended_mean": {name: run["nails_extended_mean"] for name, run in mirror.items()},
        "composite_ms": {name: run["composite_ms"] for name, run in mirror.items()},
        "gil": gil,
        "kiosk": kiosk,
        "mirror": mirror,
        "one_core": one_core,
        "target": {"fps_two_hands_shown": 30, "one_core_fps": 20},
        "one_core_fps": None if one_core is None else one_core.get("fps"),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
