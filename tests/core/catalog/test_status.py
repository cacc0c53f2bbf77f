"""The style status machine: the table, transit's checks, and its audit rows written in the same transaction."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from nailmirror_desktop.core.catalog import IllegalTransition, StyleError, StyleSource, StyleStatus, can_transit
from nailmirror_desktop.core.catalog.status import AuditAction, transit
from nailmirror_desktop.core.db import write_transaction
from tests.support.style_fixtures import repository

S = StyleStatus
ALLOWED = {
    (S.DRAFT, S.PENDING_REVIEW),
    (S.PENDING_REVIEW, S.PUBLISHED),
    (S.PENDING_REVIEW, S.REJECTED),
    (S.REJECTED, S.DRAFT),
    (S.PUBLISHED, S.OFF_SHELF),
    (S.OFF_SHELF, S.PUBLISHED),
    (S.OFF_SHELF, S.DRAFT),
    (S.PUBLISHED, S.DRAFT),  # content edits only
}


def test_can_transit_matches_the_design_for_every_pair():
    for a, b in itertools.product(StyleStatus, repeat=2):
        assert can_transit(a, b) == ((a, b) in ALLOWED), (a, b)
    assert can_transit("DRAFT", "PENDING_REVIEW")
    assert not can_transit("DRAFT", "NOPE")


def _draft(repo):
    return repo.create_style("测试", StyleSource.MANUAL, actor="t")


def test_transit_walks_the_review_path_and_audits_each_step():
    repo = repository()
    style = _draft(repo)
    for target in (S.PENDING_REVIEW, S.REJECTED, S.DRAFT, S.PENDING_REVIEW, S.PUBLISHED, S.OFF_SHELF, S.PUBLISHED):
        transit(repo.conn, style.id, target, actor="staff-7", reason="太暗" if target is S.REJECTED else None)
    assert repo.get(style.id).status is S.PUBLISHED
    trail = repo.audit_trail(style.id)
    assert [e.action for e in trail] == ["CREATE", "SUBMIT", "REJECT", "REVISE", "SUBMIT", "APPROVE", "OFF_SHELF",
                                         "PUBLISH"]
    assert trail[2].reason == "太暗" and trail[2].from_status == "PENDING_REVIEW" and trail[2].actor == "staff-7"


def test_illegal_transition_changes_nothing():
    repo = repository()
    style = _draft(repo)
    with pytest.raises(IllegalTransition) as info:
        transit(repo.conn, style.id, S.PUBLISHED, actor="t")
    assert info.value.code == "ILLEGAL_TRANSITION"
    assert repo.get(style.id).status is S.DRAFT
    assert [e.action for e in repo.audit_trail(style.id)] == ["CREATE"]


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_rejection_needs_a_reason(reason):
    repo = repository()
    style = _draft(repo)
    transit(repo.conn, style.id, S.PENDING_REVIEW, actor="t")
    with pytest.raises(StyleError) as info:
        transit(repo.conn, style.id, S.REJECTED, actor="t", reason=reason)
    assert info.value.code == "REASON_REQUIRED"
    assert repo.get(style.id).status is S.PENDING_REVIEW


def test_published_goes_back_to_draft_only_through_a_content_edit():
    repo = repository()
    style = _draft(repo)
    for target in (S.PENDING_REVIEW, S.PUBLISHED):
        transit(repo.conn, style.id, target, actor="t")
    with pytest.raises(IllegalTransition):
        transit(repo.conn, style.id, S.DRAFT, actor="t")
    transit(repo.conn, style.id, S.DRAFT, actor="t", action=AuditAction.EDIT_CONTENT)
    assert repo.get(style.id).status is S.DRAFT


def test_expect_from_pins_the_starting_state():
    repo = repository()
    style = _draft(repo)
    for target in (S.PENDING_REVIEW, S.PUBLISHED, S.OFF_SHELF):
        transit(repo.conn, style.id, target, actor="t")
    # "approve" must not put an OFF_SHELF style back although OFF_SHELF → PUBLISHED is allowed.
    with pytest.raises(IllegalTransition):
        transit(repo.conn, style.id, S.PUBLISHED, actor="t", expect_from=S.PENDING_REVIEW)
    transit(repo.conn, style.id, S.PUBLISHED, actor="t", expect_from=S.OFF_SHELF)


def test_status_and_audit_commit_or_roll_back_together():
    repo = repository()
    style = _draft(repo)
    with pytest.raises(RuntimeError), write_transaction(repo.conn):
        transit(repo.conn, style.id, S.PENDING_REVIEW, actor="t")
        raise RuntimeError("crash after the transition, before the commit")
    assert repo.get(style.id).status is S.DRAFT
    assert [e.action for e in repo.audit_trail(style.id)] == ["CREATE"]


def test_unknown_or_deleted_style_is_not_found():
    repo = repository()
    style = _draft(repo)
    repo.conn.execute("UPDATE style SET deleted = 1 WHERE id = ?", (style.id,))
    for style_id in (style.id, 9999):
        with pytest.raises(StyleError) as info:
            transit(repo.conn, style_id, S.PENDING_REVIEW, actor="t")
        assert info.value.code == "STYLE_NOT_FOUND"


def test_audit_log_is_append_only():
    repo = repository()
    style = _draft(repo)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        repo.conn.execute("UPDATE audit_log SET actor = 'x' WHERE entity_id = ?", (style.id,))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        repo.conn.execute("DELETE FROM audit_log")


def test_database_refuses_unknown_statuses():
    repo = repository()
    style = _draft(repo)
    with pytest.raises(sqlite3.IntegrityError):
        repo.conn.execute("UPDATE style SET status = 'LIVE' WHERE id = ?", (style.id,))
