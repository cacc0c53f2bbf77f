
import pytest

from nailmirror_desktop.vision.tracking import hand_model


def test_shipped_bundle_is_the_verified_build():
    assert hand_model.verify_bundle(hand_model.default_bundle_path())


def test_build_is_byte_reproducible_and_aligned(tmp_path):
    import zipfile

    data = hand_model.default_bundle_path().read_bytes()
    members = []
    with zipfile.ZipFile(hand_model.default_bundle_path()) as zf:
        for info in zf.infolist():
            members.append(hand_model.ModelMember(info.filename, zf.read(info)))
            data_offset = info.header_offset + 30 + len(info.filename) + len(info.extra)
            assert data_offset % hand_model.ALIGNMENT == 0, info.filename
            assert info.compress_type == zipfile.ZIP_STORED
    assert hand_model.build_bundle(members) == data


def test_missing_model_names_the_fix(tmp_path):
    with pytest.raises(hand_model.HandModelError, match="build_hand_model.py"):
        hand_model.verify_bundle(tmp_path / "nope.task")


def test_corrupt_model_is_refused(tmp_path):
    bad = tmp_path / "hand_landmarker.task"
    good = hand_model.default_bundle_path().read_bytes()
    bad.write_bytes(good[:-10] + b"0123456789")
    with pytest.raises(hand_model.HandModelError, match="corrupt"):
        hand_model.verify_bundle(bad)


def test_wrong_member_is_refused():
    with pytest.raises(hand_model.HandModelError, match="sha256 mismatch"):
        hand_model._verified([(next(iter(hand_model.MEMBERS)), b"not a model")])
