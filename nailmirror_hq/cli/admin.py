"""`nailmirror-hq serve | maintain | backup | restore | signing-key`: running HQ and keeping it."""

from __future__ import annotations

import argparse
import logging
import logging.config
from datetime import timedelta
from pathlib import Path
from typing import Any

from nailmirror_hq import maintenance
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    serve = command(sub, "serve", _serve, "run HQ's HTTP service")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8780)
    maintain = command(sub, "maintain", _maintain,
                       "compact the feed and delete unreferenced blobs once (serve also does it daily)")
    maintain.add_argument("--retention-days", type=float, default=maintenance.RETENTION.days,
                          help="keep every feed change younger than this (default 180)")
    maintain.add_argument("--blob-grace-days", type=float, default=maintenance.BLOB_GRACE.days,
                          help="never delete a blob younger than this (default 7)")
    command(sub, "backup", _backup, "write a backup of HQ (database and blobs) to DIR").add_argument("dir")
    command(sub, "restore", _restore, "replace HQ with a backup; starts a new epoch (kiosks resync)"
            ).add_argument("dir")
    command(sub, "signing-key", _signing_key, "HQ's public signing key (what verifies its grants and releases) "
                                              "and where the config file that seals its private half is")


def _serve(hq: HQ, args: argparse.Namespace) -> None:
    import uvicorn

    from nailmirror_hq import logs
    from nailmirror_hq.api.app import create_app

    try:
        log_config = logs.uvicorn_config(logs.load(hq.settings.config_path))
    except (logs.LogConfigError, OSError) as exc:
        raise HQError(400, "bad_request", f"logging: {exc}") from None
    logging.config.dictConfig(log_config)  # now, so the line below is in the configured format too
    # One worker on SQLite (one writer anyway); run several processes behind a load balancer on PostgreSQL.
    logs.event(logging.getLogger("nailmirror_hq.serve"), logging.INFO, "serving",
               database=hq.settings.database_url.split("@")[-1], url=f"http://{args.host}:{args.port}")
    from nailmirror_hq.config import canary_period

    # Compaction, blob clean-up and capture retention daily; rollouts whose canary period passed widen within a
    # tick (an hour).
    scheduler = maintenance.Scheduler(
        hq.engine, hq.blobs, canary_period=canary_period(hq.settings), capture_store=hq.require_captures(),
        capture_retention=timedelta(days=hq.settings.capture_retention_days)).start()
    try:
        uvicorn.run(create_app(hq), host=args.host, port=args.port, log_level="info", access_log=True,
                    server_header=False, log_config=log_config)
    finally:
        scheduler.stop()


def _maintain(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    if args.retention_days < 1 or args.blob_grace_days < 0:
        raise HQError(400, "bad_request", "--retention-days must be >= 1 and --blob-grace-days >= 0")
    from nailmirror_hq import rollout_actions
    from nailmirror_hq.config import canary_period

    widened = rollout_actions.auto_widen(hq.engine, canary_period(hq.settings))
    result = maintenance.run(hq.engine, hq.blobs, retention=timedelta(days=args.retention_days),
                             grace=timedelta(days=args.blob_grace_days), capture_store=hq.require_captures(),
                             capture_retention=timedelta(days=hq.settings.capture_retention_days))
    return {"changes_dropped": result.changes_dropped, "blobs_deleted": len(result.blobs_deleted),
            "captures_expired": len(result.captures_expired),
            "rollouts": {str(k): v for k, v in widened.items()}}


def _backup(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    from nailmirror_hq import backup

    return backup.backup(hq.engine, hq.blobs, Path(args.dir))


def _restore(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    from nailmirror_hq import backup

    return backup.restore(hq.engine, hq.blobs, Path(args.dir), cli_actor(), kek=hq.kek)


def _signing_key(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    key = hq.require_signing_key().public  # never the private half: it stays sealed in the database
    return {"key_id": key.key_id, "algorithm": "ed25519", "public_key": key.raw.hex(),
            "config_file": str(hq.settings.config_path)}
