"""One HQ: its settings, database engine and blob store, opened and initialised together.

Opening migrates the schema, gives a new HQ its epoch and default channel, and loads the kiosk's starter catalog
(same ids, same codes) so a kiosk's first sync takes over its pre-installed rows instead of duplicating them, and
unseals HQ's signing key (made on the first start, keys.py) with the config file's key. Before any of that, the data
directory is made private and checked against the backend it belongs to (data_dir.py). Every step is idempotent:
several HQ processes may open the same database at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from nailmirror_hq import catalog, clock, data_dir, db, keys, meta, stores
from nailmirror_hq.blobs import BlobStore, open_captures_for, open_for
from nailmirror_hq.config import Settings


@dataclass
class HQ:
    settings: Settings
    engine: Engine
    blobs: BlobStore
    signing_key: keys.SigningKey | None = None  # None only when opened without initialising
    kek: bytes | None = field(default=None, repr=False)  # the config file's key that seals it (a restore checks)
    stamped: str | None = None  # what this start recorded of the data directory's backend (data_dir.py), if it did
    captures: BlobStore | None = None  # consented captures' images, apart from `blobs` (captures.py)

    def require_captures(self) -> BlobStore:
        if self.captures is None:
            self.captures = open_captures_for(self.settings.blobs_url, self.settings.data_dir)
        return self.captures

    def require_signing_key(self) -> keys.SigningKey:
        if self.signing_key is None:
            raise RuntimeError("HQ was opened without initialising: it has no signing key")
        return self.signing_key

    def close(self) -> None:
        self.engine.dispose()


def open_hq(settings: Settings, *, initialise: bool = True) -> HQ:
    """Raises data_dir.WrongBackend, before anything is opened, when the data directory belongs to an HQ on
    another backend."""
    data_dir.make_private_dir(settings.data_dir)
    stamped = data_dir.check_backend(settings)
    engine = db.make_engine(settings.database_url)
    blobs = open_for(settings.blobs_url)
    ensure = getattr(blobs, "ensure_bucket", None)
    if initialise and ensure is not None:
        ensure()
    hq = HQ(settings, engine, blobs, stamped=stamped,
            captures=open_captures_for(settings.blobs_url, settings.data_dir))
    if initialise:
        kek = keys.load_or_create_kek(settings.config_path, may_create=not _has_sealed_key(engine))
        hq.kek = kek
        db.migrate(engine, kek)
        data_dir.make_private_files(settings)  # after the first connection made the database and its WAL
        with db.write(engine) as conn:
            hq.signing_key = keys.ensure_key(conn, kek, clock.now_text())
            keys.sign_unsigned_grants(conn, hq.signing_key)  # grants restored from a backup older than 0008
            if meta.get(conn, "epoch") is None:
                meta.put(conn, "epoch", meta.new_epoch())
            catalog.ensure_channel(conn, stores.DEFAULT_CHANNEL)
            starter_done = meta.get(conn, "starter_catalog") is not None
        if settings.starter_catalog is not None and not starter_done:
            catalog.load_starter_catalog(engine, blobs, settings.starter_catalog)
            with db.write(engine) as conn:
                meta.put(conn, "starter_catalog", str(settings.starter_catalog.name))
    return hq


def _has_sealed_key(engine: Engine) -> bool:
    """Whether the database already holds a sealed signing key (then a missing config file is an error, never a
    reason to make a new one that could not unseal it)."""
    try:
        with db.read(engine) as conn:
            return conn.execute(text("SELECT 1 FROM hq_signing_key")).first() is not None
    except DBAPIError:  # a database from before migration 0008, or a new one
        return False
