"""A store's time zone (issue #25 §11): an IANA name HQ sets per store (`nailmirror-hq stores set-time-zone`, the
stores page) and sends in hello, so each kiosk counts its daily cap and hand-off numbers in its store's day.
Existing stores get the chain's home zone.

Revision ID: 0011_store_time_zone
Revises: 0010_fleet
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_store_time_zone"
down_revision = "0010_fleet"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("store") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(length=64), nullable=False,
                                   server_default="Asia/Shanghai"))


def downgrade() -> None:
    with op.batch_alter_table("store") as batch:
        batch.drop_column("time_zone")
