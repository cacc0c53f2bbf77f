"""Provider settings: which provider generates styles, where each remote one lives, and its key.

Read from `data_dir()/config.json` (section "providers") and then the environment, which wins:
`NAILMIRROR_PROVIDER` (offline|openai|dashscope), `NAILMIRROR_OPENAI_BASE_URL`, `NAILMIRROR_OPENAI_API_KEY`,
`NAILMIRROR_DASHSCOPE_BASE_URL`, `NAILMIRROR_DASHSCOPE_API_KEY`.

Keys are `Secret`s: their repr and str are masked, so a logged config or a traceback never shows them, and
they are never put in a task payload (the payload names the provider; the worker reads the key from here).

config.json example:
    {"providers": {"default": "dashscope",
                   "openai": {"base_url": "https://api.openai.com", "api_key": "sk-…", "model": "gpt-image-1"},
                   "dashscope": {"base_url": "https://dashscope.aliyuncs.com", "api_key": "sk-…",
                                 "model": "wan2.2-t2i-flash"},
                   "timeouts": {"connect_s": 10, "read_s": 180, "total_s": 190},
                   "poll": {"initial_s": 2, "growth": 1.5, "max_s": 10, "deadline_s": 600},
                   "max_download_bytes": 20000000}}
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from nailmirror_desktop.core.paths import data_dir

PROVIDER_NAMES = ("offline", "openai", "dashscope")
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com"
DASHSCOPE_DEFAULT_BASE_URL = "https://dashscope.aliyuncs.com"


class ConfigError(ValueError):
    """The provider settings are unusable (unknown provider, bad numbers). `code` is for the UI."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Secret:
    """A string that does not show itself: repr/str are masked; `reveal()` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return "Secret('****')" if self._value else "Secret('')"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:  # pickling would be a way to leak it into a payload or a file
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True)
class RemoteProviderSettings:
    base_url: str
    api_key: Secret = field(default_factory=lambda: Secret(""))
    model: str = ""


@dataclass(frozen=True)
class PollSettings:
    """Async polling: first wait `initial_s`, multiplied by `growth` each poll up to `max_s`; give up the attempt
    after `deadline_s` (the provider task id stays, so the next attempt resumes polling)."""

    initial_s: float = 2.0
    growth: float = 1.5
    max_s: float = 10.0
    deadline_s: float = 600.0

    def intervals(self) -> Iterator[float]:
        """Yield the waits between polls: 2, 3, 4.5, 6.75, 10, 10, … (defaults)."""
        wait = self.initial_s
        while True:
            yield wait
            wait = min(wait * self.growth, self.max_s)


@dataclass(frozen=True)
class ProviderConfig:
    default_provider: str = "offline"
    openai: RemoteProviderSettings = RemoteProviderSettings(OPENAI_DEFAULT_BASE_URL, model="gpt-image-1")
    dashscope: RemoteProviderSettings = RemoteProviderSettings(DASHSCOPE_DEFAULT_BASE_URL, model="wan2.2-t2i-flash")
    connect_timeout_s: float = 10.0
    # gpt-image takes 10–30 s and edits up to 150 s (§1a); a read timeout after sending is AMBIGUOUS. It bounds
    # the whole answer, not one read: a server that drips bytes is cut off read_timeout_s after connecting.
    read_timeout_s: float = 180.0
    # Connect + send + the whole answer of one request (None: connect_timeout_s + read_timeout_s).
    total_timeout_s: float | None = None
    poll: PollSettings = PollSettings()
    max_download_bytes: int = 20_000_000

    def settings_for(self, provider: str) -> RemoteProviderSettings:
        if provider == "openai":
            return self.openai
        if provider == "dashscope":
            return self.dashscope
        raise ConfigError("provider_unknown", f"no remote settings for provider {provider!r}")


def load_provider_config(
    config_path: Path | None = None, environ: Mapping[str, str] | None = None
) -> ProviderConfig:
    """The file's "providers" section (if the file exists), then the environment on top."""
    environ = os.environ if environ is None else environ
    path = config_path or data_dir() / "config.json"
    section = _read_section(path)
    config = _from_section(section)
    return _apply_environment(config, environ)


def save_provider_config(config: ProviderConfig, config_path: Path | None = None) -> Path:
    """Write `config` as the file's "providers" section, keeping every other key of the file.

    Atomic (temporary file + rename) and readable by the owner only: the section holds the API keys.
    """
    path = config_path or data_dir() / "config.json"
    document = _read_document(path)
    document["providers"] = _to_section(_checked(config))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".providers.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a leftover temporary file would keep its old mode through O_CREAT
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, indent=2)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    return path


def _to_section(config: ProviderConfig) -> dict[str, Any]:
    def remote(settings: RemoteProviderSettings) -> dict[str, str]:
        return {"base_url": settings.base_url, "api_key": settings.api_key.reveal(), "model": settings.model}

    return {
        "default": config.default_provider,
        "openai": remote(config.openai),
        "dashscope": remote(config.dashscope),
        "timeouts": {"connect_s": config.connect_timeout_s, "read_s": config.read_timeout_s,
                     **({"total_s": config.total_timeout_s} if config.total_timeout_s is not None else {})},
        "poll": {"initial_s": config.poll.initial_s, "growth": config.poll.growth, "max_s": config.poll.max_s,
                 "deadline_s": config.poll.deadline_s},
        "max_download_bytes": config.max_download_bytes,
    }


def _read_document(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError("config_unreadable", f"cannot read {path}: {exc}") from exc
    return document if isinstance(document, dict) else {}


def _read_section(path: Path) -> dict[str, Any]:
    section = _read_document(path).get("providers", {})
    return section if isinstance(section, dict) else {}


def _remote_from(section: Mapping[str, Any], default: RemoteProviderSettings) -> RemoteProviderSettings:
    return RemoteProviderSettings(
        base_url=str(section.get("base_url") or default.base_url),
        api_key=Secret(str(section.get("api_key") or "")),
        model=str(section.get("model") or default.model),
    )


def _from_section(section: Mapping[str, Any]) -> ProviderConfig:
    base = ProviderConfig()
    timeouts = section.get("timeouts") or {}
    poll = section.get("poll") or {}
    try:
        config = ProviderConfig(
            default_provider=str(section.get("default") or base.default_provider),
            openai=_remote_from(section.get("openai") or {}, base.openai),
            dashscope=_remote_from(section.get("dashscope") or {}, base.dashscope),
            connect_timeout_s=float(timeouts.get("connect_s", base.connect_timeout_s)),
            read_timeout_s=float(timeouts.get("read_s", base.read_timeout_s)),
            total_timeout_s=None if timeouts.get("total_s") is None else float(timeouts["total_s"]),
            poll=PollSettings(
                initial_s=float(poll.get("initial_s", base.poll.initial_s)),
                growth=float(poll.get("growth", base.poll.growth)),
                max_s=float(poll.get("max_s", base.poll.max_s)),
                deadline_s=float(poll.get("deadline_s", base.poll.deadline_s)),
            ),
            max_download_bytes=int(section.get("max_download_bytes", base.max_download_bytes)),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError("config_invalid", f"provider settings not understood: {exc}") from exc
    return _checked(config)


def _apply_environment(config: ProviderConfig, environ: Mapping[str, str]) -> ProviderConfig:
    def remote(settings: RemoteProviderSettings, prefix: str) -> RemoteProviderSettings:
        base_url = environ.get(f"NAILMIRROR_{prefix}_BASE_URL") or settings.base_url
        key = environ.get(f"NAILMIRROR_{prefix}_API_KEY")
        return replace(settings, base_url=base_url, api_key=Secret(key) if key else settings.api_key)

    config = replace(
        config,
        default_provider=environ.get("NAILMIRROR_PROVIDER") or config.default_provider,
        openai=remote(config.openai, "OPENAI"),
        dashscope=remote(config.dashscope, "DASHSCOPE"),
    )
    return _checked(config)


def _checked(config: ProviderConfig) -> ProviderConfig:
    timeouts = (config.connect_timeout_s, config.read_timeout_s, config.total_timeout_s or 1.0)
    if not all(0 < t < float("inf") for t in timeouts):
        raise ConfigError("config_invalid", "timeouts must be positive numbers of seconds")
    for name, settings in (("openai", config.openai), ("dashscope", config.dashscope)):
        _check_base_url(name, settings.base_url)
    if config.default_provider not in PROVIDER_NAMES:
        raise ConfigError("provider_unknown", f"unknown provider {config.default_provider!r}; use {PROVIDER_NAMES}")
    if config.poll.initial_s <= 0 or config.poll.growth < 1 or config.poll.deadline_s <= 0:
        raise ConfigError("config_invalid", "poll settings must be positive (growth ≥ 1)")
    if config.max_download_bytes <= 0:
        raise ConfigError("config_invalid", "max_download_bytes must be positive")
    return config


def _check_base_url(name: str, url: str) -> None:
    """A base URL is http(s)://host[:port][/path] and nothing else: request paths are appended to it as they are."""
    try:
        parts = urllib.parse.urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
        parts = urllib.parse.urlsplit("")
    plain = not (parts.query or parts.fragment or parts.username or parts.password) and not any(
        ch.isspace() or ord(ch) < 0x20 for ch in url)
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok or not plain:
        raise ConfigError("config_invalid", f"{name} base URL must be http(s)://host[:port][/path], not {url[:100]!r}")
