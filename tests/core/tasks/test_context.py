"""TaskContext alone, against a fake LeaseWriter: it reaches the engine only through that public interface."""

from __future__ import annotations

import sqlite3
from contextlib import nullcontext

import pytest

from nailmirror_desktop.core.tasks import Claim, LeaseWriter, TaskCancelled, TaskContext, TaskEngine, TaskError


class FakeWriter:
    def __init__(self, held: bool = True) -> None:
        self.held = held
        self.calls: list[tuple[str, object]] = []
        self.cancelled = False

    def get(self, task_no):
        self.calls.append(("get", task_no))
        return None

    def connection(self):
        return sqlite3.connect(":memory:")

    def write_transaction(self):
        return nullcontext(None)

    def renew_lease(self, task):
        self.calls.append(("renew", task.id))
        return self.held

    def save_progress(self, task, fraction, note):
        self.calls.append(("progress", fraction))
        return self.held

    def save_provider_task_id(self, task, provider_task_id):
        self.calls.append(("provider", provider_task_id))
        return self.held

    def save_biz_id(self, task, biz_id):
        self.calls.append(("biz", biz_id))
        return self.held

    def is_cancel_requested(self, task):
        return self.cancelled


CLAIM = Claim(id=7, task_type="GEN", version=3, attempt_count=1, provider=None, payload={"p": 1}, payload_error=None)


def test_the_context_reports_through_the_writer():
    writer = FakeWriter()
    ctx = TaskContext(writer, CLAIM)
    assert ctx.payload == {"p": 1} and ctx.task_no == "T0000000000000007"
    assert ctx.heartbeat()
    assert ctx.report_progress(1.7)  # clamped
    ctx.set_provider_task_id("job")
    ctx.link_business(12)
    assert writer.calls == [("renew", 7), ("progress", 1.0), ("provider", "job"), ("biz", "12")]
    writer.cancelled = True
    with pytest.raises(TaskCancelled):
        ctx.raise_if_cancelled()


def test_a_lost_lease_stops_the_writes_that_must_not_be_lost():
    ctx = TaskContext(FakeWriter(held=False), CLAIM)
    assert not ctx.heartbeat() and not ctx.report_progress(0.5)
    for call in (lambda: ctx.set_provider_task_id("job"), ctx.clear_provider_task_id, lambda: ctx.link_business(1)):
        with pytest.raises(TaskError) as lost:
            call()
        assert lost.value.code == "LEASE_LOST" and lost.value.retryable


def test_the_engine_is_a_lease_writer(tmp_path):
    with TaskEngine(tmp_path / "t.db") as engine:
        writer: LeaseWriter = engine  # checked by mypy too
        assert writer.connection() is engine.connection()
