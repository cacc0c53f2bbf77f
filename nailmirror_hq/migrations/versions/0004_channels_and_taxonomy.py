"""Publishing to chosen channels, the feed a kiosk's cursor belongs to, and rotated tokens.

Revision ID: 0003_channels_and_taxonomy
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_channels_and_taxonomy"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "style_channel",
        sa.Column("style_id", sa.String(length=36), nullable=False),
        sa.Column("channel", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(["style_id"], ["style.id"]),
        sa.ForeignKeyConstraint(["channel"], ["channel.code"]),
        sa.PrimaryKeyConstraint("style_id", "channel"),
    )
    with op.batch_alter_table("store_token") as batch:
        batch.add_column(sa.Column("feed_channel", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("feed_format", sa.Integer(), nullable=True))
    # Kiosks enrolled before this revision read their store's channel in feed format 1 (what HQ served).
    op.execute("UPDATE store_token SET feed_channel = (SELECT store.channel FROM store "
               "WHERE store.id = store_token.store_id), feed_format = 1")
    op.create_table(
        "retired_token",
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("kiosk_id", sa.String(length=64), nullable=False),
        sa.Column("valid_until", sa.String(length=24), nullable=False),
        sa.ForeignKeyConstraint(["kiosk_id"], ["store_token.kiosk_id"]),
        sa.PrimaryKeyConstraint("token_sha256"),
    )


def downgrade() -> None:
    op.drop_table("retired_token")
    with op.batch_alter_table("store_token") as batch:
        batch.drop_column("feed_format")
        batch.drop_column("feed_channel")
    op.drop_table("style_channel")
