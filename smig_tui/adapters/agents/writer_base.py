"""Provides `PlainFileWriter`: what most `NativeWriter`s share, so each agent's writer keeps only its own steps."""

from __future__ import annotations

from smig_tui.core.errors import SmigError
from smig_tui.core.handoff import migration_note
from smig_tui.core.models import Role
from smig_tui.core.native import ContinueLatest, Lineage, PlannedFile, Turn


def opening_turns(turns: tuple[Turn, ...], lineage: Lineage) -> tuple[Turn, ...]:
    """The turns a session is written with: none is refused, and one that opens with a reply gets the
    lineage note as its first user turn (clients file and title a session by its first user record)."""
    if not turns:
        raise SmigError("Nothing to write: the migrated conversation is empty.")
    if turns[0].role is not Role.USER:
        return (Turn(Role.USER, migration_note(lineage), turns[0].timestamp), *turns)
    return turns


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
