"""Signed nail-model releases on the kiosk (issue #27): HQ's pinned key, each slot's releases, their download."""
