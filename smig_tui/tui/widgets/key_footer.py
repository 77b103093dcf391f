"""Provides `KeyFooter`: Textual's footer of key bindings, rebuilt only when the keys it shows change."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's `Footer`, which mounts and styles all its keys again after each change of the screen's
    bindings: a screen starting up changes them several times before and just after its first frame
    (the focus moves, the screen stack settles), five rebuilds of the same keys, about half of the CSS
    work before the main screen's first frame. This one rebuilds once for all the changes waiting, and
    not at all when the keys it would show are the ones it shows."""

    _rebuild_waiting = False
    _shown: tuple[object, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Rebuild the keys after the next refresh, unless a rebuild is waiting already."""
        self._bindings_ready = True
        if not screen.app.app_focus or self._rebuild_waiting:
            return
        if self.is_attached and screen is self.screen:
            self._rebuild_waiting = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_waiting = False
        shown = self._keys()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()

    def _keys(self) -> tuple[object, ...]:
        """What `compose` makes the keys from: each shown binding as it would draw it, and the palette's."""
        app = self.app
        return (
            self.show_command_palette,
            app.ENABLE_COMMAND_PALETTE,
            app.COMMAND_PALETTE_BINDING,
            *(
                (binding, app.get_key_display(binding), enabled, tooltip)
                for binding, enabled, tooltip in (entry[1:] for entry in self.screen.active_bindings.values())
            ),
        )
