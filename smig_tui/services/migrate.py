"""Provides the migrate feature: commit a plan to smig's store and as native sessions, and recover a killed commit."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.services.base import ServicesBase
from smig_tui.services.plan import migrated_messages

if TYPE_CHECKING:
    from smig_tui.adapters import client_launch
    from smig_tui.adapters.storage.migration_store import MigrationStore
    from smig_tui.core.migration import MigrationResult
    from smig_tui.core.models import Plan, Session
    from smig_tui.core.native import Destination, NativeOutput


class Migrations(ServicesBase):
    """Commits (atomic, locked, read back), the store of past ones, and starting the receiving client."""

    @cached_property
    def store(self) -> MigrationStore:
        """smig's storage of committed migrations, per workspace."""
        from smig_tui.adapters.storage.migration_store import MigrationStore

        return MigrationStore(self.paths.data_dir / "migrations")

    def migrate(
        self,
        session: Session,
        plan: Plan,
        to: Iterable[Destination] = (),
        dry_run: bool = False,
        out: Path | None = None,
        force: bool = False,
        redact: bool = True,
        cwd: str | None = None,
    ) -> MigrationResult:
        """Commit a planned migration (or lay it out, with `dry_run`); storage always records it.

        `cwd` writes the native sessions for another project folder than the source's.
        """
        from smig_tui.adapters.migration_commit import Committer, MigrationRequest

        request = MigrationRequest(
            session,
            plan,
            migrated_messages(plan),
            to=tuple(to),
            dry_run=dry_run,
            out=out,
            force=force,
            redact_secrets=redact,
            cwd=cwd,
        )
        return Committer(self.paths, self.store, self.agents, self.env).migrate(request)

    @staticmethod
    def landing_folder(typed: str) -> str | None:
        """The absolute, normalised project folder a typed `--cwd` (or the commit dialog's folder) names, None
        when nothing was typed; it may be another machine's path, so it need not exist here."""
        folder = os.path.expanduser(typed.strip())
        return os.path.normpath(os.path.abspath(folder)) if folder else None

    def recover_commits(self) -> list[str]:
        """Finish or clean up commits a kill interrupted; one sentence each (see `commit_journal`)."""
        from smig_tui.adapters.migration_commit import Committer

        committer = Committer(self.paths, self.store, self.agents, self.env)
        if not committer.journal.pending():
            return []
        with self.store.lock():
            return committer.recover_locked()

    def can_write(self, destination: Destination | str) -> bool:
        """Whether a destination can be written here: an agent's needs its writer (and what that needs)."""
        entry = self.agent_profile(str(destination))
        if entry is None:
            return True  # the store and the exports are smig's own files
        if entry.writer is None:
            return False  # a read-only agent
        writer = entry.writer(self.paths, self.env)
        return writer is not None and writer.unavailable() is None

    def continue_launch(self, output: NativeOutput) -> client_launch.Launch:
        """Check that the receiving client can start on a written session here, for "continue now";
        `client_launch.ContinueRefused` says why not and carries the command to run later."""
        entry = self.agent_profile(output.agent)
        from smig_tui.adapters import client_launch

        return client_launch.prepare(output, entry.name if entry else output.agent, self.env)

    def source_status(self, path: str, sha256: str, size: int) -> str:
        """Whether a migrated source file is `unchanged`, only `grown`, `changed` or `missing` since commit."""
        from smig_tui.adapters.source_check import source_status

        return source_status(path, sha256, size)

    def source_stamp(self, path: str) -> tuple[object, ...] | None:
        """A migrated source's size, mtime and inode (its database's for a row source): what is derived
        from it may be kept while this is unchanged. None when it cannot be read."""
        from smig_tui.adapters.source_check import source_stamp

        return source_stamp(path)
