"""Who at HQ may do what (issue #25 point 6): a person's role, the permissions it grants, and the one check.

Every web route and every path that acts for a signed-in person asks `allows(role, permission)` — the review
page through its `Allowed(Permission.X)` dependency (web/routes.py), which also decides which buttons a page
shows. Nothing else compares role names. A new page picks the permission it needs from `Permission` (add one
when none fits, and give it to the roles in ROLE_PERMISSIONS); the table below is the whole policy.

The shell (`nailmirror-hq …`, actor "cli:<user>") is not a role: whoever runs it owns HQ's data directory and
its database, so the CLI is the operator who manages the accounts these roles belong to.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    CONTENT_REVIEWER = "content_reviewer"  # decides the stores' drafts; reads the catalog and the audit log
    CONTENT_EDITOR = "content_editor"  # + edits drafts and the catalog: publish, off shelf, categories, tags
    OPS_ADMIN = "ops_admin"  # everything: take-downs, stores, credits, the fleet, rollouts, accounts
    LABELLER = "labeller"  # the nail-capture data loop: reads and labels consented captures, nothing else
    TRAINER = "trainer"  # reads captures to train the segmenter, nothing about stores or credits


DEFAULT_ROLE = Role.CONTENT_REVIEWER  # `reviewers add` without --role: the least that still reviews
MIGRATED_ROLE = Role.OPS_ADMIN  # accounts made before roles existed could do everything; they keep it


class Permission(StrEnum):
    REVIEW_DRAFTS = "review_drafts"  # the review queue: approve or reject a store's draft
    EDIT_DRAFTS = "edit_drafts"  # change a draft's words or pictures before deciding it
    READ_CATALOG = "read_catalog"  # the catalog page
    EDIT_CATALOG = "edit_catalog"  # publish, off shelf, channels, categories and tags
    TAKE_DOWN_STYLES = "take_down_styles"  # withdraw a style from every kiosk (a feed delete)
    PUBLISH_ROLLOUTS = "publish_rollouts"  # staged publishing: choose which stores get a version first
    MANAGE_STORES = "manage_stores"  # the stores page: enrollment codes, revoking a store or a kiosk
    MANAGE_CREDITS = "manage_credits"  # the credits page and grants
    MANAGE_FLEET = "manage_fleet"  # fleet health: the kiosks' sync reports, versions, failing downloads
    MANAGE_REVIEWERS = "manage_reviewers"  # people's accounts and roles
    READ_AUDIT = "read_audit"  # the audit log
    READ_CAPTURES = "read_captures"  # consented nail captures (the data loop)
    WITHDRAW_CAPTURES = "withdraw_captures"  # delete a customer's capture everywhere, on her word (her code)
    LABEL_CAPTURES = "label_captures"  # draw and correct the nail masks on captures
    TRAIN_MODELS = "train_models"  # export labelled captures for training, register a trained model


_CONTENT = frozenset({Permission.REVIEW_DRAFTS, Permission.READ_CATALOG, Permission.READ_AUDIT})

ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    Role.CONTENT_REVIEWER: _CONTENT,
    Role.CONTENT_EDITOR: _CONTENT | {Permission.EDIT_DRAFTS, Permission.EDIT_CATALOG},
    Role.OPS_ADMIN: frozenset(Permission),
    Role.LABELLER: frozenset({Permission.READ_CAPTURES, Permission.LABEL_CAPTURES}),
    Role.TRAINER: frozenset({Permission.READ_CAPTURES, Permission.TRAIN_MODELS}),
}


def allows(role: Role | str | None, permission: Permission) -> bool:
    """The one check. An unknown role (a row written by a newer HQ, a typo in the database) allows nothing."""
    try:
        known = Role(role) if role is not None else None
    except ValueError:
        return False
    return known is not None and permission in ROLE_PERMISSIONS[known]


def parse_role(text: str) -> Role:
    """A role from the command line or a form; ValueError with the choices for anything else."""
    try:
        return Role(text.strip().lower())
    except ValueError:
        raise ValueError(f"unknown role {text!r}; one of: {', '.join(r.value for r in Role)}") from None
