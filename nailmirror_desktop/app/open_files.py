"""The kiosk process's open-file limit (issue #20, point 8).

Linux starts a desktop session's processes with a soft RLIMIT_NOFILE of 1,024 under a much higher hard limit.
The kiosk holds the camera, the database and its journal, models, fonts, Qt's own descriptors and the share
server's connections at once, so it raises the soft limit to the hard one at start: a burst of connections can
no longer leave it unable to open a file. (The share server bounds its own connections as well.)
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# When the hard limit is "unlimited": Linux refuses more than fs.nr_open (1,048,576 by default), macOS more than
# OPEN_MAX (10,240) for the soft limit.
_CAPS = (1 << 20, 10_240)


def raise_open_file_limit() -> tuple[int, int] | None:
    """Raise the soft RLIMIT_NOFILE to the hard limit; (before, after), or None where there is no such limit
    (Windows) or it cannot be read."""
    try:
        import resource
    except ImportError:  # Windows: no per-process descriptor limit of this kind
        return None
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return None
    targets = [hard] if hard != resource.RLIM_INFINITY else list(_CAPS)
    for target in targets:
        if soft != resource.RLIM_INFINITY and soft >= target:
            return soft, soft
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError):
            continue
        log.info("open-file limit raised from %d to %d", soft, target)
        return soft, target
    log.warning("open-file limit stays at %d (hard limit %s)", soft, hard)
    return soft, soft
