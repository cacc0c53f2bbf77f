"""A camera chosen by name is found again after a reboot renumbers it or a move to another USB port, on a kernel
device list laid out in temp folders the way Linux lays out /sys/class/video4linux and /dev/v4l/by-id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.vision.sources.camera_devices import (
    CameraChoice,
    CameraDevice,
    devices_from_listing,
    linux_video_devices,
    node_index,
    resolve_camera_index,
)
from nailmirror_desktop.vision.sources.readers import CameraProbe

C270 = "HD Webcam C270"
BRIO = "Logitech BRIO"


def kernel(tmp: Path, nodes: dict[int, tuple[str, int]], links: dict[str, int]) -> tuple[Path, Path, Path]:
    """sysfs video4linux entries (number → (name, index attribute)), /dev nodes and by-id links to them."""
    sys_root, dev, by_id = tmp / "sys", tmp / "dev", tmp / "dev" / "v4l" / "by-id"
    for root in (sys_root, by_id):
        root.mkdir(parents=True, exist_ok=True)
    for number, (name, index) in nodes.items():
        entry = sys_root / f"video{number}"
        entry.mkdir()
        (entry / "name").write_text(name + "\n")
        (entry / "index").write_text(f"{index}\n")
        (dev / f"video{number}").write_text("")
    for link, number in links.items():
        os.symlink(f"../../video{number}", by_id / link)
    return sys_root, by_id, dev


def test_the_kernel_list_keeps_capture_nodes_with_their_stable_links(tmp_path):
    roots = kernel(tmp_path, {0: (C270, 0), 1: (C270, 1), 2: (BRIO, 0), 3: (BRIO, 1)},
                   {"usb-046d_C270_ABC-video-index0": 0, "usb-046d_C270_ABC-video-index1": 1,
                    "usb-046d_BRIO_XYZ-video-index0": 2})
    devices = linux_video_devices(*roots)
    assert [(d.index, d.name) for d in devices] == [(0, C270), (2, BRIO)]  # metadata nodes left out, as Qt does
    assert devices[0].stable_id.endswith("usb-046d_C270_ABC-video-index0")
    assert devices[1].kept_id.endswith("usb-046d_BRIO_XYZ-video-index0") and devices[1].device_id == "/dev/video2"
    assert linux_video_devices(tmp_path / "none", tmp_path / "none", tmp_path / "none") == []


def test_a_chosen_camera_is_found_again_after_renumbering_and_a_port_change(tmp_path):
    before = kernel(tmp_path / "boot1", {0: (C270, 0), 1: (C270, 1), 2: (BRIO, 0), 3: (BRIO, 1)},
                    {"usb-BRIO_XYZ-video-index0": 2, "usb-C270_ABC-video-index0": 0})
    brio = linux_video_devices(*before)[1]
    choice = CameraChoice(brio.kept_id.replace(str(tmp_path / "boot1"), "/dev"), brio.name, brio.index)
    # After a reboot the BRIO came up first: /dev/video0. Its by-id link follows it; the old index would open
    # the C270.
    after = kernel(tmp_path / "boot2", {0: (BRIO, 0), 1: (BRIO, 1), 2: (C270, 0), 3: (C270, 1)},
                   {"usb-BRIO_XYZ-video-index0": 0, "usb-C270_ABC-video-index0": 2})
    devices = [CameraDevice(d.index, d.name, d.device_id, d.stable_id.replace(str(tmp_path / "boot2"), "/dev"))
               for d in linux_video_devices(*after)]
    assert resolve_camera_index(choice, devices) == 0
    # A camera without a serial (no by-id link that matches): its name finds it at its new number.
    assert resolve_camera_index(CameraChoice("/dev/video2", BRIO, 2), devices) == 0
    # The same id, now a different camera: the name wins over the id.
    assert resolve_camera_index(CameraChoice("/dev/video0", C270, 0), devices) == 2
    # Not connected at all: the index it had (the probe then finds nothing there, or what is there now).
    assert resolve_camera_index(CameraChoice("/dev/v4l/by-id/usb-Gone-video-index0", "Gone", 3), devices) == 3
    assert resolve_camera_index(CameraChoice(), devices) is None  # automatic
    # Two cameras of one model and no serials: the one at the index it had.
    twins = [CameraDevice(0, C270, "/dev/video0"), CameraDevice(2, C270, "/dev/video2")]
    assert resolve_camera_index(CameraChoice("", C270, 2), twins) == 2


def test_qt_ids_map_to_opencv_indexes():
    assert node_index("/dev/video7") == 7 and node_index("pipewire:42") is None and node_index("/dev/video") is None
    os_devices = [CameraDevice(0, BRIO, "/dev/video0", "/dev/v4l/by-id/usb-BRIO-video-index0"),
                  CameraDevice(4, C270, "/dev/video4")]
    linux = devices_from_listing([("/dev/video4", C270), ("/dev/video0", BRIO)], linux=True, os_devices=os_devices)
    assert [(d.index, d.name) for d in linux] == [(4, C270), (0, BRIO)]
    assert linux[1].kept_id == "/dev/v4l/by-id/usb-BRIO-video-index0" and linux[0].kept_id == "/dev/video4"
    # An id that is no node path (another Qt backend): matched by name to the kernel's device.
    other = devices_from_listing([("pw-81", C270)], linux=True, os_devices=os_devices)
    assert other[0].index == 4 and other[0].device_id == "pw-81"
    # Windows / macOS: the position in Qt's list (the order OpenCV enumerates in: the documented assumption).
    windows = devices_from_listing([(r"\\?\usb#vid_046d&pid_085e", BRIO), (r"\\?\usb#vid_046d&pid_0825", C270)],
                                   linux=False)
    assert [(d.index, d.name) for d in windows] == [(0, BRIO), (1, C270)]


@pytest.mark.qt  # app/kiosk.py builds the kiosk's Qt services too: not importable in the Qt-less run
def test_the_kiosk_looks_the_chosen_camera_up_at_every_probe():
    """The capture side (app/kiosk.py) opens the index the chosen camera has at the moment it looks."""
    from nailmirror_desktop.app.kiosk import camera_candidates, camera_choice, camera_opener

    config = KioskConfig(camera="2", camera_id="/dev/v4l/by-id/usb-BRIO_XYZ-video-index0", camera_name=BRIO)
    save_config(config)
    assert camera_choice(load_config()) == CameraChoice(config.camera_id, BRIO, 2)
    present = [CameraDevice(2, BRIO, "/dev/video2", config.camera_id)]
    probe = CameraProbe(camera_candidates(load_config(), lambda: present), device_exists=lambda d: True)
    assert probe.present_devices() == (2,)
    present = [CameraDevice(0, BRIO, "/dev/video0", config.camera_id), CameraDevice(2, C270, "/dev/video2")]
    assert probe.present_devices() == (0,)  # replugged elsewhere: found at its new number, not the C270 at 2
    present = []
    assert probe.present_devices() == (2,)  # not listed: the index it had
    automatic = CameraProbe(camera_candidates(KioskConfig(), lambda: present), device_exists=lambda d: True)
    assert automatic.present_devices() == (0, 1, 2, 3)
    absent = camera_opener(config, list_devices=lambda: [CameraDevice(97, BRIO, "/dev/video97", config.camera_id)])
    with pytest.raises(RuntimeError, match="NO_CAMERA"):  # /dev/video97 is not there: nothing opened, no noise
        absent()


@pytest.mark.parametrize("raw, expected", [({"camera_name": 7, "camera_id": ["x"]}, ("", "")),
                                           ({"camera_name": "A" * 300, "camera_id": "/dev/video0"}, ("A" * 200,
                                                                                                      "/dev/video0"))])
def test_hand_edited_camera_fields_are_bounded(raw, expected):
    import json

    from nailmirror_desktop.core.config import config_path

    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(json.dumps(raw))
    config = load_config()
    assert (config.camera_name, config.camera_id) == expected
