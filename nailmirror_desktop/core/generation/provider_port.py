"""The image-provider port: what the generation flow asks of any provider, and how every failure is classified.

Two shapes of provider exist (ARCHITECTURE.md §9): synchronous ones answer one call with the
images (OpenAI Images, the offline renderer); asynchronous ones take a submission, return a provider task id,
and are polled until they finish (DashScope Wan). Drivers live in `adapters/providers/`; this module holds no I/O.

Every failure a driver sees becomes a `ProviderError` whose `error_class` decides what the task engine does
next (ARCHITECTURE.md §7 and §9). Codes are stable strings the UI translates; messages are for logs.
"""

from __future__ import annotations

import contextvars
import enum
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# A 2xx answer that cannot be parsed or is absurd (not JSON, invalid UTF-8, nesting too deep, numbers thousands of
# digits long, a body without end, an id that is no id): dead, and a paid request is never sent again for it.
INVALID_RESPONSE = "INVALID_RESPONSE"
# A request that cannot be safely repeated was sent and its answer was lost (timeout, reset): it may have been
# carried out and billed, and with no job id to ask after, the attempt gives up instead of sending it again.
OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"


class ProviderErrorClass(enum.Enum):
    """What a failure means for the task (reference note §2). Names match the task engine's ErrorClass."""

    TRANSIENT = "TRANSIENT"  # retry with backoff, burns an attempt
    RATE_LIMITED = "RATE_LIMITED"  # retry after Retry-After, no attempt burnt
    CONTENT_REJECTED = "CONTENT_REJECTED"  # dead at once; the customer should rephrase
    CONFIG = "CONFIG"  # key, account, quota, model: dead, trips the provider's breaker
    INVALID_REQUEST = "INVALID_REQUEST"  # dead: a bug or bad input, or an unusable answer
    AMBIGUOUS = "AMBIGUOUS"  # sent, then no answer: the flow never re-sends it (OUTCOME_UNKNOWN, dead)
    EXPIRED = "EXPIRED"  # the provider forgot the task or its result URL: resubmit


class ProviderError(Exception):
    """A classified provider failure. `code` is a stable machine code (provider code where there is one)."""

    def __init__(
        self,
        code: str,
        message: str,
        error_class: ProviderErrorClass,
        retry_after_s: float | None = None,
        *,
        http_status: int | None = None,
        request_id: str | None = None,
        provider_task_over: bool = False,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.error_class = error_class
        self.retry_after_s = retry_after_s
        self.http_status = http_status
        self.request_id = request_id
        # True when the async provider task this came from has ended (FAILED, or SUCCEEDED with nothing usable):
        # polling it again cannot help, so its id must be forgotten and the next attempt must resubmit.
        self.provider_task_over = provider_task_over

    def __repr__(self) -> str:
        return f"ProviderError({self.code!r}, {self.error_class.name}, http_status={self.http_status})"


@dataclass(frozen=True)
class GenerationRequest:
    """One generation. `english_prompt` goes to remote models; `original_text` is what the customer typed.

    size: (width, height) in pixels; n: images wanted (the flow uses the first usable one); seed: None lets the
    provider choose; version: a provider that reads `original_text` itself paints this version of it.
    """

    english_prompt: str
    original_text: str
    size: tuple[int, int] = (1024, 1024)
    n: int = 1
    seed: int | None = None
    negative_prompt: str = ""
    version: int = 0  # which version of the design (core/generation/variations.py); 0: as asked


@dataclass(frozen=True)
class ProviderImage:
    """One result image: the encoded bytes once fetched, and the URL it came from (if any)."""

    data: bytes | None = None
    url: str | None = None
    content_type: str | None = None


@dataclass(frozen=True)
class ImageFailure:
    """One image of a partial result that the provider refused or lost (e.g. DashScope `DataInspectionFailed`)."""

    code: str
    message: str = ""


@dataclass(frozen=True)
class ProviderResult:
    """What a provider produced.

    images: fetched images (bytes filled in; remote drivers download URLs before returning).
    failures: per-image refusals in a partial result.
    rendered: the offline renderer's ready nail textures (artwork.render.RenderedStyle), None for remote ones.
    """

    images: tuple[ProviderImage, ...] = ()
    failures: tuple[ImageFailure, ...] = ()
    rendered: Any = None
    provider: str = ""
    request_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class PollStatus(enum.Enum):
    """Where an async provider task is. FAILED/CANCELED/UNKNOWN never come back here: poll raises instead."""

    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"


@dataclass(frozen=True)
class PollResult:
    status: PollStatus
    result: ProviderResult | None = None  # set when SUCCEEDED

    @property
    def finished(self) -> bool:
        return self.status is PollStatus.SUCCEEDED


@runtime_checkable
class SyncImageProvider(Protocol):
    """One blocking call returns the images. A timeout after sending is AMBIGUOUS (possibly billed)."""

    name: str
    is_async: bool  # False

    def generate(self, request: GenerationRequest) -> ProviderResult: ...


@runtime_checkable
class AsyncImageProvider(Protocol):
    """Submit returns the provider's task id (persist it before anything else); poll until it finishes.

    poll raises ProviderError for FAILED (classified by its code), CANCELED and UNKNOWN (EXPIRED: resubmit).
    """

    name: str
    is_async: bool  # True

    def submit(self, request: GenerationRequest) -> str: ...

    def poll(self, provider_task_id: str) -> PollResult: ...


ImageProvider = SyncImageProvider | AsyncImageProvider


class StopSignal:
    """Cuts the provider calls of one running attempt at once, from any thread (`stop`): a blocked read returns,
    a wait between polls ends. `code` and `reason` say why; the flow ends the task CANCELED with them (the caller
    requests the cancel in the task engine first, so the outcome is durable)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self.code = ""
        self.reason = ""

    @property
    def fired(self) -> bool:
        return self._event.is_set()

    def stop(self, code: str, reason: str) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self.code, self.reason = code, reason
            self._event.set()
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback()

    def on_stop(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` when the signal fires (at once if it has); returns the function that unregisters it."""
        with self._lock:
            fired = self._event.is_set()
            if not fired:
                self._callbacks.append(callback)
        if fired:
            callback()

        def unregister() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return unregister

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds` of real time; True as soon as the signal fires."""
        return self._event.wait(max(0.0, seconds))


_current_stop: contextvars.ContextVar[StopSignal | None] = contextvars.ContextVar("provider_stop", default=None)
_running_stops: dict[str, StopSignal] = {}
_running_lock = threading.Lock()


@contextmanager
def stoppable(task_no: str) -> Iterator[StopSignal]:
    """The provider calls made inside run under a StopSignal that `request_stop(task_no, …)` fires (this thread's
    HTTP exchanges find it through `current_stop()`)."""
    signal = StopSignal()
    with _running_lock:
        _running_stops[task_no] = signal
    token = _current_stop.set(signal)
    try:
        yield signal
    finally:
        _current_stop.reset(token)
        with _running_lock:
            if _running_stops.get(task_no) is signal:
                del _running_stops[task_no]


def request_stop(task_no: str, code: str, reason: str) -> bool:
    """Fire the StopSignal of `task_no`'s running attempt in this process; False when none is running here."""
    with _running_lock:
        signal = _running_stops.get(task_no)
    if signal is None:
        return False
    signal.stop(code, reason)
    return True


def current_stop() -> StopSignal | None:
    """The StopSignal of the attempt running on this thread, if any."""
    return _current_stop.get()
