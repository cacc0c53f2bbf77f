"""Reading HQ's answers field by field before anything uses them (issue #20 §10, §12).

`read_changes_page`, `read_snapshot`, `read_hello`, `read_inbox_page`, `read_enroll_response`,
`read_rotate_response` and `read_blobs_missing` (and, at HQ, `read_sync_report`) take a parsed JSON object and return a
clean copy holding only the fields this protocol version knows, each checked against its shape: a hash is 64
lower-case hex digits, ids and codes are short printable strings with no path separators, numbers are
integers in range, strings are bounded. They raise `WireError` naming the first field that is wrong (one line,
e.g. "changes[3].type is missing"), so the caller refuses the whole answer and applies nothing of it.

Forward compatibility (an older kiosk keeps syncing with a newer HQ): a change of a type or op this version does
not know, an inbox event of an unknown type, and unknown fields are left out, not refused; each is named once in
`Reading.skipped` for the caller to log. A known field with a wrong shape is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from nailmirror_protocol import PROTOCOL_VERSION, model_release
from nailmirror_protocol.canonical import is_sha256_hex
from nailmirror_protocol.cursor import EPOCH_PATTERN, MAX_SEQ, CursorError, parse_cursor
from nailmirror_protocol.shapes import (
    DEAD_LETTER_TYPES_MAX,
    FLEET_OUTCOMES,
    FLEET_REQUEST_KINDS,
    MODEL_SIGNING_STATES,
    MODEL_SLOT_STATES,
    REPORT_FAILED_MAX,
    REPORT_RESULTS_MAX,
    CaptureReceipt,
    CaptureWithdrawReceipt,
    ChangesPage,
    EnrollResponse,
    Hello,
    InboxPage,
    RotateResponse,
    Snapshot,
    SyncReport,
)

ASSET_MAX_BYTES = 64 * 1024 * 1024  # no image a kiosk stores is larger; a bigger declared size is refused
IMAGE_MAX_SIDE = 20_000
CHANGES_MAX = 10_000  # per page (HQ sends at most paths.PAGE_MAX)
STYLES_MAX = 100_000  # per snapshot
ASSETS_MAX = 64
LIST_MAX = 200
TEXT_MAX = 500
PROMPT_MAX = 8000
DESIGN_MAX_KEYS = 200
# Ids and codes name rows and, for styles, become the kiosk's client_uid: printable, no separators or dots first.
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
# An IANA zone name ("Asia/Shanghai", "America/Port-au-Prince", "Etc/GMT+8"): letters first, no dots, so never a path.
TIME_ZONE_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$")

CHANGE_TYPES = ("style", "category", "tag", "model")  # "model": a signed nail-model release (model_release.py)
CHANGE_OPS = ("upsert", "delete")
ASSET_TYPES = ("NAIL_TEXTURE", "COVER", "THUMBNAIL", "TRY_ON_EXAMPLE", "AI_DRAFT")
IMAGE_FORMATS = ("PNG", "JPEG", "WEBP")
STYLE_STATUSES = ("PUBLISHED", "OFF_SHELF")
DECISIONS = ("APPROVED", "REJECTED")


class WireError(ValueError):
    """An answer with a known field of the wrong shape: refused whole, nothing of it applied."""


@dataclass
class Reading:
    """What a read left out (unknown change types, events, fields), each named once, for one log line."""

    skipped: set[str] = field(default_factory=set)


def check_sha256(value: object, where: str = "sha256") -> str:
    """`value` if it is 64 lower-case hex digits; WireError otherwise. Use before a hash becomes a path."""
    if not is_sha256_hex(value):
        raise WireError(f"{where} is not 64 lower-case hex digits: {_show(value)}")
    return cast(str, value)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Object:
    """One JSON object being read: every getter checks a field's shape; `done` notes the fields nobody read."""

    def __init__(self, value: object, where: str, reading: Reading) -> None:
        if not isinstance(value, dict):
            raise WireError(f"{where or 'the answer'} is not a JSON object")
        self.value: dict[str, Any] = value
        self.where = where
        self.reading = reading
        self.read: set[str] = set()

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def _get(self, key: str, optional: bool) -> Any:
        self.read.add(key)
        if key not in self.value:
            if optional:
                return None
            raise WireError(f"{self._path(key)} is missing")
        return self.value[key]

    def integer(self, key: str, low: int = 0, high: int = MAX_SEQ, *, optional: bool = False) -> int | None:
        value = self._get(key, optional)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise WireError(f"{self._path(key)} is not an integer in {low}..{high}: {_show(value)}")
        return value

    def flag(self, key: str, *, optional: bool = False) -> bool | None:
        value = self._get(key, optional)
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            raise WireError(f"{self._path(key)} is not true or false: {_show(value)}")
        return value

    def text(self, key: str, limit: int = TEXT_MAX, *, optional: bool = False, nullable: bool = False,
             pattern: re.Pattern[str] | None = None, choices: tuple[str, ...] | None = None) -> str | None:
        value = self._get(key, optional)
        if value is None and (optional or nullable):
            if key in self.value and not nullable:
                raise WireError(f"{self._path(key)} is null")
            return None
        if not isinstance(value, str) or len(value) > limit or "\x00" in value:
            raise WireError(f"{self._path(key)} is not a string of at most {limit} characters: {_show(value)}")
        if pattern is not None and not pattern.match(value):
            raise WireError(f"{self._path(key)} is not an id or code: {_show(value)}")
        if choices is not None and value not in choices:
            raise WireError(f"{self._path(key)} is not one of {', '.join(choices)}: {_show(value)}")
        return value

    def items(self, key: str, limit: int, *, optional: bool = False) -> list[Any]:
        value = self._get(key, optional)
        if value is None and optional:
            return []
        if not isinstance(value, list) or len(value) > limit:
            raise WireError(f"{self._path(key)} is not a list of at most {limit} items")
        return value

    def texts(self, key: str, limit: int = 64, *, optional: bool = False) -> list[str]:
        out = []
        for i, item in enumerate(self.items(key, LIST_MAX, optional=optional)):
            if not isinstance(item, str) or len(item) > limit or not item.isprintable():
                raise WireError(f"{self._path(key)}[{i}] is not a string of at most {limit} characters")
            out.append(item)
        return out

    def child(self, key: str, *, optional: bool = False) -> _Object | None:
        value = self._get(key, optional)
        if value is None and optional:
            return None
        return _Object(value, self._path(key), self.reading)

    def done(self, kind: str) -> None:
        for key in self.value.keys() - self.read - {"nm"}:
            self.reading.skipped.add(f"unknown field {str(key)[:40]!r} in {kind}")


def _top(document: object, reading: Reading) -> _Object:
    top = _Object(document, "", reading)
    if top.value.get("nm") != PROTOCOL_VERSION:
        raise WireError('the answer has no "nm": 1')
    return top


def _cursor(obj: _Object, key: str) -> str:
    text = obj.text(key, 80)
    try:
        parse_cursor(cast(str, text))
    except CursorError:
        raise WireError(f"{obj._path(key)} is not a cursor: {_show(text)}") from None
    return cast(str, text)


def _asset(obj: _Object) -> dict[str, Any]:
    asset: dict[str, Any] = {
        "type": obj.text("type", choices=ASSET_TYPES), "slot": obj.text("slot", 32),
        "sha256": check_sha256(obj._get("sha256", False), obj._path("sha256")),
        "size": obj.integer("size", 1, ASSET_MAX_BYTES), "format": obj.text("format", choices=IMAGE_FORMATS),
        "width": obj.integer("width", 1, IMAGE_MAX_SIDE), "height": obj.integer("height", 1, IMAGE_MAX_SIDE)}
    for key in ("required", "primary"):
        flag = obj.flag(key, optional=True)
        if flag is not None:
            asset[key] = flag
    obj.done("an asset")
    return asset


def _style(obj: _Object) -> dict[str, Any]:
    name = cast(_Object, obj.child("name"))
    names = {"zh": name.text("zh", 200), "en": name.text("en", 200)}
    name.done("a style name")
    origin = obj.child("origin", optional=True)
    origin_body: dict[str, Any] = {"store_id": None, "draft_id": None, "rev": None}
    if origin is not None:
        origin_body = {"store_id": origin.text("store_id", 128, optional=True, nullable=True),
                       "draft_id": origin.text("draft_id", 128, optional=True, nullable=True, pattern=ID_PATTERN),
                       "rev": origin.integer("rev", 0, MAX_SEQ, optional=True)}
        origin.done("a style origin")
    design = obj._get("design", True)
    if design is not None and (not isinstance(design, dict) or len(design) > DESIGN_MAX_KEYS):
        raise WireError(f"{obj._path('design')} is not an object of at most {DESIGN_MAX_KEYS} keys")
    assets = [_asset(_Object(item, f"{obj._path('assets')}[{i}]", obj.reading))
              for i, item in enumerate(obj.items("assets", ASSETS_MAX))]
    body = {
        "style_code": obj.text("style_code", 64), "status": obj.text("status", choices=STYLE_STATUSES),
        "name": names, "category": obj.text("category", 64, optional=True, nullable=True, pattern=ID_PATTERN),
        "tags": obj.texts("tags", optional=True), "accent_fingers": obj.texts("accent_fingers", 16, optional=True),
        "prompt": obj.text("prompt", PROMPT_MAX, optional=True) or "", "design": design, "origin": origin_body,
        "published_at": obj.text("published_at", 40, optional=True, nullable=True), "assets": assets}
    obj.done("a style")
    return body


def _category(obj: _Object) -> dict[str, Any]:
    body = {"code": obj.text("code", 64, pattern=ID_PATTERN), "name_zh": obj.text("name_zh", 200),
            "name_en": obj.text("name_en", 200),
            "sort_order": obj.integer("sort_order", -(2**31), 2**31 - 1, optional=True) or 0}
    obj.done("a category")
    return body


def _tag(obj: _Object) -> dict[str, Any]:
    body = {"code": obj.text("code", 64, pattern=ID_PATTERN), "name_zh": obj.text("name_zh", 200),
            "name_en": obj.text("name_en", 200)}
    obj.done("a tag")
    return body


def _tensor(obj: _Object) -> dict[str, Any]:
    shape = obj.items("shape", 8)
    if not all(isinstance(d, int) and not isinstance(d, bool) and -1 <= d <= 1_000_000 for d in shape):
        raise WireError(f"{obj._path('shape')} is not a list of dimensions (-1 for a free one)")
    body = {"name": obj.text("name", 64), "shape": shape, "dtype": obj.text("dtype", 16, choices=("float32",))}
    obj.done("a tensor spec")
    return body


def _model_release(obj: _Object) -> dict[str, Any]:
    """A "model" change's body (model_release.ModelRelease): checked here, its signature verified by the kiosk."""
    manifest = cast(_Object, obj.child("manifest"))
    body: dict[str, Any] = {
        "name": manifest.text("name", 64, pattern=ID_PATTERN),
        "version": manifest.text("version", 64, pattern=ID_PATTERN),
        "slot": manifest.text("slot", 16, choices=model_release.SLOTS),
        "sha256": check_sha256(manifest._get("sha256", False), manifest._path("sha256")),
        "size": manifest.integer("size", 1, model_release.MODEL_MAX_BYTES),
        "inputs": [_tensor(_Object(t, f"{manifest._path('inputs')}[{i}]", obj.reading))
                   for i, t in enumerate(manifest.items("inputs", 8))],
        "outputs": [_tensor(_Object(t, f"{manifest._path('outputs')}[{i}]", obj.reading))
                    for i, t in enumerate(manifest.items("outputs", 8))],
        "gate_report_id": manifest.text("gate_report_id", 128, pattern=ID_PATTERN),
        "created_at": manifest.text("created_at", 40)}
    threshold = manifest._get("threshold", True)
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold < 1:
            raise WireError(f"{manifest._path('threshold')} is not a number in (0, 1): {_show(threshold)}")
        body["threshold"] = float(threshold)
    # Unknown manifest fields are refused, not skipped: the signature covers the manifest as HQ wrote it, and a
    # kiosk that dropped a field could never verify it.
    unknown = manifest.value.keys() - manifest.read
    if unknown:
        raise WireError(f"{manifest.where} has fields this kiosk cannot verify: {sorted(unknown)[:3]}")
    release = {"manifest": body, "signature": obj.text("signature", 200, pattern=_B64_PATTERN),
               "key_id": obj.text("key_id", 16, pattern=_KEY_ID_PATTERN)}
    obj.done("a model release")
    return release


_B64_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,200}$")
_KEY_ID_PATTERN = re.compile(r"^[0-9a-f]{16}$")


def _hq_key(obj: _Object) -> dict[str, Any]:
    key = {"alg": obj.text("alg", 16, choices=(model_release.SIGNING_ALGORITHM,)),
           "key": obj.text("key", 64, pattern=_B64_PATTERN), "key_id": obj.text("key_id", 16, pattern=_KEY_ID_PATTERN)}
    obj.done("HQ's key")
    return key


def _hq_keys(top: _Object, answer: dict[str, Any]) -> None:
    """hello's and enrollment's optional `hq_key` and `hq_key_rotations` (issue #27 §5): absent from an older HQ."""
    key = top.child("hq_key", optional=True)
    if key is not None:
        answer["hq_key"] = _hq_key(key)
    if "hq_key_rotations" in top.value:
        rotations = []
        for i, item in enumerate(top.items("hq_key_rotations", model_release.KEY_ROTATIONS_MAX)):
            obj = _Object(item, f"hq_key_rotations[{i}]", top.reading)
            rotations.append({"old_key_id": obj.text("old_key_id", 16, pattern=_KEY_ID_PATTERN),
                              "new_key": _hq_key(cast(_Object, obj.child("new_key"))),
                              "rotated_at": obj.text("rotated_at", 40),
                              "signature": obj.text("signature", 200, pattern=_B64_PATTERN)})
            obj.done("a key rotation")
        answer["hq_key_rotations"] = rotations


_BODIES: dict[str, Callable[[_Object], dict[str, Any]]] = {"style": _style, "category": _category, "tag": _tag,
                                                          "model": _model_release}


def _change(obj: _Object) -> dict[str, Any] | None:
    kind, op = obj.text("type", 40), obj.text("op", 40)
    change: dict[str, Any] = {"seq": obj.integer("seq"), "type": kind, "op": op}
    if kind not in CHANGE_TYPES or op not in CHANGE_OPS or kind is None:
        obj.reading.skipped.add(f"change type {kind!r} op {op!r}")
        return None
    change["id"] = obj.text("id", 128, pattern=ID_PATTERN)
    change["version"] = obj.integer("version")
    if op == "upsert":
        change[kind] = _BODIES[kind](cast(_Object, obj.child(kind)))
    reason = obj.text("reason", 200, optional=True, nullable=True)
    if reason is not None:
        change["reason"] = reason
    obj.done(f"a {kind} change")
    return change


def _state(obj: _Object | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    digest = obj.text("digest", 80)
    if not (digest or "").startswith("sha256:") or not is_sha256_hex((digest or "")[7:]):
        raise WireError(f"{obj._path('digest')} is not sha256:<64 hex digits>")
    body = {"count": obj.integer("count", 0, STYLES_MAX), "digest": digest}
    obj.done("the catalog state")
    return body


def _known_items(top: _Object, key: str, read: Callable[[_Object], dict[str, Any] | None],
                 reading: Reading) -> list[dict[str, Any]]:
    """A page's list under `key`, each item read by `read`; the items of a kind it does not know (None) skipped."""
    found = []
    for i, item in enumerate(top.items(key, CHANGES_MAX)):
        value = read(_Object(item, f"{key}[{i}]", reading))
        if value is not None:
            found.append(value)
    return found


def read_changes_page(document: object, reading: Reading | None = None) -> ChangesPage:
    reading = reading if reading is not None else Reading()
    top = _top(document, reading)
    changes = _known_items(top, "changes", _change, reading)
    page: dict[str, Any] = {"nm": PROTOCOL_VERSION, "epoch": top.text("epoch", 40, pattern=EPOCH_PATTERN),
                            "has_more": top.flag("has_more"), "next": _cursor(top, "next"), "changes": changes}
    state = _state(top.child("state", optional=True))
    if state is not None:
        page["state"] = state
    top.done("a feed page")
    return cast(ChangesPage, page)


def read_snapshot(document: object, reading: Reading | None = None) -> Snapshot:
    reading = reading if reading is not None else Reading()
    top = _top(document, reading)
    styles = []
    for i, item in enumerate(top.items("styles", STYLES_MAX)):
        obj = _Object(item, f"styles[{i}]", reading)
        styles.append({"id": obj.text("id", 128, pattern=ID_PATTERN), "version": obj.integer("version"),
                       "style": _style(cast(_Object, obj.child("style")))})
        obj.done("a snapshot style")
    snapshot = {
        "nm": PROTOCOL_VERSION, "epoch": top.text("epoch", 40, pattern=EPOCH_PATTERN), "cursor": _cursor(top, "cursor"),
        "generated_at": top.text("generated_at", 40, optional=True) or "",
        "categories": [_category(_Object(c, f"categories[{i}]", reading))
                       for i, c in enumerate(top.items("categories", STYLES_MAX, optional=True))],
        "tags": [_tag(_Object(t, f"tags[{i}]", reading))
                 for i, t in enumerate(top.items("tags", STYLES_MAX, optional=True))],
        "styles": styles, "state": _state(top.child("state"))}
    if "models" in top.value:  # the channel's live model releases (issue #27); an older HQ sends none
        models = []
        for i, item in enumerate(top.items("models", len(model_release.SLOTS) * 4)):
            obj = _Object(item, f"models[{i}]", reading)
            models.append({"id": obj.text("id", 16, choices=model_release.SLOTS), "version": obj.integer("version"),
                           "model": _model_release(cast(_Object, obj.child("model")))})
            obj.done("a snapshot model")
        snapshot["models"] = models
    top.done("a snapshot")
    return cast(Snapshot, snapshot)


def read_hello(document: object, reading: Reading | None = None) -> Hello:
    """The fields of hello the kiosk acts on, checked; the rest (limits, capabilities) kept if objects."""
    reading = reading if reading is not None else Reading()
    top = _top(document, reading)
    hello: dict[str, Any] = {
        "nm": PROTOCOL_VERSION, "epoch": top.text("epoch", 40, pattern=EPOCH_PATTERN),
        "store_id": top.text("store_id", 128, optional=True) or "",
        "kiosk_id": top.text("kiosk_id", 128, optional=True) or "",
        "channel": top.text("channel", 128, optional=True) or "", "hq_time": top.text("hq_time", 40, optional=True),
        "protocols": top.items("protocols", 16, optional=True),
        "min_kiosk_version": top.text("min_kiosk_version", 40, optional=True),
        "poll_interval_s": top.integer("poll_interval_s", 1, 7 * 86400, optional=True) or 300,
        "backoff_s": top.integer("backoff_s", 0, 7 * 86400, optional=True) or 0,
        "blob_spread_s": top.integer("blob_spread_s", 0, 86400, optional=True) or 0}
    zone = top.text("store_time_zone", 64, optional=True, pattern=TIME_ZONE_PATTERN)
    if zone is not None:  # an older HQ sends none: the kiosk keeps what it had
        hello["store_time_zone"] = zone
    for key in ("limits", "capabilities"):
        sub = top.child(key, optional=True)
        if sub is not None:
            hello[key] = sub.value
    name = top.text("kiosk_name", 200, optional=True)
    if name is not None:
        hello["kiosk_name"] = name
    if "fleet_requests" in top.value:
        hello["fleet_requests"] = _known_items(top, "fleet_requests", _fleet_request, reading)
    _hq_keys(top, hello)
    top.done("hello")
    return cast(Hello, hello)


def _event(obj: _Object) -> dict[str, Any] | None:
    kind = obj.text("type", 60)
    event: dict[str, Any] = {"seq": obj.integer("seq"), "type": kind, "at": obj.text("at", 40, optional=True)}
    if kind == "draft.decision":
        event.update({"draft_id": obj.text("draft_id", 128, pattern=ID_PATTERN), "rev": obj.integer("rev", 1),
                      "decision": obj.text("decision", choices=DECISIONS),
                      "published_style_id": obj.text("published_style_id", 128, optional=True, nullable=True),
                      "reviewer": obj.text("reviewer", 200, optional=True),
                      "reviewer_name": obj.text("reviewer_name", 200, optional=True),
                      "reason": obj.text("reason", 2000, optional=True, nullable=True)})
    elif kind == "draft.received":
        event.update({"draft_id": obj.text("draft_id", 128, pattern=ID_PATTERN), "rev": obj.integer("rev", 1)})
    elif kind == "credits.grant":
        # Its fields are the ledger's to judge (core/credits refuses a bad grant and passes over it, so one bad
        # grant never holds back the events after it); kept as sent.
        return dict(obj.value)
    else:
        obj.reading.skipped.add(f"inbox event type {kind!r}")
        return None
    obj.done(f"a {kind} event")
    return {k: v for k, v in event.items() if v is not None or k in ("published_style_id", "reason")}


def read_inbox_page(document: object, reading: Reading | None = None) -> InboxPage:
    reading = reading if reading is not None else Reading()
    top = _top(document, reading)
    events = _known_items(top, "events", _event, reading)
    page = {"nm": PROTOCOL_VERSION, "epoch": top.text("epoch", 40, pattern=EPOCH_PATTERN),
            "has_more": top.flag("has_more"), "next": _cursor(top, "next"), "events": events}
    top.done("an inbox page")
    return cast(InboxPage, page)


def read_sync_report(document: object, reading: Reading | None = None) -> SyncReport:
    """A kiosk's sync report as HQ reads it: every field optional, each known one checked, the rest left out."""
    reading = reading if reading is not None else Reading()
    top = _top(document, reading)
    report: dict[str, Any] = {"nm": PROTOCOL_VERSION}
    if "failed_downloads" in top.value:
        failed = []
        for i, item in enumerate(top.items("failed_downloads", REPORT_FAILED_MAX)):
            obj = _Object(item, f"failed_downloads[{i}]", reading)
            failed.append({"style_code": obj.text("style_code", 64, optional=True) or "",
                           "sha256": check_sha256(obj._get("sha256", False), obj._path("sha256")),
                           "attempts": obj.integer("attempts", 0, 10**9),
                           "last_error": obj.text("last_error", 300, optional=True) or ""})
            obj.done("a failed download")
        report["failed_downloads"] = failed
    _fleet_health(top, report)
    _model_health(top, report)
    if "fleet_results" in top.value:
        results = []
        for i, item in enumerate(top.items("fleet_results", REPORT_RESULTS_MAX)):
            obj = _Object(item, f"fleet_results[{i}]", reading)
            results.append({"id": obj.text("id", 128, pattern=ID_PATTERN), "kind": obj.text("kind", 60),
                            "outcome": obj.text("outcome", choices=FLEET_OUTCOMES),
                            "detail": obj.text("detail", 300, optional=True) or "",
                            "done_at": obj.text("done_at", 40)})
            obj.done("a fleet result")
        report["fleet_results"] = results
    top.done("a sync report")
    return cast(SyncReport, report)


def _fleet_health(top: _Object, report: dict[str, Any]) -> None:
    """The report's fleet health fields (issue #25 §7), each optional: what is there is checked and kept."""
    for key, limit in (("app_version", 40), ("model_version", 64), ("sync_state", 40), ("camera_state", 40),
                       ("health_at", 40)):
        value = top.text(key, limit, optional=True)
        if value is not None:
            report[key] = value
    if "cursor" in top.value:
        report["cursor"] = _cursor(top, "cursor")
    free = top.integer("disk_free_bytes", 0, 2**62, optional=True)
    if free is not None:
        report["disk_free_bytes"] = free
    fps = top._get("fps", True)
    if fps is not None:
        if isinstance(fps, bool) or not isinstance(fps, int | float) or not 0 <= fps <= 1000:
            raise WireError(f"fps is not a number in 0..1000: {_show(fps)}")
        report["fps"] = float(fps)
    dead = top.child("dead_letters", optional=True)
    if dead is not None:
        if len(dead.value) > DEAD_LETTER_TYPES_MAX:
            raise WireError(f"dead_letters has more than {DEAD_LETTER_TYPES_MAX} task types")
        report["dead_letters"] = {}
        for task_type in list(dead.value):
            if not isinstance(task_type, str) or not ID_PATTERN.match(task_type):
                raise WireError(f"dead_letters has a key that is not a task type: {_show(task_type)}")
            report["dead_letters"][task_type] = dead.integer(task_type, 0, 10**9)


def _model_health(top: _Object, report: dict[str, Any]) -> None:
    """The report's model fields (issue #27 §5, §7): the kiosk's signing state and each slot's release."""
    signing = top.text("model_signing", 20, optional=True, choices=MODEL_SIGNING_STATES)
    if signing is not None:
        report["model_signing"] = signing
    slots = top.child("model_slots", optional=True)
    if slots is not None:
        report["model_slots"] = {}
        for slot in list(slots.value):
            if slot not in model_release.SLOTS:
                top.reading.skipped.add(f"model slot {str(slot)[:20]!r}")
                slots.read.add(str(slot))
                continue
            obj = cast(_Object, slots.child(slot))
            entry: dict[str, Any] = {"version": obj.text("version", 64),
                                     "state": obj.text("state", 20, choices=MODEL_SLOT_STATES),
                                     "detail": obj.text("detail", 300, optional=True) or "",
                                     "at": obj.text("at", 40, optional=True) or ""}
            release = obj.integer("release", 0, MAX_SEQ, optional=True)
            if release is not None:
                entry["release"] = release
            obj.done("a model slot")
            report["model_slots"][slot] = entry


def _fleet_request(obj: _Object) -> dict[str, Any] | None:
    kind = obj.text("kind", 60)
    if kind not in FLEET_REQUEST_KINDS:
        obj.reading.skipped.add(f"fleet request kind {kind!r}")
        return None
    request = {"id": obj.text("id", 128, pattern=ID_PATTERN), "kind": kind}
    obj.done("a fleet request")
    return request


TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_.~+/=-]{16,200}$")  # a bearer token: it goes into a header as it is


def read_enroll_response(document: object, reading: Reading | None = None) -> EnrollResponse:
    """Enrollment's answer: the ids and token are stored and sent back in headers, so each is checked."""
    top = _top(document, reading if reading is not None else Reading())
    answer = {"nm": PROTOCOL_VERSION, "store_id": top.text("store_id", 128, pattern=ID_PATTERN),
              "kiosk_id": top.text("kiosk_id", 128, pattern=ID_PATTERN),
              "token": top.text("token", 200, pattern=TOKEN_PATTERN),
              "channel": top.text("channel", 128, pattern=ID_PATTERN), "hq_time": top.text("hq_time", 40)}
    _hq_keys(top, answer)
    top.done("enrollment")
    return cast(EnrollResponse, answer)


def read_rotate_response(document: object, reading: Reading | None = None) -> RotateResponse:
    top = _top(document, reading if reading is not None else Reading())
    answer = {"nm": PROTOCOL_VERSION, "kiosk_id": top.text("kiosk_id", 128, pattern=ID_PATTERN),
              "token": top.text("token", 200, pattern=TOKEN_PATTERN),
              "old_valid_until": top.text("old_valid_until", 40)}
    top.done("a token rotation")
    return cast(RotateResponse, answer)


def read_blobs_missing(document: object, reading: Reading | None = None) -> list[str]:
    top = _top(document, reading if reading is not None else Reading())
    missing = [check_sha256(s, f"missing[{i}]") for i, s in enumerate(top.items("missing", 1000))]
    top.done("a missing-blobs answer")
    return missing


def read_capture_receipt(document: object, reading: Reading | None = None) -> CaptureReceipt:
    top = _top(document, reading if reading is not None else Reading())
    answer = {"nm": PROTOCOL_VERSION, "code": top.text("code", 16), "held": top.flag("held")}
    top.done("a capture receipt")
    return cast(CaptureReceipt, answer)


def read_capture_withdraw_receipt(document: object, reading: Reading | None = None) -> CaptureWithdrawReceipt:
    top = _top(document, reading if reading is not None else Reading())
    answer = {"nm": PROTOCOL_VERSION, "code": top.text("code", 16), "withdrawn": top.flag("withdrawn")}
    top.done("a withdrawal receipt")
    return cast(CaptureWithdrawReceipt, answer)
