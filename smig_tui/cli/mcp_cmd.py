"""Provides `smig mcp`: serve smig's tools over MCP on stdio, set a client up for it, or check the set-up."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from smig_tui.plugins import agent_choices, agent_names, agent_profiles

if TYPE_CHECKING:
    from smig_tui.cli.main import Context


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `mcp` to the CLI."""
    mcp = subparsers.add_parser(
        "mcp",
        help=f"serve smig's tools over MCP (stdio) to {agent_names('or')}",
        description="Serve smig's migration tools, handoff prompt and session resources to an agent over the "
        "Model Context Protocol on stdio; or write a client's config entry for it (--install), or start "
        "smig as every configured client would and report (--check).",
    )
    configured = {profile.id for profile in agent_profiles() if profile.mcp is not None}
    clients = [agent for agent in agent_choices() if agent in configured]
    mcp.add_argument(
        "--install",
        metavar="CLIENT",
        choices=clients,
        help=f"add smig to a client's MCP config: {', '.join(clients)} (other servers and settings are kept)",
    )
    mcp.add_argument(
        "--project", action="store_true", help="with --install: the project's config in this folder, not the user's"
    )
    mcp.add_argument(
        "--dry-run", action="store_true", help="with --install: print the file as it would be, write nothing"
    )
    mcp.add_argument("--check", action="store_true", help="start smig as each configured client would, and report")
    mcp.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace, ctx: Context) -> int:
    """Serve until the client closes stdin; or install, or check."""
    if args.install:
        return install(args, ctx)
    if args.check:
        return check(ctx)
    if args.project or args.dry_run:
        ctx.out.error("--project and --dry-run go with --install CLIENT.")
        return 2
    from smig_tui.mcp.server import run_stdio

    try:
        run_stdio()
    except KeyboardInterrupt:
        return 130
    return 0


def install(args: argparse.Namespace, ctx: Context) -> int:
    """Write (or with --dry-run print) smig's entry in the client's config."""
    from smig_tui.mcp.install import apply_install, plan_install

    plan = plan_install(args.install, args.project)
    if args.dry_run:
        ctx.out.data(f"# {plan.path} ({plan.change if plan.change != 'unchanged' else 'already set up'}, dry run)")
        ctx.out.data(plan.after.rstrip("\n"))
        for path, text in plan.extra:
            ctx.out.data(f"# {path}")
            ctx.out.data(text.rstrip("\n"))
        return 0
    change = plan.change
    done = apply_install(plan)
    done_paths = ", ".join(str(path) for path in (done.path, *(path for path, _ in done.extra)))
    ctx.out.data(f"{args.install}: smig {change if change != 'unchanged' else 'already set up'} in {done_paths}")
    return 0


def check(ctx: Context) -> int:
    """Report every configured client's smig: 0 when each answered, 1 when one failed or none is set up."""
    from smig_tui.mcp.check import check_all
    from smig_tui.mcp.install import clients

    found = check_all()
    for checked in found:
        status = "ok" if checked.ok else "FAILED"
        ctx.out.data(f"{checked.client:<9} {status:<6} {checked.detail}")
        ctx.out.data(f"{'':<16} {' '.join(checked.command)}  ({checked.path})")
    missing = [client for client in clients() if client not in {checked.client for checked in found}]
    for client in missing:
        ctx.out.data(f"{client:<9} {'-':<6} not set up: smig mcp --install {client}")
    return 0 if found and all(checked.ok for checked in found) else 1
