"""The Qt binding's None/True/False reference leak is harmless on CPython 3.12.

PySide6 6.12.0 (cp310-abi3 wheels) returns None, True and False without taking a reference, which on CPython
3.11 took one reference per call from those singletons until the interpreter died ("Fatal Python error:
none_dealloc" / bool_dealloc) within seconds of painting. From 3.12 the singletons are immortal (PEP 683), so
the kiosk needs no work-around; this test holds that: 10,000 calls of each kind, in a child process so a
crash shows up as a failed exit instead of a dead test run. (On 3.11 with PySide6 6.12.0 the child aborts.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CALLS = 10_000
DONE = "binding-calls-done"

CHILD = textwrap.dedent(
    f"""
    import sys
    from PySide6.QtCore import QObject, Signal
    from PySide6.QtGui import QColor, QImage, QPainter, QPen
    from PySide6.QtWidgets import QApplication, QLabel, QWidget

    class Emitter(QObject):
        changed = Signal(str)

    app = QApplication([])
    widget, label, emitter = QWidget(), QLabel(), Emitter()
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    returned = set()
    for i in range({CALLS}):
        returned.add(widget.setVisible(False))          # None
        returned.add(widget.isVisible())                # False
        returned.add(label.setText(str(i % 7)))         # None
        returned.add(emitter.blockSignals(i % 2 == 0))  # True / False
        returned.add(emitter.changed.emit("x"))         # True / False
        returned.add(painter.setPen(QPen(QColor(i % 255, 0, 0))))  # None
    painter.end()
    assert returned <= {{None, True, False}}, returned
    assert None in returned and True in returned and False in returned, returned
    print("{DONE}", sys.version_info[:2], flush=True)
    """
)


def test_ten_thousand_binding_calls_returning_none_and_bool_leave_the_process_healthy():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, env=env)
    assert child.returncode == 0, f"exit {child.returncode}: {child.stderr[-2000:]}"
    assert DONE in child.stdout, child.stdout
