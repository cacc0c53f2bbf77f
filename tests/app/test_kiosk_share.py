"""The composition root's share server: off unless staff turn it on, and on the configured address when set."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from nailmirror_desktop.core.config import KioskConfig

pytest.importorskip("PySide6")  # app/kiosk.py hands over to the Qt application


def test_the_share_server_listens_where_the_config_says(tmp_path: Path):
    from nailmirror_desktop.app.kiosk import _open_share_server

    resources = ExitStack()
    idle = _open_share_server(KioskConfig(), resources)  # sharing off: there, so staff can turn it on, not listening
    assert idle is not None and idle.bound_address is None
    photo = tmp_path / "after.png"
    photo.write_bytes(b"\x89PNG")
    server = _open_share_server(KioskConfig(share_to_phone=True, share_port=0, share_address="127.0.0.6"),
                                resources)
    try:
        link = server.offer(photo)
        assert link.url.startswith("http://127.0.0.6:") and server.bound_address[0] == "127.0.0.6"
    finally:
        resources.close()
    assert server.bound_address is None  # closed with the kiosk's resources
