"""A kiosk's sync report (issue #20 §14): the last one each kiosk sent (PUT /v1/kiosks/me/sync-report), kept on
its token row as JSON with when it came, for the review page and `nailmirror-hq` to show which downloads fail
where.

Revision ID: 0007_kiosk_sync_report
Revises: 0006_credits_per_kiosk
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_kiosk_sync_report"
down_revision = "0006_credits_per_kiosk"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("store_token") as batch:
        batch.add_column(sa.Column("sync_report", sa.Text(), nullable=True))
        batch.add_column(sa.Column("sync_report_at", sa.String(length=24), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("store_token") as batch:
        batch.drop_column("sync_report_at")
        batch.drop_column("sync_report")
