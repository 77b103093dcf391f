"""Provides `smig list` and `smig show`: what sessions exist, and what one of them holds."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from smig_tui.core.models import Agent, Message, Session, SessionInfo
from smig_tui.core.text import one_line
from smig_tui.services import agent_profiles, no_sessions_sentence

if TYPE_CHECKING:
    from smig_tui.cli.main import Context


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `list` and `show` to the CLI."""
    listing = subparsers.add_parser("list", help="list every agent's sessions")
    listing.add_argument("--agent", choices=[entry.id for entry in agent_profiles()], help="only this agent")
    listing.add_argument("--cwd", metavar="PATH", help="only sessions in PATH or below it")
    listing.add_argument("--all", action="store_true", help="include sub-agent and exec sessions")
    listing.add_argument("--limit", type=int, default=0, metavar="N", help="show the newest N only")
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    listing.set_defaults(handler=run_list)

    show = subparsers.add_parser("show", help="show one session's messages")
    show.add_argument("id", help="session id, unique id prefix, or path to the .jsonl file")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    show.add_argument("--full", action="store_true", help="print whole message texts")
    show.set_defaults(handler=run_show)


def run_list(args: argparse.Namespace, ctx: Context) -> int:
    """Print the session table (or JSON)."""
    agent = Agent(args.agent) if args.agent else None
    sessions = ctx.services.list_sessions(agent=agent, cwd=args.cwd, include_subagents=args.all, warn=ctx.out.warn)
    if args.limit > 0:
        sessions = sessions[: args.limit]
    if args.json:
        ctx.out.json([info_to_json(info) for info in sessions])
        return 0
    if not sessions:
        ctx.out.diag(f"smig: {no_sessions_sentence(ctx.services.env)}")
        return 0
    rows = [
        (
            info.agent.value,
            info.id[:13],
            ("[archived] " if info.archived else "") + fork_mark(info) + " ".join((info.title or "").split()),
            info.cwd or "",
            info.model or "",
            "" if info.message_count is None else str(info.message_count),
            (info.updated or "")[:16].replace("T", " "),
            "" if info.context_tokens is None else f"{info.context_tokens:,}",
        )
        for info in sessions
    ]
    header = ("agent", "id", "title", "cwd", "model", "msgs", "updated", "context")
    for line in plain_table(header, rows, max_width=48):
        ctx.out.data(line)
    return 0


def fork_mark(info: SessionInfo) -> str:
    """`[fork of 1a2b3c4d] ` for a native fork, so a near-copy of its parent does not read as unrelated."""
    if info.parent_id and not info.is_subagent:
        return f"[fork of {info.parent_id[:8]}] "
    return ""


def plain_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], max_width: int) -> list[str]:
    """Align rows in columns, cutting long cells with an ellipsis.

    A rich Table measures every cell several times: for thousands of sessions that cost more than
    discovering them, so listings use this plain layout.
    """
    widths = [min(max_width, max(len(row[i]) for row in (header, *rows))) for i in range(len(header))]
    lines = []
    for row in (header, *rows):
        cells = [
            cell if len(cell) <= width else cell[: width - 1] + "…" for cell, width in zip(row, widths, strict=True)
        ]
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip())
    return lines


def run_show(args: argparse.Namespace, ctx: Context) -> int:
    """Print one session's header and messages (or JSON)."""
    info = ctx.services.find_session(args.id, warn=ctx.out.warn)
    session = ctx.services.load_session(info, warn=ctx.out.warn)
    if args.json:
        ctx.out.json(session_to_json(session))
        return 0
    _print_header(session, ctx)
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ("#", "role", "kind", "tool", "text"):
        table.add_column(column, no_wrap=column != "text", overflow="fold")
    for message in session.messages:
        text = message.text if args.full else one_line(message.head(640), 160)
        table.add_row(
            str(message.index),
            message.role.value,
            message.kind.value + (" (error)" if message.is_error else ""),
            message.tool_name or "",
            text,
        )
    ctx.out.console.print(table)
    return 0


def _print_header(session: Session, ctx: Context) -> None:
    """Print the facts about a session above its messages."""
    info = session.info
    facts = [
        ("id", info.id),
        ("agent", info.agent.value),
        ("title", info.title),
        ("cwd", info.cwd),
        ("model", info.model),
        ("created", info.created),
        ("updated", info.updated),
        ("version", info.source_version),
        ("path", info.path),
        ("messages", str(len(session.messages))),
        (
            "context",
            f"{session.measured_context_tokens:,} tokens (logged by the agent)"
            if session.measured_context_tokens is not None
            else None,
        ),
        ("compactions", str(session.compactions) if session.compactions else None),
    ]
    for key, value in facts:
        if value:
            ctx.out.data(f"{key:>11}: {value}")
    ctx.out.data("")


def info_to_json(info: SessionInfo) -> dict[str, Any]:
    """Serialise a SessionInfo for `--json` output."""
    return asdict(info)


def message_to_dict(message: Message) -> dict[str, Any]:
    """Every field of a message for `--json`, with its whole text (read back if it was left on disk)."""
    data: dict[str, Any] = {}
    for name in message.__dataclass_fields__:
        value = getattr(message, "text" if name == "body" else name)
        data["text" if name == "body" else name] = asdict(value) if name == "usage" and value else value
    return data


def session_to_json(session: Session) -> dict[str, Any]:
    """Serialise a Session for `--json` output."""
    return {
        "info": info_to_json(session.info),
        "messages": [message_to_dict(message) for message in session.messages],
        "warnings": [str(warning) for warning in session.warnings],
        "instructions": session.instructions,
        "measured_context_tokens": session.measured_context_tokens,
        "compactions": session.compactions,
        "extra": session.extra,
    }
