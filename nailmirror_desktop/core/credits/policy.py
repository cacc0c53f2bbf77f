"""How paid generations are charged and settled (ARCHITECTURE.md §14): the store's credit settings, and the task
hooks (core/tasks/hooks.py) that keep the ledger in step with each paid task.

- submit: `CreditHooks.on_insert(...)` is handed to TaskEngine.submit, so the charge is checked and written
  PENDING in the task's insert transaction (refused: nothing written, not even the task);
- the task ends: `task_did_finish` settles in the transaction that ends it — SUCCESS confirms what was
  delivered (the result's `delivered`, n variations asked), DEAD and CANCELED refund, with a note when the
  provider may still have billed (the request was under way, or its answer was lost);
- retries: a FAILED attempt is not an end, so nothing moves and a task is charged once however often it runs;
- a replayed dead letter (`task_will_replay`) is a new paid attempt: charged again, checked like a new one
  (balance, then the daily cap; not the session cap: staff replay it), its note says so.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field

from nailmirror_desktop.core.config import KioskConfig
from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.caps import local_day_bounds
from nailmirror_desktop.core.credits.pricing import price_per_image
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.generation.provider_port import OUTCOME_UNKNOWN
from nailmirror_desktop.core.tasks.hooks import OnInsert, TaskEnd
from nailmirror_desktop.core.tasks.models import TaskStatus, task_no_from_id

DEFAULT_STORE_ID = "local"
DEFAULT_SESSION_CAP = 3
MAY_HAVE_BILLED = "the provider may still have billed this request"
_BILLED_IF_LOST = (OUTCOME_UNKNOWN, "LEASE_EXPIRED")  # a request sent whose answer never came back


@dataclass(frozen=True)
class CreditPolicy:
    """The store's credit settings (from KioskConfig: config.credit_policy). Caps of 0 mean no cap. `models`:
    provider → the model its requests name (prices may differ per model)."""

    store_id: str = DEFAULT_STORE_ID
    time_zone: str = "Asia/Shanghai"
    daily_cap: int = 100
    session_cap: int = DEFAULT_SESSION_CAP
    low_balance_threshold: int = 10
    prices: Mapping[str, int] = field(default_factory=dict)
    models: Mapping[str, str] = field(default_factory=dict)

    def unit_price(self, provider: str) -> int:
        return price_per_image(provider, self.models.get(provider), self.prices)

    def day_bounds(self, now_ms: int) -> tuple[int, int]:
        return local_day_bounds(now_ms, self.time_zone)

    def charge(self, task_no: str, provider: str, *, variations: int, session_id: str | None, request_source: str,
               now_ms: int, note: str | None = None, model: str | None = None,
               unit_price: int | None = None, session_cap: int | None = None) -> ledger.Charge:
        start, end = self.day_bounds(now_ms)
        return ledger.Charge(
            task_no, provider, model if model is not None else self.models.get(provider),
            self.unit_price(provider) if unit_price is None else unit_price, variations, session_id, request_source,
            self.daily_cap, self.session_cap if session_cap is None else session_cap, start, end, note)

    def is_low(self, balance: int | None) -> bool:
        return balance is not None and balance < self.low_balance_threshold


class CreditHooks:
    """The STYLE_GENERATION task hooks (core/tasks/hooks.py TaskHooks) over one store's ledger."""

    def __init__(self, policy: CreditPolicy) -> None:
        self.policy = policy

    def on_insert(self, provider: str, *, variations: int, session_id: str | None, request_source: str,
                  now_ms: int) -> OnInsert | None:
        """What TaskEngine.submit runs in the insert's transaction for this request; None for a free one."""
        if self.policy.unit_price(provider) == 0:
            return None  # the offline generator: no entry, and no cap counts it

        def pre_deduct(conn: sqlite3.Connection, task_id: int) -> None:
            charge = self.policy.charge(task_no_from_id(task_id), provider, variations=variations,
                                        session_id=session_id, request_source=request_source, now_ms=now_ms)
            ledger.pre_deduct(conn, self.policy.store_id, charge, now_ms)

        return pre_deduct

    def task_did_finish(self, conn: sqlite3.Connection, end: TaskEnd) -> None:
        task_no = task_no_from_id(end.task_id)
        asked = ledger.pending_variations(conn, task_no)
        if asked is None:
            return  # a free generation (offline), or settled already
        if end.status is TaskStatus.SUCCESS:
            delivered = _delivered(end.result_json)
            note = f"{delivered} of {asked} images delivered; the rest refunded" if delivered < asked else None
            ledger.settle(conn, task_no, delivered, note, end.at_ms)
        else:
            ledger.settle(conn, task_no, 0, _refund_note(end), end.at_ms)

    def task_will_replay(self, conn: sqlite3.Connection, task_id: int, now_ms: int) -> None:
        task_no = task_no_from_id(task_id)
        last = ledger.last_charge(conn, task_no)
        if last is None or last.provider is None:
            return  # never charged (a free generation): its replay is free too
        if last.status == "PENDING":  # ended by a process without these hooks: refund it before charging again
            ledger.settle(conn, task_no, 0, "dead letter refunded at its replay", now_ms)
        charge = self.policy.charge(
            task_no, last.provider, variations=last.variations or 1, session_id=last.session_id,
            request_source=last.request_source or "kiosk", now_ms=now_ms, model=last.model,
            unit_price=last.unit_price, session_cap=0,
            note="replay of a dead letter: a new paid attempt, charged again")
        ledger.pre_deduct(conn, self.policy.store_id, charge, now_ms)

    def settle_orphans(self, conn: sqlite3.Connection, now_ms: int) -> int:
        """Settle pending charges whose task ended in a process without these hooks (a bare TaskEngine):
        SUCCESS confirms in full, anything else refunds. Returns how many were settled. Reads first and opens a
        write transaction only when there is one (so a read-only command on a read-only database still works)."""
        if not ledger.orphans(conn):
            return 0
        settled = 0
        with write_transaction(conn):
            for task_no, status, error_code in ledger.orphans(conn):
                if status == TaskStatus.SUCCESS.value:
                    done = ledger.settle(conn, task_no, ledger.ALL_DELIVERED, "settled late", now_ms)
                else:
                    note = f"settled late: {status.lower()} ({error_code or 'no code'})"
                    done = ledger.settle(conn, task_no, 0, note, now_ms)
                settled += done is not None
        return settled


def _delivered(result_json: str | None) -> int:
    """Images the task delivered, from its result's `delivered` (flow.py writes it); a result without one
    delivered everything asked for."""
    if result_json:
        try:
            value = json.loads(result_json).get("delivered")
        except (ValueError, AttributeError):
            value = None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return ledger.ALL_DELIVERED


def _refund_note(end: TaskEnd) -> str:
    why = end.error_code or end.status.value
    if end.error_message and end.error_code:
        why = f"{end.error_code}: {end.error_message}"
    if end.status is TaskStatus.CANCELED:
        if not end.was_running:
            return "canceled before it ran"
        return f"canceled mid-attempt ({why}); {MAY_HAVE_BILLED}"
    note = f"{end.status.value.lower()} ({why})"
    if end.error_code in _BILLED_IF_LOST:
        note += f"; {MAY_HAVE_BILLED}"
    return note


def policy_from_config(config: KioskConfig, models: Mapping[str, str] | None = None) -> CreditPolicy:
    """The store's credit policy from its settings; `models`: provider → model (the provider settings')."""
    return CreditPolicy(store_id=config.store_id, time_zone=config.store_time_zone,
                        daily_cap=config.credits_daily_cap, session_cap=config.credits_session_cap,
                        low_balance_threshold=config.credits_low_balance, prices=dict(config.credit_prices),
                        models=dict(models or {}))
