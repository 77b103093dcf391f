"""Provides the Protocols the core needs from the outside world, implemented in adapters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo

WarningSink = Callable[[ReadWarning], None]
"""Where readers report what they skipped; the CLI prints to stderr, the TUI notifies."""


class TokenCounter(Protocol):
    """Counts tokens of text for one encoding."""

    @property
    def name(self) -> str:
        """The encoding's name (`o200k_base`, …) or `estimate` for the fallback."""
        ...

    @property
    def exact(self) -> bool:
        """False when the count is an estimate, so the UI can label it."""
        ...

    def count(self, text: str) -> int:
        """Return the number of tokens in `text`."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, in order."""
        ...


class SessionSource(Protocol):
    """Finds and reads one agent's sessions."""

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        ...

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session found, cheaply (file heads and tails), newest first where possible."""
        ...

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full, streaming the file."""
        ...


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What one chat completion produced."""

    text: str
    truncated: bool = False
    """The reply may be incomplete: cut at the output cap, or the stream ended without finishing."""


class ChatBackend(Protocol):
    """Sends one chat request to a summarizer model, streaming deltas where asked."""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        max_output_tokens: int,
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> ChatReply:
        """Return the model's reply, calling `on_delta` per streamed piece; stop when `cancel` is set."""
        ...
