"""A kiosk-side worker process for the EFFECT_PREVIEW crash test (run as
`python tests/support/effect_preview_proc.py DB HOME`).

It registers the real EFFECT_PREVIEW handler wrapped so that, once the task is claimed and its temp frame is on
disk, it prints "rendering" and sleeps: the test then SIGKILLs it mid-task, as a power cut would.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nailmirror_desktop.app.effect_preview import EffectPreviewRenderer  # noqa: E402
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402
from nailmirror_desktop.core.tryon.effect_preview import EFFECT_PREVIEW  # noqa: E402


def main() -> int:
    db, home = Path(sys.argv[1]), sys.argv[2]
    os.environ["NAILMIRROR_HOME"] = home
    engine = TaskEngine(db, config=EngineConfig(lease_s=1.0, idle_poll_s=0.02))
    renderer = EffectPreviewRenderer(mirrored=False)

    def handler(ctx):
        ctx.report_progress(0.1)
        print("rendering", flush=True)
        time.sleep(60)  # killed here
        return renderer(ctx)

    engine.register_handler(EFFECT_PREVIEW, handler)
    engine.run_until_idle(timeout_s=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
