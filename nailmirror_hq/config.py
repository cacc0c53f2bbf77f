"""Where HQ keeps its data, from the command line and the environment.

One machine (the default): DIR/hq.sqlite3 (SQLite in WAL mode) and DIR/blobs/ (the filesystem blob store),
DIR = --data, else NAILMIRROR_HQ_HOME, else the user data dir. At scale:
NAILMIRROR_HQ_DATABASE_URL=postgresql+psycopg://… and NAILMIRROR_HQ_BLOBS=s3://bucket?endpoint=…&region=…
(credentials from the usual AWS_* variables), so several stateless HQ processes share one database and store.
HQ's config file (DIR/hq.toml, or NAILMIRROR_HQ_CONFIG: every HQ process of one database needs the same file)
holds the key that seals HQ's signing key (keys.py); it is made 0600 on the first start. Its optional
[rollouts] section sets `canary_hours`: how long a rollout stays with its canary stores before it widens on its
own when none of them reported a failed download (rollouts.py; default 24).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import platformdirs

ENV_HOME = "NAILMIRROR_HQ_HOME"
ENV_DATABASE_URL = "NAILMIRROR_HQ_DATABASE_URL"
ENV_BLOBS = "NAILMIRROR_HQ_BLOBS"
ENV_STARTER = "NAILMIRROR_HQ_STARTER_CATALOG"
ENV_CONFIG = "NAILMIRROR_HQ_CONFIG"
ENV_CAPTURE_RETENTION_DAYS = "NAILMIRROR_HQ_CAPTURE_RETENTION_DAYS"
CAPTURE_RETENTION_DAYS = 180  # consented captures are deleted at this age, used by a training or not
DB_FILE = "hq.sqlite3"
CONFIG_FILE = "hq.toml"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    blobs_url: str  # "file:///abs/dir" or "s3://bucket?endpoint=…"
    starter_catalog: Path | None  # loaded into a new HQ; None = do not load one
    config_file: Path | None = None  # None: DIR/hq.toml
    capture_retention_days: int = CAPTURE_RETENTION_DAYS  # the chain's retention age of consented captures

    @property
    def config_path(self) -> Path:
        return self.config_file if self.config_file is not None else self.data_dir / CONFIG_FILE

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def default_data_dir() -> Path:
    home = os.environ.get(ENV_HOME)
    return Path(home) if home else Path(platformdirs.user_data_dir("nailmirror-hq", appauthor=False))


def default_starter_catalog() -> Path | None:
    """The kiosk's starter catalog (the same files, so HQ publishes those styles under the same ids): package data
    in an installed wheel (distributions/nailmirror-hq puts it there), else the checkout's resources/."""
    override = os.environ.get(ENV_STARTER)
    if override is not None:
        return Path(override) if override else None
    package = Path(__file__).resolve().parent
    for folder in (package / "starter_catalog", package.parent / "resources" / "starter_catalog"):
        if (folder / "catalog.json").is_file():
            return folder
    return None


def load_settings(data_dir: Path | str | None = None) -> Settings:
    data = Path(data_dir) if data_dir else default_data_dir()
    data = data.expanduser().resolve()
    database_url = os.environ.get(ENV_DATABASE_URL) or f"sqlite:///{data / DB_FILE}"
    blobs_url = os.environ.get(ENV_BLOBS) or (data / "blobs").as_uri()
    config_file = os.environ.get(ENV_CONFIG)
    return Settings(data, database_url, blobs_url, default_starter_catalog(),
                    Path(config_file).expanduser().resolve() if config_file else None,
                    capture_retention_days())


def capture_retention_days() -> int:
    """NAILMIRROR_HQ_CAPTURE_RETENTION_DAYS (1..3650), else 180; a bad value is refused on one line."""
    text = os.environ.get(ENV_CAPTURE_RETENTION_DAYS, "").strip()
    if not text:
        return CAPTURE_RETENTION_DAYS
    if not text.isdigit() or not 1 <= int(text) <= 3650:
        raise ValueError(f"{ENV_CAPTURE_RETENTION_DAYS} must be a number of days in 1..3650, not {text[:20]!r}")
    return int(text)


DEFAULT_CANARY_HOURS = 24.0


def canary_period(settings: Settings) -> timedelta:
    """[rollouts] canary_hours of the config file; the default when the file or the key is absent. A value that
    is not a positive number is refused on one line (ValueError: the CLI says so and exits 4)."""
    try:
        document = tomllib.loads(settings.config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return timedelta(hours=DEFAULT_CANARY_HOURS)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{settings.config_path}: {exc}") from None
    hours = document.get("rollouts", {}).get("canary_hours", DEFAULT_CANARY_HOURS)
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or hours <= 0:
        raise ValueError(f"{settings.config_path}: [rollouts] canary_hours must be a positive number of hours")
    return timedelta(hours=float(hours))
