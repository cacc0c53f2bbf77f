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
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from nailmirror_desktop.adapters.share.network import lan_address
from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.app import captures
from nailmirror_desktop.app import services as shared
from nailmirror_desktop.app.effect_preview import register_effect_preview
from nailmirror_desktop.app.open_files import raise_open_file_limit
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.config import KioskConfig, config_path, load_config, save_config
from nailmirror_desktop.core.generation.provider_config import load_provider_config
from nailmirror_desktop.core.model_releases.switch import ModelSwitcher
from nailmirror_desktop.core.paths import database_path, resources_dir
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.core.tryon.handoff import HandoffRequests
from nailmirror_desktop.ui.bridge import BackgroundRunner
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.services import KioskServices
from nailmirror_desktop.ui.shell import kiosk_app
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
from nailmirror_desktop.vision.sources import camera_opening
from nailmirror_desktop.vision.sources.camera_devices import CameraChoice, CameraDevice
from nailmirror_desktop.vision.sources.readers import CameraProbe, FrameReader
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor

log = logging.getLogger(__name__)

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
    raise_open_file_limit()  # before anything opens: the soft limit (often 1,024) up to the hard one
    config = load_config()
    if not config_path().exists():
        save_config(config)  # the first start writes the defaults, so the default PIN's salt stays put
    window = kiosk_app.WindowOptions(options.fullscreen, options.screenshot, options.quit_after_s,
                                     options.check_keyboard, options.quit_after_frames)
    return kiosk_app.run_kiosk_app(config.language, lambda: build_services(config, options), window)


# --- frame sources (vision/sources/camera_opening.py decides; this maps the config onto it) ------------------
def open_demo_reader(video: str = "") -> FrameReader:
    """The bundled demo, or `video` (KioskConfig.demo_video) when it names a file; a missing one is logged and
    the bundled demo plays."""
    if video:
        if Path(video).is_file():
            return camera_opening.open_video_reader(Path(video))
        log.warning("demo_video %s is not a file: the bundled demo plays", video)
    return camera_opening.open_demo_reader(resources_dir() / "demo")


def camera_choice(config: KioskConfig) -> CameraChoice:
    """The config's camera fields as a CameraChoice (all empty with 'auto' and no name: automatic)."""
    index = int(config.camera) if config.camera.isdigit() else None
    return CameraChoice(config.camera_id, config.camera_name, index)


def camera_candidates(config: KioskConfig, list_devices: Callable[[], Sequence[CameraDevice]],
                      ) -> Callable[[], tuple[int, ...]]:
    return camera_opening.camera_candidates(camera_choice(config), list_devices)


def camera_opener(config: KioskConfig, probe: CameraProbe | None = None, *,
                  list_devices: Callable[[], Sequence[CameraDevice]] | None = None) -> camera_opening.Opener:
    return camera_opening.camera_opener(camera_choice(config), config.resolution, probe, list_devices=list_devices)


def device_lister(config: KioskConfig) -> Callable[[], Sequence[CameraDevice]] | None:
    """Where a chosen camera is looked up: Linux reads the kernel's list at every look (the default); elsewhere
    Qt's list, taken once here on the main thread (QMediaDevices is a GUI-thread API) and only when a camera
    was chosen by name."""
    if sys.platform.startswith("linux") or camera_choice(config).automatic:
        return None
    from nailmirror_desktop.ui.staff.camera_preview import qt_camera_devices

    devices = qt_camera_devices()
    return lambda: devices


def build_supervisor(config: KioskConfig, options: KioskOptions, resources: ExitStack | None = None,
                     ) -> SourceSupervisor:
    """The frame source's supervisor. With `resources` (the kiosk's), the first source (the demo video, or the
    camera) starts opening now, on a thread of its own (camera_opening.open_early)."""
    def early(opener: camera_opening.Opener) -> camera_opening.Opener:
        return camera_opening.open_early(opener, resources) if resources is not None else opener

    def demo() -> FrameReader:
        return open_demo_reader(config.demo_video)

    if options.demo:
        return SourceSupervisor(None, early(demo))  # no camera opener: the supervisor reports DEMO
    fallback = demo if options.demo_if_no_camera else None
    return SourceSupervisor(early(camera_opener(config, list_devices=device_lister(config))), fallback)


# --- services ---------------------------------------------------------------------------------------------
def build_session(config: KioskConfig, active: ActiveSegmenters | None = None) -> TryOnSession:
    from nailmirror_desktop.app import preload
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

    # the models started loading before the UI was imported (cli kiosk → app.preload); the first frame takes them
    pipeline = TryOnPipeline(Compositor(), mirrored=config.mirror, max_hands=config.hands_tracked,
                             preloaded=preload.take(config.hands_tracked), adapt_cadence=True, active=active)
    return TryOnSession(pipeline, mirror=config.mirror)


def build_services(config: KioskConfig, options: KioskOptions) -> KioskServices:
    """The kiosk's services; call on the main thread once the QApplication exists (the runner and the task
    executor are Qt objects). The mirror works even when the database or the task engine cannot be opened.
    Everything opened is closed with KioskServices.close, last opened first."""
    active = ActiveSegmenters()  # the nail model release each pipeline runs (none: the bundled model)
    session = build_session(config, active)
    resources = ExitStack()
    supervisor = build_supervisor(config, options, resources)  # the first source opens meanwhile
    # The mirror's one frame in flight never waits behind a generation or the catalog import on the global pool.
    runner = BackgroundRunner(BACKGROUND_THREADS)
    resources.callback(session.pipeline.close)  # an untaken early source is closed after these
    resources.callback(supervisor.close)
    conn = _open_database(resources)
    repository = engine = executor = None
    provider = "offline"
    if conn is not None:
        repository = _open_repository(conn)
        engine, executor, provider = _open_task_engine(resources, config, active)
    share = _open_share_server(config, resources)
    maker = _capture_maker(config, engine, resources, active) if with_db_engine(conn, engine) else None
    models = _model_switcher(conn, active, runner, session) if conn is not None else None
    still_models = _model_switcher(conn, active, runner, None, models) if conn is not None else None
    resources.callback(runner.close)  # first to close: the frame in flight finishes before the pipeline closes
    with_db = conn is not None
    return KioskServices(
        config, session, supervisor, runner, repository=repository, engine=engine, executor=executor,
        provider=provider, share=share, handoffs=HandoffRequests(conn) if conn is not None else None,
        load_catalog=shared.prepare_catalog_in_own_connection if with_db else None,
        import_style_folder=shared.import_style_folder_in_own_connection if with_db else None,
        take_capture=(lambda before: captures.capture_snapshot(maker, before, captures.customer_consent()))
        if maker is not None else None,
        take_staff_capture=(lambda before: captures.capture_snapshot(
            maker, before, captures.staff_consent_in_own_connection())) if maker is not None else None,
        staff_consent=captures.staff_consent_in_own_connection if with_db else None,
        drop_capture=captures.delete_capture_in_own_connection if with_db else None,
        withdraw_capture=captures.withdraw_in_own_connection if with_db else None,
        models=models, still_models=still_models, resources=resources,
    )


def with_db_engine(conn: sqlite3.Connection | None, engine: TaskEngine | None) -> bool:
    return conn is not None and engine is not None


def _model_switcher(conn: sqlite3.Connection, active: ActiveSegmenters, runner: BackgroundRunner,
                    session: TryOnSession | None, live: ModelSwitcher | None = None) -> ModelSwitcher | None:
    """Releases loaded on the runner beside the running model, switched at the idle reset: the live slot's, whose
    frames the session's paint stage counts for the watch, or (session None) the still slot's."""
    from nailmirror_desktop.app.model_switch import build_model_switcher
    from nailmirror_desktop.core.model_releases.switch import LIVE, STILL

    switcher = build_model_switcher(conn, active, runner, slot=LIVE if session is not None else STILL, live=live)
    if session is not None:
        session.tally = switcher.tally
    return switcher


def _capture_maker(config: KioskConfig, engine: TaskEngine | None, resources: ExitStack,
                   active: ActiveSegmenters) -> captures.CaptureMaker:
    """The consent tap's work (app/captures.py): its own still pipeline and face finder, loaded on the first
    capture; an enrolled kiosk queues the upload at once."""
    from nailmirror_desktop.core.sync.tasks import submit_capture_upload

    maker = captures.CaptureMaker(mirrored=config.mirror, max_hands=config.hands_tracked,
                                  submit_upload=(lambda code: submit_capture_upload(engine, code))
                                  if engine is not None else None, active=active)
    resources.callback(maker.close)
    return maker


def _open_share_server(config: KioskConfig, resources: ExitStack) -> ShareServer | None:
    """The take-home link server. It is always there, so staff can turn "send to my phone" on in the settings
    without a restart (ShareController follows config.share_to_phone), and it opens its port only on the first
    share, on the address the link advertises (config.share_address, else the kiosk's own on its network)."""
    address = config.share_address
    server = ShareServer(port=config.share_port, advertised_host=(lambda: address) if address else lan_address)
    resources.callback(server.close)
    return server


def _open_database(resources: ExitStack) -> sqlite3.Connection | None:
    from nailmirror_desktop.core.db import open_database

    try:
        conn = open_database(database_path())
    except Exception as exc:
        log.error("database unavailable: %s", exc)
        return None
    resources.callback(conn.close)
    return conn


def _open_repository(conn: sqlite3.Connection) -> StyleRepository | None:
    try:
        return shared.open_repository(conn)
    except Exception as exc:
        log.error("style catalog unavailable: %s", exc)
        return None


def _open_task_engine(resources: ExitStack, config: KioskConfig, active: ActiveSegmenters,
                      ) -> tuple[TaskEngine | None, TaskExecutor | None, str]:
    """The task engine with the STYLE_GENERATION and EFFECT_PREVIEW handlers, its Qt executor (made on the main
    thread) and the default provider's name."""
    try:
        provider_config = load_provider_config()
        engine = shared.open_task_engine(provider_config, sync=True)
        preview = register_effect_preview(engine, mirrored=config.mirror, active=active)
        executor = TaskExecutor(engine)
    except Exception as exc:
        log.error("task engine unavailable: %s", exc)
        return None, None, "offline"
    resources.callback(preview.close)  # closed after the executor let a render in progress finish
    resources.callback(engine.close)
    resources.callback(executor.shutdown)
    return engine, executor, provider_config.default_provider
