"""Provides `smig plan`: does a session fit a target model, and what a compression keeps."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smig_tui.cli.table import SESSION_HELP, Column
from smig_tui.core.agent_rules import rules_of
from smig_tui.core.capacity import calibration_margin, harness_agent
from smig_tui.core.json_text import FlatRows
from smig_tui.core.models import Decision, ModelCapacity, Plan, PlanItem, Session, Strategy
from smig_tui.core.pins import resolve_pins
from smig_tui.core.plans import left_out
from smig_tui.core.words import one_line, plural
from smig_tui.plugins import destination_agents
from smig_tui.services import json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.core.text_classes import CountMix


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `plan` to the CLI."""
    plan = subparsers.add_parser("plan", help="check whether a session fits a target model and preview a compression")
    plan.add_argument("id", help=SESSION_HELP)
    plan.add_argument("--target", "-t", required=True, metavar="MODEL", help="target model (see `smig models`)")
    plan.add_argument(
        "--strategy",
        "-s",
        default=Strategy.TRUNCATE.value,
        choices=[s.value for s in Strategy],
        help="how to compress when it does not fit (default: truncate)",
    )
    add_plan_options(plan)
    plan.add_argument(
        "--to",
        choices=destination_agents(),
        metavar="AGENT",
        help="the agent that will resume it, whose usable window and overhead (system prompt, tools) make "
        f"the room ({', '.join(destination_agents())}; default: the model's home agent)",
    )
    plan.add_argument("--json", action="store_true", help="print JSON for scripts")
    plan.add_argument(
        "--all",
        action="store_true",
        dest="all_rows",
        help="list every dropped message (by default long runs of them are cut to their ends)",
    )
    plan.add_argument(
        "--yes-send",
        action="store_true",
        help="summary strategies: send the redacted head to the summarizer (see `smig summarize`)",
    )
    plan.set_defaults(handler=run_plan)


def add_plan_options(parser: argparse.ArgumentParser) -> None:
    """The options that shape a plan, defined once: `plan`, `migrate` and `export` take them with one
    meaning, so the migrate that follows a plan writes what the plan showed."""
    parser.add_argument(
        "--reserve", type=_tokens, metavar="N", help="tokens kept free for the reply (default: min(max output, 16000))"
    )
    parser.add_argument("--pin-first", action="store_true", help="always keep the first message you typed")
    parser.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="MESSAGE",
        help="always keep this message: its # in the tables, its id, or a unique id prefix (repeatable)",
    )
    parser.add_argument(
        "--no-harness", action="store_true", help="use the model's full window, not the agent harness's usable share"
    )


def given_plan_options(args: argparse.Namespace) -> list[str]:
    """The plan-shaping options given on the command line, as typed."""
    given = [("--reserve", args.reserve is not None), ("--pin-first", args.pin_first)]
    given += [("--pin", bool(args.pin)), ("--no-harness", args.no_harness)]
    return [name for name, present in given if present]


def plan_options(args: argparse.Namespace, session: Session) -> dict[str, Any]:
    """What those options ask of `Services.plan`, pins resolved to message ids as the tables name them
    (a pin that names no message, or several, stops the command: exit 3)."""
    return {
        "pins": resolve_pins(session.messages, args.pin, session.id),
        "reserve": args.reserve,
        "pin_first_user": True if args.pin_first else None,
        "harness": False if args.no_harness else None,
    }


def _tokens(value: str) -> int:
    """Parse a non-negative token count for argparse (accepts 16000, 16_000, 16k)."""
    text = value.strip().lower().replace("_", "").replace(",", "")
    scale = 1000 if text.endswith("k") else 1
    try:
        number = int(float(text.rstrip("k")) * scale)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of tokens") from None
    if number < 0:
        raise argparse.ArgumentTypeError("a token count cannot be negative")
    return number


def run_plan(args: argparse.Namespace, ctx: Context) -> int:
    """Print the fit decision and the plan's kept/dropped table (or JSON)."""
    services = ctx.services
    capacity = services.capacities.lookup(args.target)
    info = services.find_session(args.id, warn=ctx.out.warn)
    session = services.load_session(info, warn=ctx.out.warn)
    options: dict[str, Any] = plan_options(args, session) | {"agent": args.to}
    if args.strategy in (Strategy.SUMMARY.value, Strategy.SUMMARY_TAIL.value):
        from smig_tui.cli.summarize import summarized_plan

        plan = summarized_plan(
            ctx, session, capacity.name, Strategy(args.strategy), yes_send=args.yes_send, pending_ok=True, **options
        )
    else:
        plan = services.plan(session, capacity.name, Strategy(args.strategy), **options)
    counter = services.counter_for(capacity)
    reason = getattr(counter, "reason", "")
    if reason:
        ctx.out.diag(f"smig: {reason}")
    if args.json:
        items = FlatRows(json_shapes.plan_item_rows(plan))  # made and written a batch at a time
        ctx.out.json(json_shapes.plan_json(services, session, plan, args.to) | {"items": items})
        return 0
    ctx.out.data(decision_line(plan.decision, capacity, services.count_mix(session, capacity)))
    if plan.decision.harness:
        ctx.out.data(usable_window_line(services.capacity_for(capacity, args.to), args.to))
    if plan.decision.overhead:
        overhead = services.overhead_for(capacity, args.to, session.info.cwd)
        source = f"; {overhead.source}" if overhead else ""
        agent = overhead.agent if overhead else "the agent"
        chosen = (
            "chosen with --to"
            if args.to
            else f"assumed from the {capacity.provider} provider; --to AGENT plans for another"
        )
        ctx.out.data(
            f"agent overhead: {plan.decision.overhead:,} tokens that {agent} adds to every request "
            f"({chosen}; system prompt, tools, injected context{source}; [agents.{agent}] overhead = N "
            f"in {services.paths.config_file} changes it)"
        )
    elif not args.no_harness:
        reason = _no_overhead_reason(capacity, args.to, str(services.paths.config_file))
        ctx.out.data(f"agent overhead: none taken off: {reason}")
    ctx.out.data(plan_line(plan))
    for note in plan.notes:
        ctx.out.data(f"note: {note}")
    if plan.placeholder:
        ctx.out.data(f"first message: {one_line(plan.placeholder, 160)}")
    ctx.out.table(PLAN_COLUMNS, _item_rows(plan, all_rows=args.all_rows))
    return 0


def _no_overhead_reason(capacity: ModelCapacity, agent: str | None, config_file: str) -> str:
    """Why a plan with the harness on takes no agent's overhead off."""
    if capacity.harness_window is None:
        return (
            f"smig knows no agent's usable window for {capacity.name}, so it plans on the full window "
            f'(set harness_window under [models."{capacity.name}"] in {config_file} to plan for an agent)'
        )
    return (
        f"no agent is implied by the {capacity.provider} provider; --to AGENT takes off the overhead of "
        "the agent that will resume it"
    )


def decision_line(decision: Decision, capacity: ModelCapacity, mix: CountMix | None = None) -> str:
    """Say whether the session fits, against what, and by how much it does not (an estimate's ± that
    of the session's `mix` of text classes, when its target was measured per class)."""
    margin = mix.label if mix is not None else calibration_margin(capacity)
    label = "" if decision.exact else f" (estimate{', ' + margin if margin else ''})"
    approx = "≈" if decision.partial else ""
    label += " (older messages estimated)" if decision.partial else ""
    room = f"window {decision.window:,}, reserve {decision.reserve:,}"
    if decision.prompt_limit is not None and decision.prompt_limit < decision.window - decision.reserve:
        share = "input limit"
        if decision.harness:
            rules = rules_of(decision.harness_agent) if decision.harness_agent else None
            share = f"{rules.name} share" if rules else "harness share"
        room += f", {share} {decision.prompt_limit:,}"
    if decision.overhead:
        room += f", agent overhead {decision.overhead:,}"
    size = f"session {approx}{decision.session_tokens:,} tokens{label}, budget {decision.budget:,} ({room})"
    if decision.fits:
        return f"{capacity.name}: fits as-is: {size}, {decision.budget - decision.session_tokens:,} to spare"
    return f"{capacity.name}: must compress: {size}, over by {approx}{decision.over_by:,}"


def plan_line(plan: Plan) -> str:
    """Summarise a plan in one line: kept, left out (conversation messages only), tokens."""
    omitted, omitted_tokens = left_out(plan)
    gone = f"leaves out {omitted:,} ({plural(omitted_tokens, 'token')})" if omitted else "leaves out nothing"
    return (
        f"{plan.strategy.value}: keeps {plural(len(plan.kept), 'message')}, {gone}, "
        f"{plan.tokens_before:,} -> {plural(plan.tokens_after, 'token')}"
    )


def usable_window_line(capacity: ModelCapacity, agent: str | None) -> str:
    """Whose compaction rule gave the usable window the plan fits into, and where its figure comes from."""
    usable = capacity.harness_window or 0
    owner = harness_agent(capacity)
    if owner is None:
        return f"usable window: {usable:,} (harness_window in your config; it holds whatever agent resumes it)"
    rules = rules_of(owner)
    name = rules.name if rules else owner
    chosen = "the agent chosen with --to" if agent else "the model's home agent; --to AGENT plans for another"
    return f"usable window: {usable:,} before {name} compacts ({chosen}; {capacity.source_of('harness_window')})"


_ROLE = {"assistant": "asst", "developer": "dev"}
_KIND = {"tool_call": "call", "tool_result": "result", "reasoning": "think"}


DROPPED_RUN_ENDS = 3
"""Rows shown at each end of a run of dropped messages; the middle becomes one "hidden" line. A huge
session drops over a hundred thousand messages, and laying out a table row for each is most of the time."""


def shown_rows(items: Sequence[PlanItem], ends: int = DROPPED_RUN_ENDS) -> Iterator[PlanItem | int]:
    """Every kept item, and the first and last `ends` of each run of dropped ones; a count for the rest."""
    run: list[PlanItem] = []
    for item in [*items, None]:
        if item is not None and not item.kept:
            run.append(item)
            continue
        if len(run) > 2 * ends + 1:
            yield from run[:ends]
            yield len(run) - 2 * ends
            yield from run[-ends:]
        else:
            yield from run
        run = []
        if item is not None:
            yield item


PLAN_COLUMNS = (
    Column("#", right=True),
    Column("message"),
    Column("tokens", right=True),
    Column("plan"),
    Column("text", text=True, least=8, drop=1),
)
"""Row number, kind, tokens and the plan's reason are never cut (the reason is what the table is for); the
message's text takes what is left, and is left out when less than 8 columns are."""


def _item_rows(plan: Plan, all_rows: bool = False) -> list[tuple[str, ...]]:
    """One row per source message (long dropped runs cut to their ends, the rest counted on one row)."""
    rows: list[tuple[str, ...]] = []
    for item in plan.items if all_rows else shown_rows(plan.items):
        if isinstance(item, int):
            rows.append(("", "", "", f"… {item:,} more dropped", "not shown: --all lists every message"))
            continue
        message = item.message
        tokens = f"{item.tokens:,}"
        if item.original_tokens is not None:
            tokens = f"{item.original_tokens:,}>{item.tokens:,}"
        who = f"{_ROLE.get(message.role.value, message.role.value)} {_KIND.get(message.kind.value, message.kind.value)}"
        fate = f"{'keep' if item.kept else 'drop'} {item.reason}"
        rows.append((str(message.index), who, tokens, fate, one_line(message.head(TEXT_CHARS))))
    return rows


TEXT_CHARS = 400
"""Characters of a message read for its one-line cell: more than any terminal line shows."""
