"""DashScope Wan driver (async): submit with `X-DashScope-Async: enable`, poll `GET {base}/api/v1/tasks/{id}`.

Statuses (reference note §1b): PENDING, RUNNING → keep polling; SUCCEEDED → results (URLs valid 24 h, fetched
at once; some entries may be per-image refusals: a partial result); FAILED → classified by its code;
CANCELED and UNKNOWN (task id expired or from another region) → EXPIRED, i.e. resubmit.
A submit that timed out after sending is AMBIGUOUS (the task may exist; DashScope has no idempotency key).
Polls are plain GETs, so their transport failures are TRANSIENT.
"""

from __future__ import annotations

from typing import Any

from nailmirror_desktop.adapters.http.client import HttpAnswer, Timeouts, exchange, json_body
from nailmirror_desktop.adapters.http.download import DownloadPolicy, download_image
from nailmirror_desktop.core.generation.classify import classify_dashscope, error_from_http
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
        answer = self._call("POST", SUBMIT_PATH, json_body(self.request_body(request)), idempotent=False)
        document = answer.json() or {}
        if answer.status != 200 or document.get("code"):
            raise _error_from(answer, document, self._settings.api_key)
        task_id = (document.get("output") or {}).get("task_id")
        if not task_id:
            raise ProviderError("provider_answer_malformed", "submit answer has no output.task_id", C.TRANSIENT)
        return str(task_id)

    def poll(self, provider_task_id: str) -> PollResult:
        answer = self._call("GET", TASK_PATH + provider_task_id, None, idempotent=True)
        document = answer.json() or {}
        if answer.status != 200:
            raise _error_from(answer, document, self._settings.api_key)
        output = document.get("output") or {}
        status = output.get("task_status")
        if status in ("PENDING", "RUNNING"):
            return PollResult(PollStatus(status))
        if status == "SUCCEEDED":
            return PollResult(PollStatus.SUCCEEDED, self._result_from(output, document))
        if status == "FAILED":
            code = output.get("code") or "InternalError"
            message = str(output.get("message") or "task failed")
            raise ProviderError(code, f"dashscope: {message}"[:500], classify_dashscope(code), None,
                                request_id=document.get("request_id"), provider_task_over=True)
        if status == "CANCELED":
            raise ProviderError("provider_task_canceled", "dashscope task was canceled", C.EXPIRED)
        if status == "UNKNOWN":
            raise ProviderError("provider_task_unknown", "dashscope task unknown or expired (24 h)", C.EXPIRED)
        raise ProviderError("provider_answer_malformed", f"task_status {status!r}", C.TRANSIENT)

    def _result_from(self, output: dict[str, Any], document: dict[str, Any]) -> ProviderResult:
        images: list[ProviderImage] = []
        failures: list[ImageFailure] = []
        first_download_error: ProviderError | None = None
        for entry in output.get("results") or []:
            if not isinstance(entry, dict):
                continue
            if entry.get("url"):
                try:
                    downloaded = download_image(str(entry["url"]), self._downloads)
                except ProviderError as exc:
                    first_download_error = first_download_error or exc
                    continue
                images.append(ProviderImage(downloaded.data, entry["url"], downloaded.content_type))
            elif entry.get("code"):
                failures.append(ImageFailure(str(entry["code"]), str(entry.get("message") or "")))
        if not images:
            error = _no_image_error(failures, first_download_error)
            # A download cut short is worth polling again (same URLs); anything else is final for this task.
            error.provider_task_over = error.error_class not in (C.TRANSIENT, C.RATE_LIMITED)
            raise error
        return ProviderResult(
            images=tuple(images),
            failures=tuple(failures),
            provider=self.name,
            request_id=document.get("request_id"),
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


def _error_from(answer: HttpAnswer, document: dict[str, Any], api_key: Secret) -> ProviderError:
    code = document.get("code")
    message = str(document.get("message") or f"HTTP {answer.status}")
    status = answer.status if answer.status != 200 else 400
    error_class = classify_dashscope(code, status)
    return error_from_http("dashscope", status, code, message, error_class, answer.headers,
                           document.get("request_id") or answer.request_id, api_key)
