"""Reviewer sessions of the review web page.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_session",
        sa.Column("id_sha256", sa.String(length=64), nullable=False),
        sa.Column("reviewer", sa.String(length=80), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("expires_at", sa.String(length=24), nullable=False),
        sa.ForeignKeyConstraint(["reviewer"], ["reviewer.name"]),
        sa.PrimaryKeyConstraint("id_sha256"),
    )


def downgrade() -> None:
    op.drop_table("web_session")
