"""The sync command's tests run against the real HQ on loopback, on SQLite and on PostgreSQL + S3
(tests/support/sync_fixtures.py)."""

from tests.support.sync_fixtures import pg_cluster, proxy, rig, seaweed  # noqa: F401 (fixtures)
