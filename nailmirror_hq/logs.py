"""HQ's log lines: plain text (the default) or JSON lines, to stderr and, when configured, to a file.

Set in HQ's config file (hq.toml, config.py), read when `serve` starts:

    [logging]
    format = "json"                          # or "text"
    file = "/var/log/nailmirror-hq/hq.jsonl"  # optional: also written here (reopened after logrotate moves it)
    level = "INFO"                           # DEBUG, INFO, WARNING or ERROR

A JSON line is one object: {"ts": "2026-12-04T23:05:42.123Z" (UTC), "level": "INFO", "logger": "nailmirror_hq…",
"event": "review login failed", "fields": {…}}. HQ's code logs an event with its fields through `event()`; older
%-style lines keep their text as the event. uvicorn's access lines become event "request" with client, method,
path, status. A field named like a secret (token, password, code, authorization, cookie, …) is written as
"[redacted]", whoever logged it: tokens and passwords never reach a log, whichever format.
"""

from __future__ import annotations

import json
import logging
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SECTION = "logging"
FORMATS = ("text", "json")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
SECRET_FIELDS = frozenset({"token", "password", "code", "enrollment_code", "authorization", "cookie", "csrf",
                           "session", "secret", "key"})
REDACTED = "[redacted]"


class LogConfigError(ValueError):
    """hq.toml's [logging] section says something HQ cannot do (one line)."""


@dataclass(frozen=True)
class LogSettings:
    format: str = "text"
    file: Path | None = None
    level: str = "INFO"


def load(config_path: Path) -> LogSettings:
    """The [logging] section of HQ's config file; the defaults when the file or the section is absent."""
    try:
        document = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return LogSettings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LogConfigError(f"{config_path}: unreadable ({type(exc).__name__})") from None
    section = document.get(SECTION, {})
    if not isinstance(section, dict):
        raise LogConfigError(f"{config_path}: [{SECTION}] is not a table")
    fmt, level, file = section.get("format", "text"), str(section.get("level", "INFO")).upper(), section.get("file")
    if fmt not in FORMATS:
        raise LogConfigError(f"{config_path}: [{SECTION}] format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if level not in LEVELS:
        raise LogConfigError(f"{config_path}: [{SECTION}] level must be one of {', '.join(LEVELS)}, not {level!r}")
    if file is not None and (not isinstance(file, str) or not file.strip()):
        raise LogConfigError(f"{config_path}: [{SECTION}] file must be a path")
    return LogSettings(fmt, Path(file).expanduser() if file else None, level)


def event(logger: logging.Logger, level: int, name: str, **fields: Any) -> None:
    """Log `name` (a short, stable phrase) with its fields: JSON keeps them apart, text appends key=value."""
    logger.log(level, name, extra={"fields": fields})


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    raw = getattr(record, "fields", None)
    fields = dict(raw) if isinstance(raw, dict) else {}
    return {key: REDACTED if key.lower() in SECRET_FIELDS else value for key, value in fields.items()}


def _access(record: logging.LogRecord) -> tuple[str, dict[str, Any]] | None:
    """uvicorn's access line ('%s - "%s %s HTTP/%s" %d' with its five arguments) as an event with fields."""
    args = record.args
    if record.name != "uvicorn.access" or not isinstance(args, tuple) or len(args) != 5:
        return None
    client, method, path, _version, status = args
    return "request", {"client": client, "method": method, "path": path, "status": status}


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        access = _access(record)
        name, fields = access if access is not None else (record.getMessage(), _fields(record))
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
            + f"{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, "event": name, "fields": fields}
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str, separators=(",", ":"))


class TextWithFields(logging.Formatter):
    """"INFO:     nailmirror_hq.web.routes: review login failed account='li.wang' address=127.0.0.1"."""

    def format(self, record: logging.LogRecord) -> str:
        fields = _fields(record)
        text = f"{record.levelname + ':':<9} {record.name}: {record.getMessage()}"
        if fields:
            text += " " + " ".join(f"{key}={value!r}" if isinstance(value, str) and " " in value else f"{key}={value}"
                                   for key, value in fields.items())
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def uvicorn_config(settings: LogSettings) -> dict[str, Any]:
    """The dictConfig `serve` hands uvicorn: uvicorn's own loggers and HQ's (`nailmirror_hq`), in one format."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["hq_text"] = {"()": f"{__name__}.TextWithFields"}
    config["formatters"]["hq_json"] = {"()": f"{__name__}.JsonLines"}
    config["handlers"]["hq"] = {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                                "formatter": "hq_json" if settings.format == "json" else "hq_text"}
    handlers = ["hq"]
    if settings.file is not None:
        settings.file.parent.mkdir(parents=True, exist_ok=True)
        config["handlers"]["hq_file"] = {"class": "logging.handlers.WatchedFileHandler",
                                         "filename": str(settings.file), "encoding": "utf-8",
                                         "formatter": "hq_json" if settings.format == "json" else "hq_text"}
        handlers.append("hq_file")
    config["loggers"]["nailmirror_hq"] = {"handlers": handlers, "level": settings.level, "propagate": False}
    if settings.format == "json" or settings.file is not None:  # uvicorn's lines in the same stream and format
        for name in ("uvicorn", "uvicorn.access"):
            config["loggers"][name] = {"handlers": handlers, "level": settings.level, "propagate": False}
        config["loggers"]["uvicorn.error"] = {"level": settings.level}  # propagates to "uvicorn"
    return config
