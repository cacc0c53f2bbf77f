"""NailMirror HQ: the chain's catalog service (publishes styles to kiosks, receives and reviews their drafts).

Layout: `config` (where data lives), `schema` + `migrations/` (tables, Alembic), `db` (engine, transactions,
the feed's single-writer lock), `blobs/` (filesystem or S3 blob store), `feed` (the change log per channel),
`catalog`, `stores`, `drafts`, `reviewers`, `backup` (the domain), `api/` (protocol v1 over FastAPI) and `cli`
(`nailmirror-hq`). The wire shapes come from `nailmirror_protocol`, which the kiosk imports too.
"""

__version__ = "0.1.0"
