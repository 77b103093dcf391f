"""Provides `smig archive`: keep a compressed copy of every session, say what it holds, restore one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from smig_tui.core.errors import UsageError, WriteRefusedError
from smig_tui.core.words import size_text
from smig_tui.services import json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `archive` (and `archive restore ID`) to the CLI."""
    archive = subparsers.add_parser(
        "archive",
        help="copy every session into smig's archive (compressed, deduplicated)",
        description="Copy every session file into smig's data folder, compressed and deduplicated, so it "
        "outlives the agents' cleanup. `smig archive restore ID` writes one back where its agent finds it.",
    )
    archive.add_argument("action", nargs="?", choices=["restore"], help="restore: write an archived session back")
    archive.add_argument("id", nargs="?", help="the session id (or unique prefix) to restore")
    archive.add_argument("--status", action="store_true", help="say what the archive holds and what a run would add")
    archive.add_argument("--json", action="store_true", help="print JSON for scripts")
    archive.set_defaults(handler=run_archive)


def run_archive(args: argparse.Namespace, ctx: Context) -> int:
    """Archive, report, or restore."""
    from smig_tui.services import session_archive

    services = ctx.services
    archive = session_archive(services.paths, services.env)
    if args.action == "restore":
        if not args.id:
            raise UsageError("`smig archive restore` needs the id of an archived session.")
        entry = archive.find(args.id)
        live = [
            info
            for info in services.iter_sessions(include_subagents=True, warn=ctx.out.warn)
            if info.id == entry.session_id and not info.archived
        ]
        if live:
            raise WriteRefusedError(
                f"Session {entry.session_id} is still in the agent's folder ({live[0].path}); nothing restored."
            )
        target = archive.restore(entry.session_id)
        if args.json:
            ctx.out.json({"session_id": entry.session_id, "agent": entry.agent, "path": str(target)})
        else:
            ctx.out.data(str(target))
            ctx.out.diag(f"smig: restored {entry.agent} session {entry.session_id}")
        return 0
    if args.id:
        raise UsageError(f"Unexpected {args.id!r}: did you mean `smig archive restore {args.id}`?")
    if args.status:
        status = archive.status(services.sources, ctx.out.warn)
        if args.json:
            ctx.out.json(json_shapes.archive_status_json(status))
            return 0
        pending = status.pending
        ctx.out.data(
            f"archive: {status.sessions} session files, {size_text(status.original_bytes)} of sessions "
            f"stored in {size_text(status.stored_bytes)}; {status.originals_missing} no longer in the agent's folder"
        )
        ctx.out.data(
            f"a run would add: {pending.new} new, {pending.grown} grown, {pending.changed} changed "
            f"({size_text(pending.bytes_read)} to read)"
        )
        return 0
    run = archive.run(services.sources, ctx.out.warn)
    if args.json:
        ctx.out.json(json_shapes.archive_run_json(run))
        return 0
    ctx.out.data(
        f"archived {run.touched} session files ({run.new} new, {run.grown} grown, {run.changed} changed, "
        f"{run.unchanged} unchanged): read {size_text(run.bytes_read)}, stored {size_text(run.bytes_stored)}"
    )
    return 0
