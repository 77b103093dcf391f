"""The commit journal and sessions a commit imports into a client's own database (OpenCode's import):
an interrupted commit that is cleaned up deletes them again; one is finished only when they are there."""

from __future__ import annotations

from pathlib import Path

from migration_builders import make_plan, make_session

from smig_tui.adapters.commit_journal import CommitJournal
from smig_tui.adapters.fs import atomic_write
from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.services import Services, build_services


class FakeClientDatabase:
    """Stands in for the writers: which imported sessions are in the client's database, and deletions."""

    def __init__(self, present: set[str]) -> None:
        self.present_ids = present
        self.removed: list[str] = []

    def present(self, planned: PlannedFile) -> bool:
        assert planned.native is not None
        return planned.native.session_id in self.present_ids

    def remove(self, planned: PlannedFile) -> None:
        assert planned.native is not None
        self.removed.append(planned.native.session_id)
        self.present_ids.discard(planned.native.session_id)


def _laid_out(tmp_path: Path) -> tuple[Services, MigrationResult, PlannedFile]:
    """A dry run's files and record, and an imported session the commit would have made."""
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = services.migrate(session, make_plan(session), {Destination("claude")}, dry_run=True)
    native = NativeOutput("opencode", f"{tmp_path}/opencode.db#ses_x", "ses_x", ("opencode", "-s", "ses_x"))
    imported = PlannedFile(Destination("opencode"), str(tmp_path / "imports" / "ses_x.json"), "{}", native=native)
    return services, result, imported


def test_a_commit_cut_short_after_its_import_deletes_the_imported_session(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, imported = _laid_out(tmp_path)
    journal = CommitJournal(services.paths.data_dir / "journal")
    journal.begin(result.record, services.store.path_for(result.record), [*result.files, imported], [imported])
    atomic_write(Path(imported.path), imported.data, mode=0o600, make_parents=True)  # killed before the transcript
    database = FakeClientDatabase({"ses_x", "theirs"})

    with services.store.lock():
        notes = journal.recover(services.store, database)

    assert database.removed == ["ses_x"] and database.present_ids == {"theirs"}
    assert not Path(imported.path).exists() and not journal.pending()
    assert notes and "deleted the 1 session it had imported" in notes[0] and "nothing was recorded" in notes[0]


def test_a_commit_whose_files_are_whole_but_whose_import_is_missing_is_not_finished(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, imported = _laid_out(tmp_path)
    journal = CommitJournal(services.paths.data_dir / "journal")
    files = [*result.files, imported]
    journal.begin(result.record, services.store.path_for(result.record), files, [imported])
    for planned in files:  # every file written, then killed before `opencode import` ran
        atomic_write(Path(planned.path), planned.data, mode=0o600, make_parents=True)
    database = FakeClientDatabase(set())

    with services.store.lock():
        notes = journal.recover(services.store, database)

    assert "cleaned up" in notes[0] and not services.store.path_for(result.record).exists()
    assert not any(Path(planned.path).exists() for planned in files)


def test_a_commit_whose_files_and_import_are_there_is_finished(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    services, result, imported = _laid_out(tmp_path)
    journal = CommitJournal(services.paths.data_dir / "journal")
    files = [*result.files, imported]
    journal.begin(result.record, services.store.path_for(result.record), files, [imported])
    for planned in files:
        atomic_write(Path(planned.path), planned.data, mode=0o600, make_parents=True)
    database = FakeClientDatabase({"ses_x"})

    with services.store.lock():
        notes = journal.recover(services.store, database)

    assert "finished migration" in notes[0] and services.store.path_for(result.record).exists()
    assert database.removed == []


def test_a_recovery_without_the_writers_leaves_an_entry_with_imports_for_one_that_has_them(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    services, result, imported = _laid_out(tmp_path)
    journal = CommitJournal(services.paths.data_dir / "journal")
    journal.begin(result.record, services.store.path_for(result.record), [*result.files, imported], [imported])

    with services.store.lock():
        assert journal.recover(services.store) == []
    assert journal.pending()
    assert services.recover_commits()  # the service recovers with the writers at hand
    assert not journal.pending()
