"""Staged publishing (issue #25 point 10): each channel's canary stores, and a rollout record per publish.

A channel's canary feed is an ordinary feed named "~" + the channel's code, so the feed columns that name a
channel grow to 48 characters (PostgreSQL enforces lengths; SQLite does not, so it needs no table rebuild).

Revision ID: 0012_staged_rollout
Revises: 0011_store_time_zone
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_staged_rollout"
down_revision = "0011_store_time_zone"
branch_labels = None
depends_on = None

_FEED_COLUMNS = (("channel", "code"), ("catalog_change", "channel"), ("channel_entity", "channel"),
                 ("store_token", "feed_channel"))


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        for table, column in _FEED_COLUMNS:
            op.alter_column(table, column, type_=sa.String(length=48), existing_type=sa.String(length=40))
    op.create_table(
        "channel_canary",
        sa.Column("channel", sa.String(length=40), sa.ForeignKey("channel.code"), nullable=False),
        sa.Column("store_id", sa.String(length=64), sa.ForeignKey("store.id"), nullable=False),
        sa.Column("added_at", sa.String(length=24), nullable=False),
        sa.PrimaryKeyConstraint("channel", "store_id"),
    )
    op.create_table(
        "rollout",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("previous_version", sa.Integer(), nullable=True),
        sa.Column("previous_body", sa.Text(), nullable=True),
        sa.Column("held", sa.Text(), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("widened_at", sa.String(length=24), nullable=True),
        sa.Column("widened_by", sa.Text(), nullable=True),
        sa.Column("ended_at", sa.String(length=24), nullable=True),
        sa.Column("ended_by", sa.Text(), nullable=True),
    )
    op.create_index("rollout_by_subject", "rollout", ["kind", "subject_id", "id"])
    op.create_index("rollout_by_stage", "rollout", ["stage", "created_at"])


def downgrade() -> None:
    op.drop_index("rollout_by_stage", "rollout")
    op.drop_index("rollout_by_subject", "rollout")
    op.drop_table("rollout")
    op.drop_table("channel_canary")
    if op.get_bind().dialect.name != "sqlite":
        for table, column in _FEED_COLUMNS:
            op.alter_column(table, column, type_=sa.String(length=40), existing_type=sa.String(length=48))
