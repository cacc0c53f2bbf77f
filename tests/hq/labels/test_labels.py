"""Label versions, datasets and the evaluation split (issue #27 §1–§2, nailmirror_hq/labels.py, datasets.py) on
SQLite, PostgreSQL and PostgreSQL + S3: versions are appended with their source and mask (kept in the capture
store as 0/255 greyscale); a dataset freezes the accepted labels outside the evaluation split and never changes;
a withdrawal takes a capture's labels, masks and memberships with it and the dataset records the loss."""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from nailmirror_hq import captures, datasets, db, labels, mask_png
from nailmirror_hq.errors import HQError
from nailmirror_hq.schema import audit_log, capture_dataset, label_version
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import HEIGHT, PROPOSED, WIDTH, day_for, put_capture, rect_mask

LABELLER = captures.Operator("labeller-li")
TRAIN_CODE, EVAL_CODE = "K7QH3MPX", "23456789"


def _accept(hq: HQ, code: str, *boxes: tuple[int, int, int, int], **changes: object) -> labels.LabelVersion:
    draw = labels.Draw("accepted", mask_png.write_mask(rect_mask(*boxes), WIDTH, HEIGHT), skin_tone="III-IV",
                       nail_kind="polished")
    return labels.save(hq.engine, hq.require_captures(), LABELLER, code,
                       labels.Draw(**{**draw.__dict__, **changes}))  # type: ignore[arg-type]


def _two_captures(hq: HQ, client: TestClient) -> str:
    store_id, headers = new_kiosk(hq, client)
    put_capture(client, headers, TRAIN_CODE, day_for(store_id, evaluation=False), salt=1)
    put_capture(client, headers, EVAL_CODE, day_for(store_id, evaluation=True), salt=2)
    return store_id


def test_label_versions_are_appended_and_their_masks_kept_apart(hq: HQ, client: TestClient) -> None:
    _two_captures(hq, client)
    assert [r.code for r in labels.queue(hq.engine, LABELLER)] == [TRAIN_CODE, EVAL_CODE]
    proposal = labels.proposal(hq.engine, LABELLER, TRAIN_CODE)
    assert proposal is not None and mask_png.read_mask(proposal, WIDTH, HEIGHT) == rect_mask(PROPOSED)
    first = _accept(hq, TRAIN_CODE, PROPOSED, (60, 40, 90, 70))
    second = _accept(hq, TRAIN_CODE, (60, 40, 90, 70), source="label", source_version=first.id,
                     skin_tone="V-VI", nail_kind="long")
    skipped = labels.save(hq.engine, hq.require_captures(), LABELLER, EVAL_CODE, labels.Draw("skipped"))
    assert [r.code for r in labels.queue(hq.engine, LABELLER)] == [EVAL_CODE]  # only the skipped one is left
    listed = labels.versions(hq.engine, LABELLER, TRAIN_CODE)
    assert [(v.version, v.source, v.source_version, v.skin_tone) for v in listed] == [
        (1, "kiosk", None, "III-IV"), (2, "label", first.id, "V-VI")]
    assert (skipped.version, skipped.mask_sha256) == (1, None)
    assert second.mask_sha256 is not None
    kept = labels.read_mask(hq.engine, hq.require_captures(), LABELLER, second.id)
    assert hashlib.sha256(kept).hexdigest() == second.mask_sha256
    assert mask_png.read_mask(kept, WIDTH, HEIGHT) == rect_mask((60, 40, 90, 70))
    assert kept[25] == 0 and not hq.blobs.has(second.mask_sha256)  # greyscale; never among the catalog's blobs
    with db.read(hq.engine) as conn:
        actions = [r.action for r in conn.execute(select(audit_log).where(audit_log.c.actor == "labeller-li"))]
    assert {"LABEL_QUEUE", "LABEL_PROPOSAL", "LABEL_SAVE", "LABEL_VERSIONS", "LABEL_MASK"} <= set(actions)


@pytest.mark.parametrize(("draw", "says"), [
    (labels.Draw("accepted", mask_png.write_mask(rect_mask(), WIDTH, HEIGHT)), "skin tone"),
    (labels.Draw("accepted", mask_png.write_mask(rect_mask(width=10), 10, HEIGHT), skin_tone="I-II",
                 nail_kind="bare"), "the capture is 120×90"),
    (labels.Draw("accepted", mask_png.write_mask(b"\x80" * WIDTH * HEIGHT, WIDTH, HEIGHT), skin_tone="I-II",
                 nail_kind="bare"), "grey pixels"),
    (labels.Draw("accepted", b"GIF89a", skin_tone="I-II", nail_kind="bare"), "not a PNG"),
    (labels.Draw("rejected"), "needs a reason"), (labels.Draw("maybe"), "decision"),
    (labels.Draw("skipped", source="label", source_version=999), "not a label version"),
])
def test_a_wrong_label_is_refused_in_one_line_and_nothing_kept(hq_sqlite: HQ, draw: labels.Draw,
                                                               says: str) -> None:
    hq = hq_sqlite
    from nailmirror_hq.api.app import create_app

    client = TestClient(create_app(hq))
    _two_captures(hq, client)
    with pytest.raises(HQError) as refused:
        labels.save(hq.engine, hq.require_captures(), LABELLER, TRAIN_CODE, draw)
    assert refused.value.status == 400 and says in refused.value.message and "\n" not in refused.value.message
    with db.read(hq.engine) as conn:
        assert conn.execute(select(label_version)).first() is None
    with pytest.raises(HQError) as nobody:
        labels.queue(hq.engine, None)
    assert nobody.value.status == 403


def test_a_dataset_is_frozen_and_never_holds_the_evaluation_set(hq: HQ, client: TestClient) -> None:
    _two_captures(hq, client)
    first = _accept(hq, TRAIN_CODE, PROPOSED)
    evaluated = _accept(hq, EVAL_CODE, PROPOSED)
    made = datasets.create(hq.engine, "nails-2026-12", "cli:lead")
    assert (made.members, made.lost) == (1, 0)
    _accept(hq, TRAIN_CODE, (60, 40, 90, 70), source="label", source_version=first.id)  # a later correction
    with db.read(hq.engine) as conn:
        held = datasets.members(conn, "nails-2026-12")
        assert [(m.code, m.label_version) for m in held] == [(TRAIN_CODE, first.id)]  # still the frozen one
        assert [m.label_version for m in datasets.evaluation_members(conn)] == [evaluated.id]
    for name, status in (("nails-2026-12", 409), ("bad name!", 400)):
        with pytest.raises(HQError) as refused:
            datasets.create(hq.engine, name, "cli:lead")
        assert refused.value.status == status
    with db.write(hq.engine) as conn, pytest.raises(HQError) as frozen:
        captures.add_to_dataset(conn, "nails-2026-12", EVAL_CODE)
    assert frozen.value.code == "evaluation_capture"


def test_the_evaluation_split_is_by_store_and_day_and_about_a_fifth() -> None:
    days = [f"2026-{m:02d}-{d:02d}" for m in range(1, 13) for d in range(1, 29)]
    split = [labels.in_evaluation(f"st_{n}", day) for n in range(30) for day in days]
    assert 0.17 < sum(split) / len(split) < 0.23
    assert labels.in_evaluation("st_3", "2026-12-04") == labels.in_evaluation("st_3", "2026-12-04")
    assert labels.capture_day("2026-12-04T23:30:00-02:00") == "2026-12-05"  # the UTC day
    assert {labels.in_evaluation("st_1", d) for d in days} == {True, False}  # a store has days on both sides


def test_a_withdrawal_takes_the_labels_and_the_dataset_records_its_loss(hq: HQ, client: TestClient) -> None:
    _two_captures(hq, client)
    version = _accept(hq, TRAIN_CODE, PROPOSED)
    datasets.create(hq.engine, "nails-a", "cli:lead")
    assert version.mask_sha256 is not None and hq.require_captures().has(version.mask_sha256)
    done = captures.withdraw(hq.engine, hq.require_captures(), TRAIN_CODE, "kiosk:k1")
    assert done.datasets == ("nails-a",)
    with db.read(hq.engine) as conn:
        assert conn.execute(select(label_version).where(label_version.c.code == TRAIN_CODE)).first() is None
        assert conn.execute(select(capture_dataset)).first() is None
        assert datasets.get(conn, "nails-a").summary()["lost"] == 1
        assert datasets.get(conn, "nails-a").summary()["held"] == 0
    assert not hq.require_captures().has(version.mask_sha256)
