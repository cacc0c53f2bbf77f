"""One HQ: its settings, database engine and blob store, opened and initialised together.

Opening migrates the schema, gives a new HQ its epoch and default channel, and loads the kiosk's starter
catalog (same ids, same codes) so a kiosk's first sync takes over its pre-installed rows instead of
duplicating them. Every step is idempotent: several HQ processes may open the same database at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from nailmirror_hq import catalog, db, meta, stores
from nailmirror_hq.blobs import BlobStore, open_for
from nailmirror_hq.config import Settings


@dataclass
class HQ:
    settings: Settings
    engine: Engine
    blobs: BlobStore

    def close(self) -> None:
        self.engine.dispose()


def open_hq(settings: Settings, *, initialise: bool = True) -> HQ:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.database_url)
    blobs = open_for(settings.blobs_url)
    ensure = getattr(blobs, "ensure_bucket", None)
    if initialise and ensure is not None:
        ensure()
    hq = HQ(settings, engine, blobs)
    if initialise:
        db.migrate(engine)
        with db.write(engine) as conn:
            if meta.get(conn, "epoch") is None:
                meta.put(conn, "epoch", meta.new_epoch())
            catalog.ensure_channel(conn, stores.DEFAULT_CHANNEL)
            starter_done = meta.get(conn, "starter_catalog") is not None
        if settings.starter_catalog is not None and not starter_done:
            catalog.load_starter_catalog(engine, blobs, settings.starter_catalog)
            with db.write(engine) as conn:
                meta.put(conn, "starter_catalog", str(settings.starter_catalog.name))
    return hq
