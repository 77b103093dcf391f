"""Provides the summary feature: the summarizer as configured, previews, summaries and plans that need one."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from smig_tui.core.models import Session
from smig_tui.services.plan import Planning

if TYPE_CHECKING:
    from smig_tui.adapters.summarizer import Summarizer, SummaryPreview
    from smig_tui.core.models import Message, Plan, Strategy
    from smig_tui.core.summary import SummaryResult


class Summaries(Planning):
    """The handoff summary: what it would send, writing it, and the plan that keeps it."""

    @cached_property
    def summarizer(self) -> Summarizer:
        """The summarizer from `[summarizer]` and the env, with its cache; openai is imported only here."""
        return self.summarizer_for()

    def summarizer_for(
        self, provider: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Summarizer:
        """A summarizer with per-run overrides (CLI flags) on top of the config file and env."""
        from smig_tui.adapters.storage.summary_cache import SummaryCache
        from smig_tui.adapters.summarizer import Summarizer
        from smig_tui.adapters.summarizer_config import resolve_config
        from smig_tui.core.config_schema import table_of

        table = table_of(self.config, "summarizer", str(self.paths.config_file))
        config = resolve_config(
            table, os.environ, provider=provider, model=model, base_url=base_url, where=str(self.paths.config_file)
        )
        return Summarizer(config, SummaryCache(self.paths.cache_dir / "summaries"))

    def summary_key_problem(self) -> str | None:
        """Why a summary cannot be sent as configured (no API key for a remote provider), or None."""
        from smig_tui.adapters.summarizer_config import key_problem

        return key_problem(self.summarizer.config)

    def summary_preview(
        self,
        source: Session | Sequence[Message],
        *,
        target_chars: int | None = None,
        target_tokens: int | None = None,
        head_only: bool = False,
        summarizer: Summarizer | None = None,
        use_cache: bool = True,
    ) -> SummaryPreview:
        """Say what a summary would send (provider, requests, tokens, redactions); sends nothing."""
        chosen = summarizer or self.summarizer
        return chosen.preview(
            _summary_messages(source),
            target_chars=_target_chars(target_chars, target_tokens),
            head_only=head_only,
            use_cache=use_cache,
        )

    def summarize(
        self,
        source: Session | Sequence[Message],
        *,
        target_chars: int | None = None,
        target_tokens: int | None = None,
        head_only: bool = False,
        allow_network: bool = False,
        on_delta: Callable[[str], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        summarizer: Summarizer | None = None,
        use_cache: bool = True,
    ) -> SummaryResult:
        """Write the handoff summary (streamed to `on_delta`); nothing is sent unless `allow_network`."""
        chosen = summarizer or self.summarizer
        return chosen.summarize(
            _summary_messages(source),
            target_chars=_target_chars(target_chars, target_tokens),
            head_only=head_only,
            on_delta=on_delta,
            on_progress=on_progress,
            cancel=cancel,
            allow_network=allow_network,
            use_cache=use_cache,
        )

    def plan_with_summary(
        self,
        session: Session,
        target: str,
        strategy: Strategy | str,
        *,
        allow_network: bool = False,
        on_delta: Callable[[str], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        summarizer: Summarizer | None = None,
        **plan_options: Any,
    ) -> tuple[Plan, SummaryResult | None]:
        """Plan a summary strategy with its summary written: summarise what the plan drops, then re-plan.

        The summary is asked to fit the plan's summary budget, and the re-plan keeps that budget, so the
        head the summarizer saw is exactly the head the final plan drops. Without `allow_network` only a
        cached summary is used (SummaryConsentError otherwise).
        """
        from smig_tui.core.models import Strategy as StrategyEnum
        from smig_tui.core.plans import DEFAULT_SUMMARY_BUDGET
        from smig_tui.core.strategies import needs_summary

        pending = self.plan(session, target, strategy, **plan_options)
        # Harness context and encrypted reasoning are never migrated, so they are not summarised.
        head = [it.message for it in pending.dropped if not (it.message.injected or it.message.opaque)]
        if not needs_summary(pending.strategy) or not head:
            return pending, None
        budget = pending.summary_budget
        result = self.summarize(
            head,
            target_tokens=min(budget, DEFAULT_SUMMARY_BUDGET) or None,
            head_only=pending.strategy is StrategyEnum.SUMMARY_TAIL,
            allow_network=allow_network,
            on_delta=on_delta,
            on_progress=on_progress,
            cancel=cancel,
            summarizer=summarizer,
        )
        options = {**plan_options, "summary": result.text, "summary_budget": budget}
        return self.plan(session, target, strategy, **options), result

    # --- full-text search (issue 20) ---------------------------------------------------------------


def _summary_messages(source: Session | Sequence[Message]) -> Sequence[Message]:
    """The messages to summarise: a session's whole conversation, or the ones given."""
    return source.messages if isinstance(source, Session) else source


def _target_chars(target_chars: int | None, target_tokens: int | None) -> int:
    """A summary's length in characters, from characters or a token budget."""
    from smig_tui.core.summary import DEFAULT_TARGET_CHARS, chars_for_tokens

    if target_chars:
        return target_chars
    return chars_for_tokens(target_tokens) if target_tokens else DEFAULT_TARGET_CHARS
