"""What the kiosk's UI is handed: the services the composition root (app.kiosk) built, typed, built once.

The UI never builds a service itself. The type lives here, beside its users, because the layers run
app > ui: app may name ui's types, not the other way round (ARCHITECTURE.md §2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.core.captures.store import CaptureOutcome, Consent
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.config import KioskConfig
from nailmirror_desktop.core.model_releases.switch import ModelSwitcher
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.core.tryon.handoff import HandoffRequests
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KioskServices:
    """Everything the window needs. A part that could not be built (no database, no task engine) is None and
    the kiosk goes on without it: the mirror needs only the session, the supervisor and the runner.

    config is the configuration the kiosk started with; after staff save settings the shell holds the new one.
    """

    config: KioskConfig
    session: TryOnSession
    supervisor: SourceSupervisor
    run_in_background: RunInBackground
    repository: StyleRepository | None = None
    engine: TaskEngine | None = None
    executor: TaskExecutor | None = None
    provider: str = "offline"
    load_catalog: Callable[[], object] | None = None  # first-start catalog import, run off the GUI thread
    import_style_folder: Callable[[str], str] | None = None  # staff import, run off the GUI thread
    share: ShareServer | None = None  # "send to my phone": only when staff turned it on (KioskConfig.share_to_phone)
    handoffs: HandoffRequests | None = None  # "I want this one" requests for staff (over the GUI thread's connection)
    # Consented captures (issue #26): the snapshot's "before" file → the capture kept (on a worker); delete one
    # by code (a capture whose customer left before seeing it); staff's withdrawal of a code (→ code, held here).
    take_capture: Callable[[Path], CaptureOutcome] | None = None
    drop_capture: Callable[[str], object] | None = None
    withdraw_capture: Callable[[str], tuple[str, bool]] | None = None
    # Staff's own hands: the snapshot's "before" file → a capture under staff's consent record; that record
    # (given once: staff_consent(True) records it, staff_consent(False) reads it; None until given).
    take_staff_capture: Callable[[Path], CaptureOutcome] | None = None
    staff_consent: Callable[[bool], Consent | None] | None = None
    # Nail model releases (issue #27 §7): loaded beside the running model, switched and judged at the idle reset.
    models: ModelSwitcher | None = None
    still_models: ModelSwitcher | None = None  # the stills' own release, when HQ ships one (else the live one's)
    resources: ExitStack = field(default_factory=ExitStack)  # what close() closes, last opened first

    def close(self) -> None:
        """Close every part, last built first; once only. A part that fails to close is logged, and the others
        are closed all the same (ExitStack runs every callback)."""
        try:
            self.resources.close()
        except Exception:  # closing must go on past one failing part, and the kiosk must still exit
            log.warning("closing the kiosk's services failed", exc_info=True)
