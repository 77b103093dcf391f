"""Provides the bodies of smig's MCP prompts, resources and completions: a session as a fitted handoff.

`prompts/get continue_from_agent` and `resources/read smig://session/<id>` both read a session, plan it
for the calling agent's model (truncated to its usable window, the agent's own overhead taken off) and
return the Markdown handoff of what was kept, secrets redacted. The calling agent is known by the
`clientInfo` name its client sends; its model is the one its newest session used, unless the prompt
names one. Errors are JSON-RPC errors carrying smig's sentence (a prompt or resource has no tool-error form).
"""

from __future__ import annotations

import os
import re
from typing import Any

from smig_tui.core.errors import SmigError
from smig_tui.core.export import ExportFormat
from smig_tui.core.handoff import redact_header
from smig_tui.core.models import Agent, SessionInfo, Strategy
from smig_tui.core.redact import redact_json
from smig_tui.core.words import name_list
from smig_tui.mcp.prompts import CONTINUE, SESSION_URI
from smig_tui.mcp.protocol import INVALID_PARAMS, Call, RpcError
from smig_tui.mcp.tools import check_session_id
from smig_tui.mcp.words import for_tools
from smig_tui.plugins import agent_choices, agent_profiles
from smig_tui.services import Services

RESOURCE_PAGE = 50
"""Sessions per `resources/list` page."""
COMPLETIONS = 100
"""Most values one completion answer may hold (the spec's cap)."""
RESOURCE_NOT_FOUND = -32002
"""What handshake-era clients expect for a missing resource (2026-07-28 uses invalid params)."""
CURSOR_RE = re.compile(r"^s([0-9]{1,9})$")
UNFILLED_RE = re.compile(r"^\$([0-9]+|ARGUMENTS)$")
"""A placeholder a client left for an argument not given: OpenCode 1.18.33 sends `$1`, `$2`, ... as written."""


def caller_agent(client: dict[str, Any]) -> Agent | None:
    """The agent whose client sent the request (by the name in its `clientInfo`), or None for another client."""
    name = str(client.get("name") or "")
    return next((entry.agent for entry in agent_profiles() if entry.is_client(name)), None)


class Handoffs:
    """Prompts, resources and completions over `Services`; each method answers one MCP request."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def get_prompt(self, call: Call) -> dict[str, Any]:
        """`prompts/get`: the chosen session as a user message holding its fitted handoff."""
        name, arguments = call.params.get("name"), call.params.get("arguments") or {}
        if name != CONTINUE:
            raise RpcError(INVALID_PARAMS, f"smig has no prompt {name!r}; it has {CONTINUE}.")
        if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
            raise RpcError(INVALID_PARAMS, f"{CONTINUE} takes its arguments as strings.")
        unknown = set(arguments) - {"agent", "session", "model"}
        if unknown:
            raise RpcError(
                INVALID_PARAMS, f"{CONTINUE} has no argument {sorted(unknown)[0]!r}; it takes agent, session, model."
            )
        given = {
            key: value for key, value in arguments.items() if value.strip() and not UNFILLED_RE.match(value.strip())
        }
        caller = caller_agent(call.client)
        info = self._chosen(given.get("agent"), given.get("session"), caller)
        text, facts = self._fitted(info, caller, given.get("model"), call)
        intro = (
            f"Here is the {facts['agent']} session {info.id} from {facts['cwd']}, handed over by smig and fitted to "
            f"{facts['model']} ({facts['kept']:,} of {facts['tokens_before']:,} tokens kept, secrets redacted). "
            "Read it, then carry on the work where it stopped.\n\n"
        )
        return {
            "description": f"{facts['agent']} session {info.id}: {facts['title']}",
            "messages": [{"role": "user", "content": {"type": "text", "text": intro + text}}],
        }

    def resources(self, call: Call) -> dict[str, Any]:
        """`resources/list`: every session, this folder's first, newest first, a page at a time."""
        cursor = call.params.get("cursor")
        start = 0
        if cursor is not None:
            match = CURSOR_RE.match(cursor) if isinstance(cursor, str) else None
            if match is None:
                raise RpcError(
                    INVALID_PARAMS, f"cursor {cursor!r} is not one smig gave; list from the start without it."
                )
            start = int(match.group(1))
        sessions = self._here_first()
        if cursor is not None and start >= len(sessions):
            raise RpcError(INVALID_PARAMS, f"cursor {cursor!r} is past the end; list from the start without it.")
        page = sessions[start : start + RESOURCE_PAGE]
        result: dict[str, Any] = {"resources": [_resource(info) for info in page]}
        if start + RESOURCE_PAGE < len(sessions):
            result["nextCursor"] = f"s{start + RESOURCE_PAGE}"
        return result

    def resource(self, call: Call) -> dict[str, Any]:
        """`resources/read`: one session as a Markdown handoff fitted to the caller's model."""
        uri = call.params.get("uri")
        if not isinstance(uri, str) or not uri.startswith(SESSION_URI):
            raise RpcError(INVALID_PARAMS, f"{uri!r} is not a smig resource; they are {SESSION_URI}<session id>.")
        code = INVALID_PARAMS if call.modern else RESOURCE_NOT_FOUND
        try:
            info = self.services.find_session(check_session_id(uri[len(SESSION_URI) :]))
        except SmigError as error:
            raise RpcError(code, for_tools(error), {"uri": uri}) from None
        text, _ = self._fitted(info, caller_agent(call.client), None, call)
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}

    def complete(self, call: Call) -> dict[str, Any]:
        """`completion/complete`: agents, session ids (this folder's first) or model names for an argument."""
        ref, argument = call.params.get("ref") or {}, call.params.get("argument") or {}
        context = (call.params.get("context") or {}).get("arguments") or {}
        if not isinstance(ref, dict) or not isinstance(argument, dict) or not isinstance(context, dict):
            raise RpcError(INVALID_PARAMS, "completion/complete needs a ref and an argument object.")
        name, value = argument.get("name"), str(argument.get("value") or "")
        prompt = ref.get("type") == "ref/prompt" and ref.get("name") == CONTINUE
        template = ref.get("type") == "ref/resource" and ref.get("uri") == SESSION_URI + "{id}"
        if not (prompt or template):
            raise RpcError(
                INVALID_PARAMS, f"smig completes the {CONTINUE} prompt and {SESSION_URI}{{id}}, not {ref!r}."
            )
        if prompt and name == "agent":
            values = [entry.id for entry in self.services.agents if entry.id.startswith(value.lower())]
        elif prompt and name == "model":
            values = [model.name for model in self.services.capacities.models if model.name.startswith(value)]
        elif name in ("session", "id"):
            wanted = context.get("agent") if prompt else None
            values = [
                info.id
                for info in self._here_first()
                if info.id.startswith(value) and (not wanted or info.agent.value == wanted)
            ]
        else:
            raise RpcError(INVALID_PARAMS, f"smig has nothing to complete for argument {name!r}.")
        return {
            "completion": {"values": values[:COMPLETIONS], "total": len(values), "hasMore": len(values) > COMPLETIONS}
        }

    def _here_first(self) -> list[SessionInfo]:
        """Every session, newest first, those of this folder (and below) ahead of the rest."""
        here = os.getcwd()
        sessions = self.services.list_sessions()
        inside = [info for info in sessions if _below(info.cwd, here)]
        return inside + [info for info in sessions if not _below(info.cwd, here)]

    def _chosen(self, agent: str | None, session: str | None, caller: Agent | None) -> SessionInfo:
        """The session named, else the newest in this folder of `agent` (or of any agent but the caller)."""
        try:
            if session:
                return self.services.find_session(check_session_id(session))
            wanted = Agent(agent) if agent else None
        except ValueError:
            raise RpcError(
                INVALID_PARAMS, f"Unknown agent {agent!r}; use {name_list(agent_choices(), 'or')}."
            ) from None
        except SmigError as error:
            raise RpcError(INVALID_PARAMS, for_tools(error)) from None
        here = os.getcwd()
        found = [
            info
            for info in self.services.list_sessions(agent=wanted, cwd=here)
            if wanted is not None or info.agent != caller
        ]
        if not found:
            whose = f"{wanted.value}" if wanted else "other agents'"
            raise RpcError(
                INVALID_PARAMS, f"No {whose} session ran in {here} or below it; list_sessions shows them all."
            )
        return found[0]

    def _fitted(
        self, info: SessionInfo, caller: Agent | None, model: str | None, call: Call
    ) -> tuple[str, dict[str, Any]]:
        """The session's handoff planned for the caller's model, redacted, and the facts about it."""
        services = self.services
        try:
            session = services.load_session(info)
            call.check()
            target = self._target(caller, model, info)
            plan = services.plan(
                session, target, Strategy.TRUNCATE, harness=True, agent=caller.value if caller else None
            )
        except SmigError as error:
            raise RpcError(INVALID_PARAMS, for_tools(error)) from None
        call.check()
        # The one redacted Markdown export (`smig export --target`, the TUI's export) of what this plan migrates.
        document = services.export(session, ExportFormat.MARKDOWN, plan)
        header = redact_header(session)
        entry = services.agent_profile(info.agent.value)
        facts = {
            "agent": entry.name if entry else info.agent.value,
            "cwd": info.cwd or "an unknown folder",
            "model": plan.decision.target,
            "kept": plan.tokens_after,
            "tokens_before": plan.tokens_before,
            "title": header.info.title or info.id,
        }
        return document, redact_json(facts)

    def _target(self, caller: Agent | None, model: str | None, info: SessionInfo) -> str:
        """The model named, else the caller's latest known model, else the source agent's usual target."""
        table = self.services.capacities
        if model:
            return table.lookup(model).name
        for newest in self.services.list_sessions(agent=caller) if caller else []:
            if newest.model:
                try:
                    return table.lookup(newest.model).name
                except SmigError:
                    continue
        entry = self.services.agent_profile(info.agent.value) or agent_profiles()[0]
        return table.lookup(entry.default_target).name


def _resource(info: SessionInfo) -> dict[str, Any]:
    """One session as a resource listing entry (titles and folders redacted like every path out)."""
    where = f" in {info.cwd}" if info.cwd else ""
    entry: dict[str, Any] = {
        "uri": SESSION_URI + info.id,
        "name": info.id,
        "title": info.title or info.id,
        "description": f"{info.agent.value} session{where}, {info.message_count or 0:,} messages, updated {info.updated or 'unknown'}",
        "mimeType": "text/markdown",
    }
    return redact_json(entry)  # type: ignore[no-any-return]


def _below(path: str | None, folder: str) -> bool:
    """Whether `path` is `folder` or inside it."""
    return bool(path) and (path == folder or str(path).startswith(folder.rstrip("/") + "/"))
