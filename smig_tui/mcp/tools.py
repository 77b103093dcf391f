"""Provides the MCP tools' behaviour over `Services`, as plain functions returning JSON-ready dicts.

The server loads this module on the first tool call and calls these methods by tool name, so they
are tested in-process and reused by any other front end. Every argument is validated before it reaches
a service; ids must match strict patterns, so no path can be smuggled through one. Only
`commit_migration` (through `Services.migrate`) and `memory_sync` with apply=true (through
`Services.memory_apply`) write to the agents' folders.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from smig_tui.core.agent_rules import home_agent_of, refused_destination
from smig_tui.core.errors import MigrationNotFoundError, SessionNotFoundError
from smig_tui.core.export import to_markdown
from smig_tui.core.handoff import redact_messages
from smig_tui.core.migration import MigrationRecord, message_from_json
from smig_tui.core.models import Agent, Message, Plan, Role, Session, SessionInfo, Strategy
from smig_tui.core.native import destinations as all_destinations
from smig_tui.core.native import parse_destination, receiving_agent_of
from smig_tui.core.openai_chat import MAX_CHAT_BYTES, load_chat, to_chat
from smig_tui.core.plans import PLACEHOLDER_ID, SUMMARY_ID
from smig_tui.core.redact import redact_json
from smig_tui.core.strategies import needs_summary
from smig_tui.mcp.paging import InvalidArgumentError, fit_head, json_size, page_items, page_text
from smig_tui.mcp.recall import match_omitted, source_messages
from smig_tui.mcp.schemas import MAX_PAGE_CHARS, MIN_PAGE_CHARS, NATIVE, PAGE_CHARS, TOOLS
from smig_tui.services import Services, json_shapes, migrated_messages

SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{3,127}$")
"""Session ids or unique prefixes (UUIDs, `agent-…`): no dots or separators, so never a path."""
MAX_LIMIT = 500
MAX_PINS = 1_000
"""Reasons of messages no plan migrates (harness context, opaque reasoning, orphaned tool halves):
left out, but not among the ones the omission note counts."""
INLINE_PATH = "<inline messages>"
"""The path of a session built from `migrate_session` input: never a file, so nothing is cached."""
KEPT_RENDERINGS = 4
"""Handoffs (one stored migration in one format) and recalled sources kept rendered and redacted between
calls: a client reads a large one a page at a time, and doing it whole for every page made reading
it cost the square of its size."""
KEPT_CHARS = 64 << 20
"""Characters of text they may hold in all: the omitted part of a huge source is read again for each
call rather than held by a server that runs for as long as its client."""


def check_session_id(value: str) -> str:
    """Return a well-formed session id (or prefix), else raise."""
    if not isinstance(value, str) or not SESSION_ID_RE.match(value):
        raise InvalidArgumentError(
            f"{value!r} is not a session id (4-128 letters, digits, '-' or '_'); list_sessions shows them."
        )
    return value


def _strategy(value: str | None, default: Strategy = Strategy.TRUNCATE) -> Strategy:
    """Parse a strategy name."""
    if value is None or value == "":
        return default
    try:
        return Strategy(value)
    except ValueError:
        names = ", ".join(strategy.value for strategy in Strategy)
        raise InvalidArgumentError(f"Unknown strategy {value!r}; use one of {names}.") from None


def _bounded(name: str, value: int | None, low: int, high: int, default: int) -> int:
    """Check an integer argument's range."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(f"{name} must be a whole number from {low:,} to {high:,}, not {value!r}.")
    return value


PAGE_CEILING: ContextVar[int] = ContextVar("page_ceiling", default=MAX_PAGE_CHARS)
"""The largest page the calling client passes to its model whole (a client that cuts results shorter
than the default page gets pages that fit it, whatever `max_chars` asks)."""


@contextmanager
def pages_for(ceiling: int | None) -> Iterator[None]:
    """Run the tools of one call with pages of at most `ceiling` bytes (None: the usual pages)."""
    token = PAGE_CEILING.set(max(MIN_PAGE_CHARS, min(ceiling, MAX_PAGE_CHARS)) if ceiling else MAX_PAGE_CHARS)
    try:
        yield
    finally:
        PAGE_CEILING.reset(token)


def _page_size(max_chars: int | None) -> int:
    """The page budget a call asked for, else the default; never more than the calling client passes whole."""
    return min(_bounded("max_chars", max_chars, MIN_PAGE_CHARS, MAX_PAGE_CHARS, PAGE_CHARS), PAGE_CEILING.get())


def _offset(offset: int | None) -> int:
    return _bounded("offset", offset, 0, 10**12, 0)


class SmigTools:
    """The tools `smig mcp` serves, one method each; large results come in pages of `max_chars`."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._kept: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._kept_lock = threading.Lock()

    def _kept_or_made(self, key: Hashable, make: Callable[[], Any], chars: Callable[[Any], int]) -> Any:
        """What `make` returns, kept for the next call with the same key (`KEPT_RENDERINGS` of them and
        `KEPT_CHARS` of text as `chars` counts it, the least recently used dropped first). A stored
        migration never changes under its id, and a source's key holds its stamp, so a kept value is
        never stale."""
        with self._kept_lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key][0]
        value = make()
        size = chars(value)
        if size > KEPT_CHARS:
            return value
        with self._kept_lock:
            self._kept[key] = value, size
            while len(self._kept) > KEPT_RENDERINGS or sum(kept for _, kept in self._kept.values()) > KEPT_CHARS:
                self._kept.popitem(last=False)
        return value

    def searched(self) -> dict[str, Any]:
        """The agent homes this server reads, and whether each exists: under Codex the environment is
        cleared, so a missing `CODEX_HOME` or `CLAUDE_CONFIG_DIR` shows here."""
        return {
            name: {"path": str(home), "exists": home.is_dir() or home.is_file()}
            for name, home in self.services.agent_homes().items()
        }

    def model_context_window(self, model: str) -> dict[str, Any]:
        """A model's window, output cap, harness share, provider, encoding and source."""
        return json_shapes.model_json(self.services.capacities.lookup(model))

    def list_known_models(
        self, query: str = "", offset: int | None = None, max_chars: int | None = None
    ) -> dict[str, Any]:
        """Models whose name, alias or provider contains the query (all when empty)."""
        models = self.services.capacities.search(query or "")
        return page_items(
            {"count": len(models)},
            "models",
            [json_shapes.model_json(model) for model in models],
            _offset(offset),
            _page_size(max_chars),
            "list_known_models",
        )

    def migrate_session(
        self,
        messages_json: str | list[Any],
        source_model: str,
        target_model: str,
        strategy: str | None = None,
        reserve: int | None = None,
        harness: bool = False,
        offset: int | None = None,
        max_chars: int | None = None,
    ) -> dict[str, Any]:
        """Plan a chat array's migration in memory and return the migrated array; nothing is read or written.

        The 20 MB cap holds whatever form the array arrives in (a client may send it decoded), and
        the omission note goes after the leading system and developer messages, where it was cut.
        """
        services = self.services
        size = (
            len(messages_json.encode("utf-8", "surrogatepass"))
            if isinstance(messages_json, str)
            else json_size(messages_json)
        )
        if size > MAX_CHAT_BYTES:
            raise InvalidArgumentError(
                f"migrate_session: messages_json is {size / 1e6:.1f} MB, more than the "
                f"limit of {MAX_CHAT_BYTES // 1_000_000} MB."
            )
        source = services.capacities.lookup(source_model)
        target = services.capacities.lookup(target_model)
        chosen = _strategy(strategy)
        if needs_summary(chosen):
            raise InvalidArgumentError(
                "migrate_session plans truncate, tools-first or as-is; for a summary, "
                "commit a stored session with commit_migration and yes_send=true."
            )
        reserve = _bounded("reserve", reserve, 0, target.context_window, -1)
        messages = load_chat(messages_json)
        agent = Agent(home_agent_of(source.provider) or self.services.agents[0].id)  # whose usage figures they are
        session = Session(SessionInfo(id="inline", agent=agent, path=INLINE_PATH, model=source.name), messages)
        pins = [m.id for m in messages if m.role in (Role.SYSTEM, Role.DEVELOPER)]
        plan = services.plan(
            session, target.name, chosen, pins=pins, reserve=None if reserve < 0 else reserve, harness=harness
        )
        source_tokens = sum(services.count_session(session, source))
        migrated = to_chat(_note_after_system(migrated_messages(plan)))
        result = {
            **json_shapes.plan_json(services, session, plan, stored=False),
            "source": {"model": source.name, "tokens": source_tokens, "window": source.context_window},
            "input_messages": _input_count(messages_json),
            "output_messages": len(migrated),
        }
        return page_items(
            _clean(result),
            "messages",
            redact_json(list(migrated)),
            _offset(offset),
            _page_size(max_chars),
            "migrate_session",
        )

    def list_sessions(
        self,
        agent: str | None = None,
        cwd: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        max_chars: int | None = None,
        branch: str | None = None,
    ) -> dict[str, Any]:
        """Sessions found on this machine, newest first, with the homes searched (and the git branch each
        was last on; `branch` keeps only those on it, as `smig list --branch NAME`)."""
        wanted = None
        if agent:
            known = [entry.id for entry in self.services.agents]
            if agent not in known:
                raise InvalidArgumentError(f"list_sessions: unknown agent {agent!r}; use {', '.join(known)}.")
            wanted = Agent(agent)
        count = _bounded("limit", limit, 1, MAX_LIMIT, 20)
        sessions = self.services.list_sessions(
            branch.strip() if branch else None, agent=wanted, cwd=os.path.expanduser(cwd) if cwd else None
        )
        return page_items(
            _clean({"total": len(sessions), "searched": self.searched()}),
            "sessions",
            redact_json([json_shapes.session_json(info) for info in sessions[:count]]),
            _offset(offset),
            _page_size(max_chars),
            "list_sessions",
        )

    def _session(self, session_id: str) -> Session:
        """Find and read a session by id or unique prefix; not finding it names the homes searched."""
        try:
            info = self.services.find_session(check_session_id(session_id))
        except SessionNotFoundError as error:
            homes = "; ".join(
                f"{name} home {home['path']}" + ("" if home["exists"] else " (missing)")
                for name, home in self.searched().items()
            )
            raise SessionNotFoundError(f"{error.sentence} Searched {homes}.", hint=error.hint) from None
        return self.services.load_session(info)

    def _plan(
        self,
        session: Session,
        target: str,
        strategy: Strategy,
        pins: Sequence[str],
        reserve: int | None,
        write_summary: bool = False,
        yes_send: bool = False,
        agent: str | None = None,
    ) -> Plan:
        """Plan with pins and reserve checked; a written summary comes from the cache unless sending is allowed."""
        known = {message.id for message in session.messages}
        if len(pins) > MAX_PINS:
            raise InvalidArgumentError(f"At most {MAX_PINS:,} pins.")
        unknown = [pin for pin in pins if pin not in known]
        if unknown:
            raise InvalidArgumentError(f"{unknown[0]!r} is not a message id of session {session.id}.")
        capacity = self.services.capacities.lookup(target)
        checked = _bounded("reserve", reserve, 0, capacity.context_window, -1)
        options: dict[str, Any] = {"pins": pins, "reserve": None if checked < 0 else checked, "agent": agent}
        if write_summary and needs_summary(strategy):
            plan, _ = self.services.plan_with_summary(
                session, capacity.name, strategy, allow_network=yes_send, **options
            )
            return plan
        return self.services.plan(session, capacity.name, strategy, **options)

    def preview_migration(
        self,
        session_id: str,
        target_model: str,
        strategy: str | None = None,
        pins: list[str] | None = None,
        reserve: int | None = None,
        offset: int | None = None,
        max_chars: int | None = None,
        to: str | None = None,
    ) -> dict[str, Any]:
        """What a migration would keep and drop, message by message, for the agent `to` (its window and
        overhead; default the model's home agent); writes nothing."""
        session = self._session(session_id)
        agent = None
        if to is not None:
            try:
                agent = receiving_agent_of({parse_destination(to)})
            except ValueError:
                agent = None
            if agent is None:
                raise InvalidArgumentError(
                    refused_destination(to) or f"preview_migration: to must name an agent ({', '.join(NATIVE)})."
                )
        plan = self._plan(session, target_model, _strategy(strategy), pins or [], reserve, agent=agent)
        result = {**json_shapes.plan_json(self.services, session, plan, agent), "searched": self.searched()}
        return page_items(
            _clean(result),
            "items",
            redact_json(json_shapes.plan_items(plan)),
            _offset(offset),
            _page_size(max_chars),
            "preview_migration",
        )

    def commit_migration(
        self,
        session_id: str,
        target_model: str,
        strategy: str | None = None,
        to: list[str] | None = None,
        dry_run: bool = False,
        reserve: int | None = None,
        yes_send: bool = False,
    ) -> dict[str, Any]:
        """Commit a migration: always stored; native sessions for the agents named in `to`."""
        destinations = set()
        for name in to or ["store"]:
            try:
                destinations.add(parse_destination(name))
            except ValueError:
                refused = refused_destination(name)
                if refused:
                    raise InvalidArgumentError(f"commit_migration: {refused}") from None
                names = ", ".join(d.value for d in all_destinations())
                raise InvalidArgumentError(
                    f"commit_migration: unknown destination {name!r} in to; use {names}."
                ) from None
        session = self._session(session_id)
        plan = self._plan(
            session, target_model, _strategy(strategy), [], reserve, True, yes_send, receiving_agent_of(destinations)
        )
        result = self.services.migrate(session, plan, destinations, dry_run=dry_run)
        return _clean({**json_shapes.migration_json(result, plan), "searched": self.searched()})

    def get_handoff(
        self, workspace: str, format: str = "markdown", offset: int | None = None, max_chars: int | None = None
    ) -> dict[str, Any]:
        """The newest stored migration of a workspace, for the agent picking the work up, one page at a time."""
        if not isinstance(workspace, str) or not workspace.strip() or "\0" in workspace:
            raise InvalidArgumentError("get_handoff: workspace must be the project folder the migrated session ran in.")
        record = self._latest(workspace)
        result = {
            **json_shapes.stored_migration_listed(record),
            "format": format,
            "recall": "Call recall_omitted with migration_id set to this id and a query to read the messages left out."
            if record.dropped_ids
            else None,
        }
        start, size = _offset(offset), _page_size(max_chars)
        result = fit_head(_clean(result), ("outputs", "files", "source"), size, "get_handoff")
        if format not in ("markdown", "openai", "json"):
            raise InvalidArgumentError(f"get_handoff: unknown format {format!r}; use markdown, openai or json.")
        content = self._kept_or_made(
            ("handoff", record.id, format), lambda: _handoff_content(record, format), _content_chars
        )
        if format == "markdown":
            return page_text(result, "content", content, start, size, "get_handoff")
        return page_items(result, "content", content, start, size, "get_handoff")

    def _latest(self, workspace: str) -> MigrationRecord:
        """The newest record for a workspace, as given and resolved, else for the nearest folder above it.

        An agent started in `repo/sub` picks up a migration made in `repo`; the walk stops below the
        home folder and the root, whose sessions would otherwise match every project.
        """
        given = os.path.abspath(os.path.expanduser(workspace))
        stops = {os.path.abspath(os.path.expanduser("~")), os.path.realpath(os.path.expanduser("~"))}
        for start in dict.fromkeys((given, os.path.realpath(given))):
            folder = start
            while True:
                record = self.services.store.latest(folder)
                if record is not None:
                    return record
                parent = os.path.dirname(folder)
                if parent == folder or parent in stops or os.path.dirname(parent) == parent:
                    break
                folder = parent
        raise MigrationNotFoundError(f"No migration is stored for workspace {given}; commit one with commit_migration.")

    def recall_omitted(
        self,
        migration_id: str,
        query: str = "",
        limit: int | None = None,
        offset: int | None = None,
        max_chars: int | None = None,
        message_id: str | None = None,
    ) -> dict[str, Any]:
        """Messages a stored migration left out that match `query`, read back from the verified source.

        Each match shows its first `RECALL_CHARS` characters; `message_id` reads one message whole,
        its text paged like a handoff, so nothing left out is out of reach.
        """
        record = self.services.store.get(migration_id)
        count = _bounded("limit", limit, 1, 100, 10)
        if not isinstance(query, str) or len(query) > 2_000:
            raise InvalidArgumentError("recall_omitted: query must be text of at most 2,000 characters.")
        status, omitted, unavailable = self._omitted(record)
        result: dict[str, Any] = {
            "migration_id": record.id,
            "source": {
                "agent": record.source.agent,
                "id": record.source.id,
                "path": record.source.path,
                "status": status,
            },
        }
        if message_id is not None:
            message = next((m for m in omitted if m.id == message_id), None)
            if message is None:
                raise InvalidArgumentError(
                    f"recall_omitted: {message_id!r} is not a message migration {record.id} "
                    "left out; a query lists their ids."
                )
            head = {key: value for key, value in _recalled(message).items() if key not in ("text", "truncated", "more")}
            return page_text(
                _clean({**result, **head}),
                "text",
                message.text,
                _offset(offset),
                _page_size(max_chars),
                "recall_omitted",
            )
        matches = match_omitted(omitted, query)
        result.update(omitted=len(record.dropped_ids), unavailable=unavailable, total_matches=len(matches))
        return page_items(
            _clean(result),
            "messages",
            [_recalled(message) for message in matches[:count]],
            _offset(offset),
            _page_size(max_chars),
            "recall_omitted",
        )

    def _omitted(self, record: MigrationRecord) -> tuple[str, list[Message], int]:
        """`source_messages` redacted, kept while the source's stamp is unchanged (a big source was read
        and redacted again for every page and query)."""

        def read() -> tuple[str, list[Message], int]:
            status, omitted, unavailable = source_messages(self.services, record)
            # The source holds the originals: redact before matching and cutting, like every other path out.
            return status, list(redact_messages(omitted)[0]), unavailable

        stamp = self.services.source_stamp(record.source.path)
        if stamp is None:
            return read()
        kept: tuple[str, list[Message], int] = self._kept_or_made(
            ("recall", record.id, stamp), read, lambda value: sum(len(m.text) for m in value[1])
        )
        return kept

    def search_sessions(
        self,
        query: str,
        agent: str | None = None,
        cwd: str | None = None,
        since: str | None = None,
        role: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        max_chars: int | None = None,
    ) -> dict[str, Any]:
        """Full-text search over every session (issue 20): ranked hits with redacted, marked snippets, paged."""
        from smig_tui.mcp.search_tool import search_hits

        hits = search_hits(self.services, query, agent, cwd, since, role, _bounded("limit", limit, 1, 100, 20))
        return page_items(
            _clean({"query": query, "total": len(hits)}),
            "hits",
            hits,
            _offset(offset),
            _page_size(max_chars),
            "search_sessions",
        )

    def memory_sync(self, to: Sequence[str] | None = None, mode: str = "auto", apply: bool = False) -> dict[str, Any]:
        """Plan (and with `apply`, make) a memory sync among the agents; the reply names files, never their text."""
        from smig_tui.core.memory_agents import memory_agent
        from smig_tui.core.memory_sync import Mode

        directions = tuple(dict.fromkeys(memory_agent(name).direction for name in to)) if to else None
        plan = self.services.memory_plan(directions, Mode(mode))
        result = self.services.memory_apply(plan) if apply else None
        return _clean(json_shapes.memory_sync_json(plan, result, show_diffs=False))


def _handoff_content(record: MigrationRecord, format: str) -> str | list[Any]:
    """A stored migration as Markdown text, or OpenAI chat messages or its own messages as JSON items;
    redacted before rendering and paging, so no page boundary can split a secret out of reach."""
    if format == "json":
        items: list[Any] = redact_json(list(record.messages))
        return items
    messages = redact_messages(message_from_json(data) for data in record.messages)[0]
    if format == "openai":
        return list(to_chat(messages))
    return to_markdown(_record_session(record, messages), messages)


def _content_chars(content: str | list[Any]) -> int:
    """A handoff's size: its text's characters, or its items' as the client receives them (`json_size`)."""
    return len(content) if isinstance(content, str) else sum(map(json_size, content))


def _bodies() -> dict[str, Callable[..., dict[str, Any]]]:
    """Each tool's body, found by the name `schemas.TOOLS` gives the tool, taking exactly the schema's arguments.

    `TOOLS` is the one list of tools: a tool listed without a body, or a body whose parameters are
    not the schema's properties, stops this module from loading (and the test suite) instead of
    failing one call at random.
    """
    bodies: dict[str, Callable[..., dict[str, Any]]] = {}
    for tool in TOOLS:
        body = getattr(SmigTools, tool["name"], None)
        code = getattr(body, "__code__", None)
        taken = set(code.co_varnames[1 : code.co_argcount]) if code else None
        if body is None or taken != set(tool["inputSchema"]["properties"]):
            raise TypeError(f"SmigTools.{tool['name']} must take exactly the arguments its schema lists.")
        bodies[tool["name"]] = body
    return bodies


BODIES = _bodies()
"""The tool bodies by tool name, derived from `schemas.TOOLS`."""


def _clean(reply: dict[str, Any]) -> dict[str, Any]:
    """A tool's reply with secrets redacted in every string (titles, placeholder, paths).

    Paged content is redacted before it is paged, so no page boundary can split a secret out of reach.
    """
    return {key: redact_json(value) for key, value in reply.items()}


def _record_session(record: MigrationRecord, messages: tuple[Message, ...]) -> Session:
    """A stand-in session for rendering a stored migration's messages."""
    source = record.source
    info = SessionInfo(
        id=source.id,
        agent=Agent(source.agent),
        path=source.path,
        cwd=source.cwd,
        title=source.title,
        model=source.model,
    )
    return Session(info, messages)


def _note_after_system(messages: Sequence[Message]) -> list[Message]:
    """The migrated messages with the omission note (or summary) moved after the leading system and
    developer messages: they came first in the input, and stay first."""
    out = list(messages)
    if not out or out[0].id not in (PLACEHOLDER_ID, SUMMARY_ID):
        return out
    lead = 1
    while lead < len(out) and out[lead].role in (Role.SYSTEM, Role.DEVELOPER):
        lead += 1
    return [*out[1:lead], out[0], *out[lead:]]


def _input_count(messages_json: str | list[Any]) -> int:
    """How many messages the caller sent (one assistant message with tool calls counts once)."""
    if isinstance(messages_json, list):
        return len(messages_json)
    decoded = json.loads(messages_json)
    return len(decoded) if isinstance(decoded, list) else 0


RECALL_CHARS = 4_000
"""Characters of each recalled message shown in a list of matches; `message_id` reads one whole."""


def _recalled(message: Message) -> dict[str, Any]:
    """One recalled message: its start, and how to read the rest when there is more."""
    cut = len(message.text) > RECALL_CHARS
    return {
        "id": message.id,
        "index": message.index,
        "role": message.role.value,
        "kind": message.kind.value,
        "tool_name": message.tool_name,
        "timestamp": message.timestamp,
        "injected": message.injected,
        "text": message.text[:RECALL_CHARS],
        "truncated": cut,
        "chars": len(message.text),
        "more": f"Call recall_omitted with message_id={message.id!r} to read all of it." if cut else None,
        "full_output_path": message.full_output_path,
    }
