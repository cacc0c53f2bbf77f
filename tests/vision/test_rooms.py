"""vision/ is arranged in rooms by stage (sources, tracking, nails, paint, evaluation); a script outside the
repository that imports a module by its old flat path gets the very same module."""

from __future__ import annotations

import importlib

import pytest

MOVED = {
    "supervisor": "sources", "camera_devices": "sources", "camera_opening": "sources",
    "image_io": "sources", "tracker": "tracking", "mediapipe_tasks": "tracking", "hand_model": "tracking",
    "hand_recovery": "tracking", "smoothing": "tracking", "still_detection": "tracking", "model_preload": "tracking",
    "geometry": "nails", "nail_rois": "nails", "nail_refiner": "nails", "nail_segmenter": "nails",
    "nail_shape": "nails", "nail_tracks": "nails", "warp": "nails", "compositor": "paint", "polish": "paint",
    "polish_mask": "paint", "polish_shading": "paint", "style_textures": "paint",
}


@pytest.mark.parametrize("old, room", sorted(MOVED.items()))
def test_an_old_module_path_is_the_moved_module(old, room):
    moved = importlib.import_module(f"nailmirror_desktop.vision.{room}.{old}")
    assert importlib.import_module(f"nailmirror_desktop.vision.{old}") is moved


def test_the_frame_readers_keep_their_old_path():
    from nailmirror_desktop.vision.sources import FrameReader, VideoFileSource, readers

    assert FrameReader is readers.FrameReader and VideoFileSource is readers.VideoFileSource


def test_the_evaluation_modules_keep_their_names():
    from nailmirror_desktop.vision import video_evaluation
    from nailmirror_desktop.vision.evaluation import dataset_pairs, evaluate, video
    from nailmirror_desktop.vision.evaluation.photos import dataset_pairs as moved

    assert dataset_pairs is moved and callable(evaluate) and video_evaluation is video
