"""Forgetting a customer one step at a time: the idle reset must not be able to half-fail.

Each step runs on its own: one that raises is logged with its traceback (the kiosk's log file,
app/kiosk_logging.py) and the steps after it still run. Before, the first failing step (a page Qt had already
deleted) ended the whole reset, and the links and pages of the steps after it stayed up for the next customer
(#20). Nothing here reaches a customer's screen: a failure is for staff, in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)

Step = tuple[str, Callable[[], object]]  # (what it forgets, for the log; the step)


def forget_each(owner: str, steps: Sequence[Step]) -> list[str]:
    """Run every step, whatever the others do; the names of the steps that failed (each logged with its
    traceback)."""
    failed = []
    for name, step in steps:
        try:
            step()
        except Exception:
            log.exception("%s: forgetting the customer's %s failed; the other steps ran", owner, name)
            failed.append(name)
    return failed
