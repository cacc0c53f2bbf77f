"""The EFFECT_PREVIEW task's payload and result: they round-trip, and no path outside the data directory's two
folders is accepted (a customer photo is never read or written elsewhere); which render keeps the live image."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.paths import data_dir
from nailmirror_desktop.core.tryon.effect_preview import (
    PreviewRequest,
    PreviewRequestError,
    PreviewResult,
    frames_dir,
    keeps_live,
)


def request(**changes) -> PreviewRequest:
    values = {"frame": frames_dir() / "f.png", "style_code": "FES-1", "after": data_dir() / "snapshots" / "a.png",
              "accent": ("ring",), "live_nails": 4, **changes}
    return PreviewRequest(**values)


def test_a_request_and_a_result_round_trip_through_json_shapes():
    assert PreviewRequest.from_payload(request().to_payload()) == request()
    for result in (PreviewResult(data_dir() / "snapshots" / "a.png", 5, 4), PreviewResult(None, 2, 4)):
        assert PreviewResult.from_result(result.to_result()) == result
    assert PreviewResult.from_result(None) == PreviewResult(None, 0, 0)


@pytest.mark.parametrize("changes", [
    {"frame": "/etc/passwd"},
    {"after": "/tmp/elsewhere.png"},
    {"frame": str(frames_dir() / ".." / ".." / "x.png")},
    {"after": str(data_dir() / "snapshots" / "deeper" / "a.png")},
])
def test_paths_outside_the_two_folders_are_refused(changes):
    payload = {**request().to_payload(), **changes}
    with pytest.raises(PreviewRequestError) as refused:
        PreviewRequest.from_payload(payload)
    assert refused.value.code == "PATH_OUTSIDE_DATA_DIR"


@pytest.mark.parametrize("payload", [{}, {"frame": "f", "after": "a"}, {"frame": "f", "after": "a", "style_code": ""},
                                     {"frame": "f", "after": "a", "style_code": "X", "live_nails": "many"}])
def test_a_malformed_payload_is_refused_with_a_code(payload):
    with pytest.raises(PreviewRequestError) as refused:
        PreviewRequest.from_payload(payload)
    assert refused.value.code == "BAD_PAYLOAD"


def test_only_a_render_with_fewer_nails_keeps_the_live_image():
    assert keeps_live(3, 4) and not keeps_live(4, 4) and not keeps_live(5, 4) and not keeps_live(0, 0)


def test_the_nail_form_rides_along_and_an_older_payload_means_natural_nails():
    from nailmirror_desktop.core.nail_form import NATURAL, NailForm, NailLength, NailShape

    long = request(form=NailForm(NailShape.COFFIN, NailLength.LONG))
    assert PreviewRequest.from_payload(long.to_payload()) == long
    older = {k: v for k, v in request().to_payload().items() if k not in ("shape", "length")}
    assert PreviewRequest.from_payload(older).form == NATURAL
    with pytest.raises(PreviewRequestError) as refused:
        PreviewRequest.from_payload({**long.to_payload(), "shape": "oval"})
    assert refused.value.code == "BAD_PAYLOAD"
