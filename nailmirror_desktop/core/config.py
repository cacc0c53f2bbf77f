"""The kiosk's settings: one typed, frozen record, stored as data_dir()/config.json.

Everything a member of staff can change lives here (camera, resolution, mirroring, idle timeout, how long
snapshots are kept, language). The same file's "providers" section belongs to
`core/generation/provider_config.py`, which reads it (with the environment on top) and writes it
(`save_provider_config`); its staff PIN keys (hash and lockout) belong to `core/staff_pin.py`, through
`read_config_document` / `update_config_document`. Saving here keeps every other key. Qt's QSettings holds
window geometry and nothing else.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from nailmirror_desktop.core.catalog.price import CURRENCIES, DEFAULT_CURRENCY
from nailmirror_desktop.core.paths import data_dir

CONFIG_NAME = "config.json"
LANGUAGES = ("zh_CN", "en")


@dataclass(frozen=True)
class KioskConfig:
    """camera: 'auto' (first working camera) or a device index as text; resolution in pixels (width, height)."""

    camera: str = "auto"
    # The camera staff chose by name (vision/sources/camera_devices.py): its id (on Linux the /dev/v4l/by-id link, which
    # survives reboots and port changes; else Qt's id) and its name. `camera` keeps the index it had, the last
    # fallback. Both empty: `camera` alone decides.
    camera_id: str = ""
    camera_name: str = ""
    resolution: tuple[int, int] = (1280, 720)
    mirror: bool = True
    # Two hands: a customer shows both, and the mirror tracks frame N+1 while it paints frame N (ui/tryon/
    # mirror_loop.py), which keeps two hands at the demo's 30 FPS on a 2-core store PC (ARCHITECTURE.md §3).
    # A saved config keeps what it says (the first start writes the defaults, so older kiosks keep 1).
    hands_tracked: int = 2
    idle_timeout_s: int = 90
    # Saved before/after snapshots show a customer's hand: deleted after this many days (core/tryon/retention.py).
    snapshot_keep_days: int = 7
    language: str = "zh_CN"
    # Generation credits (core/credits, ARCHITECTURE.md §14). A day is the store's local calendar day in
    # store_time_zone (IANA name). Caps count paid generations not refunded; 0 means no cap. The low-balance
    # alert shows staff when the balance falls below it. Prices: credits per image by "provider/model" or
    # "provider" (a paid provider not named costs 1; offline is always free).
    store_id: str = "local"
    # Until staff choose one (Settings), the operating system's zone (core.config.system_time_zone).
    store_time_zone: str = field(default_factory=lambda: system_time_zone())
    credits_daily_cap: int = 100
    credits_session_cap: int = 3
    credits_low_balance: int = 10
    credit_prices: dict[str, int] = field(default_factory=dict)
    # "Send to my phone" (adapters/share): the kiosk serves a snapshot once over the store network. Off unless
    # the store turns it on: otherwise nothing of a customer ever leaves the kiosk. Changing either needs a restart.
    share_to_phone: bool = False
    share_port: int = 8765
    # The address the QR code advertises and the share server listens on (an IP address); empty: the kiosk's
    # own address on its default network (adapters/share/network.py), 127.0.0.1 when it has none.
    share_address: str = ""
    # The store's name as customers know it ("指尖魔镜 · 静安店"), on the take-home card and the phone's picture;
    # empty leaves that line out.
    store_name: str = ""
    # The store's currency (ISO 4217, core/catalog/price.py): style prices are minor units of it. Changing it
    # does not convert prices already set; staff set them again.
    currency: str = DEFAULT_CURRENCY
    # The clip the mirror loops when no camera is connected (a path to a video file); empty: the bundled demo
    # (resources/demo). A salon may loop its own clip; the journeys loop one that starts without hands.
    demo_video: str = ""
    # Consented nail captures waiting for HQ (core/captures/) take at most this much disk; past it the oldest
    # are dropped (a log line each), so a kiosk offline for weeks never fills its disk with them.
    capture_quota_mb: int = 200

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
        camera_id=_short_text(config.camera_id, 512),
        camera_name=_short_text(config.camera_name, 200),
        resolution=(max(160, min(width, 3840)), max(120, min(height, 2160))),
        hands_tracked=2 if int(config.hands_tracked) >= 2 else 1,
        idle_timeout_s=max(10, min(int(config.idle_timeout_s), 3600)),
        snapshot_keep_days=max(1, min(int(config.snapshot_keep_days), 365)),
        language=language,
        store_id=str(config.store_id).strip()[:64] or "local",
        store_time_zone=config.store_time_zone if known_time_zone(config.store_time_zone) else system_time_zone(),
        credits_daily_cap=max(0, min(int(config.credits_daily_cap), 100_000)),
        credits_session_cap=max(0, min(int(config.credits_session_cap), 1_000)),
        credits_low_balance=max(0, min(int(config.credits_low_balance), 1_000_000)),
        credit_prices=_prices(config.credit_prices),
        share_to_phone=bool(config.share_to_phone),
        share_port=max(1024, min(int(config.share_port), 65535)),
        share_address=_ip_address(config.share_address),
        store_name=" ".join(_short_text(config.store_name, 200).split())[:60],
        currency=str(config.currency).strip().upper() if str(config.currency).strip().upper() in CURRENCIES
        else DEFAULT_CURRENCY,
        demo_video=_short_text(config.demo_video, 1024),
        capture_quota_mb=max(1, min(int(config.capture_quota_mb), 100_000)),
    )


def _short_text(value: object, limit: int) -> str:
    """At most `limit` characters, kept exactly (a camera is matched by its name); not text (a hand-edited
    file) becomes ''."""
    return value[:limit] if isinstance(value, str) else ""


def _ip_address(value: object) -> str:
    """An IP address as text, or '' for anything else (a host name, a hand-edited mistake)."""
    try:
        return str(ipaddress.ip_address(str(value).strip())) if value else ""
    except ValueError:
        return ""


def known_time_zone(name: object) -> bool:
    """An IANA name zoneinfo knows ("Asia/Shanghai"); never a path or an empty string."""
    if not isinstance(name, str) or not name or name.startswith("/") or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


FALLBACK_TIME_ZONE = "Asia/Shanghai"  # where the product's stores are, when the OS does not say
UNSET_ZONES = frozenset({"UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu", "UCT", "Etc/UCT"})


def system_time_zone() -> str:
    """The operating system's zone as an IANA name: $TZ, the /etc/localtime link, /etc/timezone; else the
    fallback (Windows says it through Qt: the settings page's "this computer's zone")."""
    candidates = [os.environ.get("TZ", "").removeprefix(":")]
    target = os.path.realpath("/etc/localtime")  # realpath does not raise for a missing file
    if "zoneinfo/" in target:
        candidates.append(target.split("zoneinfo/", 1)[1])
    with contextlib.suppress(OSError):
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    for name in candidates:
        # Plain UTC is what a PC says before anyone set its zone (fresh images, containers); no salon's
        # wall clock runs on it, so it counts as unknown and the stores' own zone is taken instead.
        if known_time_zone(name) and name not in UNSET_ZONES:
            return name
    return FALLBACK_TIME_ZONE


def _prices(prices: object) -> dict[str, int]:
    """Credits per image: whole numbers 0–1000 under non-empty keys; anything else in a hand-edited file is dropped."""
    if not isinstance(prices, Mapping):
        return {}
    return {str(key): max(0, min(value, 1000)) for key, value in prices.items()
            if str(key).strip() and isinstance(value, int) and not isinstance(value, bool)}


def load_config(path: Path | None = None) -> KioskConfig:
    """Read the config file; a missing file gives the defaults (with no staff PIN: core/staff_pin.py)."""
    path = path or config_path()
    if not path.exists():
        return KioskConfig()
    raw = json.loads(path.read_text(encoding="utf-8"))
    known = {f.name for f in fields(KioskConfig)}
    values = {k: v for k, v in raw.items() if k in known}
    if "resolution" in values:
        values["resolution"] = tuple(values["resolution"])
    return validated(KioskConfig(**values))


def save_config(config: KioskConfig, path: Path | None = None) -> Path:
    """Write the kiosk's keys, keeping every other section of the file (the providers' settings)."""
    path = path or config_path()
    document = _read_document(path)
    document.update(asdict(config))
    document["resolution"] = list(config.resolution)
    return _write_document(path, document)


def read_config_document(path: Path | None = None) -> dict[str, Any]:
    """The whole file as a dict ({} when missing): for the keys other modules own (the staff PIN's)."""
    return _read_document(path or config_path())


def update_config_document(changes: Mapping[str, Any], path: Path | None = None, *,
                           remove: Iterable[str] = ()) -> Path:
    """Set `changes` and drop the `remove` keys in one atomic, owner-only write, keeping every other key."""
    path = path or config_path()
    document = _read_document(path)
    document.update(changes)
    for key in remove:
        document.pop(key, None)
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
