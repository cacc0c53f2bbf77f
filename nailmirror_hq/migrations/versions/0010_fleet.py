"""Fleet health and remote fixes (issue #25 §7, §8): an operator's requests to one kiosk (retry its failed
downloads, resync from a snapshot, replay its dead letters), which the kiosk learns of at its next hello and
answers in its sync report; kiosk names (`named_at` NULL: enrolled before names were kept, so the kiosk is named
`<store>-<n>` at its next hello); and a replacement enrollment code, whose use revokes the kiosk it replaces in
the same transaction.

Revision ID: 0010_fleet
Revises: 0009_reviewer_roles
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_fleet"
down_revision = "0009_reviewer_roles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_request",
        sa.Column("id", sa.String(length=40), primary_key=True),
        sa.Column("kiosk_id", sa.String(length=64), sa.ForeignKey("store_token.kiosk_id"), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("asked_by", sa.Text(), nullable=False),
        sa.Column("asked_at", sa.String(length=24), nullable=False),
        sa.Column("sent_at", sa.String(length=24), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("done_at", sa.String(length=24), nullable=True),
    )
    op.create_index("fleet_request_by_kiosk", "fleet_request", ["kiosk_id", "asked_at"])
    with op.batch_alter_table("store_token") as batch:
        batch.add_column(sa.Column("named_at", sa.String(length=24), nullable=True))
    with op.batch_alter_table("enroll_code") as batch:
        batch.add_column(sa.Column("replaces_kiosk_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("enroll_code") as batch:
        batch.drop_column("replaces_kiosk_id")
    with op.batch_alter_table("store_token") as batch:
        batch.drop_column("named_at")
    op.drop_index("fleet_request_by_kiosk", "fleet_request")
    op.drop_table("fleet_request")
