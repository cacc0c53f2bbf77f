"""Rows of the task engine as frozen dataclasses, the status enum, and the engine's settings."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any

from nailmirror_desktop.core.clock import from_ms, iso_utc

RETRY_BASE_ENV = "NAILMIRROR_RETRY_BASE_S"


class TaskStatus(StrEnum):
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"  # last attempt failed, a retry is scheduled (not terminal)
    CANCELED = "CANCELED"
    DEAD = "DEAD"  # dead letter

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES = frozenset({TaskStatus.SUCCESS, TaskStatus.CANCELED, TaskStatus.DEAD})
UNFINISHED_STATUSES = frozenset({TaskStatus.PENDING, TaskStatus.FAILED, TaskStatus.PROCESSING})


class DeadLetterState(StrEnum):
    OPEN = "OPEN"
    IGNORED = "IGNORED"
    RESOLVED = "RESOLVED"


def task_no_from_id(task_id: int) -> str:
    """The public id: 'T' + the row id in 16 hex digits, so a lookup by task_no is a primary-key lookup."""
    return f"T{task_id:016x}"


@dataclass(frozen=True)
class Task:
    """One task row. Times are aware UTC datetimes; payload is None only when the stored JSON is corrupt."""

    id: int
    task_no: str
    task_type: str
    biz_type: str | None
    biz_id: str | None
    status: TaskStatus
    priority: int
    scheduled_time: datetime
    next_retry_time: datetime | None
    available_at: datetime
    attempt_count: int
    max_attempts: int
    rate_limited_count: int
    heartbeat_at: datetime | None
    worker_id: str | None
    version: int
    payload: dict[str, Any] | None
    result: dict[str, Any] | None
    progress: float
    progress_note: str | None
    last_error_class: str | None
    last_error_code: str | None
    last_error_message: str | None
    provider: str | None
    provider_task_id: str | None
    request_source: str
    request_source_id: str | None
    cancel_requested: bool
    dead_letter_state: str | None
    replay_count: int
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None
    payload_error: str | None = None  # why `payload` could not be read, if it could not
    # A paid request may have left in an attempt that never recorded its outcome (a crash): never send it again.
    request_sent_at: datetime | None = None

    @classmethod
    def from_row(cls, columns: sqlite3.Row) -> Task:
        """A `SELECT *` (or `RETURNING *`) row of the task table."""
        # sqlite3.Row finds a column by name by comparing it with each name in turn: a dict is 10x cheaper here.
        row = dict(zip(columns.keys(), columns, strict=True))
        payload, payload_error = decode_payload(row["request_payload"])
        return cls(
            id=row["id"], task_no=task_no_from_id(row["id"]), task_type=row["task_type"],
            biz_type=row["biz_type"], biz_id=row["biz_id"], status=TaskStatus(row["status"]),
            priority=row["priority"], scheduled_time=_time(row["scheduled_time"]),
            next_retry_time=from_ms(row["next_retry_time"]), available_at=_time(row["available_at"]),
            attempt_count=row["attempt_count"], max_attempts=row["max_attempts"],
            rate_limited_count=row["rate_limited_count"], heartbeat_at=from_ms(row["heartbeat_at"]),
            worker_id=row["worker_id"], version=row["version"], payload=payload,
            result=decode_result(row["result_payload"]), progress=row["progress"],
            progress_note=row["progress_note"], last_error_class=row["last_error_class"],
            last_error_code=row["last_error_code"], last_error_message=row["last_error_message"],
            provider=row["provider"], provider_task_id=row["provider_task_id"],
            request_source=row["request_source"], request_source_id=row["request_source_id"],
            cancel_requested=bool(row["cancel_requested"]), dead_letter_state=row["dead_letter_state"],
            replay_count=row["replay_count"], created_at=_time(row["created_at"]),
            updated_at=_time(row["updated_at"]), started_at=from_ms(row["started_at"]),
            finished_at=from_ms(row["finished_at"]), expires_at=from_ms(row["expires_at"]),
            payload_error=payload_error, request_sent_at=from_ms(row["request_sent_at"]),
        )

    @classmethod
    def submitted(cls, task_id: int, values: dict[str, Any]) -> Task:
        """The row store.submit has just inserted, from its values (store.INSERT_TASK's parameters) and the
        schema's defaults for the rest: equal to what get() reads back, without reading it back."""
        payload, payload_error = decode_payload(values["request_payload"])
        created, scheduled = _time(values["now"]), _time(values["scheduled_time"])
        return cls(
            id=task_id, task_no=task_no_from_id(task_id), task_type=values["task_type"],
            biz_type=values["biz_type"], biz_id=values["biz_id"], status=TaskStatus.PENDING,
            priority=values["priority"], scheduled_time=scheduled, next_retry_time=None, available_at=scheduled,
            attempt_count=0, max_attempts=values["max_attempts"], rate_limited_count=0, heartbeat_at=None,
            worker_id=None, version=0, payload=payload, result=None, progress=0.0, progress_note=None,
            last_error_class=None, last_error_code=None, last_error_message=None, provider=values["provider"],
            provider_task_id=None, request_source=values["request_source"],
            request_source_id=values["request_source_id"], cancel_requested=False, dead_letter_state=None,
            replay_count=0, created_at=created, updated_at=created, started_at=None, finished_at=None,
            expires_at=None, payload_error=payload_error,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON object the CLI prints (times as ISO-8601 UTC strings)."""
        out: dict[str, Any] = {}
        for name in _JSON_FIELDS:
            value = getattr(self, name)
            if isinstance(value, datetime):
                value = iso_utc(value)
            elif isinstance(value, Enum):
                value = value.value
            out[name] = value
        return out


_JSON_FIELDS = (  # the CLI's order
    "task_no", "task_type", "status", "priority", "attempt_count", "max_attempts", "next_retry_time",
    "last_error_class", "last_error_code", "last_error_message", "biz_type", "biz_id", "provider",
    "provider_task_id", "request_source", "request_source_id", "scheduled_time", "progress", "progress_note",
    "heartbeat_at", "worker_id", "version", "rate_limited_count", "cancel_requested", "dead_letter_state",
    "replay_count", "payload", "payload_error", "result", "created_at", "updated_at", "started_at",
    "finished_at", "expires_at",
)


@dataclass(frozen=True, slots=True)
class Claim:
    """A task this worker has just claimed: what running it and guarding its writes need, straight from the
    claim's RETURNING (store.CLAIM). The full row is TaskEngine.get(claim.task_no)."""

    id: int
    task_type: str
    version: int  # as claimed: every later write is guarded by it
    attempt_count: int  # counting this attempt
    provider: str | None
    payload: dict[str, Any] | None
    payload_error: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Claim:
        task_id, task_type, version, attempt_count, provider, raw_payload = row
        payload, payload_error = decode_payload(raw_payload)
        return cls(task_id, task_type, version, attempt_count, provider, payload, payload_error)

    @property
    def task_no(self) -> str:
        return task_no_from_id(self.id)


def _time(ms: int) -> datetime:
    """A NOT NULL time column."""
    moment = from_ms(ms)
    assert moment is not None
    return moment


def decode_payload(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """(the payload, None), or (None, why it cannot be read)."""
    try:
        value = json.loads(raw) if raw is not None else None
    except (TypeError, ValueError) as exc:
        return None, f"payload is not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"payload is not a JSON object but {type(value).__name__}"
    return value, None


def decode_result(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return {"_unreadable": raw[:200]}
    return value if isinstance(value, dict) else {"value": value}


@dataclass(frozen=True)
class TaskEventRecord:
    """One history entry: a failed attempt, an expired lease, a dead letter, an operator action."""

    task_no: str
    at: datetime
    kind: str
    attempt: int
    error_class: str | None
    error_code: str | None
    error_message: str | None
    worker_id: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> TaskEventRecord:
        return cls(task_no_from_id(row["task_id"]), _time(row["at"]), row["kind"], row["attempt"],
                   row["error_class"], row["error_code"], row["error_message"], row["worker_id"])

    def to_json(self) -> dict[str, Any]:
        return {
            "at": iso_utc(self.at), "kind": self.kind, "attempt": self.attempt, "error_class": self.error_class,
            "error_code": self.error_code, "error_message": self.error_message, "worker_id": self.worker_id,
        }


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        return default


@dataclass(frozen=True)
class EngineConfig:
    """Engine settings (seconds unless named otherwise)."""

    retry_base_s: float = field(default_factory=lambda: _env_float(RETRY_BASE_ENV, 2.0))
    retry_max_s: float = 300.0
    default_max_attempts: int = 5
    max_rate_limited: int = 20  # rate-limit answers don't burn attempts; this bounds them instead
    lease_s: float = 60.0  # a PROCESSING row silent this long is recovered
    heartbeat_interval_s: float = 10.0
    sweep_interval_s: float = 15.0
    pending_limit_per_source: int | None = 200  # backpressure; None disables it
    breaker_cooldown_s: float = 30.0
    breaker_cooldown_max_s: float = 600.0
    idle_poll_s: float = 1.0  # how often run_until_idle looks for work submitted by other processes
    cache_kib: int = 8000  # SQLite page cache per engine connection
    storage_retry_base_s: float = 0.5  # an outcome the full disk refused is written again after this, doubling
    storage_retry_max_s: float = 30.0
