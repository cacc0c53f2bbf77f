"""The services every front end shares, built in one place (ARCHITECTURE.md §2): the database, the style
repository and the task engine with the STYLE_GENERATION handler registered. Qt-free: the CLI uses these as
they are, the kiosk (app.kiosk) adds its Qt parts on top.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

from nailmirror_desktop.adapters.providers import create_provider
from nailmirror_desktop.core.catalog.assets import AssetCollection
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.clock import Clock, to_ms
from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.core.credits import CreditHooks, CreditPolicy
from nailmirror_desktop.core.credits.policy import policy_from_config
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION, GenerationServices, make_generation_handler
from nailmirror_desktop.core.generation.provider_config import ProviderConfig, load_provider_config
from nailmirror_desktop.core.generation.provider_port import ImageProvider
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.sync import fleet
from nailmirror_desktop.core.sync.tasks import BLOB_FETCH, BLOB_FETCH_PARALLEL, SyncServices
from nailmirror_desktop.core.sync.tasks import make_handlers as make_sync_handlers
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine

log = logging.getLogger(__name__)


def generation_services(config: ProviderConfig, clock: Clock) -> GenerationServices:
    """The STYLE_GENERATION handler's services on this machine: drivers from `config` (one per name, made on
    first use), the artwork maker, a style repository with the Pillow-checked asset store, the engine's clock."""
    from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe  # numpy/Pillow: only when generating
    from nailmirror_desktop.adapters.providers.artwork import make_artwork
    from nailmirror_desktop.core.catalog.assets import AssetStore

    drivers: dict[str, ImageProvider] = {}

    def provider_for(name: str) -> ImageProvider:
        if name not in drivers:
            drivers[name] = create_provider(name, config)
        return drivers[name]

    store = AssetStore(PillowImageProbe())
    return GenerationServices(
        provider_for=provider_for,
        make_artwork=make_artwork,
        repository_for=lambda conn: StyleRepository(conn, store),
        clock=clock,
        poll=config.poll,
    )


def register_generation(engine: TaskEngine, config: ProviderConfig | None = None, *, concurrency: int = 1,
                        credits: CreditPolicy | None = None) -> None:
    """Register the STYLE_GENERATION handler on `engine` (settings from config.json / the environment), and the
    credit hooks that charge and settle its paid tasks (register_credits)."""
    config = config or load_provider_config()
    handler = make_generation_handler(generation_services(config, engine.clock))
    engine.register_handler(STYLE_GENERATION, handler, concurrency=concurrency)
    policy = credits or credit_policy(config)
    register_credits(engine, policy if policy.models else replace(policy, models=provider_models(config)))


def credit_policy(config: ProviderConfig | None = None, kiosk: KioskConfig | None = None) -> CreditPolicy:
    """The store's credit policy (config.json), with each remote provider's model (prices may be per model)."""
    return policy_from_config(kiosk or load_config(), {} if config is None else provider_models(config))


def provider_models(config: ProviderConfig) -> dict[str, str]:
    return {name: config.settings_for(name).model for name in ("openai", "dashscope")}


def register_credits(engine: TaskEngine, policy: CreditPolicy | None = None) -> CreditHooks:
    """The credit hooks for STYLE_GENERATION (ARCHITECTURE.md §14): every engine over the kiosk's database has
    them, even one that only manages tasks, so a cancel or a replay from anywhere settles or charges. Pending
    charges left by a process without them (a bare TaskEngine) are settled now."""
    hooks = CreditHooks(policy or credit_policy())
    engine.register_hooks(STYLE_GENERATION, hooks)
    settled = hooks.settle_orphans(engine.connection(), to_ms(engine.clock.now()))  # writes only if it finds some
    if settled:
        log.warning("%d credit charge(s) of tasks that had already ended were settled", settled)
    return hooks


def open_task_engine(provider_config: ProviderConfig | None = None, *, db_path: Path | None = None,
                     config: EngineConfig | None = None, generation: bool = True, sync: bool = False) -> TaskEngine:
    """The task engine over the kiosk's database (or `db_path`), ready to run STYLE_GENERATION tasks; with
    generation=False only to read and manage tasks (no handler, no provider settings read, no numpy/Pillow
    imported). Close it when done (it is a context manager)."""
    engine = TaskEngine(db_path or database_path(), config=config)
    try:
        if not generation:
            register_credits(engine)
            return engine
        register_generation(engine, provider_config)
        if sync:  # the running kiosk: catalog sync polls HQ on this engine (ARCHITECTURE.md §16)
            register_sync(engine, periodic=True)
    except Exception:
        engine.close()
        raise
    return engine


def open_repository(conn: sqlite3.Connection | None = None, *, load_catalog: bool = False) -> StyleRepository:
    """The style repository over `conn` (a new connection to the kiosk's database if None)."""
    from nailmirror_desktop.adapters.style_store import open_style_repository

    return open_style_repository(conn, load_catalog=load_catalog)


def load_starter_catalog_in_own_connection() -> None:
    """Import the shipped catalog on first start (seconds): meant for a worker, so it opens its own connection."""
    conn = open_database(database_path())
    try:
        open_repository(conn, load_catalog=True)
    finally:
        conn.close()


def collect_asset_garbage_in_own_connection(now_s: float | None = None) -> AssetCollection:
    """Delete the asset store's leftovers older than an hour (temporaries of interrupted writes, blobs of failed
    imports); logs and returns what was collected. Meant for a worker: it opens its own connection."""
    conn = open_database(database_path())
    try:
        return open_repository(conn).collect_garbage(time.time() if now_s is None else now_s)
    finally:
        conn.close()


def prepare_catalog_in_own_connection() -> AssetCollection | None:
    """The kiosk's start-up job for the style catalog, on a worker: collect the asset store's garbage, then import
    the shipped catalog if not done yet. A failed collection is logged and does not keep the catalog from loading."""
    collected = None
    try:
        collected = collect_asset_garbage_in_own_connection()
    except Exception as exc:  # noqa: BLE001 — housekeeping; the catalog matters more
        log.error("asset store garbage could not be collected: %s", exc)
    load_starter_catalog_in_own_connection()
    return collected


def import_style_folder_in_own_connection(folder: str) -> str:
    """Import a style folder as a new DRAFT (asset store writes: seconds for big images); meant for a worker.
    Returns the new style's code."""
    from nailmirror_desktop.core.catalog import StyleSource, read_style_folder

    conn = open_database(database_path())
    try:
        repo = open_repository(conn)
        style_folder = read_style_folder(Path(folder), load_config().currency)
        style = repo.create_style_with_content(style_folder.name, StyleSource.MANUAL, style_folder.content,
                                               actor="staff", design_json=style_folder.design_json(),
                                               price_minor=style_folder.price_minor)
        return style.style_code
    finally:
        conn.close()


# ---- catalog sync with HQ (ARCHITECTURE.md §16) -----------------------------------------------------------

def sync_services(clock: Clock, *, periodic: bool = False) -> SyncServices:
    """The sync handlers' services on this machine: the Pillow-checked asset store, HTTP to the enrolled HQ,
    partial blob downloads under data_dir()/sync/parts."""
    from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
    from nailmirror_desktop.adapters.signing import verify_ed25519
    from nailmirror_desktop.adapters.sync.client import HttpHq
    from nailmirror_desktop.app.sample_render import render_sample
    from nailmirror_desktop.core.catalog.assets import AssetStore
    from nailmirror_desktop.core.paths import data_dir, private_dir

    store = AssetStore(PillowImageProbe())
    parts = private_dir(private_dir(data_dir() / "sync") / "parts")
    return SyncServices(
        facts=kiosk_facts(),
        repository_for=lambda conn: StyleRepository(conn, store),
        port_for=lambda current: HttpHq(current.hq_url, current.token, parts_dir=parts, kiosk_id=current.kiosk_id),
        clock=clock,
        periodic=periodic,
        credit_store_id=load_config().store_id,  # HQ's grants land in the account the credit hooks spend
        sample_renderer=render_sample,  # a submitted draft shows HQ's reviewer the style on a hand
        adopt_time_zone=adopt_store_time_zone,
        verify=verify_ed25519,  # HQ's signature on model releases (issue #27)
    )


def adopt_store_time_zone(zone: str) -> None:
    """The store's time zone HQ sent becomes the kiosk's (config.json), written only when it changed; staff
    settings show it read-only while the kiosk is enrolled (ui/staff/credit_settings.py)."""
    config = load_config()
    if config.store_time_zone != zone:
        save_config(config.with_changes(store_time_zone=zone))
def kiosk_facts() -> fleet.KioskFacts:
    """This build's versions for the sync report and `sync status --json` (issue #25 §7)."""
    from nailmirror_desktop import __version__

    return fleet.kiosk_facts(__version__)


def register_sync(engine: TaskEngine, services: SyncServices | None = None, *, periodic: bool = False) -> None:
    """Register SYNC_CYCLE, BLOB_FETCH and DRAFT_PUSH on `engine`; up to BLOB_FETCH_PARALLEL downloads run at
    once (the spread of a timer cycle's downloads, not their number in flight, is what keeps a chain-wide publish
    gentle on HQ). `periodic` (the running kiosk): every cycle schedules the next poll, and an enrolled kiosk's
    first one is queued now."""
    services = services or sync_services(engine.clock, periodic=periodic)
    for task_type, handler in make_sync_handlers(engine, services).items():
        engine.register_handler(task_type, handler,
                                concurrency=BLOB_FETCH_PARALLEL if task_type == BLOB_FETCH else 1)
    if periodic:
        from nailmirror_desktop.core.sync import state
        from nailmirror_desktop.core.sync.tasks import schedule_timer_cycle

        current = state.load(engine.connection())
        if current is not None and current.state.value in ("OK", "OFFLINE"):
            schedule_timer_cycle(engine, engine.clock.now(), services.poll_interval_s)


def open_sync_engine(*, db_path: Path | None = None, config: EngineConfig | None = None) -> TaskEngine:
    """The task engine over the kiosk's database with the sync task types (and the credit hooks every engine
    over this database carries)."""
    engine = TaskEngine(db_path or database_path(), config=config)
    try:
        register_credits(engine)
        register_sync(engine)
    except Exception:
        engine.close()
        raise
    return engine
