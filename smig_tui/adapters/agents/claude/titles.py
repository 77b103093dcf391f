"""Provides how a Claude Code session gets its title, shared by the quick scan and the full read."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from smig_tui.adapters.agents.claude.blocks import is_injected_text

TITLE_WIDTH = 120
_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def one_line(text: str, width: int = TITLE_WIDTH) -> str:
    """Collapse whitespace and cut to `width` characters, secrets redacted first so no cut leaves half of one."""
    from smig_tui.core.redact import redacted_line  # compiled when a title is made, not on every warm listing

    return redacted_line(text, width) or ""


def prompt_of(data: dict[str, Any]) -> str | None:
    """Return the text a person typed in a `user` record, or None for harness and tool records."""
    if data.get("type") != "user" or data.get("isMeta") or data.get("isCompactSummary"):
        return None
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text: str | None = None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
            return None
        text = next(
            (
                block["text"]
                for block in content
                if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
            ),
            None,
        )
    return prompt_from_text(text) if text else None


def prompt_from_text(text: str) -> str | None:
    """Return a title from user text: a typed prompt, or a slash command with its arguments."""
    if not text.strip():
        return None
    if "<command-name>" in text:
        name, args = _COMMAND_NAME.search(text), _COMMAND_ARGS.search(text)
        if name and args and args.group(1).strip():
            return one_line(f"{name.group(1)} {args.group(1)}")
        return None
    if is_injected_text(text) or text.lstrip().startswith("Caveat:"):
        return None  # a bare "Caveat:" is how older builds began their local-command notice
    return one_line(text)


@dataclass(slots=True)
class TitleFacts:
    """Title sources seen so far; the precedence is custom > ai > summary > first prompt."""

    custom: str | None = None
    ai: str | None = None
    summaries: list[tuple[str, str | None]] = field(default_factory=list)
    """(summary text, leafUuid) in file order."""
    first_prompt: str | None = None

    def take(self, data: dict[str, Any]) -> bool:
        """Note a title record; return True when `data` was one."""
        kind = data.get("type")
        if kind == "custom-title" and isinstance(data.get("customTitle"), str):
            self.custom = data["customTitle"]
        elif kind == "ai-title" and isinstance(data.get("aiTitle"), str):
            self.ai = data["aiTitle"]
        elif kind == "summary" and isinstance(data.get("summary"), str):
            leaf = data.get("leafUuid")
            self.summaries.append((data["summary"], leaf if isinstance(leaf, str) else None))
        else:
            return False
        return True

    def title(self, own_leaf: Callable[[str], bool]) -> str | None:
        """Pick the title; a summary of a leaf in this file beats one about another session."""
        for candidate in (self.custom, self.ai):
            if candidate and candidate.strip():
                return one_line(candidate)
        if self.summaries:
            own = [text for text, leaf in self.summaries if leaf is not None and own_leaf(leaf)]
            return one_line((own or [text for text, _ in self.summaries])[-1])
        return self.first_prompt
