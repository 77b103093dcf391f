"""The archive: every session copied compressed and deduplicated, growth stored incrementally, deleted
originals still listed, searched, planned, exported and migrated, and restored without clobbering."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import stat
from pathlib import Path

import pytest

from smig_tui.adapters.archive import PIECE
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.errors import WriteRefusedError
from smig_tui.services import build_services, session_archive

CLAUDE_SESSION = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def digests(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def claude_file(homes: dict[str, Path]) -> Path:
    return homes["claude"] / "projects" / "-home-user-proj" / f"{CLAUDE_SESSION}.jsonl"


def test_archive_copies_every_session_compressed_private_and_never_touches_a_source(
    fake_home: dict[str, Path],
) -> None:
    before = digests(fake_home["codex"]) | digests(fake_home["claude"])
    services = build_services()
    listed = [info for info in services.iter_sessions(include_subagents=True)]
    code, stdout, _ = smig("archive", "--json")
    run = json.loads(stdout)
    assert code == 0 and run["new"] == len(listed) > 0
    assert run["bytes_stored"] < run["bytes_read"]
    assert digests(fake_home["codex"]) | digests(fake_home["claude"]) == before
    folder = services.paths.data_dir / "archive"
    for path in folder.rglob("*"):
        if path.is_file() and not path.name.endswith(".lock"):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    again = json.loads(smig("archive", "--json")[1])
    assert (again["new"], again["grown"], again["changed"], again["unchanged"]) == (0, 0, 0, len(listed))
    archive = session_archive(services.paths)
    for entry in archive.entries().values():
        assert archive.content(entry) == Path(entry.path).read_bytes()


def test_status_says_what_is_held_and_what_a_run_would_add(fake_home: dict[str, Path]) -> None:
    status = json.loads(smig("archive", "--status", "--json")[1])
    assert status["sessions"] == 0 and status["pending"]["new"] > 0
    smig("archive")
    with claude_file(fake_home).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    status = json.loads(smig("archive", "--status", "--json")[1])
    assert status["sessions"] == status["pending"]["unchanged"] + 1
    assert status["pending"]["grown"] == 1 and status["pending"]["bytes_read"] == 1
    assert 0 < status["stored_bytes"] < status["original_bytes"]
    code, text, _ = smig("archive", "--status")
    assert code == 0 and "a run would add: 0 new, 1 grown" in text


def test_identical_files_are_stored_once(isolated_homes: dict[str, Path]) -> None:
    source = Path(__file__).parents[1] / "fixtures" / "claude_home" / "projects" / "-home-user-proj"
    for project in ("-a", "-b"):
        folder = isolated_homes["claude"] / "projects" / project
        folder.mkdir(parents=True)
        shutil.copy(source / f"{CLAUDE_SESSION}.jsonl", folder)
    run = json.loads(smig("archive", "--json")[1])
    assert run["new"] == 2
    pieces = list((isolated_homes["smig"] / "data" / "archive" / "pieces").rglob("*.zst"))
    assert len(pieces) == 1


def test_append_only_growth_stores_only_the_new_bytes(isolated_homes: dict[str, Path]) -> None:
    folder = isolated_homes["claude"] / "projects" / "-big"
    folder.mkdir(parents=True)
    original = (
        Path(__file__).parents[1]
        / "fixtures"
        / "claude_home"
        / "projects"
        / "-home-user-proj"
        / f"{CLAUDE_SESSION}.jsonl"
    ).read_text(encoding="utf-8")
    path = folder / f"{CLAUDE_SESSION}.jsonl"
    lines = original.splitlines(keepends=True)
    body = "".join(lines)
    path.write_text(body * (2 * PIECE // len(body) + 1), encoding="utf-8")  # a little over 2 pieces
    first = json.loads(smig("archive", "--json")[1])
    assert first["new"] == 1 and first["bytes_read"] == path.stat().st_size
    size = path.stat().st_size
    with path.open("a", encoding="utf-8") as handle:
        handle.write(lines[-1])
    grown = json.loads(smig("archive", "--json")[1])
    assert grown["grown"] == 1
    assert grown["bytes_read"] == path.stat().st_size - (size // PIECE) * PIECE < PIECE
    archive = session_archive(build_services().paths)
    [entry] = archive.entries().values()
    assert archive.content(entry) == path.read_bytes()


def test_a_rewritten_file_is_archived_again_whole(isolated_homes: dict[str, Path], fake_home: dict[str, Path]) -> None:
    smig("archive")
    path = claude_file(fake_home)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("verbose", "VERBOSE", 1), encoding="utf-8")
    run = json.loads(smig("archive", "--json")[1])
    assert run["changed"] == 1
    archive = session_archive(build_services().paths)
    assert archive.content(archive.entries()[str(path)]) == path.read_bytes()


def test_a_deleted_original_still_lists_searches_plans_exports_and_migrates(fake_home: dict[str, Path]) -> None:
    smig("archive")
    path = claude_file(fake_home)
    path.unlink()
    listed = json.loads(smig("list", "--json")[1])
    [entry] = [info for info in listed if info["id"] == CLAUDE_SESSION]
    assert entry["archived"] is True and entry["title"] == "Verbose flag for the CLI"
    hits = json.loads(smig("search", "verbose", "--agent", "claude", "--json")[1])
    assert hits and all(hit["archived"] for hit in hits if hit["session_id"] == CLAUDE_SESSION)
    code, plan, _ = smig("plan", CLAUDE_SESSION[:8], "--target", "gpt-4o", "--json")
    assert code == 0 and json.loads(plan)["decision"]["fits"] is True
    code, exported, _ = smig("export", CLAUDE_SESSION[:8], "--format", "markdown")
    assert code == 0 and "--verbose" in exported
    code, _, stderr = smig("migrate", CLAUDE_SESSION[:8], "--target", "gpt-5.5", "--to", "codex")
    assert code == 0, stderr
    assert not path.exists()  # nothing was written back behind the user's back


def test_restore_writes_the_file_back_and_never_over_an_existing_one(fake_home: dict[str, Path]) -> None:
    path = claude_file(fake_home)
    original = path.read_bytes()
    smig("archive")
    code, _, stderr = smig("archive", "restore", CLAUDE_SESSION[:8])
    assert code == 4 and "is still in the agent's folder" in stderr
    path.unlink()
    code, stdout, _ = smig("archive", "restore", CLAUDE_SESSION[:8])
    assert code == 0 and stdout.strip() == str(path)
    assert path.read_bytes() == original
    listed = json.loads(smig("list", "--json")[1])
    assert [info["archived"] for info in listed if info["id"] == CLAUDE_SESSION] == [False]


def test_restore_goes_under_the_agents_current_home(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    smig("archive")
    moved = tmp_path / "new-claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    code, stdout, _ = smig("archive", "restore", CLAUDE_SESSION)
    assert code == 0
    assert Path(stdout.strip()) == moved / "projects" / "-home-user-proj" / f"{CLAUDE_SESSION}.jsonl"


def test_restore_refuses_a_damaged_archive_and_unknown_ids(fake_home: dict[str, Path]) -> None:
    smig("archive")
    claude_file(fake_home).unlink()
    services = build_services()
    archive = session_archive(services.paths)
    entry = archive.entries()[str(claude_file(fake_home))]
    piece = services.paths.data_dir / "archive" / "pieces" / entry.pieces[0][:2] / f"{entry.pieces[0]}.zst"
    piece.write_bytes(b"\x00" * 40)
    code, _, stderr = smig("archive", "restore", CLAUDE_SESSION)
    errors = [line for line in stderr.splitlines() if line.startswith("smig: error:")]
    assert code == 1 and len(errors) == 1 and "damaged" in errors[0]
    assert not claude_file(fake_home).exists()
    code, _, stderr = smig("archive", "restore", "ffffffff")
    assert code == 3 and "No archived session" in stderr


def test_restore_never_writes_over_an_existing_file(fake_home: dict[str, Path]) -> None:
    smig("archive")
    archive = session_archive(build_services().paths)
    before = claude_file(fake_home).read_bytes()
    with pytest.raises(WriteRefusedError, match="Refusing to restore over existing file"):
        archive.restore(CLAUDE_SESSION)
    assert claude_file(fake_home).read_bytes() == before


def test_a_session_codex_compressed_since_is_live_not_restored(isolated_homes: dict[str, Path]) -> None:
    from smig_tui.adapters.zstd_files import compress_file

    rollouts = Path(__file__).parents[1] / "fixtures" / "codex_home" / "sessions" / "2026" / "11" / "20"
    folder = isolated_homes["codex"] / "sessions" / "2026" / "11" / "20"
    folder.mkdir(parents=True)
    plain = folder / next(p.name for p in rollouts.iterdir() if "0d00" in p.name)
    shutil.copy(rollouts / plain.name, plain)
    smig("archive")
    compress_file(plain, Path(str(plain) + ".zst"))  # Codex rewrites an idle rollout compressed
    plain.unlink()
    listed = json.loads(smig("list", "--json")[1])
    assert [info["archived"] for info in listed] == [False]
    code, _, stderr = smig("archive", "restore", listed[0]["id"])
    assert code == 4 and "still in the agent's folder" in stderr and not plain.exists()


def test_auto_archive_runs_after_a_command_when_the_config_asks(fake_home: dict[str, Path]) -> None:
    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    code, _, stderr = smig("list")
    assert code == 0 and "archived" not in stderr  # off by default
    config.write_text("[archive]\nauto = true\n", encoding="utf-8")
    code, _, stderr = smig("list")
    assert code == 0 and "smig: archived" in stderr
    assert json.loads(smig("archive", "--status", "--json")[1])["pending"]["new"] == 0
    config.write_text('[archive]\nauto = "yes"\n', encoding="utf-8")
    code, _, stderr = smig("list")
    assert code == 0 and "archive.auto must be true or false" in stderr


def test_list_marks_an_archived_session(fake_home: dict[str, Path]) -> None:
    smig("archive")
    claude_file(fake_home).unlink()
    code, stdout, _ = smig("list")
    assert code == 0 and "[archived] Verbose flag for the C" in stdout  # the title is cut to 80 columns


def test_a_damaged_manifest_is_one_sentence_and_listing_still_works(fake_home: dict[str, Path]) -> None:
    smig("archive")
    manifest = fake_home["smig"] / "data" / "archive" / "manifest.json"
    manifest.write_text("{not json", encoding="utf-8")
    code, stdout, stderr = smig("list", "--json")
    assert code == 0 and json.loads(stdout) and "archive manifest" in stderr
    code, _, stderr = smig("archive")
    assert code == 1 and stderr.startswith("smig: error: The archive manifest") and stderr.count("\n") == 1


def test_archive_json_is_json_all_the_way_down(fake_home: dict[str, Path]) -> None:
    """Before: `listed` was a Python set repr inside a string (240 KB on a big machine)."""

    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for item in value.values() for s in strings(item)]
        if isinstance(value, list):
            return [s for item in value for s in strings(item)]
        return [value] if isinstance(value, str) else []

    listed = len(list(build_services().iter_sessions(include_subagents=True)))
    code, stdout, _ = smig("archive", "--status", "--json")
    status = json.loads(stdout)
    assert code == 0 and status["pending"]["sessions_listed"] == listed and "listed" not in status["pending"]
    assert not any(text.startswith(("{", "set(")) for text in strings(status))
    code, stdout, _ = smig("archive", "--json")
    run = json.loads(stdout)
    assert code == 0 and run["sessions_listed"] == listed and run["new"] == listed
    assert not any(text.startswith(("{", "set(")) for text in strings(run))
