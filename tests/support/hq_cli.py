"""`nailmirror-hq` run in the test's own process, as a shell runs it: arguments, environment and stdin in; exit
status, stdout and stderr out, as a `subprocess.CompletedProcess`. It calls `nailmirror_hq.cli.main`, the
function the console script calls, so what a chain's scripts see (JSON keys, one-line errors, exit codes) is
what the tests see, without a fresh interpreter per call (about a second each on a loaded 2-core machine).
`tests/hq/test_cli.py` still starts real processes where the process is the point: `serve` on a port, two HQs
starting at once, and the console entry point itself."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from typing import Any
from unittest import mock

from nailmirror_hq.cli import main


def run_hq(env: Mapping[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`nailmirror-hq ARGS` with exactly `env` as its environment (restored afterwards) and `stdin` as its input."""
    out, err = io.StringIO(), io.StringIO()
    with (mock.patch.dict(os.environ, env, clear=True), mock.patch.object(sys, "stdin", io.StringIO(stdin)),
          redirect_stdout(out), redirect_stderr(err)):
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse: a bad command line (2) or --help (0)
            status = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(["nailmirror-hq", *args], status, out.getvalue(), err.getvalue())


def run_hq_json(env: Mapping[str, str], *args: str, stdin: str = "") -> Any:
    """`nailmirror-hq ARGS --json`, which must succeed; its parsed answer."""
    done = run_hq(env, *args, "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
