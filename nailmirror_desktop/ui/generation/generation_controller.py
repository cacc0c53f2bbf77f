"""The AI design flow (ARCHITECTURE.md §4): the customer's prompt becomes a STYLE_GENERATION task at once (one
small insert), the executor's task signals move the panel's progress, and a finished style is tried on.

The screen never waits on a provider. Task signals arrive through the bridge; once the executor shut down its
channel drops them, so nothing here checks for that.

One generation at a time per customer session (a session lasts until the idle reset): a generation is paid for,
and every way to ask for one (the button, Enter in the text box, whatever comes next) arrives at `generate`,
which refuses while this session's generation is still running or being tried on. The task also carries the
session's id as its `request_source_id`, so the engine itself answers a second submit from the same session with
the unfinished task instead of inserting another (ARCHITECTURE.md §7, idempotency).

After a design is ready the customer may ask for `EXTRA_VARIATIONS` more versions of it and pick one: the same
words in other main colours a customer tells apart (ΔE00 ≥ 10, core/generation/variations.py), each with its own
name and seed; they are queued only on that tap, because with a remote provider each one is paid for.

Before anything is queued the words are read (`prompt_reading`): an empty box, or words the parser finds no
colour, finish or pattern in, are refused with a sentence and words to try; nothing is queued for them.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from PySide6.QtCore import QObject

from nailmirror_desktop.core.generation.flow import default_seed, submit_generation
from nailmirror_desktop.core.generation.provider_config import ConfigError
from nailmirror_desktop.core.tasks import TaskEngine, TaskError
from nailmirror_desktop.ui.generation.generate_panel import GeneratePanel, StyleCard
from nailmirror_desktop.ui.generation.prompt_reading import PromptReading, read_prompt, suggested_words
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.messages import generation_error_text

TryOnInBackground = Callable[[str, Callable[[bool], None]], None]  # (style code, done(applied))
log = logging.getLogger(__name__)
EXTRA_VARIATIONS = 2  # with the first design, 3 to pick from
_VARIATIONS = "variations"  # self._active while the extra versions are being made
DescribeStyle = Callable[[str], StyleCard | None]  # style code → what the panel shows of it


class GenerationController(QObject):
    """Owns the generate panel; follows the one task this customer asked for."""

    def __init__(self, engine: TaskEngine | None, executor: TaskExecutor | None, provider: str,
                 try_on: TryOnInBackground, parent: QObject | None = None, *,
                 describe: DescribeStyle | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self._executor = executor
        self._provider = provider
        self._try_on = try_on
        self._describe = describe
        self._left_out: tuple[str, ...] = ()  # words of the followed prompt the parser did not understand
        self._last: tuple[str, str] | None = None  # (prompt, style code) of the design on show, for variations
        self._variations: set[str] = set()  # the extra versions' unfinished tasks
        self._pending_prompt = ""
        self._task: str | None = None  # the task whose signals this customer follows
        self._active: str | None = None  # this session's generation, from submit until tried on or failed
        self._session_id = uuid.uuid4().hex
        self.panel = GeneratePanel()
        self.panel.generate_requested.connect(self.generate)
        self.panel.more_requested.connect(self.more_variations)
        if executor is not None:
            executor.task_changed.connect(self._on_task_change)
            executor.task_progress.connect(self._on_task_progress)

    def start(self) -> None:
        if self._executor is not None:
            self._executor.start()

    def generate(self, text: str) -> str | None:
        """Queue a STYLE_GENERATION task and follow it; its task number, or None when refused (shown).

        The one submit path: while this session's generation is unfinished a second one is refused."""
        panel = self.panel
        if self._active is not None:
            panel.show_working(panel.progress.value() / 100, self.tr(
                "Still designing your nails: one design at a time. It will be ready soon."))
            return None
        reading = read_prompt(text)
        refusal = self._refusal(text, reading)
        if refusal:
            if reading.empty:  # the customer cleared the box: the old design's versions go with it
                self._last = None
                panel.clear_result()
            panel.show_error(refusal)
            return None
        if self._engine is None:
            panel.show_error(generation_error_text("CONFIG", "CONFIG"))
            return None
        try:
            task = submit_generation(self._engine, text, self._provider, request_source_id=self._session_id)
        except TaskError as exc:
            panel.show_error(generation_error_text(exc.code, exc.error_class.value))
            return None
        except ConfigError as exc:
            panel.show_error(generation_error_text(exc.code, "CONFIG"))
            return None
        self._task = self._active = task.task_no
        self._left_out = reading.not_understood
        self._last = None
        self._pending_prompt = text
        panel.show_working(0.05, self.tr("Sent! Designing your nails…"))
        return task.task_no

    def more_variations(self) -> list[str]:
        """Queue EXTRA_VARIATIONS more versions of the design on show; their task numbers ([] when refused)."""
        if self._active is not None or self._last is None or self._engine is None or not self.panel.offers_more():
            return []
        prompt, _code = self._last
        tasks = []
        for i in range(1, EXTRA_VARIATIONS + 1):
            try:
                task = submit_generation(self._engine, prompt, self._provider,
                                         seed=(default_seed(prompt) + i) & 0xFFFFFFFF, version=i,
                                         request_source_id=f"{self._session_id}:v{i}")
            except (TaskError, ConfigError) as exc:
                log.warning("variation not queued: %s", exc)
                break
            tasks.append(task.task_no)
        if not tasks:
            self.panel.show_error(generation_error_text(None))
            return []
        self._variations = set(tasks)
        self._active = _VARIATIONS
        self.panel.show_variations_working(self.tr("Making %1 more versions to pick from…").replace(
            "%1", str(len(tasks))))
        return tasks

    def _on_variation_change(self, task_no: str, status: str) -> None:
        if status not in ("SUCCESS", "DEAD", "CANCELED"):
            return
        self._variations.discard(task_no)
        task = self._engine.get(task_no) if self._engine is not None else None
        code = (task.result or {}).get("style_code", "") if task is not None and status == "SUCCESS" else ""
        card = self._card_of(code) if code else None
        if code:
            self.panel.add_variation(card or StyleCard(code, "", "", None))
        if not self._variations:
            self._active = None
            self.panel.show_variations_done()

    def _refusal(self, text: str, reading: PromptReading) -> str:
        """Why these words are not worth a generation ("" when they are)."""
        if reading.empty:
            return generation_error_text("EMPTY_PROMPT")
        if reading.understood_nothing:
            return self.tr("We could not find a colour, finish or pattern in “%1”. Try words like: %2").replace(
                "%1", text[:40]).replace("%2", self._word_list(suggested_words(i18n.current_language())))
        return ""

    def _left_out_note(self) -> str:
        if not self._left_out:
            return ""
        return self.tr("We did not understand “%1”, so it is not in this design. Words we know: %2").replace(
            "%1", self._word_list(self._left_out)).replace(
            "%2", self._word_list(suggested_words(i18n.current_language())[:3]))

    @staticmethod
    def _word_list(words: tuple[str, ...]) -> str:
        return (", " if i18n.current_language() == "en" else "、").join(words)

    def forget_customer(self) -> None:
        """The prompt, the progress and the task this customer was following; the next customer's session starts
        (their generation is not held up by this one's)."""
        self.panel.clear()
        self._task = self._active = None
        self._left_out = ()
        self._last = None
        self._variations = set()
        self._session_id = uuid.uuid4().hex

    def _on_task_change(self, task_no: str, status: str) -> None:
        if task_no in self._variations:
            self._on_variation_change(task_no, status)
            return
        if task_no != self._task or self._engine is None:
            return
        if status == "SUCCESS":
            self._task = None
            task = self._engine.get(task_no)
            self._on_generated(task_no, (task.result or {}).get("style_code", "") if task is not None else "")
        elif status in ("DEAD", "CANCELED"):
            self._task = self._active = None
            self.panel.show_error(self._error_text_of(task_no))
        elif status == "FAILED":
            self.panel.show_working(0.1, self._error_text_of(task_no) + "\n" + self.tr("Trying again…"))
        elif status == "PROCESSING":
            self.panel.show_working(0.15, self.tr("Designing your nails…"))

    def _on_generated(self, task_no: str, code: str) -> None:
        panel = self.panel
        if not code:
            self._active = None
            panel.show_error(generation_error_text(None))
            return

        def applied(ok: bool) -> None:
            if self._active != task_no:
                return  # the customer walked away meanwhile: the next one does not get this design
            self._active = None
            if ok:
                self._last = (self._pending_prompt, code)
                panel.show_result(code, self._card_of(code), self._left_out_note())
            else:
                panel.show_error(generation_error_text(None))

        self._try_on(code, applied)

    def _card_of(self, code: str) -> StyleCard | None:
        if self._describe is None:
            return None
        try:
            return self._describe(code)
        except Exception:  # noqa: BLE001 — a missing preview must not hide that the design is on the nails
            log.warning("style %s: no preview to show", code, exc_info=True)
            return None

    def _error_text_of(self, task_no: str) -> str:
        task = self._engine.get(task_no) if self._engine is not None else None
        if task is None:
            return generation_error_text(None)
        return generation_error_text(task.last_error_code, task.last_error_class)

    def _on_task_progress(self, task_no: str, fraction: float, note: str) -> None:
        if task_no == self._task:
            self.panel.show_working(fraction, self.tr("Designing your nails…"))
