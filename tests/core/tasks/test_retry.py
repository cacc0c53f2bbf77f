"""Backoff between attempts: exponential, capped, with bounded jitter."""

from __future__ import annotations

from nailmirror_desktop.core.tasks.retry import backoff_delay_s


def test_backoff_grows_exponentially_with_bounded_jitter():
    import random

    rng = random.Random(1)
    for attempt in range(1, 8):
        step = min(60.0, 1.0 * 2 ** (attempt - 1))
        values = [backoff_delay_s(attempt, 1.0, 60.0, rng) for _ in range(50)]
        assert all(step / 2 <= v <= step for v in values)
        assert max(values) - min(values) > 0  # jittered
