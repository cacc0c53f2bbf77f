"""Labels (issue #27 §1–§2, nailmirror_hq/labels.py, datasets.py): append-only label versions of a capture's
nail mask, and frozen datasets of label versions. The datasets of #26 (capture_dataset) stay the one membership
table, so a withdrawal keeps deleting a capture's memberships in one place; a row now names the label version it
froze. Datasets listed before labels existed become `legacy` datasets (captures without label versions), and
their captures that fall in the evaluation split are taken out: the evaluation set is never trained on.

Revision ID: 0015_labels
Revises: 0014_captures
"""

import hashlib
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0015_labels"
down_revision = "0014_captures"
branch_labels = None
depends_on = None

EVALUATION_PERCENT = 20  # the same rule as labels.in_evaluation, copied so this revision never changes


def _day(taken_at: str) -> str:
    try:
        moment = datetime.fromisoformat(taken_at.replace("Z", "+00:00"))
    except ValueError:
        return taken_at[:10]
    return (moment if moment.tzinfo is None else moment.astimezone(UTC)).date().isoformat()


def _in_evaluation(store_id: str, day: str) -> bool:
    digest = hashlib.sha256(f"nailmirror-evaluation-v1|{store_id}|{day}".encode()).hexdigest()
    return int(digest[:8], 16) % 100 < EVALUATION_PERCENT


def upgrade() -> None:
    op.create_table(
        "label_version",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(length=16), sa.ForeignKey("capture.code"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=True),
        sa.Column("mask_sha256", sa.String(length=64), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("source_version", sa.Integer(), nullable=True),
        sa.Column("skin_tone", sa.String(length=8), nullable=True),
        sa.Column("nail_kind", sa.String(length=16), nullable=True),
        sa.Column("labeller", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.UniqueConstraint("code", "version", name="label_version_per_capture"),
    )
    op.create_table(
        "label_dataset",
        sa.Column("name", sa.String(length=80), primary_key=True),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("excluded", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("legacy", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column("capture_dataset", sa.Column("label_version", sa.Integer(), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.text(
        "SELECT d.dataset, d.code, d.added_at, c.store_id, c.taken_at FROM capture_dataset d"
        " JOIN capture c ON c.code = d.code")).all()
    legacy: dict[str, dict[str, object]] = {}
    for dataset, code, added_at, store_id, taken_at in rows:
        entry = legacy.setdefault(dataset, {"created_at": added_at, "members": 0, "excluded": 0})
        entry["created_at"] = min(str(entry["created_at"]), added_at)
        if _in_evaluation(store_id, _day(taken_at)):
            conn.execute(sa.text("DELETE FROM capture_dataset WHERE dataset = :d AND code = :c"),
                         {"d": dataset, "c": code})
            entry["excluded"] = int(str(entry["excluded"])) + 1
        else:
            entry["members"] = int(str(entry["members"])) + 1
    for name, entry in legacy.items():
        conn.execute(sa.text(
            "INSERT INTO label_dataset (name, created_at, created_by, members, lost, excluded, legacy)"
            " VALUES (:n, :at, 'migration 0015_labels', :m, 0, :x, 1)"),
            {"n": name, "at": entry["created_at"], "m": entry["members"], "x": entry["excluded"]})


def downgrade() -> None:
    op.drop_column("capture_dataset", "label_version")
    op.drop_table("label_dataset")
    op.drop_table("label_version")
