"""Provides the tools' MCP definitions (schemas, descriptions, annotations) and the check of arguments.

Written by hand so that every parameter is described: Codex drops `default` and `title` from the
schemas it shows the model, so defaults and allowed values are spelt out in each description.
Arguments are checked against these schemas before a tool runs, and a wrong one is reported
naming the tool and the argument, so the model can correct its call.
"""

from __future__ import annotations

from typing import Any

from smig_tui.core import strategies as strategy_table
from smig_tui.core.agent_rules import refused_destination
from smig_tui.core.native import native_destinations
from smig_tui.plugins import agent_profiles, destination_choices, memory_agents

PAGE_CHARS = 36_000
"""Default size of a tool result in UTF-8 bytes (so also in characters): measured, Codex passes about
48 KB whole, OpenCode 51,200 bytes, Gemini CLI 40,000 characters, Claude Code 53 KB or more."""
MIN_PAGE_CHARS, MAX_PAGE_CHARS = 2_000, 40_000
"""The range `max_chars` may ask for: the ceiling is the smallest limit among the four clients."""

STRATEGIES = {
    info.strategy.value: info.description + (" (commit needs yes_send=true)" if info.needs_summary else "")
    for info in strategy_table.STRATEGIES
}
PLANNED_IN_MEMORY = ("truncate", "tools-first", "as-is")
AGENTS = tuple(entry.id for entry in agent_profiles())
"""What `list_sessions` filters by: the installed agents (the registry's, read without building services)."""
AGENT_NAMES = tuple(entry.name for entry in agent_profiles())
NATIVE = tuple(destination.value for destination in native_destinations())
"""The agents a native session can be written for (a read-only agent is none)."""
DESTINATIONS = tuple(destination.value for destination in destination_choices())


def _either(words: tuple[str, ...], last: str = "or") -> str:
    """`a, b, c or d`."""
    return f"{', '.join(words[:-1])} {last} {words[-1]}" if len(words) > 1 else "".join(words)


MEMORY_AGENT_NAMES = tuple(memory_agent.agent for memory_agent in memory_agents())
"""The agents memory sync writes to (each installed agent whose rules take part)."""

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


def _strategy(choices: tuple[str, ...], extra: str = "") -> dict[str, Any]:
    lines = "; ".join(f"{name}: {STRATEGIES[name]}" for name in choices)
    return {
        "type": "string",
        "enum": list(choices),
        "description": f"How to make the conversation fit. Default truncate. {lines}.{extra}",
    }


def _paging(what: str, unit: str) -> dict[str, Any]:
    return {
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": f"Where this page starts ({unit}). Default 0. Each result's next_offset says "
            f"where the next page of {what} starts; null means this was the last page.",
        },
        "max_chars": {
            "type": "integer",
            "minimum": MIN_PAGE_CHARS,
            "maximum": MAX_PAGE_CHARS,
            "description": f"Most UTF-8 bytes (so also characters) in this result, {MIN_PAGE_CHARS:,} to "
            f"{MAX_PAGE_CHARS:,}. Default {PAGE_CHARS:,}, which every agent client passes to the model whole "
            "(less to a client known to cut results shorter: its pages are made to fit).",
        },
    }


MODEL = {
    "type": "string",
    "description": "Model name or alias, e.g. gpt-5.1 or o3; list_known_models lists them.",
}
SESSION_ID = {
    "type": "string",
    "description": "Session id or a unique prefix of at least 4 characters, as list_sessions shows it.",
}
RESERVE = {
    "type": "integer",
    "minimum": 0,
    "description": "Tokens to leave free in the target's window for the reply. Default: the target "
    "model's max output (capped at a quarter of the window).",
}
PAGED_NOTE = " Large results come in pages: see offset and max_chars."

_NULLABLE_TEXT = {"type": ["string", "null"]}
_MODEL_INFO = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "provider": {"type": "string"},
        "status": {"type": "string", "enum": ["current", "legacy", "retired"]},
        "retired": {**_NULLABLE_TEXT, "description": "the date the provider retired it"},
        "replacement": {**_NULLABLE_TEXT, "description": "the model to use instead of a retired one"},
        "released": _NULLABLE_TEXT,
        "context_window": {"type": "integer"},
        "max_output": {"type": "integer"},
        "max_input": {"type": ["integer", "null"]},
        "encoding": {"type": "string"},
        "tokenizer": {"type": "string"},
        "calibration": {"type": "number"},
        "calibration_error": {
            "type": ["number", "null"],
            "description": "the measured worst error of the calibrated count (0.16: ±16%); null when not measured",
        },
        "calibration_classes": {
            "type": "array",
            "description": "for a tokenizer family measured per class of text (prose, code, numbers, chinese, "
            "japanese, korean): each class's factor and measured error; a session's error is its mix of these",
            "items": {"type": "object"},
        },
        "harness_window": {"type": ["integer", "null"]},
        "agents": {
            "type": "array",
            "description": "the window usable inside each agent: agent, window, usable, max_window, source",
            "items": {"type": "object"},
        },
        "source": {"type": "string"},
        "sources": {"type": "object", "description": "where each figure comes from, by figure"},
        "aliases": {"type": "array", "items": {"type": "string"}},
    },
}
_MODEL_INFO["required"] = list(_MODEL_INFO["properties"])
"""`json_shapes.model_json`'s keys, every one always there (tests/test_json_shapes.py holds the two together)."""


def _tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: tuple[str, ...] = (),
    annotations: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": list(required),
            "additionalProperties": False,
        },
        "annotations": {"title": name.replace("_", " "), **(annotations or READ_ONLY)},
    }
    if output is not None:
        tool["outputSchema"] = output
    return tool


TOOLS: list[dict[str, Any]] = [
    _tool(
        "model_context_window",
        "A model's context window, max output, agent-harness usable window, provider, tokenizer encoding and "
        "where the figures come from. An unknown name is an error that lists close matches.",
        {"model": MODEL},
        ("model",),
        output=_MODEL_INFO,
    ),
    _tool(
        "list_known_models",
        "The models smig knows (name, provider, windows), optionally filtered." + PAGED_NOTE,
        {
            "query": {
                "type": "string",
                "description": "Keep models whose name, alias or provider contains this "
                "text. Default: empty, all models.",
            },
            **_paging("models", "an index into models"),
        },
    ),
    _tool(
        "migrate_session",
        "Fit an OpenAI-chat message array to target_model in memory: counts tokens, decides fit or compress, "
        "and returns the decision, tokens before and after, and the migrated messages (system and developer "
        "messages always kept, the omission note right after them). Reads and writes nothing." + PAGED_NOTE,
        {
            "messages_json": {
                "type": ["string", "array"],
                "items": {"type": "object"},
                "description": "The conversation: a JSON array (or the text of one) of "
                "{role, content} messages, content a string or text parts, with "
                "assistant tool_calls and tool messages. At most 20 MB and 50,000 "
                "messages.",
            },
            "source_model": {
                **MODEL,
                "description": "The model the conversation was held with; " + MODEL["description"],
            },
            "target_model": {**MODEL, "description": "The model to fit it to; " + MODEL["description"]},
            "strategy": _strategy(PLANNED_IN_MEMORY, " Summaries need a stored session: use commit_migration."),
            "reserve": RESERVE,
            "harness": {
                "type": "boolean",
                "description": "true: fit into the agent harness's usable share of "
                "the window instead of the whole window. Default false.",
            },
            **_paging("messages", "an index into messages"),
        },
        ("messages_json", "source_model", "target_model"),
    ),
    _tool(
        "list_sessions",
        f"{_either(AGENT_NAMES, 'and')} sessions on this machine, newest first, and which agent homes were "
        "searched." + PAGED_NOTE,
        {
            "agent": {
                "type": "string",
                "enum": list(AGENTS),
                "description": f"Only this agent's sessions: {', '.join(AGENTS)}. Default: all.",
            },
            "cwd": {
                "type": "string",
                "description": "Only sessions that ran in this folder or below it. Default: every folder.",
            },
            "branch": {
                "type": "string",
                "description": "Only sessions last on this git branch (each session's git_branch, as its agent "
                "recorded it). Default: every branch.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 500,
                "description": "Most sessions to list, 1 to 500. Default 20.",
            },
            **_paging("sessions", "an index into sessions"),
        },
    ),
    _tool(
        "preview_migration",
        "What migrating a stored session to target_model would keep and drop (each message's id, tokens, "
        "kept or not and why) and the note that replaces what is dropped. Writes nothing, sends nothing." + PAGED_NOTE,
        {
            "session_id": SESSION_ID,
            "target_model": MODEL,
            "strategy": _strategy(
                tuple(STRATEGIES), " A summary preview shows what would be summarised; nothing is sent."
            ),
            "pins": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Message ids (from a previous preview) always kept. Default: none.",
            },
            "reserve": RESERVE,
            "to": {
                "type": "string",
                "enum": list(NATIVE),
                "description": "The agent that will resume it: its usable window (its compaction rule) and "
                "overhead make the room, as commit_migration with to=[that agent] plans. Default: the "
                "model's home agent.",
            },
            **_paging("items", "an index into items"),
        },
        ("session_id", "target_model"),
    ),
    _tool(
        "commit_migration",
        "Migrate a stored session: the migration is always recorded in smig's storage; "
        f'to=["<agent>"] ({_either(NATIVE)}) also writes a native session that '
        "agent can resume (new files only: nothing existing is changed). Returns the migration id, every path "
        "written and the resume commands, each also as argv and the folder to run it in (resume_argv, resume_cwd).",
        {
            "session_id": SESSION_ID,
            "target_model": MODEL,
            "strategy": _strategy(tuple(STRATEGIES)),
            "to": {
                "type": "array",
                "items": {"type": "string", "enum": list(DESTINATIONS)},
                "description": f"Where to write: store (smig's storage only), {_either(NATIVE)} (a "
                "native session to resume), markdown or json (an export in smig's data folder). Default "
                '["store"].',
            },
            "dry_run": {
                "type": "boolean",
                "description": "true: plan and report the paths, write nothing. Default false.",
            },
            "reserve": RESERVE,
            "yes_send": {
                "type": "boolean",
                "description": "Consent to send the redacted conversation to the summarizer configured "
                "in smig's config.toml, needed by summary and summary-tail. Default false.",
            },
        },
        ("session_id", "target_model"),
        annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    ),
    _tool(
        "get_handoff",
        "The newest migration stored for a project folder (or the nearest folder above it), for the agent "
        "taking the work over: a Markdown handoff, OpenAI chat messages or the stored JSON messages. Read "
        "every page: call again with offset=next_offset until next_offset is null.",
        {
            "workspace": {
                "type": "string",
                "description": "The project folder the migrated session ran in "
                "(usually the current working directory).",
            },
            "format": {
                "type": "string",
                "enum": ["markdown", "openai", "json"],
                "description": "Default markdown: one document to read. openai: chat messages; json: "
                "smig's stored messages.",
            },
            **_paging(
                "the handoff", "a character offset into the Markdown for format=markdown, else an index into messages"
            ),
        },
        ("workspace",),
    ),
    _tool(
        "recall_omitted",
        "Messages a stored migration left out whose text contains the query (case-blind: the exact phrase "
        "first, then messages holding every word), read back from the source session after checking it is "
        "unchanged; each shows its first 4,000 characters, message_id reads one whole." + PAGED_NOTE,
        {
            "migration_id": {
                "type": "string",
                "description": "The 32-hex-digit migration id: commit_migration's migration_id, or get_handoff's id.",
            },
            "query": {
                "type": "string",
                "description": "Words or a phrase to look for, at most 2,000 characters. "
                "Default empty: every omitted message.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Most matching messages to consider, 1 to 100. Default 10.",
            },
            "message_id": {
                "type": "string",
                "description": "Read this one omitted message whole (a match shows "
                "only its first 4,000 characters); its text is paged. "
                "Default: none, list the matches.",
            },
            **_paging(
                "matches (or of the message's text)",
                "an index into messages, or a character offset into the text with message_id",
            ),
        },
        ("migration_id",),
    ),
    _tool(
        "search_sessions",
        "Full-text search over every message of every session on this machine (and smig's archive): hits "
        "ranked with conversation before tool output, each with its session, message id, time and a snippet "
        '(marked: the snippet with the match in «»). Words must all match; "quoted words" match as a phrase, '
        "migr* as a prefix; a OR b matches either; -word or NOT word leaves out messages holding it. Chinese, "
        "Japanese, Korean and emoji match as written. Hits an agent's compaction took out of the history say compacted: true. "
        "Secrets are redacted." + PAGED_NOTE,
        {
            "query": {"type": "string", "description": "What to find, at most 500 characters."},
            "agent": {
                "type": "string",
                "description": f"Only this agent's sessions, e.g. {_either(AGENTS[:2])}. Default: every agent.",
            },
            "cwd": {
                "type": "string",
                "description": "Only sessions that ran in this folder or below it. Default: every folder.",
            },
            "since": {
                "type": "string",
                "description": "Only messages since an age (30m, 12h, 7d, 2w) or an ISO date. Default: all time.",
            },
            "role": {
                "type": "string",
                "enum": ["user", "assistant", "tool", "system", "developer"],
                "description": "Only messages of this role. Default: any.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Most hits to return, 1 to 100. Default 20.",
            },
            **_paging("hits", "an index into hits"),
        },
        ("query",),
    ),
    _tool(
        "memory_sync",
        f"Long-term memory shared among {_either(AGENT_NAMES, 'and')}: each agent set up on this "
        "machine gets one file smig owns holding the other agents' memory (secrets redacted) and one line in "
        "its own memory index or global instructions that makes it read that file. apply=false only reports "
        "each direction, the writes a sync would make and what smig will not write through; apply=true makes "
        "the writes (files smig does not own are never overwritten).",
        {
            "to": {
                "type": "array",
                "items": {"type": "string", "enum": list(MEMORY_AGENT_NAMES)},
                "description": f"The agents to give the others' memory to: {_either(MEMORY_AGENT_NAMES)}. "
                "Default: every agent set up here.",
            },
            "mode": {
                "type": "string",
                "enum": ["auto", "full", "index"],
                "description": "Default auto: full text while it fits the agent's budget, else an index of "
                "paths. full: always full text; index: always one line per file.",
            },
            "apply": {"type": "boolean", "description": "true: write the changes. Default false: report only."},
        },
        annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    ),
]
"""Every tool smig serves, as `tools/list` returns it."""

TOOL_NAMES = {tool["name"] for tool in TOOLS}


def check_arguments(tool: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """The first problem with a call's arguments, as a sentence naming tool and argument; None when fine."""
    name, schema = tool["name"], tool["inputSchema"]
    properties = schema["properties"]
    for key in schema["required"]:
        if arguments.get(key) is None:
            return f"{name} needs the argument {key}."
    for key, value in arguments.items():
        if key not in properties:
            return f"{name} has no argument {key!r}; it takes {', '.join(properties)}."
        if value is None:
            continue
        problem = _check_value(value, properties[key])
        if problem:
            return f"{name}: {key} {problem}."
    return None


def _check_value(value: Any, spec: dict[str, Any]) -> str | None:
    """What is wrong with one value for its schema (the subset the tools use), or None."""
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    kind = _json_type(value)
    if kind not in types and not (kind == "integer" and "number" in types):
        return f"must be {' or '.join('an ' + t if t[0] in 'aeiou' else 'a ' + t for t in types)}, not {kind}"
    if "enum" in spec and value not in spec["enum"]:
        refused = refused_destination(value) if spec["enum"] == list(DESTINATIONS) else ""
        return refused.rstrip(".") or f"must be one of {', '.join(spec['enum'])}, not {value!r}"
    if kind == "integer" and ("minimum" in spec or "maximum" in spec):
        low, high = spec.get("minimum"), spec.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
            return f"must be {span}, not {value:,}"
    if kind == "array" and "items" in spec:
        for position, item in enumerate(value):
            problem = _check_value(item, spec["items"])
            if problem:
                return f"[{position}] {problem}"
    return None


def _json_type(value: Any) -> str:
    """The JSON type name of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__
