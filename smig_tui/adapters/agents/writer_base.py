"""Provides `PlainFileWriter`: what most `NativeWriter`s share, so each agent's writer keeps only its own steps."""

from __future__ import annotations

from smig_tui.core.native import ContinueLatest, PlannedFile


class PlainFileWriter:
    """The steps of a writer whose sessions are plain files its client finds by itself: none to take.

    A writer overrides only what its client needs (a command to run, a thread to name).
    """

    imports = False
    """Its session is a file: installed with the others, not into the client's own database."""

    def unavailable(self) -> str | None:
        """Plain files are always writable here."""
        return None

    def install(self, planned: PlannedFile) -> None:
        """Nothing to do: the client finds the file."""

    def uninstall(self, planned: PlannedFile) -> None:
        """Nothing to undo."""

    def announce(self, planned: PlannedFile) -> None:
        """Nothing to announce: the file names itself."""

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """Nothing to learn: smig does not check what this client's "continue the latest" picks."""
        return None
