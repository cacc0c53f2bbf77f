"""DashScope Wan driver (async): submit with `X-DashScope-Async: enable`, poll `GET {base}/api/v1/tasks/{id}`.

Statuses (reference note §1b): PENDING, RUNNING → keep polling; SUCCEEDED → results (URLs valid 24 h, fetched
at once; some entries may be per-image refusals: a partial result); FAILED → classified by its code;
CANCELED and UNKNOWN (task id expired or from another region) → EXPIRED, i.e. resubmit.
A submit that timed out after sending is AMBIGUOUS (the task may exist; DashScope has no idempotency key, and
without its id there is nothing to poll: the flow gives up rather than submit and pay twice). Polls are plain
GETs, so their transport failures are TRANSIENT. A 200 that is not a sane JSON object of the documented shape is
INVALID_RESPONSE, and so is a task id that does not look like one: an id goes into the poll URL only after its
shape is checked, and percent-encoded even then. Every error leaves with the key cut out of every field.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from nailmirror_desktop.adapters.http.client import (
    HttpAnswer,
    Timeouts,
    exchange,
    interpreting,
    invalid_response,
    json_body,
)
from nailmirror_desktop.adapters.http.download import DownloadPolicy, download_image
from nailmirror_desktop.core.generation.classify import classify_dashscope, error_from_http, provider_code, redacting
from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, Secret
from nailmirror_desktop.core.generation.provider_port import (
    GenerationRequest,
    ImageFailure,
    PollResult,
    PollStatus,
    ProviderError,
    ProviderImage,
    ProviderResult,
)
from nailmirror_desktop.core.generation.provider_port import (
    ProviderErrorClass as C,
)

SUBMIT_PATH = "/api/v1/services/aigc/text2image/image-synthesis"
TASK_PATH = "/api/v1/tasks/"
_POLL_BODY_LIMIT = 1_000_000
# DashScope task ids are UUIDs ("0385dc79-5ff8-4d82-bcb6-xxxxxxxxxxxx"); anything outside this shape is refused.
TASK_ID_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


class DashScopeWanProvider:
    name = "dashscope"
    is_async = True

    def __init__(self, settings: RemoteProviderSettings, *, timeouts: Timeouts, max_bytes: int) -> None:
        self._settings = settings
        self._timeouts = timeouts
        self._downloads = DownloadPolicy.for_base_url(settings.base_url, max_bytes=max_bytes, timeouts=timeouts)

    def __repr__(self) -> str:
        return f"DashScopeWanProvider(base_url={self._settings.base_url!r}, model={self._settings.model!r})"

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        parameters: dict[str, Any] = {
            "size": f"{request.size[0]}*{request.size[1]}",  # DashScope writes sizes with '*'
            "n": max(1, min(request.n, 4)),
            "prompt_extend": True,
            "watermark": False,
        }
        if request.seed is not None:
            parameters["seed"] = request.seed % 2_147_483_647
        prompt_input: dict[str, Any] = {"prompt": request.english_prompt[:800]}
        if request.negative_prompt:
            prompt_input["negative_prompt"] = request.negative_prompt[:500]
        return {"model": self._settings.model, "input": prompt_input, "parameters": parameters}

    def submit(self, request: GenerationRequest) -> str:
        with redacting(self._settings.api_key):
            answer = self._call("POST", SUBMIT_PATH, json_body(self.request_body(request)), idempotent=False)
            if not 200 <= answer.status < 300:
                raise _error_from(answer, answer.json(), self._settings.api_key)
            with interpreting("dashscope submit answer"):
                document = answer.document()
                if document.get("code"):
                    raise _error_from(answer, document, self._settings.api_key)
                output = document.get("output")
                task_id = output.get("task_id") if isinstance(output, dict) else None
                return checked_task_id(task_id)

    def poll(self, provider_task_id: str) -> PollResult:
        with redacting(self._settings.api_key):
            task_path = TASK_PATH + urllib.parse.quote(checked_task_id(provider_task_id), safe="")
            answer = self._call("GET", task_path, None, idempotent=True)
            if not 200 <= answer.status < 300:
                raise _error_from(answer, answer.json(), self._settings.api_key)
            with interpreting("dashscope task answer"):
                return self._poll_result(answer.document())

    def _poll_result(self, document: dict[str, Any]) -> PollResult:
        output = document.get("output")
        if not isinstance(output, dict):
            raise invalid_response("task answer has no output object")
        status = output.get("task_status")
        request_id = document.get("request_id")
        if status in ("PENDING", "RUNNING"):
            return PollResult(PollStatus(status))
        if status == "SUCCEEDED":
            return PollResult(PollStatus.SUCCEEDED, self._result_from(output, document))
        if status == "FAILED":
            code = provider_code(output.get("code")) or "InternalError"
            message = str(output.get("message") or "task failed")
            raise ProviderError(code, f"dashscope: {message}"[:500], classify_dashscope(code), None,
                                request_id=str(request_id) if request_id else None, provider_task_over=True)
        if status == "CANCELED":
            raise ProviderError("provider_task_canceled", "dashscope task was canceled", C.EXPIRED)
        if status == "UNKNOWN":
            raise ProviderError("provider_task_unknown", "dashscope task unknown or expired (24 h)", C.EXPIRED)
        raise ProviderError("provider_answer_malformed", f"task_status {str(status)[:40]!r}", C.TRANSIENT)

    def _result_from(self, output: dict[str, Any], document: dict[str, Any]) -> ProviderResult:
        images: list[ProviderImage] = []
        failures: list[ImageFailure] = []
        first_download_error: ProviderError | None = None
        results = output.get("results") or []
        if not isinstance(results, list):
            raise invalid_response("results is not a list")
        for entry in results:
            if not isinstance(entry, dict):
                continue
            url = entry.get("url")
            if url:
                if not isinstance(url, str):
                    raise invalid_response("a result url is not a string")
                try:
                    downloaded = download_image(url, self._downloads)
                except ProviderError as exc:
                    first_download_error = first_download_error or exc
                    continue
                images.append(ProviderImage(downloaded.data, url, downloaded.content_type))
            elif provider_code(entry.get("code")):
                failures.append(ImageFailure(str(entry["code"])[:64], str(entry.get("message") or "")[:500]))
        if not images:
            error = _no_image_error(failures, first_download_error)
            # A download cut short is worth polling again (same URLs); anything else is final for this task.
            error.provider_task_over = error.error_class not in (C.TRANSIENT, C.RATE_LIMITED)
            raise error
        return ProviderResult(
            images=tuple(images),
            failures=tuple(failures),
            provider=self.name,
            request_id=str(document.get("request_id") or "")[:128] or None,
            details={"task_metrics": output.get("task_metrics"), "usage": document.get("usage")},
        )

    def _call(self, method: str, path: str, body: bytes | None, *, idempotent: bool) -> HttpAnswer:
        if not self._settings.api_key:
            raise ProviderError("api_key_missing", "no DashScope API key configured", C.CONFIG)
        headers = {"Authorization": f"Bearer {self._settings.api_key.reveal()}", "Accept": "application/json"}
        if body is not None:
            headers.update({"Content-Type": "application/json", "X-DashScope-Async": "enable"})
        return exchange(
            method,
            self._settings.base_url.rstrip("/") + path,
            headers=headers,
            body=body,
            timeouts=self._timeouts,
            idempotent=idempotent,
            max_body_bytes=_POLL_BODY_LIMIT,
        )


def _no_image_error(failures: list[ImageFailure], download_error: ProviderError | None) -> ProviderError:
    """Nothing usable came back: a download failure wins (it may be transient), else the first refusal."""
    if download_error is not None:
        return download_error
    if failures:
        first = failures[0]
        return ProviderError(first.code, f"dashscope: {first.message}"[:500], classify_dashscope(first.code))
    return ProviderError("result_empty", "SUCCEEDED without results", C.INVALID_REQUEST)


def checked_task_id(task_id: Any) -> str:
    """`task_id` if it has the shape of a DashScope task id; raises INVALID_RESPONSE otherwise (it never reaches a
    URL)."""
    if not isinstance(task_id, str) or not TASK_ID_SHAPE.fullmatch(task_id):
        raise invalid_response(f"not a task id: {str(task_id)[:40]!r}")
    return task_id


def _error_from(answer: HttpAnswer, document: Any, api_key: Secret) -> ProviderError:
    document = document if isinstance(document, dict) else {}
    code = provider_code(document.get("code"))
    message = str(document.get("message") or f"HTTP {answer.status}")
    status = answer.status if not 200 <= answer.status < 300 else 400
    error_class = classify_dashscope(code, status)
    request_id = document.get("request_id") or answer.request_id
    return error_from_http("dashscope", status, code, message, error_class, answer.headers,
                           str(request_id) if request_id else None, api_key)
