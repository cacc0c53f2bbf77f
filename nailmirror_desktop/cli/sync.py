"""`nailmirror sync …`: this kiosk and the chain's HQ catalog (issue #11; ARCHITECTURE.md §16).

    sync enroll CODE --hq URL [--name NAME]   enroll with a one-time code (http:// only for loopback hosts)
    sync now [--json] [--timeout S]           one full cycle, blobs and draft pushes included, ignoring the
                                              download spread; returns when the visible catalog is complete.
                                              --json prints one object whatever the outcome: the status
                                              report, cycle, failed_uploads, ok, and error {code, message}
                                              (null when synced; codes: not_enrolled, timed_out, cannot_sync,
                                              disk_full, downloads_failed, draft_uploads_failed,
                                              downloads_pending)
    sync status [--json]                      state (OK, OFFLINE, REVOKED, UPGRADE_REQUIRED, NOT_ENROLLED),
                                              failed_downloads ([{style_code, sha256, attempts, last_error}]:
                                              retried with backoff, at once by `sync now` or a new version),
                                              last_success_at, offline_since, cursor, pending_uploads,
                                              pending_downloads, pending_ledger_uploads (settled credit
                                              entries not at HQ yet), parked_ledger_uploads and
                                              ledger_upload_error (entries HQ refused), last_error,
                                              kiosk_name (HQ's name for it), app_version,
                                              model_version (nail_segmenter-<sha256, 12 hex>: the active
                                              live release's, else the bundled model's), hq_key_id (HQ's
                                              pinned key, null until pinned), model_signing (ok, no_key,
                                              key_mismatch), model_slots ({slot: {version, state, detail,
                                              at, release}} for each slot HQ offered a release for)
    sync hide CODE | sync unhide CODE         hide an HQ style in this store only (HQ's status is untouched)

Exit status: 0 done (ledger entries HQ refused and parked are a one-line warning on stderr, not a failure: the
rest synced, and `nailmirror credits unpark ID` ends them); 1 cannot sync (not enrolled, offline, revoked,
upgrade required, a download that failed), with a one-line reason on stderr; 2 usage; 4 data directory
unusable; 5 internal error (cli). The store token is never printed.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

DEFAULT_TIMEOUT_S = 300.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("sync", help="catalog sync with the chain's HQ: enroll, now, status")
    actions = parser.add_subparsers(dest="sync_action", metavar="ACTION", required=True)

    enroll = actions.add_parser("enroll", help="enroll this kiosk with HQ using a one-time code")
    enroll.add_argument("code")
    enroll.add_argument("--hq", required=True, help="HQ's base URL (https://…; http:// only for loopback)")
    enroll.add_argument("--name", default=None, help="this kiosk's name at HQ (default: the host name)")
    enroll.add_argument("--json", action="store_true")
    enroll.set_defaults(handler=_enroll)

    now = actions.add_parser("now", help="sync now: one full cycle including downloads and draft uploads")
    now.add_argument("--json", action="store_true")
    now.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds to wait at most")
    now.set_defaults(handler=_now)

    status = actions.add_parser("status", help="where sync stands")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)

    for name, hidden in (("hide", True), ("unhide", False)):
        command = actions.add_parser(name, help=f"{name} an HQ style in this store only")
        command.add_argument("code")
        command.set_defaults(handler=_hide, hidden=hidden)


def _fail(message: str) -> int:
    print(f"error: {message}"[:400].replace("\n", " "), file=sys.stderr)
    return 1


def _enroll(args: argparse.Namespace) -> int:
    from nailmirror_desktop import __version__
    from nailmirror_desktop.adapters.sync.client import HttpHq
    from nailmirror_desktop.core.db import open_database, write_transaction
    from nailmirror_desktop.core.model_releases import keys
    from nailmirror_desktop.core.paths import data_dir, database_path
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.errors import SyncError
    from nailmirror_desktop.core.sync.urls import normalise_hq_url

    try:
        url = normalise_hq_url(args.hq)
        client = HttpHq(url, None, parts_dir=data_dir() / "sync" / "parts")
        answer = client.enroll(args.code.strip(), args.name or socket.gethostname(), __version__)
    except SyncError as exc:
        return _fail(f"cannot enroll: {exc.one_line()}")
    conn = open_database(database_path())
    try:
        with write_transaction(conn):  # the token and HQ's signing key (issue #27) are trusted together
            state.save_enrollment(conn, url, answer["store_id"], answer["kiosk_id"], answer["channel"],
                                  answer["token"])
            keys.pin_at_enrollment(conn, answer.get("hq_key"))
    finally:
        conn.close()
    result = {"store_id": answer["store_id"], "kiosk_id": answer["kiosk_id"], "channel": answer["channel"],
              "hq_url": url}
    print(json.dumps(result) if args.json else
          f"enrolled as {answer['kiosk_id']} of store {answer['store_id']} (channel {answer['channel']})")
    return 0


def _unfinished(engine: Any) -> int:
    """Sync tasks still to run now. A capture upload or model download waiting for its retry (FAILED) is not
    waited for: the catalog is complete without it, and it goes with a later sync (an HQ without the capture
    route: a day later; a model the disk has no room for: half an hour)."""
    from nailmirror_desktop.core.captures.upload import CAPTURE_UPLOAD
    from nailmirror_desktop.core.model_releases.download import MODEL_FETCH
    from nailmirror_desktop.core.sync.tasks import SYNC_TASK_TYPES

    return sum(engine.count(["PENDING", "PROCESSING"] if task_type in (CAPTURE_UPLOAD, MODEL_FETCH) else
                            ["PENDING", "PROCESSING", "FAILED"], task_type) for task_type in SYNC_TASK_TYPES)


def _now(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.generation.provider_port import stoppable

    # The timeout holds across everything the command fetches: when it runs out, the StopSignal cuts the
    # exchange or download in flight at once (adapters/http/client.py, adapters/sync/blobs.py find it on this
    # thread, where the engine runs the sync tasks), and no further task starts.
    with stoppable("sync-now") as stop, _no_stray_logs():
        timer = threading.Timer(max(0.0, args.timeout), stop.stop,
                                ("timed_out", f"sync now --timeout {args.timeout:g} ran out"))
        timer.daemon = True
        timer.start()
        try:
            return _now_until(args, stop)
        finally:
            timer.cancel()


@contextlib.contextmanager
def _no_stray_logs() -> Iterator[None]:
    """While `sync now` runs, no log record of the kiosk's code reaches the terminal through Python's last-resort
    handler (which prints warnings, and the task engine's tracebacks, to stderr when nothing configured logging):
    what went wrong is recorded (the task, sync_state) and said here on one line. Configured handlers still get
    every record."""
    from nailmirror_desktop.app.kiosk_logging import CLI_CONSOLE_HANDLER

    logger = logging.getLogger("nailmirror_desktop")
    quiet = logging.NullHandler()
    logger.addHandler(quiet)
    consoles = [h for h in logging.getLogger().handlers if h.get_name() == CLI_CONSOLE_HANDLER]
    levels = [h.level for h in consoles]
    for console in consoles:  # the CLI's one-line warnings on the terminal: this command says it itself
        console.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for console, level in zip(consoles, levels, strict=True):
            console.setLevel(level)
        logger.removeHandler(quiet)


def _now_until(args: argparse.Namespace, stop: Any) -> int:
    from nailmirror_desktop.app.services import open_repository, open_sync_engine
    from nailmirror_desktop.core.model_releases.download import MODEL_FETCH
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.tasks import BLOB_FETCH, BLOB_FETCH_PARALLEL, submit_cycle

    with open_sync_engine() as engine:
        conn = engine.connection()
        if state.load(conn) is None:
            return _now_failed(args, conn, "not_enrolled",
                               "not enrolled (nailmirror sync enroll CODE --hq URL)")
        open_repository(conn, load_catalog=True)  # the starter catalog first: HQ's copy then takes it over
        for task_type in (BLOB_FETCH, MODEL_FETCH):
            for held in engine.list_tasks("FAILED", task_type, limit=None, last_error_code="disk_full"):
                engine.cancel(held.task_no)  # staff asked for now (perhaps after freeing space): the cycle requeues it
        cycle = submit_cycle(engine, spread=False, retry_failed=True)  # staff asked: failed downloads too, now
        current = state.load(conn)
        waiting = current is not None and current.not_before is not None and current.not_before > time.time()
        if cycle.status.value == "FAILED" and not waiting:
            # An earlier cycle waits for its backoff: staff asked for now, so that one makes way for a new one
            # (a Retry-After from HQ is still honoured: that cycle keeps waiting).
            engine.cancel(cycle.task_no)
            cycle = submit_cycle(engine, spread=False, retry_failed=True)
        deadline = time.monotonic() + args.timeout
        with _download_helpers(engine, stop, BLOB_FETCH_PARALLEL - 1):
            task = _run_until_synced(args, stop, engine, cycle, deadline)
        if isinstance(task, int):
            return task
        return _outcome(conn, task.result, args.json)


def _run_until_synced(args: argparse.Namespace, stop: Any, engine: Any, cycle: Any, deadline: float) -> Any:
    """Run the cycle and what it queues on this thread (the helpers take downloads beside it) until the visible
    catalog is complete: the cycle's task, or the exit status of a one-line failure."""
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.tasks import BLOB_FETCH, submit_cycle

    conn = engine.connection()
    last_unqueued: int | None = None
    while True:
        ran = engine.run_due(max_tasks=1)  # one at a time: the deadline is looked at between tasks
        if stop.fired:
            return _timed_out(args, conn)
        task = engine.get(cycle.task_no)
        assert task is not None
        if task.status.value in ("FAILED", "DEAD", "CANCELED"):
            current = state.load(conn)
            reason = (current.last_error if current else None) or task.last_error_message or task.status.value
            state_name = current.state.value if current else "NOT_ENROLLED"
            return _now_failed(args, conn, "cannot_sync", f"cannot sync ({state_name}): {reason}", task.result)
        full = engine.list_tasks("FAILED", BLOB_FETCH, limit=1, last_error_code="disk_full")
        if full:  # waiting for space, half an hour at a time: say so now rather than time out
            return _now_failed(args, conn, "disk_full", f"cannot sync (DISK_FULL): {full[0].last_error_message}")
        if task.status.value == "SUCCESS" and _unfinished(engine) == 0:
            unqueued = conn.execute("SELECT COUNT(*) FROM sync_blob WHERE state = 'PENDING'").fetchone()[0]
            if not unqueued or (last_unqueued is not None and unqueued >= last_unqueued):
                return task
            last_unqueued = unqueued
            cycle = submit_cycle(engine, spread=False)  # more blobs than the engine's backlog took at once
        remaining = deadline - time.monotonic()
        if remaining <= 0 or stop.fired:
            return _timed_out(args, conn)
        if not ran:  # a task just ran, so more may be due now: sleeping here cost 0.5 s per blob
            # While the helpers' downloads run, look again soon: the last of them may complete the catalog.
            nap = 0.05 if engine.count(["PENDING", "PROCESSING"], BLOB_FETCH) else 0.5
            engine.clock.sleep(min(engine.seconds_until_next_work(), remaining, nap))


@contextlib.contextmanager
def _download_helpers(engine: Any, stop: Any, count: int) -> Iterator[None]:
    """`count` threads that run due downloads beside the calling thread while the block runs (the engine caps
    them at BLOB_FETCH_PARALLEL in flight). They run under the caller's context, so
    the StopSignal of `sync now --timeout` cuts their exchanges too; they are joined before the block's engine
    closes."""
    from nailmirror_desktop.core.sync.tasks import BLOB_FETCH

    done = threading.Event()

    def work() -> None:
        while not done.is_set() and not stop.fired:
            try:
                ran = engine.run_due(max_tasks=1, types=(BLOB_FETCH,))  # the cycle's outcome is the caller's to see
            except Exception:  # noqa: BLE001 — the calling thread meets the same database and says it in one line
                logging.getLogger(__name__).exception("sync now: a download helper stopped")
                return
            if not ran:
                done.wait(min(engine.seconds_until_next_work(), 0.05))

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(work,), name=f"sync-now-{n}",
                                daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        done.set()
        for thread in threads:
            thread.join()


def _outcome(conn: Any, cycle_result: Any, as_json: bool) -> int:
    from nailmirror_desktop.core.sync import state

    report = state.status_report(conn)
    failed = report["failed_downloads"]
    uploads = conn.execute("SELECT draft_id, last_error FROM sync_draft_upload WHERE state = 'FAILED'").fetchall()
    failure: tuple[str, str] | None = None
    if failed:
        first = failed[0]
        failure = ("downloads_failed", f"{len(failed)} download(s) failed, their styles stay hidden (tried again "
                                       f"later): {first['style_code'] or first['sha256'][:12]}: {first['last_error']}")
    elif uploads:
        failure = ("draft_uploads_failed", f"{len(uploads)} draft upload(s) failed: {uploads[0]['last_error']}")
    elif report["pending_downloads"]:
        failure = ("downloads_pending", f"{report['pending_downloads']} download(s) could not finish; the styles "
                                        "waiting on them stay hidden (sync status; tasks list --type BLOB_FETCH)")
    if as_json:
        print(json.dumps(_now_json(report, cycle_result, len(uploads), failure), ensure_ascii=False))
    if not failed and not uploads:
        if report["last_warning"]:
            print(f"warning: {report['last_warning']}"[:400].replace("\n", " "), file=sys.stderr)
        if report["parked_ledger_uploads"]:
            # Never resent blindly (HQ holds another body under the entry's id, which staff must look into), but
            # not a failed sync either: everything else went through, and `credits unpark` ends the entry.
            print(f"warning: {report['parked_ledger_uploads']} ledger entr(ies) refused by HQ and parked, see "
                  f"nailmirror credits unpark ID: {report['ledger_upload_error']}"[:400].replace("\n", " "),
                  file=sys.stderr)
    if failure is not None:
        return _fail(failure[1])
    if not as_json:
        print(f"synced: cursor {report['cursor']}, {report['pending_downloads']} download(s) pending,"
              f" {report['pending_uploads']} upload(s) pending")
    return 0


def _timed_out(args: argparse.Namespace, conn: Any) -> int:
    return _now_failed(args, conn, "timed_out", f"timed out after {args.timeout:g} s; {_pending_line(conn)}")


def _now_json(report: dict[str, Any], cycle_result: Any, failed_uploads: int,
              failure: tuple[str, str] | None) -> dict[str, Any]:
    """What `sync now --json` prints, whatever the outcome: the status report, the cycle's result, and `ok` with
    the failure's `error` {code, message} (null when it synced), so a script reads one shape every time."""
    return {**report, "cycle": cycle_result, "failed_uploads": failed_uploads, "ok": failure is None,
            "error": None if failure is None else {"code": failure[0], "message": failure[1]}}


def _now_failed(args: argparse.Namespace, conn: Any, code: str, message: str, cycle_result: Any = None) -> int:
    """A `sync now` that could not sync: with --json, the same JSON object as a success (ok false, the error's
    code and message) on stdout; always the one-line reason on stderr, exit 1."""
    if args.json:
        from nailmirror_desktop.core.sync import state

        failed_uploads = conn.execute("SELECT COUNT(*) FROM sync_draft_upload WHERE state = 'FAILED'").fetchone()[0]
        print(json.dumps(_now_json(state.status_report(conn), cycle_result, failed_uploads, (code, message)),
                         ensure_ascii=False))
    return _fail(message)


def _pending_line(conn: Any) -> str:
    from nailmirror_desktop.core.sync import state

    report = state.status_report(conn)
    return f"{report['pending_downloads']} download(s) and {report['pending_uploads']} upload(s) pending"


def _status(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import kiosk_facts
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.sync import state

    conn = open_database(database_path())
    try:
        report = state.status_report(conn)
    finally:
        conn.close()
    facts = kiosk_facts()  # what the sync report tells HQ's fleet page (issue #25 §7)
    report.update(app_version=facts.app_version)  # model_version: the running release's, from the database
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    print(f"state: {report['state']}")
    for item in report["failed_downloads"]:
        print(f"failed download: {item['style_code'] or '-'} {item['sha256'][:12]}… after {item['attempts']}"
              f" attempt(s): {item['last_error']}")
    for key in ("kiosk_name", "app_version", "model_version", "last_success_at", "offline_since", "cursor",
                "pending_uploads", "pending_downloads",
                "pending_ledger_uploads", "parked_ledger_uploads", "ledger_upload_error", "last_error",
                "last_warning", "pending_captures", "pending_capture_withdrawals", "hq_key_id", "model_signing"):
        print(f"{key}: {report[key] if report[key] is not None else '-'}")
    for slot, entry in report["model_slots"].items():
        detail = f" ({entry['detail']})" if entry["detail"] else ""
        print(f"model {slot}: {entry['state']} release {entry.get('release', '-')}, running {entry['version']}"
              f"{detail}")
    return 0


def _hide(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import open_repository
    from nailmirror_desktop.cli.styles import cli_actor
    from nailmirror_desktop.core.catalog import StyleError
    from nailmirror_desktop.core.sync import apply

    try:
        apply.set_hidden(open_repository(), args.code, args.hidden, actor=cli_actor())
    except StyleError as exc:
        return _fail(f"{exc.code}" + (f" ({exc.detail})" if exc.detail else ""))
    print(f"{args.code.strip().upper()} {'hidden' if args.hidden else 'shown'} in this store")
    return 0
