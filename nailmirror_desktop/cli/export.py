"""`nailmirror export ledger|audit|tasks --csv|--json [--out FILE] [--since DATE]`: the books for the salon's
accountant, as files a spreadsheet opens.

    ledger   the credit ledger (credit_entry: grants and paid generations, with what was confirmed or refunded)
    audit    the audit log (audit_log: review decisions and other changes to styles)
    tasks    the background tasks (task), led by their public number task_no; without request_payload and
             result_payload (a customer's prompt and the provider's answer: not the books, and large)

Columns come in the table's own order (a later migration's new column is added at the end), rows oldest first
(by id). Times are ISO 8601 UTC with milliseconds (2026-11-30T07:18:00.123Z). --since DATE keeps the rows
created at or after DATE (YYYY-MM-DD or an ISO 8601 time; UTC unless it names an offset). CSV: a header line,
empty cells for no value, and a text cell that a spreadsheet would run as a formula (= + - @ first) gets a
leading apostrophe; with --out the file is UTF-8 with a byte-order mark, so Excel reads Chinese text right.
JSON: an array of objects, one row a line, values as stored. --out writes FILE (owner-only) whole or not at all.

Exit status: 0 written, 1 FILE cannot be written (one line on stderr), 2 usage (a bad --since too), 4 the
database (or data directory) is unusable.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import sqlite3

    from sqlite_utils.db import Table

EXIT_OUT_UNWRITABLE = 1
EXIT_USAGE = 2
_FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Export:
    table: str
    leave_out: tuple[str, ...] = ()
    task_no: bool = False  # lead with the task's public number, computed from its id


EXPORTS = {
    "ledger": Export("credit_entry"),
    "audit": Export("audit_log"),
    "tasks": Export("task", leave_out=("request_payload", "result_payload"), task_no=True),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("export", help="the ledger, the audit log or the tasks as CSV or JSON")
    parser.add_argument("what", choices=tuple(EXPORTS), help="what to export")
    form = parser.add_mutually_exclusive_group(required=True)
    form.add_argument("--csv", dest="form", action="store_const", const="csv")
    form.add_argument("--json", dest="form", action="store_const", const="json")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE", help="write FILE (default: stdout)")
    parser.add_argument("--since", default=None, metavar="DATE",
                        help="only rows created at or after DATE (YYYY-MM-DD or ISO 8601; UTC)")
    parser.add_argument("--db", type=Path, default=None, help="database file (default: the kiosk's)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    since = None
    if args.since is not None:
        since = parse_since(args.since)
        if since is None:
            print(f"error: SINCE_INVALID ({args.since!r} is no date: give YYYY-MM-DD or an ISO 8601 time)",
                  file=sys.stderr)
            return EXIT_USAGE
    conn = open_database(args.db or database_path())
    try:
        columns, rows = export_rows(conn, EXPORTS[args.what], since)
        if args.out is None:
            return _to_stdout(args.form, columns, rows)
        try:
            count = write_file(args.out, args.form, columns, rows)
        except OSError as exc:
            print(f"error: OUT_UNWRITABLE ({args.out}: {exc.strerror or exc})", file=sys.stderr)
            return EXIT_OUT_UNWRITABLE
    finally:
        conn.close()
    print(f"wrote {count} {args.what} row(s) to {args.out}", file=sys.stderr)
    return 0


def parse_since(text: str) -> datetime | None:
    """YYYY-MM-DD or an ISO 8601 time → an aware UTC datetime (a time without an offset is UTC); None if neither."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def export_rows(conn: sqlite3.Connection, export: Export,
                since: datetime | None = None) -> tuple[list[str], Iterator[dict[str, Any]]]:
    """The column names and the rows (dicts in that order, times as ISO 8601 UTC) of one export, oldest first."""
    from sqlite_utils import Database

    from nailmirror_desktop.core.clock import iso_utc, to_ms

    table: Table = Database(conn, recursive_triggers=False, execute_plugins=False).table(export.table)
    names = [c.name for c in table.columns if c.name not in export.leave_out]
    times = _millisecond_times(table)
    where, where_args = None, []
    if since is not None:  # created_at: milliseconds where the table keeps them so, else ISO text (audit_log)
        where = "created_at >= ?"
        where_args = [to_ms(since.timestamp()) if "created_at" in times else iso_utc(since)]
    selected = ", ".join(f'"{name}"' for name in names)

    def rows() -> Iterator[dict[str, Any]]:
        from nailmirror_desktop.core.clock import from_ms
        from nailmirror_desktop.core.tasks.models import task_no_from_id

        for row in table.rows_where(where, where_args, order_by="id", select=selected):
            out: dict[str, Any] = {"task_no": task_no_from_id(row["id"])} if export.task_no else {}
            out.update((k, iso_utc(from_ms(v)) if k in times else v) for k, v in row.items())
            yield out

    return (["task_no"] if export.task_no else []) + names, rows()


def _millisecond_times(table: Table) -> set[str]:
    """The columns holding a time as INTEGER milliseconds since the epoch, UTC (the migrations' convention:
    an INTEGER column named …_at or …_time); audit_log keeps its times as ISO text already."""
    return {c.name for c in table.columns
            if c.type.upper() == "INTEGER" and (c.name.endswith("_at") or c.name.endswith("_time"))}


def _to_stdout(form: str, columns: list[str], rows: Iterable[dict[str, Any]]) -> int:
    try:
        _write(sys.stdout, form, columns, rows)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def write_file(path: Path, form: str, columns: list[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write the export to `path` whole or not at all (a temporary file beside it, then renamed), owner-only.
    Returns the number of rows; raises OSError."""
    path = path.expanduser()
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        encoding = "utf-8-sig" if form == "csv" else "utf-8"  # the byte-order mark: Excel then reads UTF-8
        with os.fdopen(fd, "w", encoding=encoding, newline="") as handle:
            count = _write(handle, form, columns, rows)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return count


def _write(out: TextIO, form: str, columns: list[str], rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    if form == "csv":
        writer = csv.writer(out)
        writer.writerow(columns)
        for row in rows:
            writer.writerow(_csv_cell(row[name]) for name in columns)
            count += 1
        return count
    out.write("[")
    for row in rows:
        out.write(("\n" if count == 0 else ",\n") + json.dumps(row, ensure_ascii=False))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_LEAD):
        return "'" + value  # a spreadsheet would run it as a formula (CSV injection)
    return value
