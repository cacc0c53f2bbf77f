"""Initial schema: every table of nailmirror_hq/schema.py as of protocol v1.

Revision ID: 0001
Revises: (none)
"""

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('at', sa.String(length=24), nullable=False),
    sa.Column('actor', sa.Text(), nullable=False),
    sa.Column('action', sa.String(length=40), nullable=False),
    sa.Column('entity_type', sa.String(length=16), nullable=False),
    sa.Column('entity_id', sa.String(length=64), nullable=False),
    sa.Column('detail', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('blob',
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('format', sa.String(length=8), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.PrimaryKeyConstraint('sha256')
    )
    op.create_table('category',
    sa.Column('code', sa.String(length=40), nullable=False),
    sa.Column('name_zh', sa.Text(), nullable=False),
    sa.Column('name_en', sa.Text(), nullable=False),
    sa.Column('sort_order', sa.Integer(), server_default='0', nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('code')
    )
    op.create_table('channel',
    sa.Column('code', sa.String(length=40), nullable=False),
    sa.Column('head_seq', sa.BigInteger(), server_default='0', nullable=False),
    sa.Column('min_seq', sa.BigInteger(), server_default='0', nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.PrimaryKeyConstraint('code')
    )
    op.create_table('hq_meta',
    sa.Column('key', sa.String(length=40), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('reviewer',
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('password_hash', sa.Text(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.Column('disabled_at', sa.String(length=24), nullable=True),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_table('style',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('style_code', sa.String(length=16), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.Column('updated_at', sa.String(length=24), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('style_code')
    )
    op.create_table('tag',
    sa.Column('code', sa.String(length=40), nullable=False),
    sa.Column('name_zh', sa.Text(), nullable=False),
    sa.Column('name_en', sa.Text(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('code')
    )
    op.create_table('catalog_change',
    sa.Column('channel', sa.String(length=40), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('type', sa.String(length=16), nullable=False),
    sa.Column('op', sa.String(length=8), nullable=False),
    sa.Column('entity_id', sa.String(length=64), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.ForeignKeyConstraint(['channel'], ['channel.code'], ),
    sa.PrimaryKeyConstraint('channel', 'seq')
    )
    op.create_table('channel_entity',
    sa.Column('channel', sa.String(length=40), nullable=False),
    sa.Column('type', sa.String(length=16), nullable=False),
    sa.Column('entity_id', sa.String(length=64), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['channel'], ['channel.code'], ),
    sa.PrimaryKeyConstraint('channel', 'type', 'entity_id')
    )
    op.create_table('store',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('channel', sa.String(length=40), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('inbox_seq', sa.BigInteger(), server_default='0', nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.ForeignKeyConstraint(['channel'], ['channel.code'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('draft',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('store_id', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.ForeignKeyConstraint(['store_id'], ['store.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('enroll_code',
    sa.Column('code_sha256', sa.String(length=64), nullable=False),
    sa.Column('store_id', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.Column('expires_at', sa.String(length=24), nullable=False),
    sa.Column('used_at', sa.String(length=24), nullable=True),
    sa.ForeignKeyConstraint(['store_id'], ['store.id'], ),
    sa.PrimaryKeyConstraint('code_sha256')
    )
    op.create_table('store_event',
    sa.Column('store_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('type', sa.String(length=32), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.ForeignKeyConstraint(['store_id'], ['store.id'], ),
    sa.PrimaryKeyConstraint('store_id', 'seq')
    )
    op.create_table('store_token',
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('store_id', sa.String(length=64), nullable=False),
    sa.Column('kiosk_id', sa.String(length=64), nullable=False),
    sa.Column('kiosk_name', sa.Text(), nullable=False),
    sa.Column('app_version', sa.Text(), nullable=False),
    sa.Column('created_at', sa.String(length=24), nullable=False),
    sa.Column('last_seen_at', sa.String(length=24), nullable=True),
    sa.Column('revoked_at', sa.String(length=24), nullable=True),
    sa.ForeignKeyConstraint(['store_id'], ['store.id'], ),
    sa.PrimaryKeyConstraint('token_sha256'),
    sa.UniqueConstraint('kiosk_id')
    )
    op.create_table('draft_revision',
    sa.Column('draft_id', sa.String(length=36), nullable=False),
    sa.Column('rev', sa.Integer(), nullable=False),
    sa.Column('kiosk_id', sa.String(length=64), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('body_sha256', sa.String(length=64), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('received_at', sa.String(length=24), nullable=False),
    sa.Column('decided_at', sa.String(length=24), nullable=True),
    sa.Column('reviewer', sa.Text(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['draft_id'], ['draft.id'], ),
    sa.PrimaryKeyConstraint('draft_id', 'rev')
    )
    with op.batch_alter_table('draft_revision', schema=None) as batch_op:
        batch_op.create_index('draft_revision_by_state', ['state', 'received_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('draft_revision', schema=None) as batch_op:
        batch_op.drop_index('draft_revision_by_state')

    op.drop_table('draft_revision')
    op.drop_table('store_token')
    op.drop_table('store_event')
    op.drop_table('enroll_code')
    op.drop_table('draft')
    op.drop_table('store')
    op.drop_table('channel_entity')
    op.drop_table('catalog_change')
    op.drop_table('tag')
    op.drop_table('style')
    op.drop_table('reviewer')
    op.drop_table('hq_meta')
    op.drop_table('channel')
    op.drop_table('category')
    op.drop_table('blob')
    op.drop_table('audit_log')
