"""OpenAI Images driver (sync): `POST {base}/v1/images/generations`, images back as `b64_json`.

No SDK, so no hidden retries: one call per attempt, the task engine owns retries (reference note §1a, §2).
GPT image models always answer base64 and reject `response_format`; dall-e models need it set.
A read timeout or reset after the request was sent is AMBIGUOUS: the image may be generated and billed (the
flow then gives up instead of sending it again). A 200 whose body is not a sane JSON object, or whose images are
not where the API puts them, is INVALID_RESPONSE. Every error leaves here with the key cut out of every field.
"""

from __future__ import annotations

import base64
import binascii
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
from nailmirror_desktop.adapters.providers.image_bytes import inspect_image
from nailmirror_desktop.core.generation.classify import classify_openai, error_from_http, provider_code, redacting
from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, Secret
from nailmirror_desktop.core.generation.provider_port import (
    GenerationRequest,
    ProviderError,
    ProviderImage,
    ProviderResult,
)
from nailmirror_desktop.core.generation.provider_port import (
    ProviderErrorClass as C,
)

GENERATIONS_PATH = "/v1/images/generations"


class OpenAIImagesProvider:
    name = "openai"
    is_async = False

    def __init__(self, settings: RemoteProviderSettings, *, timeouts: Timeouts, max_bytes: int) -> None:
        self._settings = settings
        self._timeouts = timeouts
        self._max_bytes = max_bytes
        self._downloads = DownloadPolicy.for_base_url(settings.base_url, max_bytes=max_bytes, timeouts=timeouts)

    def __repr__(self) -> str:
        return f"OpenAIImagesProvider(base_url={self._settings.base_url!r}, model={self._settings.model!r})"

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._settings.model,  # always explicit: the default model is dall-e-2
            "prompt": request.english_prompt,
            "n": request.n,
            "size": f"{request.size[0]}x{request.size[1]}",
        }
        if self._settings.model.startswith("dall-e"):
            body["response_format"] = "b64_json"
        else:
            body.update({"quality": "medium", "output_format": "png", "moderation": "auto"})
        return body

    def generate(self, request: GenerationRequest) -> ProviderResult:
        with redacting(self._settings.api_key):
            return self._generate(request)

    def _generate(self, request: GenerationRequest) -> ProviderResult:
        if not self._settings.api_key:
            raise ProviderError("api_key_missing", "no OpenAI API key configured", C.CONFIG)
        answer = exchange(
            "POST",
            self._settings.base_url.rstrip("/") + GENERATIONS_PATH,
            headers={
                "Authorization": f"Bearer {self._settings.api_key.reveal()}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
            body=json_body(self.request_body(request)),
            timeouts=self._timeouts,
            idempotent=False,
            max_body_bytes=self._max_bytes * 2,  # base64 is 4/3 of the image, plus JSON
        )
        if not 200 <= answer.status < 300:
            document = answer.json()
            error = document.get("error") if isinstance(document, dict) else None
            raise _error_from(answer, error, self._settings.api_key)
        with interpreting("openai answer"):
            return self._result_from(answer)

    def _result_from(self, answer: HttpAnswer) -> ProviderResult:
        document = answer.document()
        error = document.get("error")
        if error:  # "sometimes 403 or even 200-with-error-field" (§1a)
            raise _error_from(answer, error, self._settings.api_key)
        return ProviderResult(
            images=tuple(self._image_from(item) for item in _data_items(document)),
            provider=self.name,
            request_id=answer.request_id,
            details={"usage": document.get("usage"), "created": document.get("created")},
        )

    def _image_from(self, item: dict[str, Any]) -> ProviderImage:
        b64, url = item.get("b64_json"), item.get("url")
        if b64:
            if not isinstance(b64, str):
                raise invalid_response("b64_json is not a string")
            try:
                data = base64.b64decode(b64, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ProviderError("result_undecodable", "b64_json is not base64", C.INVALID_REQUEST) from exc
            info = inspect_image(data)
            return ProviderImage(data=data, content_type=f"image/{info.format.lower()}")
        if url:  # dall-e with response_format=url: valid 60 min, fetch now
            if not isinstance(url, str):
                raise invalid_response("url is not a string")
            downloaded = download_image(url, self._downloads)
            return ProviderImage(data=downloaded.data, url=url, content_type=downloaded.content_type)
        raise ProviderError("result_empty", "a data item has neither b64_json nor url", C.INVALID_REQUEST)


def _data_items(document: dict[str, Any]) -> list[dict[str, Any]]:
    items = document.get("data")
    if not isinstance(items, list) or not items:
        raise ProviderError("result_empty", "answer has no data[]", C.INVALID_REQUEST)
    usable = [item for item in items if isinstance(item, dict)]
    if not usable:
        raise invalid_response("data[] holds no objects")
    return usable


def _error_from(answer: HttpAnswer, error: Any, api_key: Secret) -> ProviderError:
    error = error if isinstance(error, dict) else {}
    code = provider_code(error.get("code")) or provider_code(error.get("type"))
    status = answer.status if not 200 <= answer.status < 300 else 400
    message = str(error.get("message") or f"HTTP {answer.status}")
    error_class = classify_openai(status, code)
    return error_from_http("openai", status, code, message, error_class, answer.headers, answer.request_id, api_key)
