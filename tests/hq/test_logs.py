"""HQ's structured logs (issue #25 §9): with hq.toml's [logging] format = "json", `serve` writes one JSON object a
line (ts in UTC, level, logger, event, fields) to stderr and to the configured file; a wrong review password and
a publish each log a parseable line, and no password, token or enrollment code appears anywhere."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from nailmirror_hq import logs
from tests.support.hq_cli import run_hq_json
from tests.support.hq_fixtures import style_folder
from tests.support.hq_servers import free_port, wait_port

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"
WRONG = "hunter2-not-the-password"
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _post(opener: urllib.request.OpenerDirector, url: str, form: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), method="POST")
    try:
        with opener.open(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _csrf(opener: urllib.request.OpenerDirector, url: str) -> str:
    with opener.open(url, timeout=30) as answer:
        found = re.search(r'name="csrf" value="([^"]+)"', answer.read().decode())
    assert found
    return found.group(1)


@pytest.mark.slow
def test_serve_writes_json_lines_with_no_secret_in_them(tmp_path: Path) -> None:
    data = tmp_path / "hq"
    log_file = tmp_path / "logs" / "hq.jsonl"
    env = {"NAILMIRROR_HQ_HOME": str(data), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    code = run_hq_json(env, "stores", "add", "SH-0012")["enrollment_code"]  # makes hq.toml (its [signing] key)
    run_hq_json(env, "reviewers", "add", "li.wang", "--role", "ops_admin", "--password-stdin", stdin=PASSWORD + "\n")
    style = run_hq_json(env, "styles", "import", str(style_folder(tmp_path / "folders")))
    config = data / "hq.toml"
    config.write_text(config.read_text() + f'\n[logging]\nformat = "json"\nfile = "{log_file}"\n', encoding="utf-8")
    port = free_port()
    stderr = open(tmp_path / "serve.err", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "nailmirror_hq", "serve", "--port", str(port)],
                            env={**os.environ, **env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=stderr, start_new_session=True)
    try:
        assert wait_port(port, 60), (tmp_path / "serve.err").read_text()
        base = f"http://127.0.0.1:{port}"
        body = json.dumps({"nm": 1, "code": code}).encode()
        enroll = urllib.request.Request(f"{base}/v1/enroll", method="POST", data=body,
                                        headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(enroll, timeout=30) as answer:
            token = json.loads(answer.read())["token"]
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        login = f"{base}/review/login"
        assert _post(browser, login, {"csrf": _csrf(browser, login), "name": "li.wang", "password": WRONG}) == 401
        assert _post(browser, login, {"csrf": _csrf(browser, login), "name": "li.wang", "password": PASSWORD}) == 200
        csrf = _csrf(browser, f"{base}/review/catalog")
        assert _post(browser, f"{base}/review/styles/{style['style_id']}/publish", {"csrf": csrf}) == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
        stderr.close()
    file_lines = log_file.read_text(encoding="utf-8").splitlines()
    err_lines = [line for line in (tmp_path / "serve.err").read_text(encoding="utf-8").splitlines() if line]
    assert file_lines and err_lines
    events: list[dict[str, Any]] = []
    for line in file_lines + err_lines:
        entry = json.loads(line)  # every line, uvicorn's own included
        assert set(entry) <= {"ts", "level", "logger", "event", "fields", "error"} and TS.match(entry["ts"])
        events.append(entry)
    failed = [e for e in events if e["event"] == "review login failed"]
    assert failed and failed[0]["level"] == "INFO" and failed[0]["fields"]["account"] == "li.wang"
    published = [e for e in events if e["event"] == "style status set"]
    assert published and published[0]["fields"]["style_id"] == style["style_id"]
    assert published[0]["fields"]["fanout"] >= 1 and published[0]["fields"]["reviewer"] == "li.wang"
    assert any(e["event"] == "request" and e["fields"]["path"] == "/v1/enroll" for e in events)
    everything = "\n".join(file_lines + err_lines)
    for secret in (PASSWORD, WRONG, token, token[5:20], code, code.replace("-", "")):
        assert secret not in everything


def test_fields_named_like_secrets_are_redacted_in_both_formats() -> None:
    record = logging.LogRecord("nailmirror_hq.x", logging.INFO, __file__, 1, "kiosk enrolled", None, None)
    record.fields = {"store_id": "st_A", "token": "nmst_abc", "Password": "pw", "enrollment_code": "7Q4K-M2XD"}
    for formatter in (logs.JsonLines(), logs.TextWithFields()):
        text = formatter.format(record)
        assert "st_A" in text and "nmst_abc" not in text and "pw'" not in text and "7Q4K" not in text


def test_the_logging_section_is_checked_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "hq.toml"
    assert logs.load(config) == logs.LogSettings()  # no file: text to stderr
    config.write_text('[logging]\nformat = "yaml"\n', encoding="utf-8")
    with pytest.raises(logs.LogConfigError, match="format must be one of text, json"):
        logs.load(config)
    config.write_text('[logging]\nformat = "json"\nlevel = "debug"\nfile = "~/hq.jsonl"\n', encoding="utf-8")
    loaded = logs.load(config)
    assert (loaded.format, loaded.level, loaded.file) == ("json", "DEBUG", Path("~/hq.jsonl").expanduser())
