"""Rows of the task engine as frozen dataclasses, and the engine's settings."""

from __future__ import annotations

import json
import json.scanner
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from nailmirror_desktop.core.clock import from_ms, iso_utc

RETRY_BASE_ENV = "NAILMIRROR_RETRY_BASE_S"


class TaskStatus(str, Enum):
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


class DeadLetterState(str, Enum):
    OPEN = "OPEN"
    IGNORED = "IGNORED"
    RESOLVED = "RESOLVED"


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

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Task:
        payload, payload_error = _decode_payload(row["request_payload"])
        result_raw = row["result_payload"]
        return cls(
            id=row["id"],
            task_no=f"T{row['id']:016x}",
            task_type=row["task_type"],
            biz_type=row["biz_type"],
            biz_id=row["biz_id"],
            status=TaskStatus(row["status"]),
            priority=row["priority"],
            scheduled_time=from_ms(row["scheduled_time"]),
            next_retry_time=from_ms(row["next_retry_time"]),
            available_at=from_ms(row["available_at"]),
            attempt_count=row["attempt_count"],
            max_attempts=row["max_attempts"],
            rate_limited_count=row["rate_limited_count"],
            heartbeat_at=from_ms(row["heartbeat_at"]),
            worker_id=row["worker_id"],
            version=row["version"],
            payload=payload,
            result=_decode_result(result_raw),
            progress=row["progress"],
            progress_note=row["progress_note"],
            last_error_class=row["last_error_class"],
            last_error_code=row["last_error_code"],
            last_error_message=row["last_error_message"],
            provider=row["provider"],
            provider_task_id=row["provider_task_id"],
            request_source=row["request_source"],
            request_source_id=row["request_source_id"],
            cancel_requested=bool(row["cancel_requested"]),
            dead_letter_state=row["dead_letter_state"],
            replay_count=row["replay_count"],
            created_at=from_ms(row["created_at"]),
            updated_at=from_ms(row["updated_at"]),
            started_at=from_ms(row["started_at"]),
            finished_at=from_ms(row["finished_at"]),
            expires_at=from_ms(row["expires_at"]),
            payload_error=payload_error,
        )

    @classmethod
    def just_submitted(cls, task_id: int, params: tuple) -> Task:
        """The row a submit has just inserted, from the insert's parameters (store.submit_params), without reading
        it back. Submit is a hot path and most callers only keep the task_no, so the fields are filled in on first
        use (__getattr__): building all 36 at once — datetimes, the payload decoded from its JSON — cost ~5 µs
        per submit. Once filled it is an ordinary Task, equal to what get() returns for the fresh row."""
        task = object.__new__(cls)
        task.__dict__.update(id=task_id, _submitted=params)
        return task

    def __getattr__(self, name: str) -> Any:
        # Reached only for a name missing from the instance: a just_submitted Task's not-yet-filled fields. Fill
        # first, then drop the marker, so a thread racing here finds the fields (or fills them again, the same).
        params = self.__dict__.get("_submitted")
        if params is not None:
            self.__dict__.update(_fresh_row_fields(self.__dict__["id"], params))
            self.__dict__.pop("_submitted", None)
        return object.__getattribute__(self, name)  # the field, or the usual AttributeError

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


def _fresh_row_fields(task_id: int, params: tuple) -> dict[str, Any]:
    """All fields of the row store.insert_task just wrote with `params` (as Task.from_row would read them)."""
    (task_type, biz_type, biz_id, priority, scheduled_ms, max_attempts, payload_json, provider, request_source,
     request_source_id, now_ms, _) = params
    created = from_ms(now_ms)
    scheduled = created if scheduled_ms == now_ms else from_ms(scheduled_ms)
    fields = dict(_FRESH_ROW)
    # The payload as get() would return it: decoded from the stored JSON, never the caller's own dict.
    fields.update(
        task_no=f"T{task_id:016x}", task_type=task_type, biz_type=biz_type, biz_id=biz_id, priority=priority,
        scheduled_time=scheduled, available_at=scheduled, max_attempts=max_attempts, payload=json.loads(payload_json),
        provider=provider, request_source=request_source, request_source_id=request_source_id, created_at=created,
        updated_at=created,
    )
    return fields


# A fresh row's values for the columns a submit leaves at their defaults (see the schema).
_FRESH_ROW: dict[str, Any] = {
    "status": TaskStatus.PENDING, "next_retry_time": None, "attempt_count": 0, "rate_limited_count": 0,
    "heartbeat_at": None, "worker_id": None, "version": 0, "result": None, "progress": 0.0, "progress_note": None,
    "last_error_class": None, "last_error_code": None, "last_error_message": None, "provider_task_id": None,
    "cancel_requested": False, "dead_letter_state": None, "replay_count": 0, "started_at": None,
    "finished_at": None, "expires_at": None, "payload_error": None,
}

_JSON_FIELDS = (
    "task_no", "task_type", "status", "priority", "attempt_count", "max_attempts", "next_retry_time",
    "last_error_class", "last_error_code", "last_error_message", "biz_type", "biz_id", "provider",
    "provider_task_id", "request_source", "request_source_id", "scheduled_time", "progress", "progress_note",
    "heartbeat_at", "worker_id", "version", "rate_limited_count", "cancel_requested", "dead_letter_state",
    "replay_count", "payload", "payload_error", "result", "created_at", "updated_at", "started_at",
    "finished_at", "expires_at",
)


# json.loads walks three Python frames (loads, decode, raw_decode) around the C scanner; a claim decodes every
# payload, so it calls the scanner directly and falls back to json.loads for anything unusual (whitespace around
# the object, trailing data, errors) — same results, ~1 µs less per claim.
_scan_once = json.scanner.make_scanner(json.JSONDecoder())


def _decode_payload(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    if type(raw) is str and raw[:1] == "{":
        try:
            value, end = _scan_once(raw, 0)
        except (StopIteration, ValueError):
            pass
        else:
            if end == len(raw):
                return value, None
    try:
        value = json.loads(raw) if raw is not None else None
    except (TypeError, ValueError) as exc:
        return None, f"payload is not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"payload is not a JSON object but {type(value).__name__}"
    return value, None


def _decode_result(raw: str | None) -> dict[str, Any] | None:
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


class Claim:
    """A task this worker has just claimed: the few fields the run needs, straight off the claim's RETURNING.
    The full `Task` is read only if someone asks for it (quick handlers usually don't)."""

    __slots__ = ("_load", "_task", "id", "task_type", "version", "attempt_count", "provider", "payload",
                 "payload_error")

    def __init__(self, row: sqlite3.Row, load: Callable[[int], Task]) -> None:
        """`row`: the claim's RETURNING (id, task_type, version, attempt_count, provider, request_payload)."""
        self._load = load
        self._task: Task | None = None
        self.id: int
        self.task_type: str
        self.version: int
        self.attempt_count: int
        self.provider: str | None
        self.id, self.task_type, self.version, self.attempt_count, self.provider, raw_payload = row
        self.payload, self.payload_error = _decode_payload(raw_payload)

    @property
    def task_no(self) -> str:
        return f"T{self.id:016x}"

    @property
    def task(self) -> Task:
        """The row as it is now (this worker holds the lease, so as claimed, plus its own progress writes)."""
        if self._task is None:
            self._task = self._load(self.id)
        return self._task
