"""The kiosk's composition root: builds its services and hands them to the UI (ARCHITECTURE.md §2).

It loads the config, builds the try-on pipeline and the frame source (a camera chosen automatically, or the
bundled demo video), opens the database, the style repository and the task engine (app.services) with its Qt
executor, and starts the Qt application (ui.shell.kiosk_app) with them. Widgets never build services
themselves. No Qt is imported here: the Qt parts are ui's.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.app import services as shared
from nailmirror_desktop.app.effect_preview import register_effect_preview
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.config import KioskConfig, config_path, load_config, save_config
from nailmirror_desktop.core.generation.provider_config import load_provider_config
from nailmirror_desktop.core.paths import database_path, resources_dir
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.ui.bridge import BackgroundRunner
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.services import KioskServices
from nailmirror_desktop.ui.shell import kiosk_app
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.camera_devices import (
    CameraChoice,
    CameraDevice,
    linux_video_devices,
    resolve_camera_index,
)
from nailmirror_desktop.vision.sources import CameraProbe, FrameReader
from nailmirror_desktop.vision.supervisor import SourceSupervisor

log = logging.getLogger(__name__)

CAMERA_CANDIDATES = range(0, 4)
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".webm", ".mov")
BACKGROUND_THREADS = 3  # the mirror's two stages (a frame tracked, another painted) + one camera re-open at most


@dataclass(frozen=True)
class KioskOptions:
    demo: bool = False
    demo_if_no_camera: bool = True
    fullscreen: bool = True
    screenshot: Path | None = None
    quit_after_s: float | None = None
    check_keyboard: bool = False  # a timed run types on the on-screen keyboard and reports it (smoke test)
    quit_after_frames: int | None = None  # a run that ends once this many frames are painted


EXIT_RESTART = kiosk_app.EXIT_RESTART


def run_kiosk(options: KioskOptions) -> int:
    """Start the kiosk and run it until it quits; the exit status (EXIT_RESTART: staff asked to start it again)."""
    config = load_config()
    if not config_path().exists():
        save_config(config)  # the first start writes the defaults, so the default PIN's salt stays put
    window = kiosk_app.WindowOptions(options.fullscreen, options.screenshot, options.quit_after_s,
                                     options.check_keyboard, options.quit_after_frames)
    return kiosk_app.run_kiosk_app(config.language, lambda: build_services(config, options), window)


# --- frame sources ------------------------------------------------------------------------------------------
def demo_video_path() -> Path | None:
    folder = resources_dir() / "demo"
    videos = sorted(p for p in folder.glob("*") if p.suffix.lower() in VIDEO_SUFFIXES) if folder.is_dir() else []
    return videos[0] if videos else None


def open_demo_reader() -> FrameReader:
    from nailmirror_desktop.vision.sources import VideoFileSource

    path = demo_video_path()
    if path is None:
        raise FileNotFoundError("no demo video in resources/demo")
    return FrameReader(VideoFileSource(path, loop=True), paced=True)


def camera_choice(config: KioskConfig) -> CameraChoice:
    """The config's camera fields as a CameraChoice (all empty with 'auto' and no name: automatic)."""
    index = int(config.camera) if config.camera.isdigit() else None
    return CameraChoice(config.camera_id, config.camera_name, index)


def camera_candidates(config: KioskConfig, list_devices: Callable[[], Sequence[CameraDevice]],
                      ) -> Callable[[], tuple[int, ...]]:
    """The indexes a look tries: with 'auto' the first few; a chosen camera at its index of the moment (looked up
    in `list_devices()` each time), or the index it had when it is not listed."""
    choice = camera_choice(config)

    def candidates() -> tuple[int, ...]:
        if choice.automatic:
            return tuple(CAMERA_CANDIDATES)
        index = resolve_camera_index(choice, list_devices())
        return (index,) if index is not None else tuple(CAMERA_CANDIDATES)

    return candidates


def camera_opener(config: KioskConfig, probe: CameraProbe | None = None, *,
                  list_devices: Callable[[], Sequence[CameraDevice]] | None = None,
                  ) -> Callable[[], FrameReader | None]:
    """Opens the configured camera, or with 'auto' the first device that opens. The supervisor calls it every
    few seconds while no camera is live; the probe's backoff decides when a look is due: until then the opener
    returns None without touching a device (and nothing is logged). A camera chosen by name is looked up again
    at every look (`list_devices`, by default the kernel's list on Linux): it opens at its index of the moment."""
    probe = probe or CameraProbe(camera_candidates(config, list_devices or linux_video_devices))
    width, height = config.resolution

    def open_camera() -> FrameReader | None:
        from nailmirror_desktop.vision.sources import CameraSource

        if not probe.due():
            return None
        source = probe.open_first(lambda device: CameraSource(device, width=width, height=height))
        if source is None:
            raise RuntimeError(f"NO_CAMERA (next look in {probe.delay_s:.0f} s)")
        return FrameReader(source)

    return open_camera


def device_lister(config: KioskConfig) -> Callable[[], Sequence[CameraDevice]] | None:
    """Where a chosen camera is looked up: Linux reads the kernel's list at every look (the default); elsewhere
    Qt's list, taken once here on the main thread (QMediaDevices is a GUI-thread API) and only when a camera
    was chosen by name."""
    if sys.platform.startswith("linux") or camera_choice(config).automatic:
        return None
    from nailmirror_desktop.ui.staff.camera_preview import qt_camera_devices

    devices = qt_camera_devices()
    return lambda: devices


def build_supervisor(config: KioskConfig, options: KioskOptions,
                     closers: list[Callable[[], object]] | None = None) -> SourceSupervisor:
    """The frame source's supervisor. With `closers` (the kiosk's), the first source (the demo video, or the
    camera) starts opening now, on a thread of its own (see `open_early`)."""
    def early(opener: Callable[[], FrameReader | None]) -> Callable[[], FrameReader | None]:
        return open_early(opener, closers) if closers is not None else opener

    if options.demo:
        return SourceSupervisor(None, early(open_demo_reader))  # no camera opener: the supervisor reports DEMO
    fallback = open_demo_reader if options.demo_if_no_camera else None
    return SourceSupervisor(early(camera_opener(config, list_devices=device_lister(config))), fallback)


def open_early(opener: Callable[[], FrameReader | None],
               closers: list[Callable[[], object]]) -> Callable[[], FrameReader | None]:
    """Cold start (#13.10, the ~0.1-0.3 s a camera or the demo video takes to open and deliver a frame): call
    `opener` at once on a thread and start the reader, while the window is built; the supervisor's first open
    takes that reader (waiting for it, or getting the opener's error), later opens call `opener` as usual. A
    reader never taken (the kiosk closed first) is closed with the kiosk."""
    early: Future[FrameReader | None] = Future()

    def run() -> None:
        try:
            reader = opener()
            if reader is not None:
                reader.start()
        except BaseException as exc:  # the supervisor's first open raises it, as the opener would have
            early.set_exception(exc)
        else:
            early.set_result(reader)

    taken = threading.Event()

    def open_source() -> FrameReader | None:
        if taken.is_set():
            return opener()
        taken.set()
        return early.result()

    def close_untaken() -> None:
        if not taken.is_set():
            taken.set()
            try:
                reader = early.result(timeout=10)
            except Exception:  # noqa: BLE001 - nothing opened, nothing to close
                return
            if reader is not None:
                reader.close()

    threading.Thread(target=run, name="source-open", daemon=True).start()
    closers.append(close_untaken)
    return open_source


# --- services ---------------------------------------------------------------------------------------------
def build_session(config: KioskConfig) -> TryOnSession:
    from nailmirror_desktop.app import preload
    from nailmirror_desktop.vision.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

    # the models started loading before the UI was imported (cli kiosk → app.preload); the first frame takes them
    pipeline = TryOnPipeline(Compositor(), mirrored=config.mirror, max_hands=config.hands_tracked,
                             preloaded=preload.take(config.hands_tracked))
    return TryOnSession(pipeline, mirror=config.mirror)


def build_services(config: KioskConfig, options: KioskOptions) -> KioskServices:
    """The kiosk's services; call on the main thread once the QApplication exists (the runner and the task
    executor are Qt objects). The mirror works even when the database or the task engine cannot be opened."""
    session = build_session(config)
    closers: list[Callable[[], object]] = []
    supervisor = build_supervisor(config, options, closers)  # the first source opens meanwhile
    # The mirror's one frame in flight never waits behind a generation or the catalog import on the global pool.
    runner = BackgroundRunner(BACKGROUND_THREADS)
    closers += [session.pipeline.close, supervisor.close]  # run last-first: an untaken early source after these
    conn = _open_database(closers)
    repository = engine = executor = None
    provider = "offline"
    if conn is not None:
        repository = _open_repository(conn)
        engine, executor, provider = _open_task_engine(closers, config)
    share = _open_share_server(config, closers)
    closers.append(runner.close)  # closers run last-first: the frame in flight finishes before the pipeline closes
    with_db = conn is not None
    return KioskServices(
        config, session, supervisor, runner, repository=repository, engine=engine, executor=executor,
        provider=provider, share=share,
        load_catalog=shared.prepare_catalog_in_own_connection if with_db else None,
        import_style_folder=shared.import_style_folder_in_own_connection if with_db else None,
        closers=closers,
    )


def _open_share_server(config: KioskConfig, closers: list[Callable[[], object]]) -> ShareServer | None:
    """The one-time link server when staff turned "send to my phone" on; it opens its port on the first share."""
    if not config.share_to_phone:
        return None
    server = ShareServer(port=config.share_port)
    closers.append(server.close)
    return server


def _open_database(closers: list[Callable[[], object]]) -> sqlite3.Connection | None:
    from nailmirror_desktop.core.db import open_database

    try:
        conn = open_database(database_path())
    except Exception as exc:
        log.error("database unavailable: %s", exc)
        return None
    closers.append(conn.close)
    return conn


def _open_repository(conn: sqlite3.Connection) -> StyleRepository | None:
    try:
        return shared.open_repository(conn)
    except Exception as exc:
        log.error("style catalog unavailable: %s", exc)
        return None


def _open_task_engine(
    closers: list[Callable[[], object]], config: KioskConfig,
) -> tuple[TaskEngine | None, TaskExecutor | None, str]:
    """The task engine with the STYLE_GENERATION and EFFECT_PREVIEW handlers, its Qt executor (made on the main
    thread) and the default provider's name."""
    try:
        provider_config = load_provider_config()
        engine = shared.open_task_engine(provider_config, sync=True)
        preview = register_effect_preview(engine, mirrored=config.mirror)
        executor = TaskExecutor(engine)
    except Exception as exc:
        log.error("task engine unavailable: %s", exc)
        return None, None, "offline"
    closers.append(preview.close)  # closers run last-first: after the executor let a render in progress finish
    closers.append(engine.close)
    closers.append(executor.shutdown)
    return engine, executor, provider_config.default_provider
