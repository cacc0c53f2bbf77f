"""A private Xvfb server for tests that need a real X display (the test skips when the binary is missing)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def xvfb_display(screen: str = "1920x1080x24") -> Iterator[str]:
    """Start Xvfb on a free display; yields its name (":N")."""
    binary = shutil.which("Xvfb")
    if binary is None:
        pytest.skip("the Xvfb binary is missing (./dev installs the Debian package xvfb)")
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen([binary, "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", screen],
                              pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # Xvfb writes its display number when it is ready
    try:
        assert number.isdigit(), "Xvfb did not report a display number"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)
