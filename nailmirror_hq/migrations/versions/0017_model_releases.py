"""HQ's key rotations (issue #27 §5, nailmirror_hq/keys.py): each record says HQ moved from one signing key to the
next and is signed by the old key, so a kiosk pinned to it can follow. The keys themselves stay rows of
hq_signing_key (the newest is the one HQ signs with; the older ones still verify what they signed). Model releases
need no table: the feed and their rollout records describe them (model_releases.py).

Revision ID: 0017_model_releases
Revises: 0016_models
"""

import sqlalchemy as sa
from alembic import op

revision = "0017_model_releases"
down_revision = "0016_models"  # chained after labels and models when the branches met (issue #27)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hq_key_rotation",
        sa.Column("old_key_id", sa.String(length=16), sa.ForeignKey("hq_signing_key.key_id"), primary_key=True),
        sa.Column("new_key_id", sa.String(length=16), sa.ForeignKey("hq_signing_key.key_id"), nullable=False),
        sa.Column("rotated_at", sa.String(length=24), nullable=False),
        sa.Column("signature", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hq_key_rotation")
