"""Releasing a gated model to a channel and taking it back (issue #27 §4; the signing and the feed are
model_releases.py's, the shipping work of §5–§6).

A model may go out only when its latest gate report passed on HQ's own evaluation set. Its ONNX is already in the
catalog's blob store under its sha256 (the train job put it there), which is where kiosks fetch `/v1/blobs/{sha256}`.
Each release fills one slot of one channel; a release replaces the slot's previous model in that channel, and a
withdrawal empties the slot there (the kiosks go back to their bundled model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from nailmirror_hq import db, model_data, model_registry, model_releases
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.model_evaluation import HQ_SET
from nailmirror_hq.service import HQ


class NotPublishable(Exception):
    """The gate has not let this model out; str() is the one line the operator reads."""


@dataclass(frozen=True)
class Released:
    model: str
    slot: str
    channel: str
    version: Any
    rollout_id: Any
    stage: Any
    gate_report: str

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model, "slot": self.slot, "channel": self.channel, "version": self.version,
                "rollout": self.rollout_id, "stage": self.stage, "gate_report": self.gate_report}


def gate_refusal(conn: Connection, model: model_registry.ModelRow) -> str | None:
    """Why the gate does not let `model` out, or None when its latest report passed on HQ's evaluation set."""
    report = model_registry.latest_gate_report(conn, model.id)
    if report is None:
        return f"{model.id} has no gate report: run `nailmirror-hq model evaluate {model.id}` first"
    if report.verdict != "pass":
        return f"{model.id} did not pass the gate ({report.id}: {'; '.join(report.reasons)})"
    if report.evaluation_set.get("source") != HQ_SET:
        return f"{model.id} passed only on a photo folder ({report.id}); the gate counts HQ's evaluation set"
    # Beating some other model proves nothing about the counters: the pass must be against what the kiosks run
    # in this slot now (HQ's newest release in it, else the bundled model), or the model must already be that one.
    current = model_registry.published_for_slot(conn, model.slot)
    if current is not None and current.id == model.id:
        return None
    wanted = current.id if current is not None else model_data.bundled_name(model.slot)
    if report.baseline != wanted:
        return (f"{model.id} passed against {report.baseline} ({report.id}), not the slot's current model {wanted}: "
                f"run `nailmirror-hq model evaluate {model.id}` first")
    return None


def publish(hq: HQ, model_id: str, channel: str, actor: str) -> Released:
    """Release `model_id` in its slot of `channel` (model_releases.publish signs it and audits MODEL_RELEASE)."""
    with db.write(hq.engine) as conn:
        model = model_registry.find(conn, model_id)
        if model is None:
            raise not_found(f"model {model_id}")
        refusal = gate_refusal(conn, model)
        if refusal is not None:
            raise NotPublishable(refusal)
        if not hq.blobs.has(model.sha256):
            raise HQError(409, "model_missing", f"the blob store has no copy of {model.id}'s file")
        report = model_registry.latest_gate_report(conn, model.id)
        assert report is not None  # gate_refusal said it passed
        previous = model_registry.in_channel(conn, model.slot, channel)
        done = model_releases.publish(
            conn, hq.require_signing_key(), channel_code=channel, name=model.name, slot=model.slot,
            sha256=model.sha256, size=model.size, inputs=model.inputs, outputs=model.outputs,
            gate_report_id=report.id, threshold=model.threshold, actor=actor)
        if previous is not None and previous.id != model.id:
            rest = tuple(c for c in previous.channels if c != channel)
            model_registry.set_channels(conn, previous.id, rest, "published" if rest else "withdrawn")
        model_registry.set_channels(conn, model.id, tuple({*model.channels, channel}), "published")
    return Released(model.id, model.slot, channel, done.version, done.rollout_id, done.stage, report.id)


def withdraw(hq: HQ, model_id: str, channels: list[str] | None, actor: str) -> dict[str, Any]:
    """Empty the model's slot in `channels` (default: every channel it fills now); model_releases.withdraw audits
    MODEL_WITHDRAW per channel."""
    with db.write(hq.engine) as conn:
        model = model_registry.find(conn, model_id)
        if model is None:
            raise not_found(f"model {model_id}")
        wanted = list(model.channels) if channels is None else channels
        foreign = [c for c in wanted if c not in model.channels]
        if foreign:
            raise HQError(409, "not_released_there", f"{model.id} does not fill slot {model.slot} in "
                                                     f"{', '.join(foreign)}")
        withdrawn = [c for c in wanted if model_releases.withdraw(conn, channel_code=c, slot=model.slot, actor=actor)]
        rest = tuple(c for c in model.channels if c not in wanted)
        model_registry.set_channels(conn, model.id, rest, "published" if rest else "withdrawn")
    return {"model": model.id, "slot": model.slot, "withdrawn_from": withdrawn, "still_in": list(rest)}

