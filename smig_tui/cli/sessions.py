"""Provides `smig list` and `smig show`: what sessions exist, and what one of them holds."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from smig_tui.cli.table import SESSION_HELP, Column, cell_width, unique_prefixes
from smig_tui.cli.table import stream as table_stream
from smig_tui.core.errors import UsageError
from smig_tui.core.json_text import MESSAGE_BATCH, FlatRows
from smig_tui.core.models import Agent, Message, Session, SessionInfo
from smig_tui.core.words import age_text, name_list, one_line, size_text
from smig_tui.services import agent_profiles, current_branch, json_shapes, no_sessions_sentence

if TYPE_CHECKING:
    from smig_tui.cli.main import Context


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `list` and `show` to the CLI."""
    names = name_list([entry.name for entry in agent_profiles()], "and")
    listing = subparsers.add_parser(
        "list", help=f"list {names} sessions, newest first", description=f"List {names} sessions, newest first."
    )
    listing.add_argument("--agent", choices=[entry.id for entry in agent_profiles()], help="only this agent")
    listing.add_argument("--cwd", metavar="PATH", help="only sessions in PATH or below it")
    listing.add_argument(
        "--branch",
        nargs="?",
        const="",
        metavar="NAME",
        help="only sessions of the folder (--cwd, else this one) last on git branch NAME "
        "(default: the branch that folder is on)",
    )
    listing.add_argument("--all", action="store_true", help="include sub-agent and exec sessions")
    listing.add_argument(
        "--limit", type=int, default=0, metavar="N", help="show the newest N only (0, the default: all)"
    )
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    listing.set_defaults(handler=run_list)

    show = subparsers.add_parser("show", help="show one session's messages")
    show.add_argument("id", help=SESSION_HELP)
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    show.add_argument("--full", action="store_true", help="print whole message texts")
    show.set_defaults(handler=run_show)


LIST_COLUMNS = (
    Column("agent"),
    Column("id"),
    Column("updated", right=True),
    Column("size", right=True),
    Column("context", right=True),
    Column("model", drop=1),
    Column("cwd", drop=2),
    Column("title", text=True, least=16, drop=3),
)
"""Figures first (never cut: `id` is the shortest unique prefix), then what may go: the model, then the
folder (a path is dropped whole, never cut), then the title, which shrinks before anything is dropped."""


def run_list(args: argparse.Namespace, ctx: Context) -> int:
    """Print the session table (or JSON)."""
    if args.limit < 0:
        raise UsageError("--limit cannot be negative (0, the default, lists every session).")
    agent = Agent(args.agent) if args.agent else None
    cwd, branch = args.cwd, None
    if args.branch is not None:  # the TUI's `b`: this folder's sessions on its branch
        cwd = cwd or os.getcwd()
        branch = args.branch.strip() or current_branch(cwd)
        if not branch:
            raise UsageError(
                f"{cwd} is not on a git branch (no repository, or a detached HEAD); name one: --branch NAME."
            )
    every_id: list[str] = []
    sessions = ctx.services.list_sessions(
        branch=branch, agent=agent, cwd=cwd, include_subagents=args.all, warn=ctx.out.warn, every_id=every_id
    )
    if args.limit > 0:
        sessions = sessions[: args.limit]
    if args.json:
        ctx.out.json([json_shapes.session_json(info) for info in sessions])
        return 0
    if not sessions:
        ctx.out.diag(f"smig: {no_sessions_sentence(ctx.services.env)}")
        return 0
    prefixes = unique_prefixes(every_id)
    now = datetime.now(UTC)
    user_home = os.path.expanduser("~")
    rows = [
        (
            info.agent.value,
            prefixes.get(info.id, info.id),
            age_text(info.updated, now),
            size_text(info.size) if info.size else "",
            "" if info.context_tokens is None else f"{info.context_tokens:,}",
            info.model or "",
            _home_relative(info.cwd or "", user_home),
            ("[archived] " if info.archived else "") + fork_mark(info) + one_line((info.title or "")[:TITLE_CHARS]),
        )
        for info in sessions
    ]
    ctx.out.table(LIST_COLUMNS, rows)
    return 0


TITLE_CHARS = 1024
"""Characters of a title laid out: wider than any terminal (a title can be a whole first prompt)."""


def _home_relative(path: str, home: str) -> str:
    """`~/proj` for a folder under the home folder: the same path, shorter."""
    if home not in ("", "/") and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def fork_mark(info: SessionInfo) -> str:
    """`[fork of 1a2b3c4d] ` for a native fork, so a near-copy of its parent does not read as unrelated."""
    if info.parent_id and not info.is_subagent:
        return f"[fork of {info.parent_id[:8]}] "
    return ""


def run_show(args: argparse.Namespace, ctx: Context) -> int:
    """Print one session's header and messages (or JSON), a row at a time: a 500 MB session has
    139,000 of them, and holding them all as table rows or JSON objects cost 0.8 GB."""
    info = ctx.services.find_session(args.id, warn=ctx.out.warn)
    session = ctx.services.load_session(info, warn=ctx.out.warn)
    if args.json:
        ctx.out.json(session_to_json(session, ctx.services.with_texts(session.messages)))
        return 0
    _print_header(session, ctx)
    messages = session.messages
    texts: Iterable[str] = (
        (message.text for message in ctx.services.with_texts(messages)) if args.full else map(_preview, messages)
    )
    rows = (
        (
            str(message.index),
            message.role.value,
            _kind_cell(message),
            message.tool_name or "",
            text,
        )
        for message, text in zip(messages, texts, strict=True)
    )
    natural = _show_widths(messages, args.full)
    lines = table_stream(SHOW_COLUMNS, rows, natural, ctx.out.width, bold=ctx.out.stdout.isatty())
    ctx.out.write_blocks(line + "\n" for line in lines)
    return 0


PREVIEW_CHARS = 640
PREVIEW_WIDTH = 160
"""A row shows the first `PREVIEW_WIDTH` characters of the message's first `PREVIEW_CHARS`, on one line."""


def _preview(message: Message) -> str:
    """A message's text on one line, cut to `PREVIEW_WIDTH`: `one_line(message.head(PREVIEW_CHARS), ...)`.

    A text left on disk keeps only its first 400 characters; when those already make more than a row's
    worth once whitespace is collapsed, they give the same cell (whitespace collapsed in a prefix is a
    prefix of it collapsed in the whole), so it is not read back: reading back the long texts of a
    500 MB session was most of `smig show`'s minute.
    """
    body = message.body
    if not isinstance(body, str):
        head = body.head  # a packed text's is unpacked each time it is asked for
        if len(head) < PREVIEW_CHARS:
            flat = " ".join(head.split())
            if len(flat) > PREVIEW_WIDTH:
                return flat[: PREVIEW_WIDTH - 1] + "…"
    return one_line(message.head(PREVIEW_CHARS), PREVIEW_WIDTH)


def _kind_cell(message: Message) -> str:
    return message.kind.value + " (error)" if message.is_error else message.kind.value


def _show_widths(messages: Sequence[Message], full: bool) -> list[int]:
    """Each column's widest cell, header included, as `table.render` measures them, without making the rows.

    The text column wraps, so its natural width counts only up to its least width (`fit`): the texts are
    looked at only until one is that wide.
    """
    kinds = {(message.role, _kind_cell(message), message.tool_name or "") for message in messages}
    least = SHOW_COLUMNS[-1].least
    text = 0
    for message in messages:
        text = max(text, cell_width(message.text if full else _preview(message)))
        if text >= least:
            break
    return [
        max([1, *(len(str(message.index)) for message in messages)]),
        max([4, *(len(role.value) for role, _, _ in kinds)]),
        max([4, *(cell_width(kind) for _, kind, _ in kinds)]),
        max([4, *(cell_width(tool) for _, _, tool in kinds)]),
        max(4, text),
    ]


SHOW_COLUMNS = (
    Column("#", right=True),
    Column("role"),
    Column("kind"),
    Column("tool", drop=1),
    Column("text", text=True, least=16, wrap=True),
)
"""Row number, role and kind whole; a long tool name is left out before the text gets narrower than 16
columns; the text continues on the next lines rather than being cut."""


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


MESSAGE_KEYS = tuple(("text" if name == "body" else name) for name in Message.__dataclass_fields__)


def message_to_dict(message: Message) -> dict[str, Any]:
    """Every field of a message for `--json`, with its whole text (read back if it was left on disk).

    The usage is a dict of its int fields (`Usage.as_dict`: `dataclasses.asdict` was a third of
    `smig show --json`'s own work on a huge session)."""
    data = {key: getattr(message, key) for key in MESSAGE_KEYS}
    data["role"], data["kind"] = message.role.value, message.kind.value  # plain strings encode in one piece
    usage = data["usage"]
    if usage:
        data["usage"] = usage.as_dict()
    return data


def session_to_json(session: Session, messages: Iterable[Message] | None = None) -> dict[str, Any]:
    """Serialise a Session for `--json` output; given `messages` (the session's, texts in hand), its
    messages are made and encoded a few at a time as they are written (`FlatRows`), never held all at once."""
    if messages is None:
        listed: list[Any] | FlatRows = [message_to_dict(message) for message in session.messages]
    else:
        listed = FlatRows(map(message_to_dict, messages), MESSAGE_BATCH, "text")
    return {
        "info": json_shapes.session_json(session.info),
        "messages": listed,
        "warnings": [str(warning) for warning in session.warnings],
        "instructions": session.instructions,
        "measured_context_tokens": session.measured_context_tokens,
        "compactions": session.compactions,
        "extra": session.extra,
    }
