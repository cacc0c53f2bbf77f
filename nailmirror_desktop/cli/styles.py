"""`nailmirror styles …`: list, show and import styles, set the store's price, and move them through review.

Prices are in the store's currency (config.json "currency", default CNY) and kept as integer minor units:
`styles set-price CODE 128.50` stores 12800 + 50; `--clear` removes it (customers then see no price).

The audit log records who acted as `cli:<operating-system user>` (the account running the command, from the
system's user database, not a name anyone can type).

Exit status: 0 done; 1 the style domain refused (unknown style, illegal transition, bad image …), with the
refusal's code on stderr; 2 bad command line (argparse); 4 data directory unusable, 5 internal error (cli).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.core.catalog import StyleError, StyleRecord, StyleRepository

ACTOR_PREFIX = "cli"
LIST_PAGE = 100  # `styles list` without --all: a page, and a note on stderr when more follow
_ALL_PAGE = 500  # --all reads in pages of this many

# command → (target status, the only status it starts from, or None for any the machine allows)
TRANSITION_COMMANDS = {
    "submit": ("PENDING_REVIEW", "DRAFT", "send a DRAFT style to review"),
    "approve": ("PUBLISHED", "PENDING_REVIEW", "approve a style under review (it goes on the shelf)"),
    "reject": ("REJECTED", "PENDING_REVIEW", "reject a style under review (needs --reason)"),
    "publish": ("PUBLISHED", "OFF_SHELF", "put an OFF_SHELF style back on the shelf"),
    "off-shelf": ("OFF_SHELF", "PUBLISHED", "take a PUBLISHED style off the shelf"),
    "revise": ("DRAFT", None, "bring a REJECTED or OFF_SHELF style back to DRAFT"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("styles", help="list, show, import and review styles")
    commands = parser.add_subparsers(dest="styles_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="list styles, newest first")
    listing.add_argument("--status", choices=["DRAFT", "PENDING_REVIEW", "PUBLISHED", "REJECTED", "OFF_SHELF"])
    listing.add_argument("--category", help="category code")
    listing.add_argument("--tag", help="tag code")
    listing.add_argument("--search", help="text in the style code or name")
    listing.add_argument("--source", choices=["MANUAL", "AI", "CATALOG"])
    listing.add_argument("--customer", action="store_true", help="only what customers see (PUBLISHED, previewable)")
    listing.add_argument("--limit", type=_count(1), default=LIST_PAGE, help=f"at most N (default {LIST_PAGE})")
    listing.add_argument("--offset", type=_count(0), default=0, help="skip the first N (the next page)")
    listing.add_argument("--all", action="store_true", help="every matching style, however many")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)

    show = commands.add_parser("show", help="one style with its assets, tags and review history")
    show.add_argument("code")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)

    importing = commands.add_parser("import", help="import a style folder as a new DRAFT style")
    importing.add_argument("folder")
    importing.add_argument("--name", help="defaults to style.json's name")
    importing.add_argument("--category", help="category code (must exist)")
    importing.add_argument("--tag", action="append", default=[], help="tag code (repeatable)")
    importing.add_argument("--json", action="store_true")
    importing.set_defaults(handler=_import)

    edit = commands.add_parser("edit", help="replace a style's images from a style folder (new version, DRAFT)")
    edit.add_argument("code")
    edit.add_argument("folder")
    edit.add_argument("--reason")
    edit.set_defaults(handler=_edit)

    price = commands.add_parser("set-price", help="set or clear the store's price of a style (its currency: "
                                                  "config.json \"currency\", default CNY)")
    price.add_argument("code", help="style code")
    amount = price.add_mutually_exclusive_group(required=True)
    amount.add_argument("price", nargs="?", help="e.g. 128 or 128.50 (no thousands separator)")
    amount.add_argument("--clear", action="store_true", help="remove the price (customers see none)")
    price.add_argument("--json", action="store_true")
    price.set_defaults(handler=_set_price)

    categories = commands.add_parser("categories", help="list categories")
    categories.add_argument("--json", action="store_true")
    categories.set_defaults(handler=_categories)

    gaps = commands.add_parser("glossary-gaps", help="list the words of style names the English glossary "
                                                     "(resources/glossary/style_terms.json) lacks")
    gaps.add_argument("--json", action="store_true")
    gaps.set_defaults(handler=_glossary_gaps)

    for name, (_, _, help_text) in TRANSITION_COMMANDS.items():
        command = commands.add_parser(name, help=help_text)
        command.add_argument("code")
        command.add_argument("--reason", required=name == "reject")
        command.set_defaults(handler=_transition, transition=name)


def cli_actor() -> str:
    """`cli:<user>` for the account this process runs as; `cli:uid-<n>` when the system cannot name it."""
    return f"{ACTOR_PREFIX}:{_os_user()}"


def _os_user() -> str:
    name = ""
    try:
        import pwd  # POSIX: the account of the effective uid, not $USER / $LOGNAME (anyone can set those)

        name = pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError, OSError):
        try:
            import getpass

            name = getpass.getuser()  # Windows: the logged-on account
        except Exception:  # noqa: BLE001 - getuser raises OSError, KeyError or ImportError by platform
            name = ""
    name = "".join(ch for ch in name if ch.isprintable() and not ch.isspace())[:64]
    if not name:
        uid = getattr(os, "geteuid", lambda: None)()
        name = f"uid-{uid}" if uid is not None else "unknown"
    return name


def _repository() -> StyleRepository:
    from nailmirror_desktop.app.services import open_repository

    return open_repository(load_catalog=True)


def _refused(exc: StyleError) -> int:
    print(f"error: {exc.code}" + (f" ({exc.detail})" if exc.detail else ""), file=sys.stderr)
    return 1


def _count(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is less than {least}")
        return value

    return parse


def _list(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.catalog import StyleError, StyleFilter

    query = StyleFilter(status="PUBLISHED" if args.customer else args.status, category_code=args.category,
                        tag_code=args.tag, text=args.search, source=args.source, previewable_only=args.customer)
    try:
        repo = _repository()
        if args.all:
            styles: list[StyleRecord] = []
            more = True
            while more:
                page = repo.list_styles(replace(query, limit=_ALL_PAGE, offset=args.offset + len(styles)))
                styles += page
                more = len(page) == _ALL_PAGE
        else:  # one more than asked: whether more follow, so the page never ends silently
            styles = repo.list_styles(replace(query, limit=args.limit + 1, offset=args.offset))
            more = len(styles) > args.limit
            styles = styles[:args.limit]
            if more:
                print(f"note: {len(styles)} styles shown from offset {args.offset}; more follow: --offset "
                      f"{args.offset + len(styles)} for the next page, or --all", file=sys.stderr)
    except StyleError as exc:
        return _refused(exc)
    if args.json:
        print(json.dumps([s.to_dict() for s in styles], ensure_ascii=False, indent=2))
        return 0
    for s in styles:
        flag = "P" if s.is_previewable else "-"
        print(f"{s.style_code:12} {s.status.value:15} {flag} {s.source:8} {s.category_name or '-':10} {s.name}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.catalog import StyleError

    try:
        repo = _repository()
        style = repo.get_by_code(args.code)
        assets, tags, audit = repo.assets(style.id), repo.tags_of(style.id), repo.audit_trail(style.id)
    except StyleError as exc:
        return _refused(exc)
    if args.json:
        print(json.dumps({"style": style.to_dict(), "assets": [a.to_dict() for a in assets],
                          "tags": [t.code for t in tags], "audit": [e.to_dict() for e in audit]},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"{style.style_code}  {style.name}  [{style.status.value}]  v{style.content_version}"
          f"  previewable={'yes' if style.is_previewable else 'no'}  source={style.source}")
    print(f"category: {style.category_name or '-'}   tags: {', '.join(t.code for t in tags) or '-'}"
          f"   accent: {', '.join(style.accent_fingers) or '-'}   price: {_price_text(style.price_minor)}")
    for a in assets:
        primary = " primary" if a.is_primary else ""
        print(f"  {a.asset_type:13} {a.slot or '':7} {a.width}x{a.height} {a.format:4} {a.file_md5[:8]}{primary}")
    for e in audit:
        reason = f"  reason: {e.reason}" if e.reason else ""
        print(f"  {e.created_at} {e.actor:16} {e.action:12} {e.from_status or '-'} -> {e.to_status or '-'}{reason}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.catalog import StyleError, StyleSource, read_style_folder

    try:
        repo = _repository()
        folder = read_style_folder(args.folder, _currency())
        style = repo.create_style_with_content(args.name or folder.name, StyleSource.MANUAL, folder.content,
                                               actor=cli_actor(), category_code=args.category, tags=args.tag,
                                               design_json=folder.design_json(), price_minor=folder.price_minor)
    except StyleError as exc:
        return _refused(exc)
    print(json.dumps(style.to_dict(), ensure_ascii=False, indent=2) if args.json else style.style_code)
    return 0


def _edit(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.catalog import StyleError, read_style_folder

    try:
        repo = _repository()
        style = repo.edit_content(args.code, read_style_folder(args.folder).content, actor=cli_actor(),
                                  reason=args.reason)
    except StyleError as exc:
        return _refused(exc)
    print(f"{style.style_code} {style.status.value} v{style.content_version}")
    return 0


def _currency() -> str:
    from nailmirror_desktop.core.config import load_config

    return load_config().currency


def _price_text(price_minor: int | None) -> str:
    from nailmirror_desktop.core.catalog.price import format_price

    return "-" if price_minor is None else format_price(price_minor, _currency())


def _set_price(args: argparse.Namespace) -> int:
    """Any style, HQ's included: a price is the store's own (a sync never changes it)."""
    from nailmirror_desktop.core.catalog import StyleError
    from nailmirror_desktop.core.catalog.price import parse_price

    currency = _currency()
    try:
        minor = None if args.clear else parse_price(args.price, currency)
        repo = _repository()
        style = repo.set_price(repo.get_by_code(args.code).id, minor, actor=cli_actor())
    except StyleError as exc:
        return _refused(exc)
    if args.json:
        print(json.dumps({"style_code": style.style_code, "price_minor": style.price_minor, "currency": currency},
                         ensure_ascii=False))
    else:
        print(f"{style.style_code} price {_price_text(style.price_minor)}")
    return 0


def _categories(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    categories = _repository().categories()
    if args.json:
        print(json.dumps([asdict(c) for c in categories], ensure_ascii=False, indent=2))
    else:
        for c in categories:
            print(f"{c.code:16} {c.name_zh}  {c.name_en}")
    return 0


def _glossary_gaps(args: argparse.Namespace) -> int:
    """Terms a style's English name could not be composed from: add them to the glossary (then new styles get
    their English; a style already stored keeps what it has)."""
    from dataclasses import asdict

    from nailmirror_desktop.core.catalog.english_names import default_glossary_path, glossary_gaps

    try:
        gaps = glossary_gaps(_repository().style_names())
    except (OSError, ValueError) as exc:
        print(f"error: glossary unusable: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([asdict(g) for g in gaps], ensure_ascii=False, indent=2))
        return 0
    if not gaps:
        print(f"the glossary reads every style name ({default_glossary_path()})")
        return 0
    print(f"{'term':12} {'styles':>6} {'no English':>10}  examples")
    for gap in gaps:
        print(f"{gap.term:12} {len(gap.style_codes):6} {len(gap.untranslated):10}  {' '.join(gap.style_codes[:3])}")
    print(f"{len(gaps)} terms missing from {default_glossary_path()}")
    return 0


def _transition(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.catalog import StyleError

    to_status, expect_from, _ = TRANSITION_COMMANDS[args.transition]
    try:
        repo = _repository()
        if _enrolled(repo):
            return _transition_enrolled(repo, args)
        style = repo.transit(args.code, to_status, actor=cli_actor(), reason=args.reason, expect_from=expect_from)
    except StyleError as exc:
        return _refused(exc)
    print(f"{style.style_code} {style.status.value}")
    return 0


def _enrolled(repo: StyleRepository) -> bool:
    from nailmirror_desktop.core.sync import state

    return state.load(repo.conn) is not None


def _queue_push(draft_id: str, rev: int) -> None:
    """A DRAFT_PUSH task for the running kiosk's engine (it polls for new work); the next sync cycle queues it
    anyway if this one cannot be written now."""
    from nailmirror_desktop.app.services import open_task_engine
    from nailmirror_desktop.core.sync.tasks import submit_push
    from nailmirror_desktop.core.tasks import TaskError

    try:
        with open_task_engine(generation=False) as engine:
            submit_push(engine, draft_id, rev)
    except TaskError as exc:  # busy or full: the upload row is queued, the next cycle pushes it
        print(f"note: the push waits for the next sync ({exc.code})", file=sys.stderr)


def _transition_enrolled(repo: StyleRepository, args: argparse.Namespace) -> int:
    """Once the kiosk is enrolled, review happens at HQ: `submit` queues the draft for upload (the next sync
    pushes it); approve, reject and publish are refused here; HQ's own styles are read-only."""
    from nailmirror_desktop.core.catalog import StyleError
    from nailmirror_desktop.core.sync.drafts import queue_submission

    style = repo.get_by_code(args.code)
    if style.owner == "HQ":
        raise StyleError("HQ_OWNED", f"{style.style_code} belongs to HQ's catalog (sync hide hides it here)")
    if args.transition in ("approve", "reject", "publish"):
        raise StyleError("DECIDED_AT_HQ", "this kiosk is enrolled: drafts are approved and published at HQ")
    if args.transition == "submit":
        style, draft_id, rev = queue_submission(repo, args.code, actor=cli_actor())
        _queue_push(draft_id, rev)
        print(f"{style.style_code} {style.status.value} (queued for HQ as draft {draft_id} rev {rev})")
        return 0
    to_status, expect_from, _ = TRANSITION_COMMANDS[args.transition]
    style = repo.transit(args.code, to_status, actor=cli_actor(), reason=args.reason, expect_from=expect_from)
    print(f"{style.style_code} {style.status.value}")
    return 0
