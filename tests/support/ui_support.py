"""Real parts for the UI tests: the kiosk as the app builds it, a synchronous runner (the bridge's contract, run
inline) and frame sources."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from nailmirror_desktop.app.kiosk import KioskOptions, build_services
from nailmirror_desktop.core.config import load_config
from nailmirror_desktop.core.paths import data_dir, database_path
from nailmirror_desktop.core.staff_pin import StaffPin
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.kiosk_controller import KioskController
from nailmirror_desktop.vision.sources.readers import (
    Frame,
    FrameReader,
    FrameSource,
    SourceState,
    SourceUnavailable,
    StillImageSource,
)
from tests.support.data_dirs import copy_starter_data

ROOT = Path(__file__).resolve().parents[2]
DEMO_VIDEO = ROOT / "resources" / "demo" / "hand_demo.mp4"
STAFF_PIN = "13579"  # the tests' PIN: there is no default one


def set_staff_pin(pin: str = STAFF_PIN) -> str:
    """Set the staff PIN in this test's data directory the way `nailmirror staff set-pin` does."""
    StaffPin().set(pin)
    return pin


@contextmanager
def started_kiosk(qtbot) -> Iterator[KioskController]:
    """The kiosk as the app builds it (real services, real bridge threads, demo video) from the saved config,
    started; shut down afterwards. A data directory without a database gets the session's copy of the starter
    catalog first (tests/support/data_dirs.py), so the kiosk starts as it does after its first start."""
    if not database_path().exists():
        copy_starter_data(data_dir())
    controller = KioskController(build_services(load_config(), KioskOptions(demo=True)))
    qtbot.addWidget(controller.window)
    controller.window.resize(1280, 800)
    controller.window.show()
    controller.start()
    try:
        yield controller
    finally:
        controller.shutdown()
        i18n.install_language("en")  # the idle reset installs the configured zh_CN; later tests read English


@contextmanager
def light_kiosk(qtbot, catalog: Path, run_in_background=None, share=None, take_capture=None,
                drop_capture=None, active=None, models=None) -> Iterator[KioskController]:
    """The shell as the app builds it (window, try-on, AI design, share and staff flows) over light services:
    `catalog` (a make_catalog folder) imported into the test's database, a real try-on pipeline on a still black
    frame, no task engine, workers run by `run_in_background` (default: inline). Built, not started; the
    language is the config's. About 0.1 s, against about 2 s for `started_kiosk`. active, models: the pipelines'
    ActiveSegmenters and a `models(session) -> ModelSwitcher` for the nail model releases (issue #27 §7)."""
    from nailmirror_desktop.core.catalog.starter import load_starter_catalog
    from nailmirror_desktop.core.tryon.handoff import HandoffRequests
    from nailmirror_desktop.ui import bridge
    from nailmirror_desktop.ui.services import KioskServices
    from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor
    from tests.support.style_fixtures import repository

    bridge.install()
    repo = repository()
    load_starter_catalog(repo, catalog)
    config = load_config()
    if share is not None:  # a share server given: staff have "send to my phone" on
        config = replace(config, share_to_phone=True)
    i18n.install_language(config.language)
    with TryOnPipeline(Compositor(), active=active) as pipeline:
        supervisor = SourceSupervisor(lambda: still_reader(np.zeros((120, 160, 3), np.uint8)))
        session = TryOnSession(pipeline)
        services = KioskServices(config, session, supervisor, run_in_background or run_now,
                                 repository=repo, share=share, handoffs=HandoffRequests(repo.conn),
                                 take_capture=take_capture, drop_capture=drop_capture,
                                 models=None if models is None else models(session))
        controller = KioskController(services)
        qtbot.addWidget(controller.window)
        controller.tryon.put_on_a_first_style()
        try:
            yield controller
        finally:
            controller.shutdown()
            supervisor.close()
            repo.conn.close()
            i18n.install_language("en")  # later tests read English


def run_now(fn, on_done):
    """The bridge's (fn, on_done(result, error)) contract, synchronously: the Picard/huey 'immediate' mode."""
    try:
        result = fn()
    except BaseException as exc:  # noqa: BLE001 - handed to the callback like the bridge does
        on_done(None, exc)
    else:
        on_done(result, None)


class HoldableRunner:
    """The bridge's (fn, on_done) contract run inline, or, while `held`, kept until `release()`."""

    def __init__(self) -> None:
        self.held = False
        self.jobs: list = []

    def __call__(self, fn, on_done) -> None:
        if self.held:
            self.jobs.append((fn, on_done))
        else:
            run_now(fn, on_done)

    def release(self) -> None:
        self.held = False
        while self.jobs:
            run_now(*self.jobs.pop(0))


class FlakyCamera(FrameSource):
    """A camera that delivers `frames_before_loss` frames, is then unplugged (reads and opens fail) until
    `replug()` is called; after that it keeps delivering. Frames are a flat colour with a counter in red."""

    plugged = True
    unplugged_once = False
    opened = 0

    def __init__(self, frames_before_loss: int = 5, size=(240, 320)) -> None:
        super().__init__()
        self.frames_before_loss = frames_before_loss
        self.size = size
        self._delivered = 0

    @classmethod
    def replug(cls) -> None:
        cls.plugged = True

    def open(self) -> None:
        if not FlakyCamera.plugged:
            self.state = SourceState.LOST
            raise SourceUnavailable("CAMERA_NOT_FOUND", "unplugged")
        FlakyCamera.opened += 1
        self.state = SourceState.OPEN

    def read(self) -> Frame | None:
        if self._delivered >= self.frames_before_loss and not FlakyCamera.unplugged_once:
            FlakyCamera.plugged = False
            FlakyCamera.unplugged_once = True
        if not FlakyCamera.plugged:
            self.state = SourceState.LOST
            raise SourceUnavailable("CAMERA_LOST", "unplugged")
        self._delivered += 1
        image = np.full((*self.size, 3), 90, np.uint8)
        image[:, :, 2] = self._delivered % 256
        threading.Event().wait(0.01)
        return self._frame(image, self._delivered * 33)


def still_reader(image: np.ndarray) -> FrameReader:
    return FrameReader(StillImageSource(image, repeat=True), paced=True)


def demo_frames(count: int, step: int = 1) -> list[np.ndarray]:
    import cv2

    capture = cv2.VideoCapture(str(DEMO_VIDEO))
    frames = []
    index = 0
    while len(frames) < count:
        ok, image = capture.read()
        if not ok:
            break
        if index % step == 0:
            frames.append(image)
        index += 1
    capture.release()
    return frames
