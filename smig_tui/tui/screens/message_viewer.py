"""Provides the message viewer: one message whole, as Markdown, so it can be read before deciding.

Tool calls show their arguments as indented JSON (and a shell command as shell), tool results as a
highlighted block; everything scrolls. `p` pins or unpins the message from here, when a plan can
keep it at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from smig_tui.core.models import Kind, Message, PlanItem
from smig_tui.tui.widgets.key_footer import KeyFooter

SHOWN_CHARS = 100_000
"""Characters of one message rendered: Markdown lays out everything it is given, at once."""


@dataclass(frozen=True, slots=True)
class Viewed:
    """What the viewer shows: a source message with its fate, or a synthetic text (summary, placeholder)."""

    title: str
    """The header line: position, role, kind, tokens, fate."""
    markdown: str
    message: Message | None = None
    """The source message, when there is one to pin."""
    unpinnable: str | None = None
    """Why no plan can keep this message, when none can."""


def fenced(text: str, language: str = "") -> str:
    """A fenced code block that no backtick run inside `text` can close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _as_json(text: str) -> object | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        parsed: object = json.loads(stripped)
    except ValueError:
        return None
    return parsed


def _shell_command(arguments: object) -> str | None:
    """The command of a shell tool call (Codex `shell`, Claude `Bash`), if the arguments hold one."""
    if not isinstance(arguments, dict):
        return None
    command = arguments.get("command") or arguments.get("cmd")
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) >= 3 and command[0] in {"bash", "sh", "zsh"} and command[1] in {"-lc", "-c"}:
            return str(command[2])
        return " ".join(command)
    return command if isinstance(command, str) else None


def message_markdown(message: Message, text: str) -> str:
    """The message as Markdown: prose as is, tool traffic as highlighted blocks."""
    if len(text) > SHOWN_CHARS:
        cut = f"\n\n*Showing the first {SHOWN_CHARS:,} of {len(text):,} characters.*"
        text = text[:SHOWN_CHARS]
    else:
        cut = ""
    if message.kind is Kind.TOOL_CALL:
        arguments = _as_json(text)
        parts = [f"**Tool call** `{message.tool_name or 'tool'}`"]
        command = _shell_command(arguments)
        if command is not None:
            parts.append(fenced(command, "bash"))
        parts.append(
            fenced(json.dumps(arguments, indent=2, ensure_ascii=False), "json")
            if arguments is not None
            else fenced(text)
        )
        return "\n\n".join(parts) + cut
    if message.kind is Kind.TOOL_RESULT:
        head = "**Tool result (failed)**" if message.is_error else "**Tool result**"
        if message.tool_name:
            head += f" of `{message.tool_name}`"
        parsed = _as_json(text)
        block = fenced(json.dumps(parsed, indent=2, ensure_ascii=False), "json") if parsed is not None else fenced(text)
        return f"{head}\n\n{block}{cut}"
    if message.opaque:
        return "*Encrypted reasoning: the agent stores it sealed, so it cannot be shown or migrated.*"
    return (text or "*(empty)*") + cut


def view_of_item(item: PlanItem, pinned: bool, unpinnable: str | None) -> Viewed:
    """What the viewer shows for one plan row."""
    message = item.message
    fate = "kept" if item.kept else "dropped"
    if pinned:
        fate = "pinned"
    title = (
        f"#{message.index} · {message.role.value} · {message.kind.value} · {item.tokens:,} tokens"
        f" · {fate} ({item.reason})"
    )
    body = message_markdown(message, message.text)
    if item.text is not None:
        body = (
            f"*The plan shortens this message to {item.tokens:,} tokens"
            f" (from {item.original_tokens or 0:,}); the whole message follows.*\n\n{body}"
        )
    return Viewed(title, body, message, unpinnable)


class MessageViewer(ModalScreen[None]):
    """One message, summary or placeholder, whole and scrollable; `p` pins or unpins a message."""

    BINDINGS = [
        Binding("escape,q", "close", "Close", tooltip="Back to the plan.", id="viewer.close"),
        Binding("p", "pin", "Pin/unpin", tooltip="Pin or unpin this message so every plan keeps it.", id="viewer.pin"),
    ]
    DEFAULT_CSS = """
    MessageViewer { align: center middle; }
    MessageViewer > Vertical {
        width: 100%; max-width: 160; height: 100%; border: thick $primary; background: $surface;
    }
    MessageViewer #viewer-title { height: auto; padding: 0 1; text-style: bold; }
    MessageViewer #viewer-state { height: auto; padding: 0 1; color: $text-muted; }
    MessageViewer VerticalScroll { height: 1fr; }
    """

    def __init__(
        self, viewed: Viewed, pinned: bool = False, toggle_pin: Callable[[Message], bool] | None = None
    ) -> None:
        super().__init__()
        self.viewed = viewed
        self.pinned = pinned
        """Whether the message is pinned now."""
        self._toggle_pin = toggle_pin

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.viewed.title), id="viewer-title")
            yield Static(Content(self._state()), id="viewer-state")
            with VerticalScroll(id="viewer-body"):
                yield Markdown(self.viewed.markdown)
            yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#viewer-body").focus()

    def _state(self) -> str:
        if self.viewed.message is None:
            return "Written by smig for the migrated conversation · Escape closes"
        if self.viewed.unpinnable is not None:
            return f"No plan can keep this message ({self.viewed.unpinnable}) · Escape closes"
        return f"{'Pinned: every plan keeps it' if self.pinned else 'Not pinned'} · p {'unpins' if self.pinned else 'pins'} · Escape closes"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pinning is offered only for a message a plan can keep."""
        if action == "pin":
            can_pin = self.viewed.message is not None and self.viewed.unpinnable is None
            return True if can_pin and self._toggle_pin is not None else None  # None: shown greyed out
        return True

    def action_pin(self) -> None:
        if self.viewed.message is None or self._toggle_pin is None:
            return
        self.pinned = self._toggle_pin(self.viewed.message)
        self.query_one("#viewer-state", Static).update(Content(self._state()))

    def action_close(self) -> None:
        self.dismiss(None)
