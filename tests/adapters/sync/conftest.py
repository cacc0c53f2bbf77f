"""The real HQ on loopback and the fault proxy in front of it, for every module here
(tests/support/sync_fixtures.py)."""

from tests.support.sync_fixtures import pg_cluster, proxy, rig, seaweed  # noqa: F401 (fixtures)
