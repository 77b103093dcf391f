"""Provides the MCP tools' behaviour over `Services`, as plain functions returning JSON-ready dicts.

Nothing here imports `mcp`: the server module only binds these methods to tool names, so they are
tested in-process and reused by any other front end. Every argument is validated before it reaches
a service; ids must match strict patterns, so no path can be smuggled through one. Only
`commit_migration` writes to the agents' folders, and only through `Services.migrate`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from smig_tui.core.errors import MigrationNotFoundError, SmigError, SummaryConsentError
from smig_tui.core.export import to_markdown
from smig_tui.core.handoff import redact_messages
from smig_tui.core.migration import Destination, MigrationRecord, message_from_json
from smig_tui.core.models import Agent, Message, ModelCapacity, Plan, Role, Session, SessionInfo, Strategy
from smig_tui.core.openai_chat import load_chat, to_chat
from smig_tui.core.redact import redact_json
from smig_tui.mcp.recall import match_omitted, source_messages
from smig_tui.services import Services, migrated_messages

SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{3,127}$")
"""Session ids or unique prefixes (UUIDs, `agent-…`): no dots or separators, so never a path."""
MAX_LIMIT = 500
MAX_PINS = 1_000
HANDOFF_CHARS = 100_000
LISTED = 2_000
"""Most message ids a plan lists per kind (kept, dropped); counts cover the rest."""
"""Default page of a handoff document: agent clients cap tool output (Claude Code near 25k tokens)."""
INLINE_PATH = "<inline messages>"
"""The path of a session built from `migrate_session` input: never a file, so nothing is cached."""


class InvalidArgumentError(SmigError):
    """A tool argument is malformed; the message names it."""

    exit_code = 2


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


def capacity_json(model: ModelCapacity) -> dict[str, Any]:
    """One model's figures and where they come from."""
    return {
        "name": model.name, "provider": model.provider, "context_window": model.context_window,
        "max_output": model.max_output, "max_input": model.max_input, "harness_window": model.harness_window,
        "encoding": model.encoding, "calibration": model.calibration, "source": model.source,
        "aliases": list(model.aliases),
    }


def decision_json(plan: Plan) -> dict[str, Any]:
    """The fit decision of a plan."""
    d = plan.decision
    return {"target": d.target, "fits": d.fits, "session_tokens": d.session_tokens, "budget": d.budget,
            "window": d.window, "reserve": d.reserve, "prompt_limit": d.prompt_limit, "harness": d.harness,
            "over_by": d.over_by, "exact": d.exact}


def plan_json(plan: Plan) -> dict[str, Any]:
    """What a plan keeps and drops, by message id, with its token figures.

    A huge session drops hundreds of thousands of messages: the lists name the newest `LISTED` of
    each (the dropped ones nearest the cut are the ones worth recalling) and the counts say the rest.
    """
    kept, dropped = plan.kept, plan.dropped
    return {
        "decision": decision_json(plan), "strategy": plan.strategy.value,
        "tokens_before": plan.tokens_before, "tokens_after": plan.tokens_after,
        "kept_count": len(kept), "dropped_count": len(dropped),
        "dropped_tokens": sum(item.tokens for item in dropped),
        "kept_ids": [item.message.id for item in kept[-LISTED:]],
        "dropped": [{"id": item.message.id, "tokens": item.tokens, "reason": item.reason}
                    for item in dropped[-LISTED:]],
        "lists_cut": len(kept) > LISTED or len(dropped) > LISTED,
        "shortened": [{"id": item.message.id, "tokens": item.tokens, "original_tokens": item.original_tokens}
                      for item in plan.kept if item.text is not None],
        "placeholder": plan.placeholder, "summary": plan.summary, "notes": list(plan.notes),
    }


def info_json(info: SessionInfo) -> dict[str, Any]:
    """One listing entry."""
    return {"id": info.id, "agent": info.agent.value, "title": info.title, "cwd": info.cwd, "model": info.model,
            "created": info.created, "updated": info.updated, "messages": info.message_count,
            "counted_tokens": info.counted_tokens, "context_tokens": info.context_tokens,
            "context_window": info.context_window, "is_subagent": info.is_subagent, "path": info.path}


class SmigTools:
    """The tools `smig mcp` serves, one method each."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def model_context_window(self, model: str) -> dict[str, Any]:
        """A model's window, output cap, harness share, provider, encoding and source."""
        return capacity_json(self.services.capacities.lookup(model))

    def list_known_models(self, query: str = "") -> dict[str, Any]:
        """Models whose name, alias or provider contains the query (all when empty)."""
        models = self.services.capacities.search(query or "")
        return {"count": len(models), "models": [capacity_json(model) for model in models]}

    def migrate_session(self, messages_json: str | list[Any], source_model: str, target_model: str,
                        strategy: str | None = None, reserve: int | None = None,
                        harness: bool = False) -> dict[str, Any]:
        """Plan a chat array's migration in memory and return the migrated array; nothing is read or written."""
        services = self.services
        source = services.capacities.lookup(source_model)
        target = services.capacities.lookup(target_model)
        chosen = _strategy(strategy)
        if chosen in (Strategy.SUMMARY, Strategy.SUMMARY_TAIL):
            raise InvalidArgumentError("migrate_session plans truncate, tools-first or as-is; summaries need a stored session.")
        reserve = _bounded("reserve", reserve, 0, target.context_window, -1)
        messages = load_chat(messages_json)
        agent = Agent.CLAUDE if source.provider == "anthropic" else Agent.CODEX
        session = Session(SessionInfo(id="inline", agent=agent, path=INLINE_PATH, model=source.name), messages)
        pins = [m.id for m in messages if m.role in (Role.SYSTEM, Role.DEVELOPER)]
        plan = services.plan(session, target.name, chosen, pins=pins,
                             reserve=None if reserve < 0 else reserve, harness=harness)
        source_tokens = sum(services.count_session(session, source))
        migrated = to_chat(migrated_messages(plan))
        return _clean({**plan_json(plan), "source": {"model": source.name, "tokens": source_tokens,
                                                      "window": source.context_window},
                       "input_messages": len(messages), "messages": migrated})

    def list_sessions(self, agent: str | None = None, cwd: str | None = None,
                      limit: int | None = None) -> dict[str, Any]:
        """Sessions found on this machine, newest first."""
        wanted = None
        if agent:
            try:
                wanted = Agent(agent)
            except ValueError:
                raise InvalidArgumentError(f"Unknown agent {agent!r}; use codex or claude.") from None
        count = _bounded("limit", limit, 1, MAX_LIMIT, 20)
        sessions = self.services.list_sessions(agent=wanted, cwd=os.path.expanduser(cwd) if cwd else None)
        return _clean({"total": len(sessions), "sessions": [info_json(info) for info in sessions[:count]]})

    def _session(self, session_id: str) -> Session:
        """Find and read a session by id or unique prefix."""
        info = self.services.find_session(check_session_id(session_id))
        return self.services.load_session(info)

    def _plan(self, session: Session, target: str, strategy: Strategy, pins: Sequence[str],
              reserve: int | None, write_summary: bool = False, yes_send: bool = False) -> Plan:
        """Plan with pins and reserve checked; a written summary comes from the cache unless sending is allowed."""
        known = {message.id for message in session.messages}
        if len(pins) > MAX_PINS:
            raise InvalidArgumentError(f"At most {MAX_PINS:,} pins.")
        unknown = [pin for pin in pins if pin not in known]
        if unknown:
            raise InvalidArgumentError(f"{unknown[0]!r} is not a message id of session {session.id}.")
        capacity = self.services.capacities.lookup(target)
        checked = _bounded("reserve", reserve, 0, capacity.context_window, -1)
        options: dict[str, Any] = {"pins": pins, "reserve": None if checked < 0 else checked}
        if write_summary and strategy in (Strategy.SUMMARY, Strategy.SUMMARY_TAIL):
            try:
                plan, _ = self.services.plan_with_summary(session, capacity.name, strategy,
                                                          allow_network=yes_send, **options)
            except SummaryConsentError as error:  # the CLI's wording names its flag; say the tool's
                raise SummaryConsentError(str(error).replace("--yes-send", "yes_send=true")) from None
            return plan
        return self.services.plan(session, capacity.name, strategy, **options)

    def preview_migration(self, session_id: str, target_model: str, strategy: str | None = None,
                          pins: list[str] | None = None, reserve: int | None = None) -> dict[str, Any]:
        """What a migration would keep and drop; writes nothing."""
        session = self._session(session_id)
        plan = self._plan(session, target_model, _strategy(strategy), pins or [], reserve)
        return _clean({"session_id": session.id, "agent": session.info.agent.value, **plan_json(plan)})

    def commit_migration(self, session_id: str, target_model: str, strategy: str | None = None,
                         to: list[str] | None = None, dry_run: bool = False, reserve: int | None = None,
                         yes_send: bool = False) -> dict[str, Any]:
        """Commit a migration: always stored; native sessions for the agents named in `to`."""
        destinations = set()
        for name in to or ["store"]:
            try:
                destinations.add(Destination(name))
            except ValueError:
                names = ", ".join(d.value for d in Destination)
                raise InvalidArgumentError(f"Unknown destination {name!r}; use {names}.") from None
        session = self._session(session_id)
        plan = self._plan(session, target_model, _strategy(strategy), [], reserve, True, yes_send)
        result = self.services.migrate(session, plan, destinations, dry_run=dry_run)
        record = result.record
        files = [{"destination": f.destination.value, "path": f.path, "bytes": len(f.data.encode("utf-8")),
                  "session_id": f.native.session_id if f.native else None,
                  "resume_command": f.native.resume_command if f.native else None} for f in result.files]
        return _clean({"migration_id": result.migration_id, "dry_run": result.dry_run, "record_path": result.record_path,
                "workspace": record.source.cwd, "files": files, "resume_commands": list(result.resume_commands),
                "decision": decision_json(plan), "strategy": record.strategy, "kept": len(record.kept_ids),
                "dropped": len(record.dropped_ids), "tokens_before": record.tokens_before,
                "tokens_after": record.tokens_after})

    def get_handoff(self, workspace: str, format: str = "markdown", offset: int = 0,
                    max_chars: int | None = None) -> dict[str, Any]:
        """The newest stored migration of a workspace, for the agent picking the work up."""
        if not isinstance(workspace, str) or not workspace.strip() or "\0" in workspace:
            raise InvalidArgumentError("workspace must be the project folder the migrated session ran in.")
        record = self._latest(workspace)
        # Redacted before rendering and paging, so no page boundary can split a secret out of reach.
        messages = redact_messages(message_from_json(data) for data in record.messages)[0]
        if format == "markdown":
            body: Any = to_markdown(_record_session(record, messages), messages)
        elif format == "openai":
            body = to_chat(messages)
        elif format == "json":
            body = redact_json(list(record.messages))
        else:
            raise InvalidArgumentError(f"Unknown format {format!r}; use markdown, openai or json.")
        page: dict[str, Any] = {"content": body}
        if isinstance(body, str):
            page = _page(body, _bounded("offset", offset, 0, max(len(body), 0), 0),
                         _bounded("max_chars", max_chars, 1_000, 10_000_000, HANDOFF_CHARS))
        return _clean({"migration_id": record.id, "created": record.created, "workspace": record.source.cwd,
                "source": {"agent": record.source.agent, "id": record.source.id, "model": record.source.model,
                           "title": record.source.title},
                "target": record.target, "strategy": record.strategy, "tokens_before": record.tokens_before,
                "tokens_after": record.tokens_after, "kept": len(record.kept_ids), "omitted": len(record.dropped_ids),
                "resume_commands": [output.resume_command for output in record.outputs], "format": format, **page,
                "recall": "Call recall_omitted with this migration_id and a query to read omitted messages."
                if record.dropped_ids else None}, keep="content")

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
        raise MigrationNotFoundError(
            f"No migration is stored for workspace {given}; commit one with commit_migration or `smig migrate`."
        )

    def recall_omitted(self, migration_id: str, query: str, limit: int | None = None) -> dict[str, Any]:
        """Messages a stored migration left out that match `query`, read back from the verified source."""
        record = self.services.store.get(migration_id)
        count = _bounded("limit", limit, 1, 100, 10)
        if not isinstance(query, str) or len(query) > 2_000:
            raise InvalidArgumentError("query must be text of at most 2,000 characters.")
        status, omitted, unavailable = source_messages(self.services, record)
        # The source holds the originals: redact before matching and cutting, like every other path out.
        matches = match_omitted(redact_messages(omitted)[0], query)
        return _clean({"migration_id": record.id, "source": {"agent": record.source.agent, "id": record.source.id,
                                                      "path": record.source.path, "status": status},
                "omitted": len(record.dropped_ids), "unavailable": unavailable, "total_matches": len(matches),
                "messages": [_recalled(message) for message in matches[:count]]})


def _clean(reply: dict[str, Any], keep: str | None = None) -> dict[str, Any]:
    """A tool's reply with secrets redacted in every string (titles, placeholder, paths), except `keep`.

    `keep` names a value already redacted before it was paged, which must stay exactly as paged.
    """
    return {key: value if key == keep else redact_json(value) for key, value in reply.items()}


def _record_session(record: MigrationRecord, messages: tuple[Message, ...]) -> Session:
    """A stand-in session for rendering a stored migration's messages."""
    source = record.source
    info = SessionInfo(id=source.id, agent=Agent(source.agent), path=source.path, cwd=source.cwd,
                       title=source.title, model=source.model)
    return Session(info, messages)


def _page(text: str, offset: int, size: int) -> dict[str, Any]:
    """One page of a long text, with where the next one starts."""
    end = min(len(text), offset + size)
    return {"content": text[offset:end], "offset": offset, "total_chars": len(text),
            "next_offset": end if end < len(text) else None}


RECALL_CHARS = 20_000
"""Most characters of one recalled message returned; the rest is marked as cut."""


def _recalled(message: Message) -> dict[str, Any]:
    """One recalled message."""
    cut = len(message.text) > RECALL_CHARS
    return {"id": message.id, "index": message.index, "role": message.role.value, "kind": message.kind.value,
            "tool_name": message.tool_name, "timestamp": message.timestamp, "injected": message.injected,
            "text": message.text[:RECALL_CHARS], "truncated": cut, "chars": len(message.text)}

