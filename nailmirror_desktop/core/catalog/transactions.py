"""The style repository's write transaction: `core.db.write_transaction` (nests with SAVEPOINTs; only the
outermost level commits). Repository methods call each other and a caller such as the generation flow may wrap a
repository call together with its own writes, which is why nesting matters here."""

from nailmirror_desktop.core.db import write_transaction

__all__ = ["write_transaction"]
