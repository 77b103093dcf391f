# smig: compiled with mypyc where it can (setup.py)
"""Provides the mapping from Codex `ResponseItem` payloads to neutral message fields.

Codex stores model-visible history as Responses-API items (FORMATS.md 1.6). Each item becomes zero
or more `ItemMessage` drafts; the reader adds ids, line numbers and positions.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any, NamedTuple

from smig_tui.core.models import Kind, Role

REQUEST_PREFIX = "## My request for Codex:"
"""Older Codex builds put attached-file notes before this marker and the typed prompt after it."""

INJECTED_PREFIXES = (
    "# AGENTS.md instructions",
    "<environment_context",
    "<permissions instructions",
    "<user_instructions",
    "<INSTRUCTIONS>",
    "<skills_instructions",
    "<collaboration_mode",
    "<personality_spec",
    "<apps_instructions",
    "<developer_instructions",
    "<turn_aborted",
    "<model_switch",
    "<subagent_notification",
)
"""Starts of user-role text the harness writes itself, seen in real rollouts."""

CALL_TYPES = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "image_generation_call",
    }
)
RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
RESPONSE_TYPES = (
    CALL_TYPES
    | RESULT_TYPES
    | {
        "message",
        "reasoning",
        "compaction",
        "compaction_summary",
        "context_compaction",
        "agent_message",
    }
)
"""Item types that carry conversation; anything else (ghost_snapshot, Other) is skipped."""

_TEXT_PARTS = frozenset(("input_text", "output_text", "text", "summary_text", "reasoning_text", "inputText"))
"""Content part types whose `text` is readable text."""
_EXIT_PREFIX = "Process exited with code "
_EXIT_CODE = re.compile(r"(-?\d+)[ \t]*(?:\r?\n|$)")
_CWD = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)


class ItemMessage(NamedTuple):
    """What one item says, before the reader gives it an id and a position (a tuple: a 500 MB
    rollout makes 150,000 of them, and a frozen dataclass costs three times as much to build)."""

    role: Role
    kind: Kind
    text: str
    tool_name: str | None = None
    call_id: str | None = None
    is_error: bool = False
    opaque: bool = False
    injected: bool = False


def is_injected_text(text: str) -> bool:
    """Tell whether user-role text was written by the harness rather than typed."""
    return text.lstrip().startswith(INJECTED_PREFIXES)


def typed_prompt(text: str) -> str:
    """Return the part of a user prompt the person typed, without Codex's file-mention preamble."""
    if REQUEST_PREFIX in text:
        text = text.split(REQUEST_PREFIX, 1)[1]
    return text.strip()


def cwd_from_environment(text: str) -> str | None:
    """Pull the working directory out of an `<environment_context>` block."""
    found = _CWD.search(text)
    return found.group(1).strip() if found else None


def convert(payload: dict[str, Any], tool_names: dict[str, str]) -> list[ItemMessage]:
    """Turn one ResponseItem into message drafts; `tool_names` maps call ids seen to names."""
    kind = payload.get("type")
    if not isinstance(kind, str):
        return []  # a damaged item: nothing a model saw can be rebuilt from it
    if kind == "message":
        return _message(payload)
    if kind == "reasoning":
        return [_reasoning(payload)]
    if kind in CALL_TYPES:
        call = _call(payload)
        if call.call_id and call.tool_name:
            tool_names[call.call_id] = call.tool_name
        return [call]
    if kind in RESULT_TYPES:
        return [_result(payload, tool_names)]
    if kind in ("compaction", "compaction_summary", "context_compaction"):
        return [ItemMessage(Role.USER, Kind.SUMMARY, "[encrypted compaction summary]", opaque=True)]
    if kind == "agent_message":
        return _agent_message(payload)
    return []


def _content_text(content: Any) -> tuple[str, bool]:
    """Join a content list's text; return (text, held only images)."""
    if isinstance(content, str):
        return content, False
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return "", False
    if len(content) == 1 and isinstance(content[0], dict) and content[0].get("type") in _TEXT_PARTS:
        return str(content[0].get("text") or ""), False  # the usual case, without the join
    parts: list[str] = []
    images = 0
    for item in content:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in _TEXT_PARTS:
            parts.append(str(item.get("text") or ""))
        elif kind in ("input_image", "image"):
            images += 1
            parts.append(_image_marker(item.get("image_url")))
        elif kind == "encrypted_content":
            parts.append("[encrypted content]")
    text = "\n".join(part for part in parts if part)
    return text, images > 0 and images == len(parts)


def _image_marker(url: Any) -> str:
    """Describe an image without copying inline data into the text."""
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        return f"[image: {url}]"
    return "[image]"


def _message(payload: dict[str, Any]) -> list[ItemMessage]:
    """Map a `message` item; developer and system text, and harness blocks, are injected."""
    try:
        role = Role(str(payload.get("role") or "user"))
    except ValueError:
        role = Role.USER
    text, only_images = _content_text(payload.get("content"))
    if not text:
        return []
    kind = Kind.IMAGE if only_images else Kind.TEXT
    injected = role in (Role.DEVELOPER, Role.SYSTEM) or (role is Role.USER and is_injected_text(text))
    return [ItemMessage(role, kind, text, injected=injected)]


def _reasoning(payload: dict[str, Any]) -> ItemMessage:
    """Map a `reasoning` item: readable summary or raw text, else an opaque marker."""
    summary, _ = _content_text(payload.get("summary"))
    if not summary:
        summary, _ = _content_text(payload.get("content"))
    if summary:
        return ItemMessage(Role.ASSISTANT, Kind.REASONING, summary)
    return ItemMessage(Role.ASSISTANT, Kind.REASONING, "[encrypted reasoning]", opaque=True)


def _call(payload: dict[str, Any]) -> ItemMessage:
    """Map a tool call of any flavour to its name and readable arguments."""
    kind = payload.get("type")
    call_id = _str_or_none(payload.get("call_id"))
    if kind == "function_call":
        name, text = _qualified(payload), _as_text(payload.get("arguments"))
    elif kind == "custom_tool_call":
        name, text = _qualified(payload), _as_text(payload.get("input"))
    elif kind == "local_shell_call":
        action = payload.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        call_id = call_id or _str_or_none(payload.get("id"))  # older builds linked outputs by id
        text = shlex.join(str(part) for part in command) if isinstance(command, list) else _as_text(command)
        name = "local_shell"
    elif kind == "web_search_call":
        name, text = "web_search", _web_search_text(payload.get("action"))
    elif kind == "tool_search_call":
        name, text = "tool_search", _as_text(payload.get("arguments"))
    else:
        name, text = "image_generation", _as_text(payload.get("revised_prompt"))
    return ItemMessage(Role.ASSISTANT, Kind.TOOL_CALL, text, tool_name=name, call_id=call_id)


def _qualified(payload: dict[str, Any]) -> str:
    """Name a tool with its MCP or dynamic-tool namespace when it has one."""
    name = str(payload.get("name") or "tool")
    namespace = payload.get("namespace")
    return f"{namespace}.{name}" if isinstance(namespace, str) and namespace else name


def _web_search_text(action: Any) -> str:
    """Describe a web search action in words."""
    if not isinstance(action, dict):
        return "web search"
    queries = action.get("queries") or ([action["query"]] if action.get("query") else [])
    if queries:
        return "search: " + "; ".join(str(query) for query in queries)
    if action.get("pattern"):
        return f"find {action['pattern']!r} in {action.get('url') or 'page'}"
    if action.get("url"):
        return f"open {action['url']}"
    return "web search"


def _result(payload: dict[str, Any], tool_names: dict[str, str]) -> ItemMessage:
    """Map a tool output, unwrapping Codex's JSON envelope and reading its exit code."""
    call_id = _str_or_none(payload.get("call_id"))
    name = tool_names.get(call_id or "") or _str_or_none(payload.get("name"))
    if payload.get("type") == "tool_search_output":
        tools = payload.get("tools")
        names = [str(tool.get("name")) for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
        return ItemMessage(
            Role.TOOL,
            Kind.TOOL_RESULT,
            "tools found: " + ", ".join(names),
            name or "tool_search",
            call_id,
        )
    text, exit_code = unwrap_output(payload.get("output"))
    failed = exit_code is not None and exit_code != 0
    if isinstance(payload.get("output"), dict) and payload["output"].get("success") is False:
        failed = True
    return ItemMessage(Role.TOOL, Kind.TOOL_RESULT, text, name, call_id, is_error=failed)


def unwrap_output(output: Any) -> tuple[str, int | None]:
    """Return a tool output's readable text and exit code (None where not recorded)."""
    if isinstance(output, str):
        envelope = _json_object(output)
        if envelope is not None and isinstance(envelope.get("output"), str):
            metadata = envelope.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            return envelope["output"], code if isinstance(code, int) else None
        return output, _exit_code(output)
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return output["content"], None
    text, _ = _content_text(output)
    return text, None


def _exit_code(output: str) -> int | None:
    """Read unified exec's `Process exited with code N` header line, when there is one."""
    start = output.find(_EXIT_PREFIX, 0, 2000)
    if start < 0 or (start > 0 and output[start - 1] != "\n"):
        return None
    found = _EXIT_CODE.match(output, start + len(_EXIT_PREFIX))
    return int(found.group(1)) if found else None


def _agent_message(payload: dict[str, Any]) -> list[ItemMessage]:
    """Map an inter-agent message; it reaches the model as input, like a user turn."""
    text, _ = _content_text(payload.get("content"))
    if not text:
        return []
    author, recipient = payload.get("author"), payload.get("recipient")
    if author or recipient:
        text = f"[agent message from {author or '?'} to {recipient or '?'}]\n{text}"
    return [ItemMessage(Role.USER, Kind.TEXT, text, injected=True)]


def _json_object(text: str) -> dict[str, Any] | None:
    """Parse text as a JSON object, or return None."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _as_text(value: Any) -> str:
    """Render an argument value as text: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _str_or_none(value: Any) -> str | None:
    """Keep non-empty strings only."""
    return value if isinstance(value, str) and value else None
