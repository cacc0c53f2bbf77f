"""Credits per kiosk: a grant is addressed to one kiosk of its store, a grant HQ lost in a restore can be learned
back from the kiosk that applied it, and a ledger entry re-sent under a new id says which one it replaces
(issue 14, nailmirror_hq/credits.py, ARCHITECTURE.md §14).

Revision ID: 0006_credits_per_kiosk
Revises: 0003_channels_and_taxonomy
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0006_credits_per_kiosk"
down_revision = "0003_channels_and_taxonomy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("credit_grant") as batch:
        # NULL: granted before grants were addressed (every kiosk of the store applies it, as then).
        batch.add_column(sa.Column("kiosk_id", sa.String(length=64), nullable=True))
        # Set when HQ learned the grant back from a kiosk's upload after a restore lost it: the entry's id.
        batch.add_column(sa.Column("learned_from_entry", sa.String(length=64), nullable=True))
        # A learned grant has no inbox event of this HQ (the kiosk applied it from the lost one).
        batch.alter_column("inbox_seq", existing_type=sa.BigInteger(), nullable=True)
    with op.batch_alter_table("credit_ledger_entry") as batch:
        # A parked entry re-sent under a new id (`nailmirror credits unpark`) names the id it replaces; the
        # replaced one is then superseded_by the new one and no longer counted.
        batch.add_column(sa.Column("replaces", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("superseded_by", sa.String(length=64), nullable=True))
    _address_earlier_grants()


def _address_earlier_grants() -> None:
    """Grants made before this revision went to the whole store: address each to the kiosk most likely to hold
    it, the store's first kiosk enrolled by the grant's time (else its first kiosk at all), in the grant row and
    in its inbox event, so a kiosk enrolled later (a second PC, a replacement) does not apply it again. A store
    without any kiosk keeps the grant unaddressed (a kiosk that enrolls applies it, as before)."""
    conn = op.get_bind()
    grants = conn.execute(sa.text("SELECT grant_id, store_id, inbox_seq, created_at FROM credit_grant "
                                  "WHERE kiosk_id IS NULL")).all()
    for grant_id, store_id, seq, created_at in grants:
        kiosks = conn.execute(sa.text("SELECT kiosk_id, created_at FROM store_token WHERE store_id = :s "
                                      "ORDER BY created_at, kiosk_id"), {"s": store_id}).all()
        if not kiosks:
            continue
        before = [k for k, at in kiosks if at <= created_at]
        kiosk_id = (before or [kiosks[0][0]])[0]
        conn.execute(sa.text("UPDATE credit_grant SET kiosk_id = :k WHERE grant_id = :g"),
                     {"k": kiosk_id, "g": grant_id})
        body = conn.execute(sa.text("SELECT body FROM store_event WHERE store_id = :s AND seq = :q"),
                            {"s": store_id, "q": seq}).scalar_one_or_none()
        if body is not None:
            event = json.loads(body)
            if event.get("grant_id") == grant_id:
                event["kiosk_id"] = kiosk_id
                conn.execute(sa.text("UPDATE store_event SET body = :b WHERE store_id = :s AND seq = :q"),
                             {"b": json.dumps(event, ensure_ascii=False), "s": store_id, "q": seq})


def downgrade() -> None:
    with op.batch_alter_table("credit_ledger_entry") as batch:
        batch.drop_column("superseded_by")
        batch.drop_column("replaces")
    with op.batch_alter_table("credit_grant") as batch:
        batch.alter_column("inbox_seq", existing_type=sa.BigInteger(), nullable=False)
        batch.drop_column("learned_from_entry")
        batch.drop_column("kiosk_id")
