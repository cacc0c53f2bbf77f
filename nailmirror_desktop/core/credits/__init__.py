"""Generation credits (ARCHITECTURE.md §14): a local ledger per store, paid generations pre-deducted in their
task's insert transaction and settled in the one that ends it; caps per store day and per customer session;
grants applied once by id. Stdlib only."""

from nailmirror_desktop.core.credits.errors import (
    DAILY_CAP_REACHED,
    INSUFFICIENT_CREDITS,
    REFUSAL_CODES,
    SESSION_CAP_REACHED,
    CreditRefused,
    GrantRejected,
)
from nailmirror_desktop.core.credits.ledger import Entry, Summary
from nailmirror_desktop.core.credits.policy import CreditHooks, CreditPolicy
from nailmirror_desktop.core.credits.service import apply_grant, ledger_entries, show

__all__ = [
    "DAILY_CAP_REACHED", "INSUFFICIENT_CREDITS", "REFUSAL_CODES", "SESSION_CAP_REACHED", "CreditHooks",
    "CreditPolicy", "CreditRefused", "Entry", "GrantRejected", "Summary", "apply_grant", "ledger_entries", "show",
]
