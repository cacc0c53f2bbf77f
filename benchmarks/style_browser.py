"""The customer's style browser on a big catalog: does scrolling it ever stall the GUI thread?

Run: .venv/bin/python benchmarks/style_browser.py [--styles 5000] [--step 60]

A chain's catalog can reach thousands of styles. This builds a data directory with `--styles` published styles
(their images stored once and shared, as a chain's catalog shares textures), shows the StyleBrowser (offscreen
Qt, 600×900) and scrolls it from the top to the last row `--step` pixels at a time, letting the event loop run
between steps as a finger's drag does. A 5 ms QTimer watches the GUI thread the whole time: `longest_gap_ms`
is the longest wall time between two of its ticks, `longest_gui_cpu_ms` the most CPU the GUI thread spent
between two ticks (the stall a customer would feel; wall gaps also count what the OS gave other threads on a
shared machine). The budget: no gap that a finger notices, a frame's worth (~33 ms) of GUI work at most.
`rows` is how many rows the list had read when it reached the end (every style). The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--styles", type=int, default=5000)
    parser.add_argument("--step", type=int, default=60)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="nm-bench-browser-"))
    os.environ["NAILMIRROR_HOME"] = str(home / "home")

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from nailmirror_desktop.adapters.style_store import open_style_repository
    from nailmirror_desktop.ui.tryon.style_browser import StyleBrowser
    from tests.support.many_styles import add_published_styles

    app = QApplication.instance() or QApplication([])
    repo = open_style_repository()
    started = time.perf_counter()
    add_published_styles(repo, args.styles, home / "style")
    built_s = time.perf_counter() - started

    browser = StyleBrowser(repo)
    browser.resize(600, 900)
    browser.show()
    app.processEvents()

    gaps = {"wall": 0.0, "cpu": 0.0}
    last = {"wall": time.perf_counter(), "cpu": time.thread_time()}

    def tick() -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        gaps["wall"] = max(gaps["wall"], wall - last["wall"])
        gaps["cpu"] = max(gaps["cpu"], cpu - last["cpu"])
        last["wall"], last["cpu"] = wall, cpu

    watch = QTimer()
    watch.setInterval(5)
    watch.timeout.connect(tick)
    watch.start()
    bar = browser.list_view.verticalScrollBar()
    model = browser.model
    steps = 0
    scroll_started = time.perf_counter()
    while bar.value() < bar.maximum() or model.canFetchMore():
        bar.setValue(bar.value() + args.step)
        steps += 1
        deadline = time.perf_counter() + 0.016  # a finger's drag: a step per frame, the loop runs in between
        while time.perf_counter() < deadline:
            app.processEvents()
        if steps > 100_000:
            break
    scroll_s = time.perf_counter() - scroll_started
    while model.thumbnails_pending():
        app.processEvents()
    watch.stop()
    print(json.dumps({
        "styles": args.styles, "rows": model.rowCount(), "scroll_steps": steps,
        "longest_gap_ms": round(gaps["wall"] * 1000, 1), "longest_gui_cpu_ms": round(gaps["cpu"] * 1000, 1),
        "scroll_s": round(scroll_s, 1), "build_s": round(built_s, 1),
    }))
    browser.model.detach()
    repo.conn.close()


if __name__ == "__main__":
    main()
