"""Provides `smig memory status|sync`: long-term memory shared among Codex, Claude Code, Gemini CLI and OpenCode."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from smig_tui.core.memory_agents import memory_agent
from smig_tui.core.memory_sync import Direction, MemoryFile, MemoryPlan, Mode, redaction_counts
from smig_tui.core.words import plural, size_text
from smig_tui.plugins import memory_agent_names, memory_agents, memory_directions
from smig_tui.services import json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.services import ApplyResult

EXIT_NEW_PROBLEM = 4
"""As WriteRefusedError: something smig would not write through, reported for the first time."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory` to the CLI."""
    memory = subparsers.add_parser(
        "memory",
        help=f"sync long-term memory among {memory_agent_names()}",
        description="Give each agent set up here one file holding the other agents' memory, and one "
        "line in its own index or global instructions that makes it read that file. `status` (the "
        "default) only reads.",
    )
    memory.add_argument("action", nargs="?", choices=("status", "sync"), default="status")
    way = memory.add_mutually_exclusive_group()
    for entry in memory_agents():
        way.add_argument(
            f"--{entry.direction.value}",
            dest="only",
            action="store_const",
            const=entry.direction.value,
            help=f"only the other agents' memory → {entry.label}",
        )
    memory.add_argument(
        "--mode",
        choices=[mode.value for mode in Mode],
        default=Mode.AUTO.value,
        help="full text, an index of paths, or full while it fits the budget (default)",
    )
    memory.add_argument("--budget", type=int, metavar="BYTES", help="lower the full-text budget")
    memory.add_argument(
        "--project",
        metavar="PATH",
        help="for an agent that keeps memory per project, put its bundle in this project's memory, loaded "
        "only there (default: its user memory, loaded in every project)",
    )
    memory.add_argument("--dry-run", action="store_true", help="show the diff of what would change; write nothing")
    memory.add_argument("--quiet", action="store_true", help="print nothing unless something changed or failed")
    memory.add_argument("--json", action="store_true", help="print JSON for scripts")
    memory.set_defaults(handler=run_memory)


def run_memory(args: argparse.Namespace, ctx: Context) -> int:
    """Plan the sync, then show it (status, dry run) or apply it."""
    directions = _directions(args)
    if args.budget is not None and args.budget <= 0:
        ctx.out.error("--budget must be a positive number of bytes")
        return 2
    plan = ctx.services.memory_plan(directions, Mode(args.mode), args.project, args.budget)
    applying = args.action == "sync" and not args.dry_run
    result = ctx.services.memory_apply(plan) if applying else None
    if args.json:
        ctx.out.json(json_shapes.memory_sync_json(plan, result, show_diffs=not applying))
    elif args.action == "status" and not args.dry_run:
        _print_status(plan, ctx, args.quiet)
        if not args.quiet:
            for label in _not_set_up(directions, plan):
                ctx.out.data(f"{label}: not set up on this machine, so nothing is synced to it")
    else:
        _print_sync(plan, result, ctx, args.quiet)
    if result is not None and result.skipped:
        return 1
    return EXIT_NEW_PROBLEM if plan.new_problems and args.action == "sync" else 0


def _directions(args: argparse.Namespace) -> tuple[Direction, ...]:
    """The directions asked for (all by default; agents not set up here are skipped)."""
    return (Direction(args.only),) if args.only else memory_directions()


def _not_set_up(directions: tuple[Direction, ...], plan: MemoryPlan) -> list[str]:
    """The agents asked for that the plan left out: their folders are not on this machine."""
    planned = {report.direction for report in plan.reports}
    return [memory_agent(d).label for d in directions if d not in planned]


def _print_status(plan: MemoryPlan, ctx: Context, quiet: bool) -> None:
    """Print both sides' files, each direction's bundle, and what a sync would do."""
    if quiet and not plan.writes and not plan.new_problems:
        return
    for report in plan.reports:
        title = f"Memory for {memory_agent(report.direction).label}"
        ctx.out.data(f"{title} ({plural(len(report.sources), 'file')})")
        for source in report.sources:
            ctx.out.data(f"  {size_text(source.size):>9}  {source.role.value:<8}  {_label(source)}")
        ctx.out.data(f"  {report.direction.value}: {report.note}{_redaction_note(report.redactions)}")
        pending = [write for write in plan.writes if write.direction is report.direction]
        for write in pending:
            ctx.out.data(f"    would {write.action.value} {write.path}: {write.reason}")
        blocked = any(p.direction is report.direction for p in plan.problems)
        if report.mode is not None and not pending:
            ctx.out.data("    not synced: see the message below" if blocked else "    up to date")
    for problem in plan.problems:
        ctx.out.diag(f"smig: {problem.message}")


def _label(source: MemoryFile) -> str:
    """A memory file's path, shortened to what tells files apart."""
    if source.project or source.agent:
        return f"{source.project or source.agent}/{source.path.rsplit('/', 1)[-1]}"
    parts = source.path.rsplit("/", 2)
    return "/".join(parts[-2:]) if source.role.value == "recap" else parts[-1]


def _redaction_note(counts: dict[str, int]) -> str:
    """`, 2 secrets redacted (openai-key ×2)` or nothing."""
    total = sum(counts.values())
    if not total:
        return ""
    kinds = ", ".join(f"{kind} ×{count}" for kind, count in sorted(counts.items()))
    return f", {plural(total, 'secret')} redacted ({kinds})"


def _print_sync(plan: MemoryPlan, result: ApplyResult | None, ctx: Context, quiet: bool) -> None:
    """Print the diffs (dry run) or what was written, then any problems."""
    for problem in plan.new_problems if quiet or result is not None else plan.problems:
        ctx.out.error(problem.message)
    if result is None:
        for write in plan.writes:
            ctx.out.data(write.diff.rstrip("\n"))
        if not plan.writes and not quiet:
            ctx.out.diag("smig: memory is in sync; nothing would change")
        return
    for skipped in result.skipped:
        ctx.out.error(skipped)
    for write in result.written:
        ctx.out.data(f"{write.action.value}: {write.path} ({write.reason})")
    redactions = redaction_counts(plan)
    if result.written and redactions:
        ctx.out.diag(f"smig: {_redaction_note(dict(redactions)).removeprefix(', ')}")
    if not result.written and not quiet:
        ctx.out.diag("smig: memory is in sync; nothing written")
