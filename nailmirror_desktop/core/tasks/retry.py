"""What a failed attempt leads to: a scheduled retry (FAILED), a dead letter (DEAD) or a cancel.

Only transient-looking failures are retried blindly; rate limits wait for Retry-After without burning an
attempt; permanent ones go straight to DEAD; an ambiguous one (sent, then timed out) is retried once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from nailmirror_desktop.core.tasks.errors import PERMANENT_CLASSES, ErrorClass, TaskError
from nailmirror_desktop.core.tasks.models import EngineConfig, Task, TaskStatus


@dataclass(frozen=True)
class Outcome:
    status: TaskStatus  # FAILED (retry scheduled), DEAD or CANCELED
    retry_at_s: float | None  # UTC epoch seconds, for FAILED
    burn_attempt: bool  # False: the claim's attempt is given back (rate limits)
    clear_provider_task_id: bool  # EXPIRED: the next attempt resubmits
    event_kind: str  # what the history records


def backoff_delay_s(attempt: int, base_s: float, max_s: float, rng: random.Random) -> float:
    """Exponential backoff with equal jitter: half the step fixed, half random (never zero, never in lockstep)."""
    step = min(max_s, base_s * 2.0 ** max(0, attempt - 1))
    return step / 2 + rng.uniform(0, step / 2)


def decide(
    task: Task,
    error: TaskError,
    *,
    config: EngineConfig,
    now_s: float,
    rng: random.Random,
    prior_ambiguous: int = 0,
    not_before_s: float | None = None,
) -> Outcome:
    """`task` is the row as claimed (attempt_count already counts this attempt)."""
    if task.cancel_requested:
        return Outcome(TaskStatus.CANCELED, None, True, False, "CANCELED")
    if error.error_class in PERMANENT_CLASSES:
        return _dead("DEAD")
    if error.error_class is ErrorClass.RATE_LIMITED:
        if task.rate_limited_count + 1 > config.max_rate_limited:
            return _dead("DEAD")
        delay = error.retry_after_s
        if delay is None:
            delay = backoff_delay_s(task.rate_limited_count + 1, config.retry_base_s, config.retry_max_s, rng)
        return Outcome(TaskStatus.FAILED, now_s + max(0.0, delay), False, False, "RATE_LIMITED")
    if error.error_class is ErrorClass.AMBIGUOUS and prior_ambiguous >= 1:
        return _dead("DEAD")
    if task.attempt_count >= task.max_attempts:
        return _dead("DEAD")
    delay = error.retry_after_s
    if delay is None:
        delay = backoff_delay_s(task.attempt_count, config.retry_base_s, config.retry_max_s, rng)
    retry_at = now_s + max(0.0, delay)
    if not_before_s is not None:
        retry_at = max(retry_at, not_before_s)
    return Outcome(TaskStatus.FAILED, retry_at, True, error.error_class is ErrorClass.EXPIRED, "FAILED")


def _dead(kind: str) -> Outcome:
    return Outcome(TaskStatus.DEAD, None, True, False, kind)
