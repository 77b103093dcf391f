"""Provides `smig search`: full-text search over every session's messages, ranked, with snippets."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import IO, TYPE_CHECKING, Any

from smig_tui.cli.table import Column, render
from smig_tui.core.errors import UsageError
from smig_tui.core.models import Role
from smig_tui.core.words import one_line
from smig_tui.services import agent_profiles

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.services import SearchHit

BAR_WIDTH = 24


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `search` to the CLI."""
    from smig_tui.core.search import QUERY_HELP

    search = subparsers.add_parser(
        "search",
        help='find messages in every session (words, "phrases", prefix*, OR, -word)',
        description=f"Search every session's messages: {QUERY_HELP}. Case, accents and letters such as "
        "ø, ł, ß, æ fold (oresund finds Øresund). Chinese, Japanese, Korean and emoji are matched as written. "
        "A query may start with -word.",
    )
    search.add_argument("query", nargs="+", help="what to find")
    _accept_dash_words(search)
    search.add_argument("--agent", help=f"only this agent ({', '.join(entry.id for entry in agent_profiles())}, …)")
    search.add_argument("--cwd", metavar="PATH", help="only sessions recorded in PATH or below it")
    search.add_argument("--since", metavar="WHEN", help="only messages since an age (30m, 12h, 7d, 2w) or a date")
    search.add_argument("--role", choices=[role.value for role in Role], help="only messages of this role")
    search.add_argument("--limit", type=int, default=20, metavar="N", help="show at most N hits (default 20; 0: all)")
    search.add_argument("--json", action="store_true", help="print JSON for scripts")
    search.set_defaults(handler=run_search)


OPTIONS_WITH_VALUES = ("--agent", "--cwd", "--since", "--role", "--limit")


def _accept_dash_words(parser: argparse.ArgumentParser) -> None:
    """Let `-word` (leave out messages holding it) be part of the query anywhere, without `--`.

    argparse takes any `-x` for an option; the search options are few and known, so everything
    else is moved after a `--` before parsing (the options keep their values)."""
    parse = parser.parse_known_args

    def parse_with_dash_words(args: Any = None, namespace: Any = None) -> Any:
        return parse(_dash_words_last(list(args or [])), namespace)

    parser.parse_known_args = parse_with_dash_words  # type: ignore[method-assign]


def _dash_words_last(args: list[str]) -> list[str]:
    """The options first, then `--` and the query's words in their order."""
    options: list[str] = []
    words: list[str] = []
    at = 0
    while at < len(args):
        arg = args[at]
        if arg == "--":
            words += args[at + 1 :]
            break
        if arg in OPTIONS_WITH_VALUES and at + 1 < len(args):
            options += args[at : at + 2]
            at += 2
            continue
        if arg.startswith("--") or arg in ("-h",):
            options.append(arg)  # --json, --help, --agent=codex, or an unknown option argparse names
        else:
            words.append(arg)
        at += 1
    return [*options, "--", *words] if words else options


def run_search(args: argparse.Namespace, ctx: Context) -> int:
    """Refresh the index (a progress bar on stderr), then print the ranked hits."""
    from smig_tui.core.search import parse_since
    from smig_tui.services import no_cyclic_gc, search_filters

    if args.limit < 0:
        raise UsageError("--limit cannot be negative (0 shows every hit).")
    filters = search_filters(
        agent=args.agent,
        cwd=args.cwd,
        role=args.role,
        since=parse_since(args.since) if args.since else None,
    )
    bar = ProgressBar(ctx.out.stderr, quiet=ctx.out.quiet)
    with no_cyclic_gc():  # start-up: the services, their readers' modules and sources stay for the whole run
        services = ctx.services
    hits = services.search(
        " ".join(args.query),
        filters,
        limit=args.limit or NO_LIMIT,
        warn=ctx.out.warn,
        progress=bar.update,
        notice=lambda text: ctx.out.diag(f"smig: {text}"),
    )
    bar.finish()
    if args.json:
        ctx.out.json([asdict(hit) | {"spans": [list(span) for span in hit.spans]} for hit in hits])
        return 0
    if not hits:
        ctx.out.diag("smig: no matches")
        return 0
    color = ctx.out.stdout.isatty()
    before, after = ("\x1b[1;33m", "\x1b[0m") if color else ("«", "»")
    headings = render(HIT_COLUMNS, [hit_row(hit) for hit in hits], ctx.out.width, header=False)
    for hit, heading in zip(hits, headings, strict=True):
        ctx.out.data(heading)
        ctx.out.data("    " + _marked(hit.snippet, hit.spans, before, after))
    return 0


NO_LIMIT = 1 << 62
"""`--limit 0`: every hit (as `smig list --limit 0` lists every session)."""

HIT_COLUMNS = (
    Column("agent"),
    Column("session"),
    Column("when"),
    Column("message"),
    Column("id"),
    Column("title", text=True, least=12, drop=1),
)
"""A hit's line: its agent, session id, time, role/kind and message id whole (the ids are what `smig show`
and `--pin` take); the session's title takes what is left, or is left out."""


def hit_row(hit: SearchHit) -> tuple[str, ...]:
    """One hit's heading cells."""
    when = (hit.timestamp or "")[:16].replace("T", " ")
    mark = (" [archived]" if hit.archived else "") + (" [compacted away]" if hit.compacted else "")
    return (
        hit.agent,
        hit.session_id,
        when,
        f"{hit.role}/{hit.kind}",
        f"#{hit.message_id}{mark}",
        one_line(hit.title or ""),
    )


def _marked(text: str, spans: tuple[tuple[int, int], ...], before: str, after: str) -> str:
    """The snippet with each match wrapped in `before` … `after`."""
    from smig_tui.core.search import Snippet

    return Snippet(text, spans).marked(before, after)


class ProgressBar:
    """A one-line progress bar on stderr while the index is built: redrawn on a terminal, else two lines."""

    def __init__(self, stream: IO[str], quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet
        self.live = stream.isatty()
        self.total = 0
        self.done = 0

    def update(self, done: int, total: int) -> None:
        """Show `done` of `total` sessions indexed."""
        if self.quiet or total == 0:
            return
        if self.total == 0:
            self.total = total
            if not self.live:
                print(f"smig: indexing {total} new or changed sessions for search…", file=self.stream)
        self.done = done
        if self.live:
            filled = BAR_WIDTH * done // total
            bar = "█" * filled + "░" * (BAR_WIDTH - filled)
            self.stream.write(f"\rsmig: indexing sessions {bar} {done}/{total}")
            self.stream.flush()

    def finish(self) -> None:
        """End the bar's line."""
        if self.quiet or self.total == 0:
            return
        if self.live:
            self.stream.write("\n")
        else:
            print(f"smig: indexed {self.done} sessions", file=self.stream)
