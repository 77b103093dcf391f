"""Provides the TUI's calls into `Services`, run from workers, each saying plainly what is missing.

Screens call these from thread workers; each returns plain data for a message. Features another
part of smig provides (planner, writers, summarizer) are looked up on `Services`, so a build without
them shows a "not available" state instead of failing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from smig_tui.core.errors import NoApiKeyError
from smig_tui.core.migration import Destination
from smig_tui.core.models import Agent, ModelCapacity, Plan, Session, Strategy
from smig_tui.services import Services

PLAN_STRATEGIES = (Strategy.TRUNCATE, Strategy.TOOLS_FIRST, Strategy.SUMMARY, Strategy.SUMMARY_TAIL)


def missing(services: Services, *names: str) -> str | None:
    """Name the first service feature that is not there, as a sentence, or None."""
    for name in names:
        if not hasattr(type(services), name):
            return f"This build of smig has no {name.replace('_', ' ')} yet."
    return None


def all_models(services: Services) -> list[ModelCapacity]:
    """Every model in the capacity table."""
    return list(services.capacities.models)  # type: ignore[attr-defined]


def lookup(services: Services, name: str) -> ModelCapacity:
    """Resolve a target name (raises UnknownModelError with suggestions)."""
    capacity: ModelCapacity = services.capacities.lookup(name)  # type: ignore[attr-defined]
    return capacity


def plan_all(
    services: Services,
    session: Session,
    target: str,
    pins: frozenset[str],
    summaries: dict[Strategy, str],
) -> dict[Strategy, Plan]:
    """Plan every strategy against one target; counts are cached by the services."""
    plans: dict[Strategy, Plan] = {}
    for strategy in PLAN_STRATEGIES:
        plans[strategy] = services.plan(  # type: ignore[attr-defined]
            session, target, strategy, pins=pins, summary=summaries.get(strategy)
        )
    return plans


def counter_label(services: Services, capacity: ModelCapacity) -> tuple[bool, str]:
    """Whether the target's count is exact, and how it was made (encoding, calibration)."""
    counter = services.counter_for(capacity)  # type: ignore[attr-defined]
    if not counter.exact:
        return False, "tokenizer unavailable"
    if capacity.calibration != 1.0:
        return False, f"{counter.name} × {capacity.calibration:g} for {capacity.provider}"
    return True, str(counter.name)


def summary_notice(services: Services, messages: tuple[Any, ...], head_only: bool) -> str:
    """The opt-in sentence: what pressing `s` sends, to whom, with redactions; or why it cannot."""
    config = services.summarizer.config  # type: ignore[attr-defined]
    if not config.api_key and not config.is_local:
        env_name = config.api_key_env or "the variable named by [summarizer] api_key_env"
        return str(
            NoApiKeyError(
                f"No API key for the {config.provider} summarizer: set {env_name} (or use provider = \"local\")."
            )
        )
    if not messages:
        return "Nothing to summarise: this plan drops no messages."
    preview = services.summary_preview(messages, head_only=head_only)  # type: ignore[attr-defined]
    redacted = sum(preview.redactions.values())
    if preview.cached:
        return f"A cached summary by {preview.provider}/{preview.model} exists: press s to show it (nothing is sent)."
    return (
        f"Press s to send ~{preview.tokens:,} tokens ({redacted} secrets redacted) of"
        f" {preview.message_count:,} messages to {preview.provider}/{preview.model}."
    )


def summarize(
    services: Services,
    messages: tuple[Any, ...],
    *,
    head_only: bool,
    on_delta: Callable[[str], None],
    cancel: threading.Event,
) -> Any:
    """Write the summary, streaming; the user pressed `s`, which is the opt-in."""
    return services.summarize(  # type: ignore[attr-defined]
        messages, head_only=head_only, on_delta=on_delta, cancel=cancel, allow_network=True
    )


def default_native(session: Session) -> str:
    """The other agent: a Codex thread goes to Claude Code and the other way round."""
    return "claude" if session.info.agent is Agent.CODEX else "codex"


def commit_preview(services: Services, session: Session, plan: Plan) -> tuple[Any, dict[str, str]]:
    """Dry-run every destination, so the dialog can say exactly where each one writes."""
    wanted = {Destination.STORE, Destination.CLAUDE, Destination.CODEX}
    if services.can_write(Destination.OPENCODE):  # offered only where its `opencode` command is installed
        wanted.add(Destination.OPENCODE)
    result = services.migrate(session, plan, to=wanted, dry_run=True)  # type: ignore[attr-defined]
    choices: dict[str, str] = {}
    if result.record_path:
        # The record's id is fresh on every run, so the workspace folder is what is certain here.
        choices["store"] = f"new record in {shown(Path(result.record_path).parent)}{os.sep}"
    for planned in result.files:
        # Native session files get a fresh id when written, too.
        line = f"new file in {shown(Path(planned.path).parent)}{os.sep}"
        if planned.native is not None:
            line += f"\n({planned.native.agent} session; its resume command is shown once written)"
        key = str(planned.destination)
        choices[key] = f"{choices[key]}\n{line}" if key in choices else line
    return result, choices


def shown(path: Path) -> str:
    """A path as people write it: the home folder as `~`."""
    home = Path(os.environ.get("HOME") or Path.home())
    try:
        return str(Path("~") / path.relative_to(home))
    except ValueError:
        return str(path)


def commit(services: Services, session: Session, plan: Plan, chosen: set[str], cwd: str | None = None) -> Any:
    """Write the migration to the destinations the user confirmed, for `cwd` when one was typed."""
    wanted = {Destination(name) for name in chosen}
    if cwd is not None:
        cwd = os.path.normpath(os.path.abspath(os.path.expanduser(cwd)))
    return services.migrate(session, plan, to=wanted, dry_run=False, cwd=cwd)  # type: ignore[attr-defined]


def export(services: Services, session: Session, plan: Plan, request: Any) -> tuple[str, str | None]:
    """Render an export; write it to the file (never clobbering), or return the text for the clipboard."""
    text: str = services.export(session, request.format, plan)  # type: ignore[attr-defined]
    if request.path is None:
        return f"Copied the {request.format} export ({len(text):,} characters) to the clipboard via OSC 52.", text
    path = services.save_export(text, Path(request.path))  # type: ignore[attr-defined]
    return f"Wrote the {request.format} export ({len(text):,} characters) to {path}.", None


DEFAULT_TARGETS = {Agent.CODEX: "claude-sonnet-4-5", Agent.CLAUDE: "gpt-5-codex", Agent.OPENCODE: "gpt-5-codex"}
"""Until the user picks one, a session is measured against a model of the other agent."""


def default_target(session: Session) -> str:
    """The target to measure against before the user has chosen one."""
    return DEFAULT_TARGETS.get(session.info.agent, "claude-sonnet-4-5")
