"""A kiosk process for the credits-through-sync crash tests (`python tests/support/ledger_sync_proc.py
--kill-at POINT`): runs `nailmirror sync now` against the kiosk's database (NAILMIRROR_HOME) and SIGKILLs
itself at one point, patched in from here (the product has no crash hooks):
  inbox_commit  inside an inbox page's transaction, after its grants were applied, just before its cursor
                (and so before the commit);
  ledger_mark   after HQ answered a ledger entry's PUT, before the kiosk marks it uploaded.
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
from nailmirror_desktop.core.sync import drafts, ledger  # noqa: E402


def die(*_args: Any, **_kwargs: Any) -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def run() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kill-at", choices=("inbox_commit", "ledger_mark"), required=True)
    args = parser.parse_args()
    if args.kill_at == "inbox_commit":
        drafts.state.set_inbox_cursor = die  # type: ignore[assignment]
    else:
        ledger.mark_uploaded = die  # type: ignore[assignment]
    return nailmirror(["sync", "now"])


if __name__ == "__main__":
    sys.exit(run())
