"""The kiosk as app/kiosk.py builds it (real services, demo video, real task executor): the EFFECT_PREVIEW handler
is registered on its engine, a leftover temp frame is gone after the start, and a snapshot's saved "after" is
rendered again by the still path while the page shows progress. The still path's models load on that first
snapshot, not at start (#21.8: the cold start carries only the live mirror's models)."""

from __future__ import annotations

import pytest

from nailmirror_desktop.app.effect_preview import EffectPreviewRenderer
from nailmirror_desktop.core.tasks import TaskStatus
from nailmirror_desktop.core.tryon.effect_preview import EFFECT_PREVIEW, PreviewResult, frames_dir
from tests.support.ui_support import started_kiosk


@pytest.mark.slow
def test_a_kiosk_snapshot_is_rendered_again_as_an_effect_preview_task(qtbot, monkeypatch):
    still_pipelines = []  # the renderer's still pipeline (landmarkers, segmenter), each time one is built
    build_still_pipeline = EffectPreviewRenderer._still_pipeline

    def watched(renderer):
        if renderer._pipeline is None:
            still_pipelines.append(renderer)
        return build_still_pipeline(renderer)

    monkeypatch.setattr(EffectPreviewRenderer, "_still_pipeline", watched)
    leftover = frames_dir() / "0123abcd.png"
    leftover.write_bytes(b"a frame a crashed run left")
    with started_kiosk(qtbot) as kiosk:
        assert not leftover.exists()  # the start-up collector
        assert EFFECT_PREVIEW in kiosk.services.engine.task_types
        session = kiosk.services.session
        qtbot.waitUntil(lambda: session.style is not None, timeout=60_000)  # the first style is on
        qtbot.waitUntil(lambda: (pair := session.snapshot_pair()) is not None and pair.nails > 0,
                        timeout=60_000)  # the demo hand is painted
        assert still_pipelines == []  # started and painting: the still path (its models) not built yet
        page = kiosk.tryon.snapshot_page
        assert kiosk.tryon.take_snapshot()
        assert page.is_rendering()
        qtbot.waitUntil(lambda: not page.is_rendering(), timeout=120_000)
        tasks = kiosk.services.engine.list_tasks(task_type=EFFECT_PREVIEW)
        assert len(tasks) == 1 and tasks[0].status is TaskStatus.SUCCESS, tasks[0].last_error_message
        assert len(still_pipelines) == 1  # loaded by the first snapshot
        result = PreviewResult.from_result(tasks[0].result)
        assert result.path in (None, kiosk.tryon.last_snapshot)
        assert result.path is None or result.nails >= result.live_nails
        assert [p for p in frames_dir().iterdir() if not p.name.startswith(".")] == []
