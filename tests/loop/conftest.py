"""The loop's end-to-end test runs against the real HQ on loopback, on SQLite and on PostgreSQL + S3
(tests/support/sync_fixtures.py)."""

from tests.support.sync_fixtures import pg_cluster, seaweed  # noqa: F401 (fixtures)
