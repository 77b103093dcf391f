"""Provides the MCP prompts and resource templates smig offers: static lists, served without loading the core.

Clients show prompts as slash commands (Claude Code `/mcp__smig__continue_from_agent`, Gemini CLI
`/continue_from_agent`, OpenCode `smig:continue_from_agent`) and resources as attachments; `handoffs`
builds what they return.
"""

from __future__ import annotations

from typing import Any

from smig_tui.core.words import name_list
from smig_tui.plugins import agent_choices, agent_names

CONTINUE = "continue_from_agent"
SESSION_URI = "smig://session/"
"""Every session is the resource `smig://session/<id>`."""

PROMPTS: list[dict[str, Any]] = [
    {
        "name": CONTINUE,
        "title": "Continue from another agent's session here",
        "description": f"Put the latest session of another agent in this folder ({agent_names('or')}) "
        "into this conversation as a handoff fitted to your model's window, secrets redacted, "
        "so you carry on where it stopped.",
        "arguments": [
            {
                "name": "agent",
                "description": f"Whose session: {name_list(agent_choices(), 'or')}. Default: the newest session in "
                "this folder of any agent but the one you are in.",
                "required": False,
            },
            {
                "name": "session",
                "description": "A session id (or unique prefix) to continue instead of the latest one.",
                "required": False,
            },
            {
                "name": "model",
                "description": "The model to fit the handoff to. Default: the model your agent used last.",
                "required": False,
            },
        ],
    }
]
"""Every prompt smig serves, as `prompts/list` returns it."""

RESOURCE_TEMPLATES: list[dict[str, Any]] = [
    {
        "uriTemplate": SESSION_URI + "{id}",
        "name": "session",
        "title": "An agent session, fitted to your window",
        "description": f"Any {agent_names('or')} session on this machine by id, as a "
        "Markdown handoff fitted to your model's window, secrets redacted.",
        "mimeType": "text/markdown",
    }
]
"""The resource templates, as `resources/templates/list` returns them."""
