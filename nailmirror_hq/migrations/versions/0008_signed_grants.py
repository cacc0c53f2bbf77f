"""HQ's signing key and signed grants (issue 25 §1, nailmirror_hq/keys.py): the key pair's table, a signature on
every grant (the ones HQ already holds are signed here, when HQ's start hands this revision the config file's
key; else at the same start right after, by service.open_hq), and a state on a kiosk's GRANT entry that claims an
HQ grant HQ cannot verify: PARKED for an operator (`nailmirror-hq credits parked`), never counted.

Revision ID: 0008_signed_grants
Revises: 0007_kiosk_sync_report
"""

import sqlalchemy as sa
from alembic import context, op

from nailmirror_hq import clock, keys

revision = "0008_signed_grants"
down_revision = "0007_kiosk_sync_report"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hq_signing_key",
        sa.Column("key_id", sa.String(length=16), primary_key=True),
        sa.Column("algorithm", sa.String(length=16), nullable=False),
        sa.Column("public_key", sa.String(length=64), nullable=False),
        sa.Column("private_sealed", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
    )
    with op.batch_alter_table("credit_grant") as batch:
        batch.add_column(sa.Column("signature", sa.String(length=100), nullable=True))
    with op.batch_alter_table("credit_ledger_entry") as batch:
        batch.add_column(sa.Column("grant_parked", sa.String(length=8), nullable=True))
    kek = context.config.attributes.get("signing_kek")
    if kek is not None:
        conn = op.get_bind()
        keys.sign_unsigned_grants(conn, keys.ensure_key(conn, kek, clock.now_text()))


def downgrade() -> None:
    with op.batch_alter_table("credit_ledger_entry") as batch:
        batch.drop_column("grant_parked")
    with op.batch_alter_table("credit_grant") as batch:
        batch.drop_column("signature")
    op.drop_table("hq_signing_key")
