"""The kiosk's side of catalog sync with HQ (issue #11; ARCHITECTURE.md §16): stdlib + nailmirror_protocol only.

- `errors`  SyncError and the fault kinds the HTTP adapter maps HQ's answers to
- `port`    HqPort: what the cycle needs from HQ (the adapter in adapters/sync implements it; no HTTP here)
- `urls`    the enrollment URL rule (http:// only for loopback hosts)
- `state`   the enrollment and cursors (table sync_state)
- `apply`   feed pages, snapshots (a replace), tombstones, staging and the two-phase materialise, the inbox
- `drafts`  a local draft as a revision body; queueing a submission
- `cycle`   one sync cycle over a port; `tasks` the engine's SYNC_CYCLE, BLOB_FETCH, DRAFT_PUSH, CAPTURE_UPLOAD
            and MODEL_FETCH handlers (model releases themselves: core/model_releases)
"""
