"""Provides the TUI's calls into `Services`, run from workers.

Screens call these from thread workers; each returns plain data for a message.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from smig_tui.core.models import Agent, ModelCapacity, Plan, Session, SessionInfo, Strategy
from smig_tui.core.native import Destination, receiving_agent_of
from smig_tui.core.strategies import TAB_STRATEGIES
from smig_tui.services import Services, agent_profiles, local_summarizer_url, profile_of

PLAN_STRATEGIES = TAB_STRATEGIES


def read_session(services: Services, info: SessionInfo, report: Callable[[int, int], None]) -> Session:
    """Read a session in full, calling `report(bytes_read, size)` as it goes (it may raise to stop)."""
    from smig_tui.services import reading_progress

    with reading_progress(report):
        return services.load_session(info)


PLAN_ROUNDS = 3
"""Times every strategy is planned at most: each may count messages the others only guessed."""


def plans_visible_first(
    services: Services,
    session: Session,
    target: str,
    pins: frozenset[str],
    summaries: dict[Strategy, str],
    first: Strategy,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[dict[Strategy, Plan]]:
    """Plan the strategy on show and yield it alone, then plan the others and yield them all.

    The first yield is what the user waits for (one strategy, seconds on a huge session); the
    others follow in the background. A plan counts exactly the messages it needs, and a later
    strategy may count some an earlier one only estimated, so the plans begun on fewer counts are
    planned again (counts are cached) until every tab is made on the same counts and so shows the
    same session figure. `stop` is asked between plans, so a superseded request (another target,
    another session) ends at the next one.
    """
    order = [first, *(strategy for strategy in PLAN_STRATEGIES if strategy is not first)]
    capacity = services.capacities.lookup(target)
    made_on: dict[Strategy, int] = {}
    """How many messages had exact counts when each plan was begun."""

    def plan(strategy: Strategy) -> Plan:
        made_on[strategy] = services.counted_messages(session, capacity)
        return services.plan(session, target, strategy, pins=pins, summary=summaries.get(strategy))

    plans = {first: plan(first)}
    yield dict(plans)
    for _ in range(PLAN_ROUNDS):
        # A plan begun on the counts there are now is what planning it again would give: only the others
        # (made before another plan counted more, or counting more themselves) are planned again.
        counted = services.counted_messages(session, capacity)
        stale = [s for s in order if s not in plans or made_on[s] != counted]
        if not stale:
            break
        for strategy in stale:
            if stop():
                return
            plans[strategy] = plan(strategy)
    yield {strategy: plans[strategy] for strategy in PLAN_STRATEGIES}


def warm_counter(services: Services, name: str) -> None:
    """Load the tokenizer a target counts with, so the first session measured against it does not wait."""
    from smig_tui.core.errors import SmigError

    with contextlib.suppress(SmigError):  # an unknown target: the plan says so when a session opens
        # a count, for a counter whose encoding loads at its first one (its ranks saved by an earlier run)
        services.counter_for(services.capacities.lookup(name)).count("")


def likely_targets(agents: set[Agent], chosen: str | None) -> list[str]:
    """The targets the next session opened is likely measured against: the chosen one, else each listed
    agent's default."""
    if chosen:
        return [chosen]
    entries = (profile_of(agent) for agent in sorted(agents))
    return list(dict.fromkeys(entry.default_target for entry in entries if entry is not None))


def counter_label(services: Services, capacity: ModelCapacity, session: Session | None = None) -> tuple[bool, str]:
    """Whether the target's count is exact, and how it was made (encoding, calibration, the ± of
    `session`'s mix of text when the target's family was measured per class)."""
    counter = services.counter_for(capacity)
    if not counter.exact:
        return False, "tokenizer unavailable"
    from smig_tui.core.capacity import calibration_margin, counted_exactly

    name = str(getattr(counter, "base", counter).name)  # a per-class counter is its encoding, scaled
    if not counted_exactly(capacity):
        mix = services.count_mix(session, capacity) if session is not None else None
        if mix is not None:
            margin = calibration_margin(capacity, mix.error) if mix.error is not None else "± not measured"
            return False, f"{name} × {capacity.calibration:g} by class, {margin} for its mix"
        margin = calibration_margin(capacity)
        if capacity.calibration_error is None:  # `± not measured` says enough: the card's line stays short
            return False, f"{name} × {capacity.calibration:g}, {margin}"
        return False, f"{name} × {capacity.calibration:g} {margin} for {capacity.provider}"
    return True, name


def provider_setup(services: Services) -> str:
    """How to give smig a summarizer: the key's variable, or a local provider in the config file (its
    default address is the one the code uses, Ollama's)."""
    config_file = services.paths.config_file
    return (
        "To summarise, set the API key variable before starting smig, or use a local model by adding"
        f' to {shown(Path(config_file))}: [summarizer] provider = "local", model = "<name>"'
        f" (it is asked at {local_summarizer_url()} unless base_url says otherwise)."
    )


def summary_notice(services: Services, messages: tuple[Any, ...], head_only: bool) -> str:
    """The opt-in sentence: what pressing `s` sends, to whom, with redactions; or why it cannot (plain text)."""
    if not messages:
        return "Nothing to summarise: this plan drops no messages."
    preview = services.summary_preview(messages, head_only=head_only)
    if preview.cached:
        return f"A cached summary by {preview.provider}/{preview.model} exists: press s to show it (nothing is sent)."
    if preview.problem:
        return f"No summary yet. {preview.describe()} Nothing is sent: {preview.problem} {provider_setup(services)}"
    redacted = sum(preview.redactions.values())
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
    return services.summarize(messages, head_only=head_only, on_delta=on_delta, cancel=cancel, allow_network=True)


def default_native(session: Session) -> str:
    """The agent this one's profile hands its sessions to (for an agent no longer installed: the first
    agent's choice)."""
    entry = profile_of(session.info.agent) or agent_profiles()[0]
    return entry.hand_to


def commit_preview(
    services: Services, session: Session, plan: Plan, pins: frozenset[str] = frozenset()
) -> tuple[Any, dict[str, str], dict[str, tuple[Plan, str]]]:
    """Dry-run every destination this machine can write (OpenCode's needs its command), so the dialog
    can say exactly where each one writes; and plan for each receiving agent, so it states the
    figures of what each choice writes (an agent with another overhead has another budget)."""
    wanted = {Destination.STORE} | {Destination(entry.id) for entry in services.agents if services.can_write(entry.id)}
    result = services.migrate(session, plan, to=wanted, dry_run=True)
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
    plans = {"": (plan, "")}
    for key in choices:
        if key != "store":
            plans[key] = plan_for_destination(services, session, plan, {"store", key}, pins)
    return result, choices, plans


def searched_places(services: Services) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each agent's name, where its sessions are looked for (as people write paths), and the
    variables that move it: the first-run screen lists them all."""
    homes = services.agent_homes()
    return [
        (entry.name, shown(homes[entry.id]) if entry.id in homes else "(no home known)", entry.home_variables)
        for entry in services.agents
        # an agent whose sessions are in the project folders (Aider) has no one place to name
        if entry.sessions_folder is None or entry.where_sessions(services.env) is not None
    ]


def detected(services: Services, sessions: list[SessionInfo]) -> list[tuple[str, int]]:
    """How many sessions (sub-agents aside) each agent has here, every agent named, none left out."""
    counts: dict[str, int] = {}
    for info in sessions:
        if not info.is_subagent:
            counts[info.agent.value] = counts.get(info.agent.value, 0) + 1
    return [(entry.name, counts.get(entry.id, 0)) for entry in services.agents]


def shown(path: Path) -> str:
    """A path as people write it: the home folder as `~`."""
    home = Path(os.environ.get("HOME") or Path.home())
    try:
        return str(Path("~") / path.relative_to(home))
    except ValueError:
        return str(path)


def plan_for_destination(
    services: Services, session: Session, plan: Plan, chosen: set[str], pins: frozenset[str]
) -> tuple[Plan, str]:
    """The plan to write for the agent chosen in the commit dialog, and a sentence when it was redone.

    The tabs plan for the model's home agent; the dialog may pick another (a gpt-5 target resumed in Pi
    rather than Codex), whose own usable window (its compaction rule) and own prompt and tools then make
    the room, so the strategy on show is planned again for that agent, as `smig migrate --to` plans.
    """
    agent = receiving_agent_of({Destination(name) for name in chosen})
    if agent is None or not plan.decision.harness:
        return plan, ""
    again = services.plan(session, plan.decision.target, plan.strategy, pins=pins, summary=plan.summary, agent=agent)
    if again.decision.budget == plan.decision.budget:
        return plan, ""
    entry = profile_of(agent)
    name = entry.name if entry else agent
    window = again.decision.prompt_limit
    fills = f"compacts at {window:,}" if window is not None and again.decision.harness_agent == agent else ""
    adds = f"adds {again.decision.overhead:,} a request" if again.decision.overhead else ""
    why = ", ".join(part for part in (fills, adds) if part)
    note = (
        f"Planned again for {name}{f' ({why})' if why else ''}: budget {again.decision.budget:,}"
        f" (was {plan.decision.budget:,}), {len(again.kept):,} messages kept, {again.tokens_after:,} tokens."
    )
    return again, note


def commit(services: Services, session: Session, plan: Plan, chosen: set[str], cwd: str | None = None) -> Any:
    """Write the migration to the destinations the user confirmed, for `cwd` when one was typed."""
    wanted = {Destination(name) for name in chosen}
    folder = services.landing_folder(cwd) if cwd is not None else None
    return services.migrate(session, plan, to=wanted, dry_run=False, cwd=folder)


def export_folder(session: Session, here: str | None) -> str:
    """The export dialog's default folder: one that exists (the session's recorded folder may be
    another machine's), so exporting never has to create folders."""
    for folder in (session.info.cwd, here, os.getcwd(), os.path.expanduser("~")):
        if folder and os.path.isdir(folder):
            return folder
    return os.path.expanduser("~")


def export(services: Services, session: Session, plan: Plan, request: Any) -> tuple[str, str | None]:
    """Render an export; write it to the file (replacing one only when confirmed), or return the text for the clipboard."""
    text: str = services.export(session, request.format, plan)
    if request.path is None:
        return f"the {request.format} export ({len(text):,} characters)", text
    target = Path(request.path)
    path = services.save_export(text, target, force=request.replace, source=session.info.path)
    return f"Wrote the {request.format} export ({len(text):,} characters) to {path}.", None


def default_target(session: Session) -> str:
    """The target to measure against before the user has chosen one (another agent's model, per its profile)."""
    entry = profile_of(session.info.agent) or agent_profiles()[0]
    return entry.default_target
