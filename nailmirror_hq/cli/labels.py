"""`nailmirror-hq labels dataset create NAME | list | show NAME`, `labels export NAME --out DIR`,
`labels export-evaluation --out DIR`: datasets of label versions (issue #27 §2) and the folders the trainer reads."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nailmirror_hq import datasets, db
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.dataset_export import ExportSummary, export_dataset, export_evaluation_set
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("labels", help="labelled captures: datasets and exports").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    dataset = group.add_parser("dataset", help="frozen datasets of label versions").add_subparsers(
        dest="dataset_action", metavar="ACTION", required=True)
    create = command(dataset, "create", _create, "freeze every accepted label not in the evaluation set")
    create.add_argument("name")
    command(dataset, "list", _list, "the datasets, newest first")
    show = command(dataset, "show", _show, "one dataset and its members")
    show.add_argument("name")
    export = command(group, "export", _export, "write a dataset as images/, masks/ and index.csv")
    export.add_argument("name")
    export.add_argument("--out", metavar="DIR", required=True, help="an absent or empty folder")
    evaluation = command(group, "export-evaluation", _export_evaluation, "write the evaluation set the same way")
    evaluation.add_argument("--out", metavar="DIR", required=True, help="an absent or empty folder")


def _create(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return datasets.create(hq.engine, args.name, cli_actor()).summary()


def _list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [d.summary() for d in datasets.list_datasets(conn)]


def _show(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        found = datasets.get(conn, args.name)
        held = datasets.members(conn, args.name)
    return {**found.summary(), "label_versions": [{"capture": m.code, "label_version": m.label_version,
                                                   "store_id": m.store_id, "day": m.day, "skin_tone": m.skin_tone,
                                                   "nail_kind": m.nail_kind} for m in held]}


def _summary(done: ExportSummary) -> dict[str, Any]:
    return {"name": done.name, "count": done.count, "label_versions": list(done.label_versions),
            "out_dir": str(done.out_dir)}


def _export(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return _summary(export_dataset(hq.engine, hq.require_captures(), args.name, Path(args.out), cli_actor()))


def _export_evaluation(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return _summary(export_evaluation_set(hq.engine, hq.require_captures(), Path(args.out), cli_actor()))
