"""`nailmirror captures …`: consented nail captures on this kiosk (issue #26; the kiosk's own screens do the same).

    captures take --image FILE --consent customer|staff [--json]
                                   keep a capture of the photo FILE, read through the camera path's still
                                   source (faces blurred, cropped to the hands); staff consent comes from
                                   `captures staff-consent` (once); without --consent nothing is kept
    captures staff-consent         record staff's consent to captures of their own hands (once)
    captures withdraw CODE [--json] a customer's withdrawal: deleted here, and at HQ at the next sync
    captures list [--json]         the captures waiting for HQ here (codes, sizes, errors)

Exit status: 0 done; 1 refused (one line: no consent, no hands found, a face that would not blur, a code that is
no capture code).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("captures", help="consented nail captures: take, withdraw, list")
    actions = parser.add_subparsers(dest="captures_action", metavar="ACTION", required=True)
    take = actions.add_parser("take", help="keep a consented capture of a photo")
    take.add_argument("--image", required=True)
    take.add_argument("--consent", choices=["customer", "staff"], default=None,
                      help="who consented (nothing is kept without it)")
    take.add_argument("--json", action="store_true")
    take.set_defaults(handler=_take)
    staff = actions.add_parser("staff-consent", help="staff consent once to captures of their own hands")
    staff.set_defaults(handler=_staff_consent)
    withdraw = actions.add_parser("withdraw", help="withdraw a capture by the code the customer was shown")
    withdraw.add_argument("code")
    withdraw.add_argument("--json", action="store_true")
    withdraw.set_defaults(handler=_withdraw)
    listing = actions.add_parser("list", help="captures waiting for HQ on this kiosk")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)


def _fail(message: str) -> int:
    print(f"error: {message}"[:400].replace("\n", " "), file=sys.stderr)
    return 1


def _take(args: argparse.Namespace) -> int:
    import time

    from nailmirror_desktop.app.captures import CaptureMaker, customer_consent
    from nailmirror_desktop.core.captures import store
    from nailmirror_desktop.core.config import load_config
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_protocol import paths

    consent: store.Consent | None = None
    if args.consent == "customer":
        consent = customer_consent()
    elif args.consent == "staff":
        conn = open_database(database_path())
        try:
            consent = store.staff_consent(conn)
        finally:
            conn.close()
        if consent is None:
            return _fail("staff have not consented to captures of their own hands (nailmirror captures "
                         "staff-consent)")
    if consent is None:
        return _fail("no consent: nothing is kept without one (--consent customer|staff)")
    frame = _still_frame(args.image)
    if isinstance(frame, str):
        return _fail(frame)
    from nailmirror_desktop.vision.privacy.faces import DetectorMissing
    from nailmirror_desktop.vision.tracking.hand_model import HandModelError

    maker = CaptureMaker(mirrored=False, max_hands=load_config().hands_tracked)
    try:
        outcome = maker.capture(frame, consent, camera={"source": "still", "mirrored": False}, now_s=time.time())
    except (HandModelError, DetectorMissing) as exc:
        return _fail(f"nothing kept: {exc}")
    finally:
        maker.close()
    if outcome.code is None:
        return _fail({"no_hands": "no hand with nails found in the photo: nothing kept",
                      "face_remains": "a face stayed visible after blurring: nothing kept"}.get(
                          outcome.refused or "", f"nothing kept: {outcome.refused}"))
    shown = paths.show_capture_code(outcome.code)
    print(json.dumps({"code": shown, "faces_blurred": outcome.faces_blurred}) if args.json
          else f"capture {shown} kept ({outcome.faces_blurred} face(s) blurred); it goes to HQ with the next sync")
    return 0


def _still_frame(path: str) -> Any:
    """The photo as the mirror's camera path delivers it: decoded, then read through a StillImageSource."""
    from nailmirror_desktop.vision.sources.image_io import ImageReadError, read_image
    from nailmirror_desktop.vision.sources.readers import StillImageSource

    try:
        image = read_image(path)
    except ImageReadError as exc:
        return f"cannot read {path}: {exc}"
    source = StillImageSource(image)
    with source:
        frame = source.read()
    return "the photo gave no frame" if frame is None else frame.image


def _staff_consent(_args: argparse.Namespace) -> int:
    import time

    from nailmirror_desktop.core.captures import store
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    conn = open_database(database_path())
    try:
        consent = store.record_staff_consent(conn, time.time())
    finally:
        conn.close()
    print(f"staff consent recorded at {consent.at} ({consent.text_version})")
    return 0


def _withdraw(args: argparse.Namespace) -> int:
    import time

    from nailmirror_desktop.core.captures import store
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_protocol import paths

    conn = open_database(database_path())
    try:
        try:
            code, held = store.withdraw(conn, args.code, time.time())
        except ValueError as exc:
            return _fail(str(exc))
    finally:
        conn.close()
    shown = paths.show_capture_code(code)
    print(json.dumps({"code": shown, "held_here": held}) if args.json else
          f"capture {shown} withdrawn{' and deleted here' if held else ''}; HQ deletes it at the next sync")
    return 0


def _list(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.captures import store
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_protocol import paths

    conn = open_database(database_path())
    try:
        rows = [{"code": paths.show_capture_code(c.code), "taken_at": c.taken_at, "consent_by": c.consent.by,
                 "size_bytes": c.size_bytes, "state": c.state, "last_error": c.last_error}
                for c in store.queued(conn)]
        withdrawals = store.pending_withdrawals(conn)
    finally:
        conn.close()
    if args.json:
        print(json.dumps({"captures": rows, "pending_withdrawals": [paths.show_capture_code(c)
                                                                    for c in withdrawals]}))
        return 0
    for row in rows:
        print(f"{row['code']}  {row['taken_at']}  {row['consent_by']}  {row['size_bytes']} bytes"
              + (f"  {row['last_error']}" if row["last_error"] else ""))
    print(f"{len(rows)} capture(s) waiting for HQ, {len(withdrawals)} withdrawal(s) to send")
    return 0
