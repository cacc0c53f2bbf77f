"""The EFFECT_PREVIEW task: a snapshot's "after" rendered again from its frozen raw frame by the still path.

The live "after" is what the mirror painted in ~20 ms; the still path (its cascade of hand searches and the nail
segmenter's masks) takes a second or more but paints a better photo, and that is the one the customer keeps.
So a snapshot is shown and saved at once with the live pair, and an EFFECT_PREVIEW task (seed 000's task type)
renders the frozen frame again in the kiosk's task engine; the handler (app/effect_preview.py, it needs vision)
replaces the saved "after" file with its render.

What crosses the task table is small and local: the payload names a private temp file holding the frozen frame
(data_dir()/effect_preview, owner-only), the style code, the accent fingers, the saved "after" file and how many
nails the live frame painted; the result names the rendered file (None when the live image was kept). Customer
photos never leave the kiosk: no path outside the data directory is accepted.

The temp frame is deleted when the task ends, whatever the outcome. A kiosk that died mid-task leaves one behind:
`collect_leftover_frames` at the next start cancels the earlier run's unfinished previews (their customer is gone)
and deletes every temp frame. Stdlib only: the UI submits, the app's handler runs.
"""

from __future__ import annotations

import logging
import os
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.nail_form import NATURAL, NailForm, parse_form
from nailmirror_desktop.core.paths import data_dir, private_dir
from nailmirror_desktop.core.tasks import TaskEngine, TaskStatus
from nailmirror_desktop.core.tasks.errors import InvalidTransition

log = logging.getLogger(__name__)

EFFECT_PREVIEW = "EFFECT_PREVIEW"
BIZ_TYPE = "SNAPSHOT"
FRAMES_FOLDER = "effect_preview"
SNAPSHOTS_FOLDER = "snapshots"  # ui/tryon/snapshot.py's folder: the only place a render may be written
# One attempt: the customer is looking at the snapshot page now; a retry after a backoff would swap the image
# long after they looked, and a failure keeps the live image, which is a fine photo already.
MAX_ATTEMPTS = 1
_UNFINISHED = (TaskStatus.PENDING, TaskStatus.PROCESSING, TaskStatus.FAILED)


def frames_dir() -> Path:
    """Where the frozen frames wait for their task: owner-only, inside the data directory."""
    return private_dir(data_dir() / FRAMES_FOLDER)


class PreviewRequestError(ValueError):
    """A payload the handler refuses; `code` names why (the task goes DEAD with it)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


@dataclass(frozen=True)
class PreviewRequest:
    """frame: the frozen raw frame (a PNG in frames_dir()); after: the saved "after" file the render replaces;
    accent: the fingers wearing the style's accent (Finger names, lower case); live_nails: nails the live frame
    painted (the render must paint at least as many to replace it); form: the nail shape and length the live
    frame was painted with (absent from older payloads: natural)."""

    frame: Path
    style_code: str
    after: Path
    accent: tuple[str, ...] = ()
    live_nails: int = 0
    form: NailForm = NATURAL

    def to_payload(self) -> dict[str, Any]:
        return {"frame": str(self.frame), "style_code": self.style_code, "after": str(self.after),
                "accent": list(self.accent), "live_nails": self.live_nails, "shape": self.form.shape.value,
                "length": self.form.length.value}

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> PreviewRequest:
        """Read and check a payload; raises PreviewRequestError (BAD_PAYLOAD, PATH_OUTSIDE_DATA_DIR)."""
        try:
            frame, after, code = Path(payload["frame"]), Path(payload["after"]), str(payload["style_code"])
            accent = tuple(str(finger) for finger in payload.get("accent", ()))
            live_nails = int(payload.get("live_nails", 0))
            form = parse_form(payload.get("shape"), payload.get("length"))
        except (KeyError, TypeError, ValueError) as exc:
            raise PreviewRequestError("BAD_PAYLOAD", str(exc)) from None
        if not code:
            raise PreviewRequestError("BAD_PAYLOAD", "no style code")
        root = data_dir()
        if not _inside(frame, root / FRAMES_FOLDER) or not _inside(after, root / SNAPSHOTS_FOLDER):
            raise PreviewRequestError("PATH_OUTSIDE_DATA_DIR")  # a customer photo is never read or written elsewhere
        return cls(frame, code, after, accent, live_nails, form)


@dataclass(frozen=True)
class PreviewResult:
    """path: the rendered "after" (the saved file, now the still render), or None when the live one was kept;
    nails: the nails the still render painted; live_nails: the live frame's."""

    path: Path | None
    nails: int
    live_nails: int

    def to_result(self) -> dict[str, Any]:
        return {"path": None if self.path is None else str(self.path), "nails": self.nails,
                "live_nails": self.live_nails}

    @classmethod
    def from_result(cls, result: dict[str, Any] | None) -> PreviewResult:
        result = result or {}
        path = result.get("path")
        return cls(Path(path) if path else None, int(result.get("nails", 0)), int(result.get("live_nails", 0)))


def keeps_live(render_nails: int, live_nails: int) -> bool:
    """True when the live "after" stays. The still path searches one frame harder, but the live tracker had the
    frames before it: smoothing and hand recovery carry a hand the single-frame cascade may not find (motion
    blur, a hand cut by the frame edge). A render with fewer painted nails than the mirror showed would be a
    worse photo than the one the customer saw, so the live one is kept."""
    return render_nails < live_nails


def remove_frame(path: Path) -> None:
    """Delete a temp frame (already gone is fine)."""
    with suppress(FileNotFoundError):
        os.remove(path)


def collect_leftover_frames(engine: TaskEngine) -> int:
    """At start-up, before the executor runs: cancel the unfinished EFFECT_PREVIEW tasks an earlier run left
    (their customer has gone; a queued one ends CANCELED now, one a dead process held is ended by the lease sweep
    with its cancel request) and delete every temp frame, none of which a task may read any more. Returns how many
    files were deleted."""
    for task in engine.list_tasks(list(_UNFINISHED), EFFECT_PREVIEW, limit=None):
        try:
            engine.cancel(task.task_no)
        except InvalidTransition:
            continue  # ended meanwhile
    deleted = 0
    folder = frames_dir()
    for entry in os.scandir(folder):
        if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
            continue  # the owned-folder marker, and anything that is not a frame
        try:
            os.remove(entry.path)
        except OSError as exc:
            log.warning("could not delete a leftover snapshot frame %s: %s", entry.name, exc)
            continue
        deleted += 1
    if deleted:
        log.info("deleted %d leftover snapshot frame(s)", deleted)
    return deleted


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().parent == folder.resolve()
