"""Journeys: the real kiosk in a real X window (a private Xvfb), driven step by step (tests/journeys/runner.py).

One Xvfb serves the whole run and the kiosk's QApplication is made once, by the first journey's entry point, on
it: Qt picks its platform and input method when the application starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.journeys.runner import QT_MESSAGE_PATTERN
from tests.support.xvfb import xvfb_display

SCREEN = "1280x800x24"  # a small store screen: the kiosk fills it (full screen, as `./dev kiosk` starts it)


@pytest.fixture(scope="session")
def journey_display() -> Iterator[str]:
    with xvfb_display(SCREEN) as display:
        names = ("DISPLAY", "QT_QPA_PLATFORM", "QT_MESSAGE_PATTERN", "QT_IM_MODULE")
        saved = {name: os.environ.get(name) for name in names}
        os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", QT_MESSAGE_PATTERN=QT_MESSAGE_PATTERN)
        os.environ.pop("QT_IM_MODULE", None)  # the kiosk chooses its own (its on-screen keyboard)
        try:
            yield display
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
