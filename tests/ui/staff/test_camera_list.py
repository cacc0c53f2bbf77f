"""The staff settings' camera list without Qt Multimedia, as the Linux store bundle runs (build.spec leaves it out):
the kernel's list serves, with the same names, ids and stable links. The cameras are a sysfs-shaped tree (a real
V4L2 device cannot be made here without root: v4l2loopback is a kernel module)."""

from __future__ import annotations

import logging
import sys

import pytest

from nailmirror_desktop.ui.staff import camera_preview
from nailmirror_desktop.vision.sources.camera_devices import linux_video_devices
from tests.vision.test_camera_devices import BRIO, C270, kernel

pytestmark = [pytest.mark.qt, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's list")]


def test_without_qt_multimedia_the_kernel_names_the_cameras(tmp_path, monkeypatch, caplog):
    roots = kernel(tmp_path, {0: (C270, 0), 1: (C270, 1), 2: (BRIO, 0), 3: (BRIO, 1)},
                   {"usb-046d_C270_1234-video-index0": 0, "usb-046d_BRIO_99-video-index0": 2})
    monkeypatch.setattr(camera_preview, "linux_video_devices", lambda: linux_video_devices(*roots))
    monkeypatch.setitem(sys.modules, "PySide6.QtMultimedia", None)  # `import` of it raises ImportError
    with caplog.at_level(logging.INFO):
        devices = camera_preview.qt_camera_devices()
    assert [(d.index, d.name, d.device_id) for d in devices] == [(0, C270, "/dev/video0"), (2, BRIO, "/dev/video2")]
    assert devices[1].kept_id.endswith("usb-046d_BRIO_99-video-index0")  # what the config keeps for a reboot
    assert "Qt Multimedia is missing" in caplog.text
