"""smig's reading of a Gemini session in the terms of a Gemini API request, to compare the two."""

from __future__ import annotations

import json
from typing import Any

from smig_tui.core.models import Kind, Role, Session


def session_items(session: Session) -> list[tuple[str, ...]]:
    """The session's model-visible messages as (role, kind, …) items, like `gemini_client.request_items`."""
    items: list[tuple[str, ...]] = []
    for message in session.messages:
        if message.injected or message.kind is Kind.REASONING:
            continue
        if message.kind is Kind.TOOL_CALL:
            args = json.dumps(json.loads(message.text), sort_keys=True)
            items.append(("model", "call", str(message.tool_name), args))
        elif message.kind is Kind.TOOL_RESULT:
            items.append(("user", "result", str(message.tool_name), message.text))
        else:
            items.append(("user" if message.role is Role.USER else "model", "text", message.text))
    return items


def request_items(body: dict[str, Any], once: bool = False) -> list[tuple[str, ...]]:
    """A request's conversation as (role, kind, …) items: texts, calls with their arguments, results.

    The client's `<session_context>` block and thoughts are left out (smig marks the first as the
    harness's context; the client does not send the second back). With `once`, a call's result sent
    a second time is left out: a resumed Gemini CLI 0.61.0 sends each earlier result twice (from the
    call and from the user record after it), where smig reads it once.
    """
    items: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for content in body.get("contents") or []:
        role = content.get("role", "")
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str) and not part.get("thought"):
                if not part["text"].lstrip().startswith("<session_context>"):
                    items.append((role, "text", part["text"]))
            elif "functionCall" in part:
                call = part["functionCall"]
                items.append((role, "call", call["name"], json.dumps(call.get("args") or {}, sort_keys=True)))
            elif "functionResponse" in part:
                response = part["functionResponse"]
                if once and response.get("id") in seen:
                    continue
                seen.add(response.get("id"))
                output = (response.get("response") or {}).get("output")
                items.append((role, "result", response["name"], str(output)))
    return items
