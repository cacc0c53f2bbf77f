"""Startup benchmark: bundle size, and cold start → first painted frame for the source install and the build.

Each run starts the kiosk offscreen in demo mode with a fresh data directory (so the first start also imports
the starter catalog, as on a new kiosk) and reads the JSON line the kiosk prints on exit. "Cold start" is the
wall time from launching the process to the first frame painted with the pipeline.

    .venv/bin/python benchmarks/startup.py [--runs N] [--build dist/nailmirror]

The final line is JSON: source_first_frame_s / build_first_frame_s (median over runs), bundle_mb, and
bundle_components_mb: the bundle's size per component (Qt libraries, plugins, QML, translations, mediapipe, cv2,
onnxruntime, numpy, python stdlib, our code and models, other; tools/bundle_report.py sizes). The targets (#13.10,
#21.8) are <= 1.5 s to the first painted frame from both and <= 450 MB. Report `uptime`'s load next to the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from bundle_report import sizes  # noqa: E402 - tools/ is not a package


def folder_size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def first_frame_seconds(command: list[str], quit_after_s: float, clean_env: bool) -> dict:
    with tempfile.TemporaryDirectory() as home:
        # the build: an empty environment, as on a shop PC; the source: this checkout's code, whatever
        # the venv's editable install points at
        env = {"PATH": "/usr/bin:/bin", "HOME": home} if clean_env else {**os.environ, "PYTHONPATH": str(ROOT)}
        env.update(QT_QPA_PLATFORM="offscreen", NAILMIRROR_HOME=str(Path(home) / "data"),
                   MPLCONFIGDIR=str(Path(home) / "mpl"))
        started = time.time()
        completed = subprocess.run([*command, "kiosk", "--demo", "--windowed", "--quit-after", str(quit_after_s)],
                                   env=env, capture_output=True, text=True, timeout=300)
        lines = [line for line in completed.stdout.splitlines() if line.startswith('{"frames_painted"')]
        if completed.returncode != 0 or not lines:
            raise RuntimeError(f"{command[0]} failed ({completed.returncode}): {completed.stderr[-2000:]}")
        report = json.loads(lines[-1])
        if report["first_frame_epoch_s"] is None:
            raise RuntimeError(f"{command[0]}: no frame painted in {quit_after_s} s")
        return {"first_frame_s": report["first_frame_epoch_s"] - started, "fps": report["fps"],
                "frames_with_hands": report["frames_with_hands"]}


def measure(label: str, command: list[str], runs: int, quit_after_s: float, clean_env: bool) -> dict:
    results = [first_frame_seconds(command, quit_after_s, clean_env) for _ in range(runs)]
    seconds = [r["first_frame_s"] for r in results]
    summary = {"median_s": round(statistics.median(seconds), 2), "runs_s": [round(s, 2) for s in seconds],
               "fps": results[-1]["fps"]}
    print(f"{label}: first frame after {summary['median_s']} s (runs {summary['runs_s']}), fps {summary['fps']}",
          file=sys.stderr)
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quit-after", type=float, default=10.0)
    parser.add_argument("--build", type=Path, default=ROOT / "dist" / "nailmirror")
    args = parser.parse_args()
    # Our modules' bytecode, as an installed kiosk has it (pip compiles what it installs; a source checkout writes
    # it on its first start). Without it every run compiled ~170 modules again: 1.53-1.65 s to the first frame
    # instead of 1.35 s, where the environment sets PYTHONDONTWRITEBYTECODE (this build machine does).
    import compileall

    for package in ("nailmirror_desktop", "nailmirror_protocol"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    source = measure("source install", [str(ROOT / ".venv" / "bin" / "nailmirror")], args.runs, args.quit_after,
                     clean_env=False)
    result = {"source_first_frame_s": source["median_s"], "source_fps": source["fps"]}
    program = args.build / "nailmirror"
    if program.is_file():
        build = measure("store build", [str(program)], args.runs, args.quit_after, clean_env=True)
        result.update(build_first_frame_s=build["median_s"], build_fps=build["fps"],
                      bundle_mb=round(folder_size_mb(args.build), 1), bundle_components_mb=sizes(args.build))
    else:
        print(f"no build at {args.build}: run tools/build_store.sh first", file=sys.stderr)
        result.update(build_first_frame_s=None, bundle_mb=None, bundle_components_mb=None)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
