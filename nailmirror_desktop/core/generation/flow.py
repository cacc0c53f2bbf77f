"""The STYLE_GENERATION flow: a customer's prompt → a provider → a new DRAFT style with its assets.

Write order (ARCHITECTURE.md §7): the task row exists first; the provider is called; the style and its assets are
written in one transaction keyed by the task number (StyleRepository.create_ai_style is idempotent on it); the
engine then records the task result `{"style_code": …}`. A crash at any point is safe:
- before the provider answered: the task is retried (lease recovery);
- a paid request: that it is about to leave the machine is committed first (`ctx.mark_request_sent`); an attempt
  that finds the mark (its predecessor died after it may have sent) never sends again: it polls the provider task
  when the provider gave an id, and otherwise ends DEAD with OUTCOME_UNKNOWN (refunded, "may have been billed",
  sent again only by an operator's replay). One crash costs at most the one request, never a second bill;
- async provider: its task id is committed (`ctx.set_provider_task_id`) before anything else, so a retry or a
  restart resumes polling that provider task and never submits a second one while the first may be running;
- after the style was written but before the task result: the retry finds the style by task number first and
  returns it without calling the provider again (no second bill, no second style).

Every provider failure arrives classified (core/generation/provider_port.py) and becomes a TaskError of the same class;
the engine decides retry, wait, dead letter, breaker. Two exceptions, both about paid requests: an AMBIGUOUS
failure (a generation request was sent and its answer lost) is never sent again — the task ends DEAD with
OUTCOME_UNKNOWN and the transport's reason, since a sync provider has no job id to ask after and an async one's
id is exactly what was lost (polls of a known id are GETs, TRANSIENT, and do resume); and an attempt whose
StopSignal fired (`request_stop`, e.g. `generate --timeout`) ends at once, mid-request or mid-wait, with the
signal's code and reason (CANCELED: the stopper requests the cancel first).

Result images that are unusable (not an image, cut short, too small, blank or uniform) are dead at once with a
`result_*` code: the same provider task would return the same bytes, and a new generation is the customer's
call (it is billed again).

Paid providers cost credits (core/credits, ARCHITECTURE.md §14): when the engine carries the credit hooks for
STYLE_GENERATION, `submit_generation` pre-deducts in the task's insert transaction (a refusal — INSUFFICIENT_CREDITS,
DAILY_CAP_REACHED, SESSION_CAP_REACHED — raises CreditRefused and nothing is queued) and the engine settles in the
transaction that ends the task. The result's `delivered` says how many of the `variations` images arrived.

Image work (decoding, the quality screen, cutting nail textures from a swatch) needs OpenCV, so it is passed in
as `make_artwork` (adapters/providers/artwork.py); this module stays free of cv2.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nailmirror_desktop.core.catalog.content import StyleContent
from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.clock import Clock, to_ms
from nailmirror_desktop.core.credits.policy import CreditHooks
from nailmirror_desktop.core.credits.pricing import FREE_PROVIDERS
from nailmirror_desktop.core.generation.design import Design
from nailmirror_desktop.core.generation.naming import StyleNames, own_names
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.core.generation.prompt_writer import english_prompt
from nailmirror_desktop.core.generation.provider_config import PROVIDER_NAMES, ConfigError, PollSettings
from nailmirror_desktop.core.generation.provider_port import (
    OUTCOME_UNKNOWN,
    AsyncImageProvider,
    GenerationRequest,
    ImageProvider,
    ProviderError,
    ProviderErrorClass,
    ProviderResult,
    StopSignal,
    stoppable,
)
from nailmirror_desktop.core.generation.variations import vary_design
from nailmirror_desktop.core.tasks import ErrorClass, TaskContext, TaskEngine, TaskError
from nailmirror_desktop.core.tasks.errors import TaskCancelled
from nailmirror_desktop.core.tasks.models import Task

STYLE_GENERATION = "STYLE_GENERATION"
BIZ_TYPE = "STYLE"
ACTOR = "generation"
MAX_PROMPT_CHARS = 500
REQUEST_SIZE = (1024, 1024)
MAX_CODE_CHARS = 64
MAX_MESSAGE_CHARS = 500
MAX_VARIATIONS = 4
MAX_VERSION = 8  # versions of one design a customer may ask for
_STOP_CHECK_S = 0.25  # how often a wait between polls looks at the stop signal


@dataclass(frozen=True)
class Artwork:
    """What a provider result becomes: a style name, its encoded content and the design it realises."""

    name: str
    content: StyleContent
    refused_images: int = 0


ArtworkMaker = Callable[[ProviderResult, Design, int], Artwork]


@dataclass(frozen=True)
class GenerationServices:
    """What the handler needs from outside core: drivers, image work, the style repository, time.

    provider_for: provider name → driver (raises ConfigError for an unknown or unusable one).
    repository_for: the engine's per-thread connection → a StyleRepository with an asset store over it.
    clock: the engine's clock (polling sleeps on it, so tests with a ManualClock do not wait).
    """

    provider_for: Callable[[str], ImageProvider]
    make_artwork: ArtworkMaker
    repository_for: Callable[[sqlite3.Connection], StyleRepository]
    clock: Clock
    poll: PollSettings = PollSettings()


def generation_payload(prompt: str, provider: str, seed: int | None = None, variations: int = 1,
                       version: int = 0) -> dict[str, Any]:
    """The task payload: what was asked, and of whom. Never a key or a URL with credentials.

    `version`: 0 for the design as asked, n for its n-th version to choose between (core/generation/variations.py:
    another main colour, so the versions look apart and are named apart)."""
    payload: dict[str, Any] = {"prompt": prompt, "provider": provider}
    if seed is not None:
        payload["seed"] = int(seed)
    if variations != 1:
        payload["variations"] = int(variations)
    if version:
        payload["version"] = int(version)
    return payload


def submit_generation(
    engine: TaskEngine,
    prompt: str,
    provider: str,
    *,
    seed: int | None = None,
    request_source: str = "kiosk",
    request_source_id: str | None = None,
    max_attempts: int | None = None,
    variations: int = 1,
    session_id: str | None = None,
    version: int = 0,
) -> Task:
    """Queue one generation. The task's provider column drives the engine's per-provider breaker.

    A paid provider is charged in the insert's transaction when the engine has the credit hooks (CreditHooks)
    for STYLE_GENERATION: `session_id` is the customer session its session cap counts (default: the kiosk's
    `request_source_id`, which is its session; the command line has none). Raises CreditRefused (nothing queued)."""
    if provider not in PROVIDER_NAMES:
        raise ConfigError("provider_unknown", f"unknown provider {provider!r}")
    if not 1 <= variations <= MAX_VARIATIONS:
        raise ConfigError("variations_invalid", f"variations must be 1 to {MAX_VARIATIONS}")
    if not 0 <= version <= MAX_VERSION:
        raise ConfigError("version_invalid", f"version must be 0 to {MAX_VERSION}")
    on_insert = None
    credits = engine.hooks_for(STYLE_GENERATION)
    if isinstance(credits, CreditHooks):
        on_insert = credits.on_insert(
            provider, variations=variations, request_source=request_source, now_ms=to_ms(engine.clock.now()),
            session_id=session_id if session_id is not None or request_source == "cli" else request_source_id)
    return engine.submit(
        STYLE_GENERATION,
        generation_payload(prompt, provider, seed, variations, version),
        biz_type=BIZ_TYPE,
        request_source=request_source,
        request_source_id=request_source_id,
        max_attempts=max_attempts,
        provider=provider,
        on_insert=on_insert,
    )


def default_seed(text: str) -> int:
    """A stable seed from the prompt text (Python's hash() is salted per process)."""
    return zlib.crc32(text.strip().encode("utf-8"))


def make_generation_handler(services: GenerationServices) -> Callable[[TaskContext], dict[str, Any]]:
    def handle_style_generation(ctx: TaskContext) -> dict[str, Any]:
        return run_generation(ctx, services)

    return handle_style_generation


def run_generation(ctx: TaskContext, services: GenerationServices) -> dict[str, Any]:
    prompt, provider_name, seed, variations, version = _read_payload(ctx.payload)
    repository = services.repository_for(ctx.connection)
    existing = repository.find_by_origin_task(ctx.task.task_no)
    if existing is not None:  # crashed after the style was written: finish without a second provider call
        ctx.link_business(existing.id)
        # What arrived is not known any more; the style proves the provider delivered: all is paid for.
        return _task_result(existing.style_code, provider_name, refused_images=0, resumed=True)

    if ctx.task.request_sent_at is not None and ctx.task.provider_task_id is None:
        raise TaskError(OUTCOME_UNKNOWN, "the kiosk stopped while a paid request was being sent; it may have been"
                        " carried out and billed: not sent again", ErrorClass.INVALID_REQUEST)
    design = vary_design(parse_prompt(prompt), version)
    request = GenerationRequest(english_prompt(design), prompt, REQUEST_SIZE, variations, seed, version=version)
    with stoppable(ctx.task_no) as stop:
        try:
            _raise_if_stopped(ctx, stop)  # a cancel requested before the signal was registered
            provider = services.provider_for(provider_name)
            result = _obtain_result(ctx, provider, request, services, stop)
            ctx.report_progress(0.85, "making_textures")
            try:
                artwork = services.make_artwork(result, design, seed)
            except ProviderError as error:
                error.provider_task_over = True  # the provider task delivered; its images are what they are
                raise
            except StyleError as error:  # content the style domain refuses: retrying makes the same content
                raise TaskError(error.code, error.detail or error.code, ErrorClass.INVALID_REQUEST) from error
        except ProviderError as error:
            if stop.fired:  # the request was cut by the stop: that, not the transport's complaint, is the outcome
                raise _stopped(ctx, stop) from error
            if error.provider_task_over and ctx.task.provider_task_id is not None:
                _forget_provider_task(ctx)
            raise _task_error(error) from error
        except ConfigError as error:
            raise TaskError(error.code, str(error), ErrorClass.CONFIG) from error

    names = own_names(design, lambda candidate: _name_taken(repository, candidate))
    try:
        style, _created = repository.create_ai_style(
            ctx.task.task_no,
            name=names.zh or artwork.name,
            name_en=names.en,
            content=artwork.content,
            actor=ACTOR,
            prompt=prompt,
            design_json=json.dumps(design.to_dict(), ensure_ascii=False),
        )
    except StyleError as error:  # e.g. an image the asset store refused: the answer is unusable
        raise TaskError(error.code, error.detail or error.code, ErrorClass.INVALID_REQUEST) from error
    ctx.link_business(style.id)
    return _task_result(style.style_code, provider_name, refused_images=artwork.refused_images,
                        delivered=min(variations, len(result.images)) if result.rendered is None else variations)


def _name_taken(repository: StyleRepository, names: StyleNames) -> bool:
    return repository.name_in_use(names.zh, names.en)


def _read_payload(payload: dict[str, Any]) -> tuple[str, str, int, int, int]:
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskError("prompt_empty", "payload has no prompt", ErrorClass.INVALID_REQUEST)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise TaskError("prompt_too_long", f"prompt longer than {MAX_PROMPT_CHARS}", ErrorClass.INVALID_REQUEST)
    provider = payload.get("provider")
    if provider not in PROVIDER_NAMES:
        raise TaskError("provider_unknown", f"provider {provider!r}", ErrorClass.INVALID_REQUEST)
    seed = payload.get("seed")
    variations = payload.get("variations", 1)
    if isinstance(variations, bool) or not isinstance(variations, int) or not 1 <= variations <= MAX_VARIATIONS:
        raise TaskError("variations_invalid", f"variations {variations!r}", ErrorClass.INVALID_REQUEST)
    version = payload.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= MAX_VERSION:
        raise TaskError("version_invalid", f"version {version!r}", ErrorClass.INVALID_REQUEST)
    return prompt, provider, default_seed(prompt) if seed is None else int(seed), variations, version


def _task_result(style_code: str, provider: str, *, refused_images: int, resumed: bool = False,
                 delivered: int | None = None) -> dict[str, Any]:
    """`delivered`: the images that arrived, what the credit hooks confirm (absent: all that were asked for)."""
    result: dict[str, Any] = {"style_code": style_code, "provider": provider}
    if delivered is not None:
        result["delivered"] = delivered
    if refused_images:
        result["refused_images"] = refused_images
    if resumed:
        result["resumed"] = True
    return result


def _forget_provider_task(ctx: TaskContext) -> None:
    """The provider task ended without a usable result: the next attempt (or a replay) must submit anew.

    The engine clears the id itself only for EXPIRED; a FAILED provider task with a transient code is retried
    as TRANSIENT (its history says so) but must not be polled again.
    """
    ctx.clear_provider_task_id()


def _task_error(error: ProviderError) -> TaskError:
    code, message = str(error.code)[:MAX_CODE_CHARS], str(error.message)[:MAX_MESSAGE_CHARS]
    if error.error_class is ProviderErrorClass.AMBIGUOUS:
        why = f"{code}: {message}; sent, and may have been carried out and billed: not sent again"
        return TaskError(OUTCOME_UNKNOWN, why[:MAX_MESSAGE_CHARS], ErrorClass.INVALID_REQUEST)
    return TaskError(code, message, ErrorClass[error.error_class.name], error.retry_after_s)


def _stopped(ctx: TaskContext, stop: StopSignal) -> Exception:
    """The error that ends an attempt whose stop signal fired: with its code and reason when the task's cancel is
    recorded (the engine then makes it CANCELED), else a plain cancel."""
    if ctx.is_cancelled():
        return TaskError(stop.code[:MAX_CODE_CHARS] or "STOPPED", stop.reason[:MAX_MESSAGE_CHARS], ErrorClass.TRANSIENT)
    return TaskCancelled(ctx.task_no)


def _raise_if_stopped(ctx: TaskContext, stop: StopSignal) -> None:
    if stop.fired:
        raise _stopped(ctx, stop)
    ctx.raise_if_cancelled()


def _sleep(clock: Clock, seconds: float, stop: StopSignal) -> None:
    """Wait `seconds` on the engine's clock, in short steps, so a stop ends the wait at once."""
    left = seconds
    while left > 0 and not stop.fired:
        step = min(_STOP_CHECK_S, left)
        clock.sleep(step)
        left -= step


def _obtain_result(
    ctx: TaskContext, provider: ImageProvider, request: GenerationRequest, services: GenerationServices,
    stop: StopSignal,
) -> ProviderResult:
    paid = ctx.payload.get("provider") not in FREE_PROVIDERS
    if not isinstance(provider, AsyncImageProvider) or not provider.is_async:
        ctx.report_progress(0.1, "generating")
        if paid:
            ctx.mark_request_sent()
        return provider.generate(request)  # type: ignore[union-attr]
    provider_task_id = ctx.task.provider_task_id
    resumed = provider_task_id is not None
    if provider_task_id is None:
        if paid:
            ctx.mark_request_sent()
        provider_task_id = provider.submit(request)
        ctx.set_provider_task_id(provider_task_id)  # committed before anything else can go wrong
    ctx.report_progress(0.1, "submitted")
    return _poll_until_done(ctx, provider, provider_task_id, services, stop, poll_at_once=resumed)


def _poll_until_done(
    ctx: TaskContext,
    provider: AsyncImageProvider,
    provider_task_id: str,
    services: GenerationServices,
    stop: StopSignal,
    *,
    poll_at_once: bool,
) -> ProviderResult:
    """Poll with a growing interval until the provider finishes; past the deadline the attempt ends TRANSIENT
    with the provider task id kept, so the next attempt resumes polling the same provider task."""
    clock, settings = services.clock, services.poll
    started = clock.now()
    for polls, wait in enumerate(settings.intervals()):
        if not (poll_at_once and polls == 0):
            _sleep(clock, wait, stop)
        _raise_if_stopped(ctx, stop)
        if not ctx.heartbeat():
            raise TaskError("LEASE_LOST", "lease lost while polling", ErrorClass.TRANSIENT)
        polled = provider.poll(provider_task_id)
        if polled.finished and polled.result is not None:
            return polled.result
        elapsed = clock.now() - started
        ctx.report_progress(0.1 + 0.7 * min(1.0, elapsed / settings.deadline_s), polled.status.value.lower())
        if elapsed >= settings.deadline_s:
            raise TaskError("provider_poll_timeout", f"still {polled.status.value} after {elapsed:.0f} s",
                            ErrorClass.TRANSIENT)
    raise AssertionError("unreachable: intervals() never ends")
