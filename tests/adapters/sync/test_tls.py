"""HQ over real TLS on loopback (uvicorn with a certificate from openssl): a certificate that is not yet valid (or
has expired) by the kiosk's clock is reported as a clock problem and not retried blindly; a certificate the kiosk
does not trust is named as such (tls_untrusted), nothing is applied, and it is tried again on the backoff."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from nailmirror_hq.api.app import create_app
from tests.support.hq_servers import free_port, wait_port
from tests.support.sync_rig import HqRig, enroll, local_styles, nailmirror

CA_CONFIG = """[ ca ]
default_ca = my
[ my ]
dir = .
database = ./index.txt
new_certs_dir = ./newcerts
serial = ./serial
default_md = sha256
policy = pol
x509_extensions = ext
[ pol ]
commonName = supplied
[ ext ]
subjectAltName = DNS:localhost,IP:127.0.0.1
basicConstraints = critical,CA:TRUE
"""


def certificate(folder: Path, start: str, end: str) -> tuple[Path, Path]:
    """A self-signed certificate for localhost valid from `start` to `end` (YYYYMMDDHHMMSSZ)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder.mkdir(parents=True)
    (folder / "index.txt").touch()
    (folder / "serial").write_text("01\n")
    (folder / "newcerts").mkdir()
    (folder / "ca.cnf").write_text(CA_CONFIG)

    def run(*argv: str) -> None:
        subprocess.run(argv, cwd=folder, check=True, capture_output=True, timeout=60)

    run("openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "req.csr",
        "-subj", "/CN=localhost")
    run("openssl", "ca", "-selfsign", "-keyfile", "key.pem", "-in", "req.csr", "-out", "cert.pem", "-startdate",
        start, "-enddate", end, "-config", "ca.cnf", "-batch")
    return folder / "key.pem", folder / "cert.pem"


def serve_tls(rig: HqRig, key: Path, cert: Path) -> tuple[object, str]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(rig.hq), host="127.0.0.1", port=port, log_level="error",
                                           ssl_keyfile=str(key), ssl_certfile=str(cert)))
    threading.Thread(target=server.run, daemon=True).start()
    assert wait_port(port, 20)
    return server, f"https://localhost:{port}"


@pytest.mark.slow
def test_a_certificate_not_yet_valid_is_a_clock_problem_not_a_retry_storm(
        rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    enroll(rig)  # enrolled over loopback http; then HQ moves behind TLS whose certificate starts in 2030
    key, cert = certificate(tmp_path / "tls", "20300101000000Z", "20310101000000Z")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the kiosk trusts it (as a chain's own CA would be)
    server, url = serve_tls(rig, key, cert)
    try:
        from nailmirror_desktop.core.db import open_database
        from nailmirror_desktop.core.paths import database_path

        conn = open_database(database_path())
        with conn:
            conn.execute("UPDATE sync_state SET hq_url = ?", (url,))
        conn.close()
        run = nailmirror("sync", "now")
        assert run.rc == 1 and "clock_or_certificate" in run.err and "check the kiosk's clock" in run.err
        cycles = nailmirror("tasks", "list", "--type", "SYNC_CYCLE", "--json").json()
        assert cycles[0]["status"] == "FAILED" and cycles[0]["attempt_count"] == 0  # waits 5 min, no attempt burnt
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


def _point_at(url: str) -> None:
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    conn = open_database(database_path())
    with conn:
        conn.execute("UPDATE sync_state SET hq_url = ?", (url,))
    conn.close()


@pytest.mark.slow
def test_an_expired_certificate_is_a_clock_problem_too(rig: HqRig, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    enroll(rig)
    key, cert = certificate(tmp_path / "tls", "20180101000000Z", "20190101000000Z")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server, url = serve_tls(rig, key, cert)
    try:
        _point_at(url)
        run = nailmirror("sync", "now")
        assert run.rc == 1 and "clock_or_certificate" in run.err and "check the kiosk's clock" in run.err
        assert len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_certificate_the_kiosk_does_not_trust_is_refused_without_sending_anything(
        rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A self-signed certificate the kiosk's trust store lacks (a TLS-intercepting proxy, a wrong server):
    nothing is applied, the one-line reason names the certificate, and the catalog stays as it was."""
    enroll(rig)
    published = rig.publish_new("信任款")
    assert nailmirror("sync", "now").rc == 0
    key, cert = certificate(tmp_path / "tls", "20200101000000Z", "20400101000000Z")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)  # the system's trust store: it does not know this one
    server, url = serve_tls(rig, key, cert)
    try:
        _point_at(url)
        rig.set_status(published, "WITHDRAWN")
        run = nailmirror("sync", "now")
        assert run.rc == 1 and "tls_untrusted" in run.err and "not trusted" in run.err and "Traceback" not in run.err
        assert len(run.err.strip().splitlines()) == 1
        assert published in {s["client_uid"] for s in local_styles("--customer")}  # nothing was applied
        status = nailmirror("sync", "status", "--json").json()
        assert status["state"] == "OFFLINE" and status["last_error"].startswith("tls_untrusted")
        cycles = nailmirror("tasks", "list", "--type", "SYNC_CYCLE", "--json").json()
        assert cycles[0]["status"] == "FAILED"  # waits on the network backoff (a portal clears), not a loop
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
