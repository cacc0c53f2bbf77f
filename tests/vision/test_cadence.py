"""The live cadence governor: a slow mirror lowers its work per frame; a fast one goes back, without see-saw."""

from nailmirror_desktop.vision import cadence
from nailmirror_desktop.vision.cadence import CadenceGovernor, CadenceLevel
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline


def _feed(governor: CadenceGovernor, fps: float, frames: int) -> None:
    for _ in range(frames):
        governor.observe(1000.0 / fps)


def test_every_frame_painted_stays_at_full_cadence():
    governor = CadenceGovernor()
    _feed(governor, 30.0, 500)
    assert governor.index == 0 and governor.level == cadence.LEVELS[0]


def test_a_slow_mirror_steps_up_one_level_at_a_time_and_stops_at_the_last():
    governor = CadenceGovernor()
    _feed(governor, 15.0, 5)
    assert governor.index == 0  # a few slow frames are not yet a slow PC
    _feed(governor, 15.0, 10)
    assert governor.index == 1 and governor.level.segment_every == 2
    _feed(governor, 15.0, 500)
    assert governor.index == len(cadence.LEVELS) - 1


def test_a_level_that_fits_is_kept_and_the_slower_one_is_not_retried_soon():
    governor = CadenceGovernor()
    _feed(governor, 15.0, 15)  # level 0 is too slow here
    assert governor.index == 1
    _feed(governor, 30.0, cadence.RETRY_AFTER - 100)
    assert governor.index == 1  # fast at level 1, but level 0 was too slow a moment ago
    _feed(governor, 30.0, 200)
    assert governor.index == 0  # tried again after a while


def test_a_pause_is_not_a_slow_frame():
    governor = CadenceGovernor()
    for _ in range(50):
        governor.observe(5000.0)  # the mirror was paused (snapshot, staff pages)
        governor.observe(33.3)
    assert governor.index == 0


def test_the_pipeline_adopts_the_governors_cadence_only_when_asked():
    adapting = TryOnPipeline(Compositor(), adapt_cadence=True)
    fixed = TryOnPipeline(Compositor())
    assert adapting.cadence == CadenceLevel(1, 3) == fixed.cadence
    adapting._adopt(CadenceLevel(3, 6))
    assert adapting.segment_every == 3 and adapting.recover_every == 6
    assert fixed._governor is None
    off = TryOnPipeline(Compositor(), adapt_cadence=True, recover_every=0)
    off._adopt(CadenceLevel(2, 3))
    assert off.segment_every == 2 and off.recover_every == 0  # re-detection stays off
