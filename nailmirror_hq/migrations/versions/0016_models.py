"""Model work (issue #27 §3–§4, model_jobs.py, model_registry.py): the durable queue of train and evaluate jobs,
the nail models HQ trained (their ONNX in the catalog's blob store), and the gate reports that judged them.

Revision ID: 0016_models
Revises: 0015_labels
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_models"
down_revision = "0015_labels"  # chained after labels when the branches met (issue #27)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_job",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("args", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("worker", sa.String(length=120)),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("started_at", sa.String(length=24)),
        sa.Column("heartbeat_at", sa.String(length=24)),
        sa.Column("finished_at", sa.String(length=24)),
        sa.Column("result", sa.Text()),
        sa.Column("log_tail", sa.Text()),
        sa.Column("error", sa.Text()),
    )
    op.create_index("model_job_by_state", "model_job", ["state", "id"])
    op.create_table(
        "nail_model",
        sa.Column("id", sa.String(length=20), primary_key=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("slot", sa.String(length=16), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False, unique=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("inputs", sa.Text(), nullable=False),
        sa.Column("outputs", sa.Text(), nullable=False),
        sa.Column("threshold", sa.Float()),
        sa.Column("recipe", sa.Text(), nullable=False),
        sa.Column("dataset", sa.String(length=80), nullable=False),
        sa.Column("dataset_digest", sa.String(length=64), nullable=False),
        sa.Column("base_data_digest", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("job_id", sa.Integer()),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("channels", sa.Text(), nullable=False, server_default="[]"),
    )
    op.create_table(
        "gate_report",
        sa.Column("id", sa.String(length=24), primary_key=True),
        sa.Column("model_id", sa.String(length=20), sa.ForeignKey("nail_model.id"), nullable=False),
        sa.Column("baseline", sa.String(length=40), nullable=False),
        sa.Column("evaluation_set", sa.Text(), nullable=False),
        sa.Column("metrics", sa.Text(), nullable=False),
        sa.Column("noise", sa.Text(), nullable=False),
        sa.Column("verdict", sa.String(length=8), nullable=False),
        sa.Column("reasons", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
    )
    op.create_index("gate_report_by_model", "gate_report", ["model_id", "created_at"])


def downgrade() -> None:
    op.drop_index("gate_report_by_model", table_name="gate_report")
    op.drop_table("gate_report")
    op.drop_table("nail_model")
    op.drop_index("model_job_by_state", table_name="model_job")
    op.drop_table("model_job")
