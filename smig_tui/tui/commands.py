"""Provides the command palette entries: every keyed action of the current screen and the app."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

PALETTE_TITLES: dict[str, str] = {
    "browse.filter": "Sessions: filter",
    "browse.clear": "Sessions: clear filter",
    "browse.subagents": "Sessions: show or hide sub-agents",
    "browse.here": "Sessions: this folder only, or all",
    "browse.branch": "Sessions: this folder's on its git branch, or all",
    "browse.peek": "Sessions: peek at the highlighted one",
    "browse.messages": "Preview: go to the plan's messages",
    "browse.reload": "Sessions: reload",
    "browse.search": "Sessions: search the text of every message",
    "browse.target": "Target: choose model",
    "browse.pin": "Message: pin or unpin",
    "browse.summarize": "Summary: write (sends to the provider)",
    "browse.edit": "Summary: edit",
    "browse.commit": "Migration: commit",
    "browse.export": "Migration: export",
    "browse.tab-truncate": "Preview: truncation",
    "browse.tab-tools-first": "Preview: tools first",
    "browse.tab-summary": "Preview: summary",
    "browse.tab-summary-tail": "Preview: summary + tail",
    "app.help": "Help: show keys",
    "app.theme": "Theme: toggle light and dark",
    "app.memory": "Memory: sync between agents",
    "app.quit": "App: quit",
}
"""Palette titles in the `<noun>: <verb>` form, by binding id."""


class ActionsProvider(Provider):
    """Offers each action bound on the current screen and on the app."""

    def _commands(self) -> Iterator[tuple[str, str, str, object]]:
        """(title, key, help, node) for every documented binding, screen first."""
        for node in (self.screen, self.app):
            for binding in node.BINDINGS:
                if not isinstance(binding, Binding) or not binding.id:
                    continue
                title = PALETTE_TITLES.get(binding.id, binding.description)
                key = binding.key_display or binding.key.split(",")[0]
                yield title, binding.action, f"[{key}] {binding.tooltip}", node

    async def discover(self) -> Hits:
        for title, action, help_text, node in self._commands():
            yield DiscoveryHit(title, partial(self._run, node, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, action, help_text, node in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, node, action), help=help_text)

    async def _run(self, node: object, action: str) -> None:
        await self.app.run_action(action, node)  # type: ignore[arg-type]
