"""The composition root: the one place that knows every layer.

It loads the config, opens the database, builds the try-on pipeline and the frame source (a camera chosen
automatically, or the bundled demo video), the style repository and the task engine with its Qt executor,
and hands each widget only what it needs. Widgets never build services themselves.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.config import KioskConfig, config_path, load_config, save_config
from nailmirror_desktop.core.paths import database_path, resources_dir

log = logging.getLogger(__name__)

CAMERA_CANDIDATES = range(0, 4)
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".webm", ".mov")


@dataclass
class KioskOptions:
    demo: bool = False
    demo_if_no_camera: bool = True
    fullscreen: bool = True
    screenshot: Path | None = None
    quit_after_s: float | None = None


@dataclass
class KioskServices:
    """Everything the window needs, built once. Fields that a missing part could not provide are None."""

    config: KioskConfig
    session: Any
    supervisor: Any
    run_in_background: Callable
    conn: Any = None
    repository: Any = None
    engine: Any = None
    executor: Any = None
    load_catalog: Callable[[], Any] | None = None  # first-start catalog import, run off the GUI thread
    provider: str = "offline"
    import_style_folder: Callable[[str], str] | None = None  # staff import, run off the GUI thread
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for closer in reversed(self.closers):
            try:
                closer()
            except Exception as exc:  # closing must go on past one failing part
                log.warning("closing %r failed: %s", closer, exc)
        self.closers.clear()


# --- frame sources ------------------------------------------------------------------------------------------
def demo_video_path() -> Path | None:
    folder = resources_dir() / "demo"
    videos = sorted(p for p in folder.glob("*") if p.suffix.lower() in VIDEO_SUFFIXES) if folder.is_dir() else []
    return videos[0] if videos else None


def open_demo_reader():
    from nailmirror_desktop.vision.sources import FrameReader, VideoFileSource

    path = demo_video_path()
    if path is None:
        raise FileNotFoundError("no demo video in resources/demo")
    return FrameReader(VideoFileSource(path, loop=True), paced=True)


def camera_opener(config: KioskConfig) -> Callable[[], Any]:
    """Opens the configured camera, or with 'auto' the first device that opens."""

    def open_camera():
        from nailmirror_desktop.vision.sources import CameraSource, FrameReader, SourceUnavailable

        width, height = config.resolution
        devices = CAMERA_CANDIDATES if config.camera == "auto" else (int(config.camera),)
        for device in devices:
            source = CameraSource(device, width=width, height=height)
            try:
                source.open()
            except SourceUnavailable:
                continue
            return FrameReader(source)
        raise RuntimeError("NO_CAMERA")

    return open_camera


def build_supervisor(config: KioskConfig, options: KioskOptions):
    from nailmirror_desktop.vision.supervisor import SourceSupervisor

    if options.demo:
        return SourceSupervisor(None, open_demo_reader)  # no camera opener: the supervisor reports DEMO
    fallback = open_demo_reader if options.demo_if_no_camera else None
    return SourceSupervisor(camera_opener(config), fallback)


# --- services ---------------------------------------------------------------------------------------------
def build_session(config: KioskConfig):
    from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
    from nailmirror_desktop.vision.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

    pipeline = TryOnPipeline(Compositor(), mirrored=config.mirror, max_hands=config.hands_tracked)
    return TryOnSession(pipeline, mirror=config.mirror)


def background_runner() -> Callable:
    """The bridge's run-on-pool function, as (fn, on_done(result, error)), on a pool of its own: the mirror's
    one frame in flight never waits behind a generation or the catalog import on the global pool."""
    from functools import partial

    from PySide6.QtCore import QThreadPool

    from nailmirror_desktop.ui import bridge

    bridge.install()
    pool = QThreadPool()
    pool.setMaxThreadCount(2)  # one frame in the pipeline + one camera re-open at most
    runner = partial(bridge.run_in_background, pool=pool)
    runner.pool = pool  # type: ignore[attr-defined]  # kept alive with the runner
    return runner


def build_services(config: KioskConfig, options: KioskOptions) -> KioskServices:
    session = build_session(config)
    services = KioskServices(config, session, build_supervisor(config, options), background_runner())
    services.closers.append(session.pipeline.close)
    services.closers.append(services.supervisor.close)
    _attach_catalog_and_tasks(services)
    pool = getattr(services.run_in_background, "pool", None)
    if pool is not None:  # closers run last-first: let the frame in flight finish before the pipeline closes
        services.closers.append(lambda: pool.waitForDone(3000))
    return services


def _attach_catalog_and_tasks(services: KioskServices) -> None:
    """Open the database, the style repository and the task engine; the mirror works without them."""
    try:
        from nailmirror_desktop.core.db import open_database

        services.conn = open_database(database_path())
        services.closers.append(services.conn.close)
    except Exception as exc:
        log.error("database unavailable: %s", exc)
        return
    services.repository = _open_repository(services.conn)
    services.load_catalog = load_starter_catalog_in_own_connection
    services.import_style_folder = import_style_folder_in_own_connection
    services.engine, services.executor = _open_task_engine(services)


def _open_repository(conn):
    try:
        from nailmirror_desktop.adapters.style_store import open_style_repository

        return open_style_repository(conn, load_catalog=False)
    except Exception as exc:
        log.error("style catalog unavailable: %s", exc)
        return None


def load_starter_catalog_in_own_connection():
    """Import the shipped catalog on first start (seconds): on a worker, with its own connection."""
    from nailmirror_desktop.adapters.style_store import open_style_repository
    from nailmirror_desktop.core.db import open_database

    conn = open_database(database_path())
    try:
        open_style_repository(conn, load_catalog=True)
    finally:
        conn.close()


def import_style_folder_in_own_connection(folder: str) -> str:
    """Import a style folder as a new DRAFT (asset store writes: seconds for big images) on a worker."""
    from nailmirror_desktop.adapters.style_store import open_style_repository
    from nailmirror_desktop.core.catalog import StyleSource, read_style_folder
    from nailmirror_desktop.core.db import open_database

    conn = open_database(database_path())
    try:
        repo = open_style_repository(conn, load_catalog=False)
        style_folder = read_style_folder(Path(folder))
        style = repo.create_style_with_content(style_folder.name, StyleSource.MANUAL, style_folder.content,
                                               actor="staff", design_json=style_folder.design_json())
        return style.style_code
    finally:
        conn.close()


def _open_task_engine(services: KioskServices):
    """The task engine with the STYLE_GENERATION handler, and its Qt executor (created on the main thread)."""
    try:
        from nailmirror_desktop.adapters.providers import register_generation
        from nailmirror_desktop.core.generation.provider_config import load_provider_config
        from nailmirror_desktop.core.tasks import TaskEngine
        from nailmirror_desktop.ui.generation.task_executor import TaskExecutor

        provider_config = load_provider_config()
        engine = TaskEngine(database_path())
        register_generation(engine, provider_config)
        executor = TaskExecutor(engine)
    except Exception as exc:
        log.error("task engine unavailable: %s", exc)
        return None, None
    services.provider = provider_config.default_provider
    services.closers.append(engine.close)
    services.closers.append(executor.shutdown)
    return engine, executor


class RunReport:
    """What a timed run (`--quit-after`) did, printed as one JSON line: the smoke test and the startup
    benchmark read it. first_frame_epoch_s: wall-clock time of the first frame painted with the pipeline."""

    def __init__(self, controller) -> None:
        self._controller = controller
        self.first_frame_epoch_s: float | None = None
        self.frames = 0
        self.frames_with_hands = 0
        controller.mirror_loop.frame_shown.connect(self._on_frame)
        controller.mirror_loop.hand_seen_changed.connect(self._on_hand)
        self._hand = False

    def _on_frame(self) -> None:
        if self.first_frame_epoch_s is None:
            self.first_frame_epoch_s = time.time()
        self.frames += 1
        self.frames_with_hands += int(self._hand)

    def _on_hand(self, seen: bool) -> None:
        self._hand = seen

    def summary(self, screenshot: Path | None) -> dict:
        loop = self._controller.mirror_loop
        style = self._controller.services.session.style
        return {
            "frames_painted": self.frames,
            "frames_with_hands": self.frames_with_hands,
            "first_frame_epoch_s": self.first_frame_epoch_s,
            "fps": round(loop.fps(), 2),
            "stage_ms": {k: round(v, 2) for k, v in loop.last_timings_ms.items()},
            "style_code": style.code if style is not None else None,
            "source": self._controller.services.supervisor.state,
            "frozen": bool(getattr(sys, "frozen", False)),
            "screenshot": str(screenshot) if screenshot else None,
        }


# --- the Qt application -------------------------------------------------------------------------------------
def run_kiosk(options: KioskOptions) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from nailmirror_desktop.ui.shell import i18n, theme
    from nailmirror_desktop.ui.shell.kiosk_controller import KioskController
    from nailmirror_desktop.ui.shell.qt_runtime import protect_none_refcount

    protect_none_refcount()
    app = QApplication.instance() or QApplication(["nailmirror"])
    theme.apply_theme(app)
    config = load_config()
    if not config_path().exists():
        save_config(config)  # the first start writes the defaults, so the default PIN's salt stays put
    i18n.install_language(config.language)
    services = build_services(config, options)
    controller = KioskController(services)
    window = controller.window
    if options.fullscreen:
        window.showFullScreen()
    else:
        window.resize(1280, 800)
        if options.screenshot is None:  # screenshots keep a known size; otherwise staff's last window placement
            window.restore_geometry()
        window.show()
    controller.start()
    run_report = RunReport(controller)
    exit_code = {"value": 0}
    if options.quit_after_s is not None:
        def finish() -> None:
            if options.screenshot is not None:
                exit_code["value"] = 0 if controller.save_screenshot(options.screenshot) else 1
            print(json.dumps(run_report.summary(options.screenshot)), flush=True)
            controller.shutdown()
            app.quit()

        QTimer.singleShot(int(options.quit_after_s * 1000), finish)

    def on_quit() -> None:
        if not options.fullscreen and options.screenshot is None:
            window.save_geometry()
        controller.shutdown()

    app.aboutToQuit.connect(on_quit)
    app.exec()
    return exit_code["value"]
