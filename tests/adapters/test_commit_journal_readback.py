"""The commit journal reads every native session back before it calls an interrupted commit finished
(issue 33): files with the planned bytes are not enough; the session must read back, as its client
sees it, message for message as planned, or the commit is rolled back and the note says why."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from migration_builders import make_plan, make_session

from smig_tui.adapters.commit_journal import CommitJournal
from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.readback import Expected
from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent, Role
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.services import Services, build_services


class Client:
    """Stands in for the writers: no imports, and each native session read back with a set answer."""

    def __init__(self, problem: str | None) -> None:
        self.problem = problem
        self.asked: list[tuple[str, int]] = []

    def present(self, planned: PlannedFile) -> bool:
        return True

    def remove(self, planned: PlannedFile) -> None:
        raise AssertionError("nothing was imported")

    def misreads(self, native: NativeOutput, expected: Sequence[Expected]) -> str | None:
        self.asked.append((native.session_id, len(expected)))
        return self.problem


def _written(tmp_path: Path) -> tuple[Services, MigrationResult, CommitJournal, list[PlannedFile]]:
    """A commit's files all on disk with their planned bytes, its record not yet stored (killed there)."""
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = services.migrate(session, make_plan(session), {Destination("claude")}, dry_run=True)
    natives = [planned for planned in result.files if planned.native is not None]
    assert natives
    expected = {
        planned.path: [Expected.of(Role.USER, "hello"), Expected.of(Role.ASSISTANT, "hi")] for planned in natives
    }
    journal = CommitJournal(services.paths.data_dir / "journal")
    journal.begin(result.record, services.store.path_for(result.record), result.files, (), expected)
    for planned in result.files:
        atomic_write(Path(planned.path), planned.data, mode=0o600, make_parents=True)
    return services, result, journal, list(result.files)


def test_the_journal_keeps_what_each_native_session_must_read_back_as(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, journal, files = _written(tmp_path)
    [entry] = [json.loads(path.read_text()) for path in journal.folder.glob("*.json")]
    natives = [item for item in entry["files"] if "native" in item]
    assert natives and all(item["native"]["agent"] == "claude" and len(item["expected"]) == 2 for item in natives)


def test_a_commit_whose_files_are_whole_and_read_back_as_planned_is_finished(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, journal, files = _written(tmp_path)
    client = Client(None)

    with services.store.lock():
        [note] = journal.recover(services.store, client)

    assert note.startswith("finished migration ") and "read back as planned" in note
    assert services.store.path_for(result.record).exists() and client.asked
    assert all(Path(planned.path).exists() for planned in files)


def test_a_commit_whose_files_are_whole_but_do_not_read_back_is_rolled_back(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, journal, files = _written(tmp_path)
    client = Client("does not read back as planned (message 2 differs)")

    with services.store.lock():
        [note] = journal.recover(services.store, client)

    assert note.startswith("rolled back migration ") and "message 2 differs" in note, note
    assert "recorded nothing" in note and not services.store.path_for(result.record).exists()
    assert not any(Path(planned.path).exists() for planned in files) and not journal.pending()
