"""Roles for HQ's people (issue #25 point 6, nailmirror_hq/roles.py): a role and a display name on every reviewer
account. Accounts made before roles existed could do everything, so they become ops_admin; new ones get the role
`reviewers add --role` names (content_reviewer when none). Also the audit page's two filter indexes (by entity,
by person), so a filtered page stays an index search however long the log grows.

Revision ID: 0009_reviewer_roles
Revises: 0008_signed_grants
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_reviewer_roles"
down_revision = "0008_signed_grants"
branch_labels = None
depends_on = None

MIGRATED_ROLE = "ops_admin"  # roles.MIGRATED_ROLE, frozen here: a migration must not change when the code does


def upgrade() -> None:
    with op.batch_alter_table("reviewer") as batch:
        batch.add_column(sa.Column("role", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("display_name", sa.Text(), nullable=True))
    op.execute(sa.text("UPDATE reviewer SET role = :role").bindparams(role=MIGRATED_ROLE))
    with op.batch_alter_table("reviewer") as batch:
        batch.alter_column("role", existing_type=sa.String(length=32), nullable=False)
    op.create_index("audit_log_by_entity", "audit_log", ["entity_type", "entity_id", "id"])
    op.create_index("audit_log_by_actor", "audit_log", ["actor", "id"])


def downgrade() -> None:
    op.drop_index("audit_log_by_actor", table_name="audit_log")
    op.drop_index("audit_log_by_entity", table_name="audit_log")
    with op.batch_alter_table("reviewer") as batch:
        batch.drop_column("display_name")
        batch.drop_column("role")
