"""Credits: HQ's grants per store and the kiosks' uploaded ledger entries (issue 14).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "credit_grant",
        sa.Column("grant_id", sa.String(length=40), nullable=False),
        sa.Column("store_id", sa.String(length=64), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("inbox_seq", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.ForeignKeyConstraint(["store_id"], ["store.id"]),
        sa.PrimaryKeyConstraint("grant_id"),
    )
    op.create_index("credit_grant_by_store", "credit_grant", ["store_id", "created_at"], unique=False)
    op.create_table(
        "credit_ledger_entry",
        sa.Column("store_id", sa.String(length=64), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("kiosk_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("confirmed_amount", sa.BigInteger(), nullable=False),
        sa.Column("funded", sa.Integer(), nullable=False),
        sa.Column("grant_id", sa.String(length=200), nullable=True),
        sa.Column("task_no", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("settled_at", sa.String(length=24), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("body_sha256", sa.String(length=64), nullable=False),
        sa.Column("received_at", sa.String(length=24), nullable=False),
        sa.ForeignKeyConstraint(["store_id"], ["store.id"]),
        sa.PrimaryKeyConstraint("store_id", "entry_id"),
    )


def downgrade() -> None:
    op.drop_table("credit_ledger_entry")
    op.drop_index("credit_grant_by_store", table_name="credit_grant")
    op.drop_table("credit_grant")
