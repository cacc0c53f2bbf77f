"""Which OpenCV index is the camera staff chose by name (ARCHITECTURE.md §3, "Which camera").

Staff pick a camera from Qt's list (`QMediaDevices.videoInputs()`: a description and an id); OpenCV opens an
index. The config keeps the choice three ways (core/config.py: `camera_id`, `camera_name`, and `camera` = the
index it had), and `resolve_camera_index` turns it back into an index each time the camera is opened, so the
choice survives a reboot that renumbers the devices and a camera moved to another USB port:

- the id first, when the device there still has the chosen name: on Linux the id kept is the udev link under
  /dev/v4l/by-id (made from the camera's vendor, model and serial: the same in every port and after a reboot),
  else Qt's own id (/dev/videoN on Linux);
- then the name alone (renumbered, or moved to a port that changed its /dev/videoN);
- then the index it had.

Linux: Qt's V4L2 backend names a camera by its node (/dev/videoN), and OpenCV's index N opens /dev/videoN, so
the index is read from the id; an id that is no path (another Qt backend, e.g. PipeWire) is matched by name
against /sys/class/video4linux. Windows and macOS: no shared id exists; the index is the device's position in
Qt's list. That assumes OpenCV enumerates cameras in the order Qt lists them (on Windows both walk the system's
video-capture device list — Media Foundation's MFEnumDeviceSources, which DirectShow lists in the same order;
not verified on a Windows kiosk here).

Plain Python (no cv2 calls, no Qt): the Linux listing reads sysfs and /dev, under roots the tests replace.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

_NODE = re.compile(r"^/dev/video(\d+)$")
SYS_VIDEO = Path("/sys/class/video4linux")
DEV_BY_ID = Path("/dev/v4l/by-id")


@dataclass(frozen=True)
class CameraDevice:
    """One camera as staff see it: index is what OpenCV opens; device_id is Qt's id (/dev/videoN on Linux);
    stable_id the udev by-id link on Linux ('' where there is none); name the description shown."""

    index: int
    name: str
    device_id: str = ""
    stable_id: str = ""

    @property
    def kept_id(self) -> str:
        """The id the config keeps: the one that survives reboots and port changes best."""
        return self.stable_id or self.device_id


@dataclass(frozen=True)
class CameraChoice:
    """What the config says: nothing set = automatic (the first camera that opens)."""

    device_id: str = ""
    name: str = ""
    index: int | None = None

    @property
    def automatic(self) -> bool:
        return not self.device_id and not self.name and self.index is None


def resolve_camera_index(choice: CameraChoice, devices: Sequence[CameraDevice]) -> int | None:
    """The index to open for `choice` among the `devices` present now; None for automatic. See the module doc
    for the order; a chosen camera that is not there falls back to the index it had (which may open nothing)."""
    if choice.automatic:
        return None
    if choice.device_id:
        for device in devices:
            if choice.device_id in (device.device_id, device.stable_id) and (
                    not choice.name or device.name == choice.name):
                return device.index
    if choice.name:
        named = [d for d in devices if d.name == choice.name]
        if named:
            same_index = [d for d in named if d.index == choice.index]
            return (same_index or named)[0].index
    return choice.index


def node_index(device_id: str) -> int | None:
    """N of a /dev/videoN id (what OpenCV's index N opens on Linux), else None."""
    match = _NODE.match(device_id)
    return int(match.group(1)) if match else None


def devices_from_listing(entries: Iterable[tuple[str, str]], *, linux: bool,
                         os_devices: Sequence[CameraDevice] = ()) -> list[CameraDevice]:
    """Qt's (id, description) list, in Qt's order, as CameraDevices with the index OpenCV opens.

    Linux: the index from the /dev/videoN id, or, for an id that is no node path, from the OS device of the
    same name (`os_devices`, from `linux_video_devices`); its by-id link comes from there too. Elsewhere the
    position in the list (see the module doc for that assumption)."""
    by_index = {d.index: d for d in os_devices}
    devices: list[CameraDevice] = []
    for position, (device_id, name) in enumerate(entries):
        if not linux:
            devices.append(CameraDevice(position, name, device_id))
            continue
        index = node_index(device_id)
        if index is None:
            same_name = [d.index for d in os_devices if d.name == name and d.index not in
                         {x.index for x in devices}]
            index = same_name[0] if same_name else position
        known = by_index.get(index)
        devices.append(CameraDevice(index, name, device_id, known.stable_id if known else ""))
    return devices


def linux_video_devices(sys_root: Path = SYS_VIDEO, by_id_root: Path = DEV_BY_ID,
                        dev_root: Path = Path("/dev")) -> list[CameraDevice]:
    """The capture nodes the kernel lists (sysfs name per /dev/videoN, by-id links), lowest number first.

    A UVC camera makes two nodes of the same name (video and metadata); the metadata one has sysfs `index` ≥ 1
    and is left out, as Qt leaves it out. Nothing there (no cameras, not Linux): an empty list."""
    stable = _by_id_links(by_id_root, dev_root)
    devices = []
    try:
        entries = sorted(sys_root.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = re.fullmatch(r"video(\d+)", entry.name)
        if match is None or _read(entry / "index", "0") != "0":
            continue
        index = int(match.group(1))
        name = _read(entry / "name", f"video{index}")
        devices.append(CameraDevice(index, name, f"/dev/video{index}", stable.get(index, "")))
    return sorted(devices, key=lambda d: d.index)


def _by_id_links(by_id_root: Path, dev_root: Path) -> dict[int, str]:
    """/dev/videoN's number → its /dev/v4l/by-id link (the '-video-index0' one when there are several)."""
    links: dict[int, str] = {}
    try:
        names = sorted(by_id_root.iterdir())
    except OSError:
        return links
    for link in names:
        target = os.path.realpath(link)
        match = re.fullmatch(r"video(\d+)", os.path.basename(target))
        if match is None or os.path.dirname(target) != os.path.realpath(dev_root):
            continue
        index = int(match.group(1))
        if index not in links or link.name.endswith("-video-index0"):
            links[index] = str(link)
    return links


def _read(path: Path, default: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip() or default
    except OSError:
        return default
