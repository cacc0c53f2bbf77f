"""The kiosk's settings: one typed, frozen record, stored as data_dir()/config.json.

Everything a member of staff can change lives here (camera, resolution, mirroring, idle timeout, how long
snapshots are kept, language, the hashed staff PIN). The same file's "providers" section belongs to
`core/generation/provider_config.py`, which reads it (with the environment on top) and writes it
(`save_provider_config`); saving here keeps that section. Qt's QSettings holds window geometry and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.paths import data_dir

CONFIG_NAME = "config.json"
LANGUAGES = ("zh_CN", "en")
# scrypt cost: ~50 ms on this class of machine, enough that a stolen config.json does not give the PIN away
# by brute force over a 4–8 digit space in seconds (it still would in hours: the PIN is a door, not a vault).
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
DEFAULT_PIN = "2468"


@dataclass(frozen=True)
class KioskConfig:
    """camera: 'auto' (first working camera) or a device index as text; resolution in pixels (width, height)."""

    camera: str = "auto"
    resolution: tuple[int, int] = (1280, 720)
    mirror: bool = True
    # One hand keeps the mirror at camera rate on a 2-core store PC (two-hand tracking alone costs ~30 ms a frame
    # there); staff can switch to two hands on a faster machine.
    hands_tracked: int = 1
    idle_timeout_s: int = 90
    # Saved before/after snapshots show a customer's hand: deleted after this many days (core/tryon/retention.py).
    snapshot_keep_days: int = 7
    language: str = "zh_CN"
    staff_pin_salt: str = ""
    staff_pin_hash: str = ""

    def with_changes(self, **changes: object) -> KioskConfig:
        return validated(replace(self, **changes))  # type: ignore[arg-type]


def config_path() -> Path:
    return data_dir() / CONFIG_NAME


def validated(config: KioskConfig) -> KioskConfig:
    """Clamp values a hand-edited file may have got wrong, rather than refusing to start a kiosk."""
    width, height = (int(v) for v in config.resolution)
    language = config.language if config.language in LANGUAGES else "zh_CN"
    camera = config.camera if config.camera == "auto" or str(config.camera).isdigit() else "auto"
    return replace(
        config,
        camera=str(camera),
        resolution=(max(160, min(width, 3840)), max(120, min(height, 2160))),
        hands_tracked=2 if int(config.hands_tracked) >= 2 else 1,
        idle_timeout_s=max(10, min(int(config.idle_timeout_s), 3600)),
        snapshot_keep_days=max(1, min(int(config.snapshot_keep_days), 365)),
        language=language,
    )


def load_config(path: Path | None = None) -> KioskConfig:
    """Read the config file; a missing file gives the defaults with a fresh PIN hash (PIN 2468)."""
    path = path or config_path()
    if not path.exists():
        return with_pin(KioskConfig(), DEFAULT_PIN)
    raw = json.loads(path.read_text(encoding="utf-8"))
    known = {f.name for f in fields(KioskConfig)}
    values = {k: v for k, v in raw.items() if k in known}
    if "resolution" in values:
        values["resolution"] = tuple(values["resolution"])
    config = validated(KioskConfig(**values))
    return config if config.staff_pin_hash else with_pin(config, DEFAULT_PIN)


def save_config(config: KioskConfig, path: Path | None = None) -> Path:
    """Write the kiosk's keys, keeping every other section of the file (the providers' settings)."""
    path = path or config_path()
    document = _read_document(path)
    document.update(asdict(config))
    document["resolution"] = list(config.resolution)
    return _write_document(path, document)


def _read_document(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    document = json.loads(path.read_text(encoding="utf-8"))
    return document if isinstance(document, dict) else {}


def _write_document(path: Path, document: dict[str, Any]) -> Path:
    """Atomically (temporary file + rename) so a power cut never leaves half a config; owner-only, as it may
    hold API keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a temporary file left by a crash keeps its old mode through O_CREAT
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2, ensure_ascii=False))
    os.replace(tmp, path)
    return path


def hash_pin(pin: str, salt_hex: str) -> str:
    return hashlib.scrypt(pin.encode("utf-8"), salt=bytes.fromhex(salt_hex), **_SCRYPT).hex()


def with_pin(config: KioskConfig, pin: str) -> KioskConfig:
    """A copy of `config` whose staff PIN is `pin` (digits only, 4–8 of them); only a salted hash is kept."""
    if not (pin.isdigit() and 4 <= len(pin) <= 8):
        raise ValueError("PIN_FORMAT")
    salt = secrets.token_hex(16)
    return replace(config, staff_pin_salt=salt, staff_pin_hash=hash_pin(pin, salt))


def pin_matches(config: KioskConfig, pin: str) -> bool:
    if not config.staff_pin_hash or not pin.isdigit():
        return False
    return hmac.compare_digest(hash_pin(pin, config.staff_pin_salt), config.staff_pin_hash)
