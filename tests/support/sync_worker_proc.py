"""A kiosk process for the sync crash tests (`python tests/support/sync_worker_proc.py --kill-at POINT`).

It runs `nailmirror sync now` in this process against the kiosk's database (NAILMIRROR_HOME) and SIGKILLs
itself at one point, patched in from here (the product has no crash hooks):
  page_commit   inside a feed page's transaction, after its changes were written, just before its cursor
                (and so before the commit);
  blob_stored   after a fetched blob went into the asset store, before the row saying so is written.
  token_saved   after HQ rotated the token and a call with the new one succeeded, before the kiosk stores it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nailmirror_desktop.cli import main as nailmirror  # noqa: E402
from nailmirror_desktop.core.sync import apply, state  # noqa: E402


def die(*_args: Any, **_kwargs: Any) -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def run() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kill-at", choices=("page_commit", "blob_stored", "token_saved"), required=True)
    args = parser.parse_args()
    if args.kill_at == "page_commit":
        original = state.set_cursor

        def set_cursor(conn: Any, cursor: str, **kwargs: Any) -> None:
            if kwargs.get("snapshot_etag") is None:  # a feed page (the snapshot is allowed through)
                die()
            original(conn, cursor, **kwargs)

        state.set_cursor = set_cursor  # type: ignore[assignment]
        apply.state.set_cursor = set_cursor  # type: ignore[attr-defined]
    elif args.kill_at == "token_saved":
        state.save_rotated_token = die  # type: ignore[assignment]
    else:
        apply.materialise_waiting_on = die  # type: ignore[assignment]
    return nailmirror(["sync", "now"])


if __name__ == "__main__":
    sys.exit(run())
