"""The nail models HQ trained and the gate reports that judged them (issue #27 §3–§4; tables of migration 0016).

A model's ONNX lives in the catalog's blob store under its sha256 (the store kiosks fetch `/v1/blobs/{sha256}`
from); its row keeps what a rerun needs to make the same bytes (recipe, dataset and base-data digests, seed, the
trainer's command line). state: candidate (trained) → published (released to a channel) → withdrawn.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, select, update

from nailmirror_hq import clock
from nailmirror_hq.schema import gate_report, nail_model
from nailmirror_protocol.model_release import TensorSpec

MODEL_NAME = "nail_segmenter"
STATES = ("candidate", "published", "withdrawn")


@dataclass(frozen=True)
class ModelRow:
    id: str
    name: str
    slot: str
    sha256: str
    size: int
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    threshold: float | None
    recipe: dict[str, Any]
    dataset: str
    dataset_digest: str
    base_data_digest: str
    seed: int
    command: str
    job_id: int | None
    created_at: str
    created_by: str
    state: str
    channels: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        return {"model": self.id, "name": self.name, "slot": self.slot, "state": self.state, "sha256": self.sha256,
                "size": self.size, "dataset": self.dataset, "seed": self.seed, "created_at": self.created_at,
                "created_by": self.created_by, "channels": list(self.channels)}


@dataclass(frozen=True)
class GateReport:
    id: str
    model_id: str
    baseline: str
    evaluation_set: dict[str, Any]
    metrics: dict[str, Any]
    noise: dict[str, Any]
    verdict: str  # pass | fail
    reasons: list[str]
    created_at: str
    created_by: str

    def as_json(self) -> dict[str, Any]:
        return {"gate_report": self.id, "model": self.model_id, "baseline": self.baseline,
                "evaluation_set": self.evaluation_set, "verdict": self.verdict, "reasons": self.reasons,
                "noise": self.noise, "metrics": self.metrics, "created_at": self.created_at,
                "created_by": self.created_by}


def model_id_for(sha256: str) -> str:
    return f"m-{sha256[:12]}"


def register(conn: Connection, row: ModelRow) -> ModelRow:
    """Insert a trained model; a model with the same bytes is already registered and is returned as it is (a rerun
    of the same recipe on the same data makes the same file)."""
    found = find(conn, row.id)
    if found is not None:
        return found
    conn.execute(nail_model.insert().values(
        id=row.id, name=row.name, slot=row.slot, sha256=row.sha256, size=row.size, inputs=json.dumps(row.inputs),
        outputs=json.dumps(row.outputs), threshold=row.threshold, recipe=json.dumps(row.recipe, sort_keys=True),
        dataset=row.dataset, dataset_digest=row.dataset_digest, base_data_digest=row.base_data_digest,
        seed=row.seed, command=row.command, job_id=row.job_id, created_at=row.created_at,
        created_by=row.created_by, state=row.state))
    return row


def find(conn: Connection, model_id: str) -> ModelRow | None:
    row = conn.execute(select(nail_model).where(nail_model.c.id == model_id)).one_or_none()
    return None if row is None else _model(row)


def list_models(conn: Connection, slot: str | None = None) -> list[ModelRow]:
    query = select(nail_model).order_by(nail_model.c.created_at.desc(), nail_model.c.id)
    if slot is not None:
        query = query.where(nail_model.c.slot == slot)
    return [_model(r) for r in conn.execute(query)]


def published_for_slot(conn: Connection, slot: str) -> ModelRow | None:
    """The newest model filling `slot` in some channel (the one a gate compares against), or None: the bundled
    model."""
    for row in list_models(conn, slot):
        if row.state == "published" and row.channels:
            return row
    return None


def in_channel(conn: Connection, slot: str, channel: str) -> ModelRow | None:
    """The model filling `slot` in `channel` now, if HQ released one there."""
    return next((row for row in list_models(conn, slot) if channel in row.channels), None)


def set_channels(conn: Connection, model_id: str, channels: tuple[str, ...], state: str) -> None:
    """Where a model is released now, and its state (published while in a channel; withdrawn when taken out)."""
    if state not in STATES:
        raise ValueError(f"unknown model state {state!r}")
    conn.execute(update(nail_model).where(nail_model.c.id == model_id).values(
        state=state, channels=json.dumps(sorted(channels))))


def save_gate_report(conn: Connection, *, model_id: str, baseline: str, evaluation_set: dict[str, Any],
                     metrics: dict[str, Any], noise: dict[str, Any], verdict: str, reasons: list[str],
                     actor: str) -> GateReport:
    report = GateReport(f"g-{secrets.token_hex(6)}", model_id, baseline, evaluation_set, metrics, noise, verdict,
                        reasons, clock.now_text(), actor)
    conn.execute(gate_report.insert().values(
        id=report.id, model_id=model_id, baseline=baseline, evaluation_set=json.dumps(evaluation_set),
        metrics=json.dumps(metrics), noise=json.dumps(noise), verdict=verdict, reasons=json.dumps(reasons),
        created_at=report.created_at, created_by=actor))
    return report


def latest_gate_report(conn: Connection, model_id: str) -> GateReport | None:
    row = conn.execute(select(gate_report).where(gate_report.c.model_id == model_id)
                       .order_by(gate_report.c.created_at.desc(), gate_report.c.id.desc()).limit(1)).one_or_none()
    if row is None:
        return None
    return GateReport(row.id, row.model_id, row.baseline, json.loads(row.evaluation_set), json.loads(row.metrics),
                      json.loads(row.noise), row.verdict, json.loads(row.reasons), row.created_at, row.created_by)


def _model(row: Any) -> ModelRow:
    tensors = cast(tuple[list[TensorSpec], list[TensorSpec]], (json.loads(row.inputs), json.loads(row.outputs)))
    return ModelRow(row.id, row.name, row.slot, row.sha256, int(row.size), *tensors, row.threshold,
                    json.loads(row.recipe), row.dataset, row.dataset_digest, row.base_data_digest, int(row.seed),
                    row.command, row.job_id, row.created_at, row.created_by, row.state,
                    tuple(json.loads(row.channels or "[]")))
