"""NailMirror sync protocol v1: what HQ and the kiosk say to each other, with no dependency beyond the stdlib.

Both sides import this package, so the wire shapes cannot drift apart (shared/reference/catalog_sync.md §4):
- `cursor`    the feed and inbox cursors, "<epoch>.<seq>"
- `errors`    error codes, the 410 reasons, and the error body every 4xx/5xx carries
- `shapes`    the JSON bodies as TypedDicts (hello, feed page, snapshot, draft revision, inbox, enrollment)
- `canonical` canonical JSON and its sha256 (draft replay detection) and the catalog state digest
- `paths`     the endpoint paths and header names
- `checks`    what a client checks on every answer: a real protocol body, and what an error means to do

The kiosk's side: send `Authorization: Bearer <token>` and `NM-Protocol: 1`; reject any 2xx body without
`"nm": 1` as a transient fault (a captive portal); treat the 410 reasons in `errors.RESET_REASONS` as "fetch
the snapshot and apply it as a replace".
"""

PROTOCOL_VERSION = 1
SUPPORTED_PROTOCOLS = (1,)
# The change types HQ's feed carries. HQ raises it when it starts sending a new type (R8: never a type the kiosk
# did not learn from a snapshot); a cursor read in an older format answers 410 protocol_upgraded.
# 1: style, category, tag.
FEED_FORMAT = 1
