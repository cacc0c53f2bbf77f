"""Consented nail captures (issue #26, nailmirror_hq/captures.py): the captures HQ holds, the withdrawals it
recorded (kept without any image, so a kiosk still holding a copy is told to delete it), and the datasets that
list a capture.

Revision ID: 0014_captures
Revises: 0012_staged_rollout
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_captures"
down_revision = "0012_staged_rollout"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "capture",
        sa.Column("code", sa.String(length=16), primary_key=True),
        sa.Column("store_id", sa.String(length=64), sa.ForeignKey("store.id"), nullable=False),
        sa.Column("kiosk_id", sa.String(length=64), nullable=False),
        sa.Column("image_sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("taken_at", sa.String(length=24), nullable=False),
        sa.Column("received_at", sa.String(length=24), nullable=False),
        sa.Column("consent_by", sa.String(length=16), nullable=False),
        sa.Column("consent_at", sa.String(length=24), nullable=False),
        sa.Column("consent_text_version", sa.String(length=40), nullable=False),
        sa.Column("model_version", sa.String(length=80), nullable=False),
        sa.Column("facts", sa.Text(), nullable=False),
    )
    op.create_index("capture_by_received", "capture", ["received_at"])
    op.create_table(
        "capture_withdrawal",
        sa.Column("code", sa.String(length=16), primary_key=True),
        sa.Column("withdrawn_at", sa.String(length=24), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("held", sa.Integer(), nullable=False),
        sa.Column("datasets", sa.Text(), nullable=False),
    )
    op.create_table(
        "capture_dataset",
        sa.Column("dataset", sa.String(length=80), nullable=False),
        sa.Column("code", sa.String(length=16), sa.ForeignKey("capture.code"), nullable=False),
        sa.Column("added_at", sa.String(length=24), nullable=False),
        sa.PrimaryKeyConstraint("dataset", "code"),
    )


def downgrade() -> None:
    op.drop_table("capture_dataset")
    op.drop_table("capture_withdrawal")
    op.drop_index("capture_by_received", table_name="capture")
    op.drop_table("capture")
