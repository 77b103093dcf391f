"""Provides the summarizer: the OpenAI-compatible chat backend, error mapping, cache and opt-in.

This is the only module that imports `openai`. It talks to any OpenAI-compatible endpoint (OpenAI,
DeepSeek, Ollama, vLLM, llama.cpp, …) and never logs or prints an API key.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from smig_tui.adapters.storage.summary_cache import SummaryCache
from smig_tui.adapters.summarizer_config import (
    SummarizerConfig,
    key_problem,
)
from smig_tui.core.errors import (
    AuthError,
    Hint,
    NoApiKeyError,
    ProviderUnavailableError,
    RateLimitError,
    SummaryCancelledError,
    SummaryConsentError,
    SummaryError,
    SummaryModelNotFoundError,
)
from smig_tui.core.models import Message
from smig_tui.core.ports import ChatReply
from smig_tui.core.redact import redact
from smig_tui.core.summary import (
    DEFAULT_TARGET_CHARS,
    SummaryJob,
    SummaryResult,
    describe_redactions,
    estimate_tokens,
    plan_summary_job,
    run_summary,
)
from smig_tui.core.words import one_line


def _one_line(text: str, width: int = 200) -> str:
    """Flatten and redact provider text before it goes into an error message."""
    return one_line(redact(text).text, width)


def _status_detail(error: openai.APIStatusError) -> str:
    """The provider's own explanation, without the client's `Error code: N -` prefix."""
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    message = body.get("message") if isinstance(body, dict) else None
    text = str(message or error.message or "no details")
    if text.startswith("Error code:"):
        text = text.split(" - ", 1)[-1]
    return _one_line(text, 160).rstrip(".")


def map_error(error: openai.OpenAIError, config: SummarizerConfig) -> SummaryError:
    """Turn a client exception into the SummaryError a user can act on, in one sentence."""
    where = _one_line(config.base_url)
    if isinstance(error, openai.APITimeoutError):
        return ProviderUnavailableError(
            f"{config.label} at {where} did not answer within {config.timeout:g} s; "
            "try again or raise [summarizer] timeout."
        )
    if isinstance(error, openai.APIConnectionError):
        return ProviderUnavailableError(
            f"Cannot reach the summarizer at {where}; check the URL and that the server is running."
        )
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        source = f"from {config.api_key_env}" if config.api_key_env else "(none was sent)"
        return AuthError(
            f"{config.provider} rejected the API key {source} (HTTP {error.status_code}); "
            f"check the key and its access to {config.model}."
        )
    if isinstance(error, openai.NotFoundError):
        hint = f" (for Ollama: `ollama pull {config.model}`)" if config.is_local else ""
        return SummaryModelNotFoundError(
            f"Model {config.model!r} was not found at {where} (HTTP 404){hint}; another goes in [summarizer] model.",
            hint=Hint.SUMMARIZER_MODEL,
        )
    if isinstance(error, openai.RateLimitError):
        return RateLimitError(
            f"{config.provider} is rate-limiting requests (HTTP 429) after "
            f"{config.max_retries} retries; wait and try again, or check your quota."
        )
    if isinstance(error, openai.APIStatusError):
        detail = _status_detail(error)
        if error.status_code >= 500:
            return ProviderUnavailableError(
                f"{config.provider} failed with HTTP {error.status_code} after {config.max_retries} retries ({detail})."
            )
        return SummaryError(f"{config.provider} refused the request with HTTP {error.status_code} ({detail}).")
    return SummaryError(f"The summarizer failed: {_one_line(str(error), 160)}")


_DONE = object()
"""Marks the end of a streamed reply in the helper thread's queue."""
_CANCEL_POLL = 0.05
"""How often (seconds) a wait for the next chunk checks `cancel`."""


def _next_item(items: queue.Queue[Any], cancel: threading.Event | None) -> Any:
    """Return the next chunk, error or `_DONE`; raise SummaryCancelledError once `cancel` is set."""
    while True:
        if cancel is not None and cancel.is_set():
            raise SummaryCancelledError("The summary was cancelled.")
        try:
            return items.get(timeout=_CANCEL_POLL if cancel is not None else None)
        except queue.Empty:
            continue


class OpenAIChatBackend:
    """A `ChatBackend` on the real `openai.OpenAI` client (any OpenAI-compatible server)."""

    def __init__(self, config: SummarizerConfig, *, stream: bool = True) -> None:
        problem = key_problem(config)
        if problem:
            raise NoApiKeyError(problem)
        self.config = config
        self.stream = stream
        self._client = openai.OpenAI(
            api_key=config.api_key or "no-key-needed",
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        max_output_tokens: int,
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> ChatReply:
        """Send one chat request and return the reply, streamed and cancellable between chunks."""
        cap = "max_completion_tokens" if self.config.provider == "openai" else "max_tokens"
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            cap: max_output_tokens,
        }
        try:
            if self.stream:
                return self._streamed(request, on_delta, cancel)
            response = self._client.chat.completions.create(**request)
        except openai.OpenAIError as error:
            raise map_error(error, self.config) from None
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        if on_delta and text:
            on_delta(text)
        return self._reply(text, choice.finish_reason if choice else None)

    def _streamed(
        self,
        request: dict[str, Any],
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> ChatReply:
        """Read a streamed reply piece by piece; `cancel` stops it at once, even mid-wait.

        The HTTP read runs in a helper thread, because a read blocked on a silent server cannot be
        interrupted from outside: on cancel this returns straight away, and the helper closes the
        stream when its read returns (bounded by `timeout`).
        """
        pieces: list[str] = []
        finish: str | None = None
        items: queue.Queue[Any] = queue.Queue()
        abandon = threading.Event()
        threading.Thread(target=self._pump, args=(request, items, abandon), daemon=True).start()
        try:
            while (item := _next_item(items, cancel)) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                for choice in item.choices:
                    finish = choice.finish_reason or finish
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        pieces.append(piece)
                        if on_delta:
                            on_delta(piece)
        finally:
            abandon.set()
        return self._reply("".join(pieces), finish)

    def _pump(self, request: dict[str, Any], items: queue.Queue[Any], abandon: threading.Event) -> None:
        """Move stream chunks (or the error that ended it) into `items`, until told to stop."""
        try:
            with self._client.chat.completions.create(**request, stream=True) as stream:
                for chunk in stream:
                    if abandon.is_set():
                        return
                    items.put(chunk)
        except Exception as error:
            items.put(error)
        finally:
            items.put(_DONE)

    def _reply(self, text: str, finish: str | None) -> ChatReply:
        """Check a reply is usable."""
        if not text.strip():
            raise SummaryError(f"{self.config.label} returned an empty reply; try another model.")
        # No finish reason means the stream ended early (a dropped connection): flag it like a cut.
        return ChatReply(text=text, truncated=finish in ("length", None))


@dataclass(frozen=True, slots=True)
class SummaryPreview:
    """What a summary would send, before anything is sent."""

    provider: str
    model: str
    base_url: str
    message_count: int
    requests: int
    """Map requests plus the reduce (1 when the transcript fits one request)."""
    tokens: int
    """Estimated transcript tokens sent."""
    redactions: dict[str, int]
    cached: bool
    """A summary for exactly this content is cached: nothing would be sent."""
    problem: str | None = None
    """Why sending cannot work as configured (the NoApiKeyError sentence), for an opt-in screen."""

    def describe(self, verb: str = "Would send") -> str:
        """One sentence for an opt-in prompt; `verb` says how the sending is told (`sending` once it starts)."""
        if self.cached:
            return (
                f"A cached summary by {self.provider}/{self.model} exists; nothing will be sent "
                f"({describe_redactions(self.redactions)})."
            )
        parts = f"in {self.requests} requests" if self.requests > 1 else "in 1 request"
        return (
            f"{verb} ~{self.tokens:,} tokens of {self.message_count} messages {parts} to "
            f"{self.provider}/{self.model} at {_one_line(self.base_url)}; "
            f"{describe_redactions(self.redactions)}."
        )


BackendFactory = Callable[[SummarizerConfig], Any]


class Summarizer:
    """Plans, previews and writes summaries, with the cache in front and the opt-in enforced."""

    def __init__(
        self,
        config: SummarizerConfig,
        cache: SummaryCache | None = None,
        *,
        backend_factory: BackendFactory = OpenAIChatBackend,
        count: Callable[[str], int] = estimate_tokens,
    ) -> None:
        self.config = config
        self.cache = cache
        self._backend_factory = backend_factory
        self._count = count

    def plan(
        self,
        messages: Sequence[Message],
        *,
        target_chars: int = DEFAULT_TARGET_CHARS,
        head_only: bool = False,
    ) -> SummaryJob:
        """Render, redact and chunk `messages` for this summarizer's window."""
        return plan_summary_job(
            messages,
            context_window=self.config.context_window,
            target_chars=target_chars,
            head_only=head_only,
            count=self._count,
        )

    def preview(
        self,
        messages: Sequence[Message],
        *,
        target_chars: int = DEFAULT_TARGET_CHARS,
        head_only: bool = False,
        use_cache: bool = True,
    ) -> SummaryPreview:
        """Say what `summarize` would send (requests, tokens, redactions), sending nothing."""
        job = self.plan(messages, target_chars=target_chars, head_only=head_only)
        return self._preview_of(job, use_cache and self._cached(job) is not None)

    def _preview_of(self, job: SummaryJob, cached: bool) -> SummaryPreview:
        """Describe a planned job."""
        requests = 1 if len(job.chunks) <= 1 else len(job.chunks) + 1
        return SummaryPreview(
            self.config.provider,
            self.config.model,
            self.config.base_url,
            job.message_count,
            requests,
            job.tokens,
            job.redactions,
            cached,
            None if cached else key_problem(self.config),
        )

    def _cached(self, job: SummaryJob) -> SummaryResult | None:
        """Return the cached result for a job, if any."""
        if self.cache is None:
            return None
        return self.cache.get(job.cache_key(self.config.provider, self.config.model))

    def summarize(
        self,
        messages: Sequence[Message],
        *,
        target_chars: int = DEFAULT_TARGET_CHARS,
        head_only: bool = False,
        on_delta: Callable[[str], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        allow_network: bool = False,
        use_cache: bool = True,
    ) -> SummaryResult:
        """Write (or fetch from cache) the handoff summary; sends nothing unless `allow_network`."""
        job = self.plan(messages, target_chars=target_chars, head_only=head_only)
        cached = self._cached(job) if use_cache else None
        if cached is not None:
            if on_delta:
                on_delta(cached.text)
            return cached
        if not allow_network:
            raise SummaryConsentError(
                "Summarising sends the conversation to a model provider. "
                f"{self._preview_of(job, cached=False).describe().rstrip('.')}.",
                hint=Hint.SEND,
            )
        backend = self._backend_factory(self.config)
        text, stats = run_summary(
            job,
            backend,
            on_delta=on_delta,
            on_progress=on_progress,
            cancel=cancel,
            count=self._count,
        )
        result = SummaryResult(
            text=text.strip(),
            model=self.config.model,
            provider=self.config.provider,
            redactions=job.redactions,
            chunks=len(job.chunks),
            cached=False,
            requests=stats.requests,
            truncated=stats.truncated,
        )
        if self.cache is not None:
            self.cache.put(job.cache_key(self.config.provider, self.config.model), result)
        return result
