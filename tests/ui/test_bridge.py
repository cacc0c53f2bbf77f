"""The bridge at the end of the kiosk's life (ARCHITECTURE.md §6): an answer that arrives after its owner shut
down, or after the Qt application itself was torn down, is dropped, never raised on the worker.

The teardown is the real one: a Python process that exits while a worker is about to post. At exit PySide
deletes every QObject Python owns (the bridge's own poster among them) and then the application; a worker
posting after that used to print `RuntimeError: Signal source has been deleted` (the kiosk's shutdown, one
run in two). The worker here waits, deterministically, until PySide's teardown is over: it is released by an
exit handler registered before PySide was imported, so it runs after PySide's own (exit handlers run last-first).
A job on the global pool cannot wait that long (the application's destructor waits for that pool): it is
released when PySide deletes the bridge's poster, so it too posts in the middle of the teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from nailmirror_desktop.ui import bridge

ROOT = Path(__file__).resolve().parents[2]

LATE_POST = textwrap.dedent("""
    import atexit, sys, threading
    release, workers = threading.Event(), []

    def after_qt_teardown():
        release.set()
        for worker in workers:
            worker.join(10)  # the thread ends after its exception, if any, was printed
        print("worker hung" if any(w.is_alive() for w in workers) else "worker finished", flush=True)

    atexit.register(after_qt_teardown)  # before PySide's: runs after it

    from PySide6.QtCore import QCoreApplication, Qt, QThreadPool
    from nailmirror_desktop.ui import bridge

    app = QCoreApplication([])
    bridge.install()
    channel = bridge.Channel()
    runner = bridge.BackgroundRunner(1)
    how = sys.argv[1]

    def late():
        release.wait(10)
        if how == "channel":
            channel.post(lambda: print("delivered after shutdown", flush=True))
        else:
            bridge.run_on_main(lambda: print("delivered after shutdown", flush=True))

    if how == "job":  # a bridge job whose work outlives the runner's close (a slow catalog import)
        def slow():
            release.wait(10)
            return 1
        bridge.run_in_background(slow, lambda result, error: print("delivered after shutdown", flush=True))
        # released (and posting) once PySide's teardown deleted the poster: see the module's docstring
        bridge._post.destroyed.connect(lambda *_: release.set(), Qt.ConnectionType.DirectConnection)
        pool = QThreadPool.globalInstance()
        workers.append(threading.Thread(target=lambda: pool.waitForDone(10000), daemon=True))
    else:
        workers.append(threading.Thread(target=late, daemon=True))
    workers[0].start()
    channel.close()
    runner.close(wait_ms=0)
    print("shut down", flush=True)
""")


@pytest.mark.parametrize("how", ["channel", "run_on_main", "job"])
def test_a_post_after_the_application_is_torn_down_is_dropped_not_raised(how):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", LATE_POST, how], capture_output=True, text=True, timeout=60,
                          env=env, cwd=ROOT)
    output = done.stdout + done.stderr
    assert "worker finished" in done.stdout, output
    assert "Traceback" not in output and "RuntimeError" not in output, output
    assert "delivered after shutdown" not in output and done.returncode == 0, output


def test_a_closed_channel_drops_a_late_answer_and_starts_no_new_work(qtbot):
    bridge.install()
    channel = bridge.Channel()
    release = threading.Event()
    got: list[object] = []
    channel.run_in_background(lambda: release.wait(10), lambda result, error: got.append(result))
    channel.close()
    release.set()
    started: list[int] = []
    channel.run_in_background(lambda: started.append(1), lambda result, error: got.append(result))
    qtbot.wait(300)
    assert got == [] and started == []
