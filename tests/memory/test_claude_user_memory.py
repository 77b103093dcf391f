"""Claude Code gets synced memory as user memory: `~/.claude/CLAUDE.md` imports smig's bundle.

Claude Code loads a project's `MEMORY.md` only in that project, but the user's `CLAUDE.md` (and the
files it imports with `@path`) in every session; `tests/e2e/test_memory_sync_real_clients.py` shows
the real client doing so. These tests run `smig memory` in-process on temp homes: where the bundle and
the import line go, `--project` keeping the per-project target, the retirement of an earlier sync's
home-project bundle, and the escaping of `@path` text that Claude would import.
"""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.memory import BUNDLE_NAME as CLAUDE_BUNDLE_NAME
from smig_tui.adapters.agents.claude.memory import USER_BUNDLE_NAME as CLAUDE_USER_BUNDLE_NAME
from smig_tui.adapters.agents.claude.memory import index_line as claude_index_line
from smig_tui.adapters.memory_store import MemoryStore
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.memory_model import MARKER
from smig_tui.services import Services

USER_RULES = "# My rules\n- Prefer small commits.\n- Read @docs/house.md first.\n"


def _smig(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    ctx = Context(out=Output(stdout=out, stderr=err))
    ctx.__dict__["services"] = Services(paths=resolve_paths())
    code = main(["memory", *argv], ctx)
    return code, out.getvalue(), err.getvalue()


def _state() -> dict[str, str]:
    """Target path → hash of what smig last wrote there, from smig's state file."""
    state_file = MemoryStore(resolve_paths()).state_file
    written: dict[str, str] = json.loads(state_file.read_text(encoding="utf-8"))["written"]
    return written


def test_default_sync_imports_the_bundle_from_the_users_claude_md(memory_home: dict[str, Path]) -> None:
    claude_md = memory_home["claude"] / "CLAUDE.md"
    claude_md.write_text(USER_RULES, encoding="utf-8")
    home_memory = memory_home["home_project"] / "memory"
    index_before = (home_memory / "MEMORY.md").read_bytes()
    code, out, err = _smig("sync", "--to-claude")
    assert (code, err) == (0, ""), err
    bundle = (memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME).read_text(encoding="utf-8")
    assert MARKER in bundle and "uv run pytest -q" in bundle  # the Codex summary's own words
    # The user's text is untouched; one import line, relative to CLAUDE.md, is appended.
    assert claude_md.read_text(encoding="utf-8") == USER_RULES + "@smig_memory.md\n"
    # The home folder's project is no longer a target.
    assert not (home_memory / CLAUDE_BUNDLE_NAME).exists()
    assert (home_memory / "MEMORY.md").read_bytes() == index_before
    # A second run has nothing to do.
    assert _smig("sync", "--to-claude", "--quiet") == (0, "", "")
    assert claude_md.read_text(encoding="utf-8").count("@smig_memory.md") == 1


def test_claude_md_is_created_when_absent_and_never_written_over_someone_elses_bundle(
    memory_home: dict[str, Path],
) -> None:
    claude_md = memory_home["claude"] / "CLAUDE.md"
    code, _, err = _smig("sync", "--to-claude")
    assert code == 0, err
    assert claude_md.read_text(encoding="utf-8") == "@smig_memory.md\n"
    claude_md.unlink()
    theirs = memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME
    theirs.write_text("my own notes\n", encoding="utf-8")
    code, _, err = _smig("sync", "--to-claude")
    assert code == 4 and "without smig's generated-by marker" in err and "Traceback" not in err
    assert theirs.read_text(encoding="utf-8") == "my own notes\n"
    assert not claude_md.exists()  # no import of a file smig does not own


def test_project_option_keeps_the_per_project_target(memory_home: dict[str, Path]) -> None:
    code, _, err = _smig("sync", "--to-claude", "--project", "/work/shop-api")
    assert code == 0, err
    project_memory = memory_home["claude"] / "projects" / "-work-shop-api" / "memory"
    assert MARKER in (project_memory / CLAUDE_BUNDLE_NAME).read_text(encoding="utf-8")
    assert claude_index_line() in (project_memory / "MEMORY.md").read_text(encoding="utf-8")
    assert not (memory_home["claude"] / "CLAUDE.md").exists()
    assert not (memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME).exists()


def test_an_earlier_home_project_sync_is_retired_leaving_the_users_lines(memory_home: dict[str, Path]) -> None:
    home_memory = memory_home["home_project"] / "memory"
    index = home_memory / "MEMORY.md"
    user_index = index.read_text(encoding="utf-8")
    # What earlier versions did by default: the bundle and its index line in the home folder's project.
    code, _, err = _smig("sync", "--to-claude", "--project", str(memory_home["home"]))
    assert code == 0, err
    old_bundle = home_memory / CLAUDE_BUNDLE_NAME
    assert old_bundle.exists() and str(old_bundle) in _state()
    index.write_text(
        index.read_text(encoding="utf-8") + "- [later.md](later.md) — added by Claude later\n", encoding="utf-8"
    )
    code, out, err = _smig("sync", "--to-claude")
    assert code == 0, err
    assert f"delete: {old_bundle}" in out and f"drop-line: {index}" in out
    assert not old_bundle.exists()
    assert index.read_text(encoding="utf-8") == user_index + "- [later.md](later.md) — added by Claude later\n"
    assert str(old_bundle) not in _state()
    assert (memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME).exists()
    assert _smig("sync", "--to-claude", "--quiet") == (0, "", "")


def test_an_old_bundle_edited_by_hand_is_left_and_reported(memory_home: dict[str, Path]) -> None:
    old_bundle = memory_home["home_project"] / "memory" / CLAUDE_BUNDLE_NAME
    code, _, err = _smig("sync", "--to-claude", "--project", str(memory_home["home"]))
    assert code == 0, err
    old_bundle.write_text(old_bundle.read_text(encoding="utf-8") + "my own addition\n", encoding="utf-8")
    edited = old_bundle.read_bytes()
    code, _, err = _smig("sync", "--to-claude")
    assert code == 4 and f"Left {old_bundle} in place" in err
    assert old_bundle.read_bytes() == edited
    # The new place is written all the same; the report is shown once.
    assert (memory_home["claude"] / "CLAUDE.md").read_text(encoding="utf-8") == "@smig_memory.md\n"
    code, _, err = _smig("sync", "--to-claude", "--quiet")
    assert (code, err) == (0, "")


def test_a_bundle_someone_else_left_in_the_home_project_is_not_removed(memory_home: dict[str, Path]) -> None:
    theirs = memory_home["home_project"] / "memory" / CLAUDE_BUNDLE_NAME
    theirs.write_text("notes another tool keeps under this name\n", encoding="utf-8")
    code, out, err = _smig("sync", "--to-claude")
    assert code == 0, err
    assert theirs.read_text(encoding="utf-8") == "notes another tool keeps under this name\n"
    assert "delete:" not in out


def test_the_claude_bundle_holds_no_import_claude_would_follow(memory_home: dict[str, Path]) -> None:
    summary = memory_home["codex"] / "memories" / "memory_summary.md"
    summary.write_text(
        "# Summary\n@~/.ssh/config at a line start\n- see @docs/style.md, mail a@b.com\n", encoding="utf-8"
    )
    code, _, err = _smig("sync", "--to-claude")
    assert code == 0, err
    bundle = (memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME).read_text(encoding="utf-8")
    assert "\n\u200b@~/.ssh/config at a line start" in bundle and "see \u200b@docs/style.md" in bundle
    assert "mail a@b.com" in bundle  # an @ inside a word is no import: left as it is
    assert not any(line.startswith("@") or " @" in line or "\t@" in line for line in bundle.splitlines())


def test_status_says_when_claude_code_will_not_load_claude_md(
    memory_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Auto memory off does not matter to CLAUDE.md imports; CLAUDE_CODE_DISABLE_CLAUDE_MDS does.
    (memory_home["claude"] / "settings.json").write_text('{"autoMemoryEnabled": false}', encoding="utf-8")
    code, out, _ = _smig("--to-claude")
    assert code == 0 and "will not load" not in out
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")
    code, out, _ = _smig("--to-claude")
    assert code == 0 and "Claude Code will not load it while CLAUDE_CODE_DISABLE_CLAUDE_MDS is set" in out


def test_a_claude_md_that_is_no_regular_file_stops_the_sync_with_one_sentence(memory_home: dict[str, Path]) -> None:
    claude_md = memory_home["claude"] / "CLAUDE.md"
    os.mkfifo(claude_md)  # reading it would block; writing over it would replace the user's pipe
    code, out, err = _smig("sync", "--to-claude")
    assert code != 0 and f"Not reading {claude_md}: it is not a regular file." in err and "Traceback" not in err
    assert stat.S_ISFIFO(claude_md.lstat().st_mode)
    assert not (memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME).exists()
