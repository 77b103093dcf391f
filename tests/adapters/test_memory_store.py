"""Tests for memory-sync I/O on fake homes: reading both sides, applying plans, the lock."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.memory import BUNDLE_NAME as CLAUDE_BUNDLE_NAME
from smig_tui.adapters.agents.claude.memory import USER_BUNDLE_NAME as CLAUDE_USER_BUNDLE_NAME
from smig_tui.adapters.agents.claude.memory import memory_dir
from smig_tui.adapters.agents.claude.memory import project_name as claude_project_name
from smig_tui.adapters.agents.codex.memory import BUNDLE_NAME as CODEX_BUNDLE_NAME
from smig_tui.adapters.memory_store import MemoryStore
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.errors import LockedError
from smig_tui.core.memory_sync import (
    MARKER,
    Direction,
    FileRole,
    plan_memory_sync,
)

FAKE_KEY = "ghp_" + "Zk4" * 12


@pytest.fixture
def store(memory_home: dict[str, Path]) -> MemoryStore:
    return MemoryStore(resolve_paths())


def _sync(store: MemoryStore, *directions: Direction, project: str | None = None):
    plan = plan_memory_sync(store.read_inputs(project), directions or (Direction("to-claude"), Direction("to-codex")))
    return plan, store.apply(plan)


def _stamp(*paths: Path) -> list[tuple[int, int]]:
    return [(path.stat().st_ino, path.stat().st_mtime_ns) for path in paths]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_reads_codex_layout_and_claude_topic_files(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    inputs = store.read_inputs()
    roles = sorted(f.role.value for f in inputs.of("codex").files)
    assert roles == ["handbook", "raw", "recap", "recap", "summary"]
    names = {Path(f.path).name: f for f in inputs.of("claude").files}
    assert "MEMORY.md" not in names and set(names) == {
        "feedback_git_main.md",
        "user_editor.md",
        "project_db.md",
        "notes_without_frontmatter.md",
    }
    assert names["feedback_git_main.md"].home and not names["project_db.md"].home
    assert inputs.of("claude").bundle == str(memory_home["claude"] / CLAUDE_USER_BUNDLE_NAME)
    assert inputs.of("claude").pointer == str(memory_home["claude"] / "CLAUDE.md")
    assert inputs.current[inputs.of("codex").pointer] is None


def test_sync_both_ways_then_unchanged_runs_write_nothing(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    claude_dir = memory_home["home_project"] / "memory"
    user_index = (claude_dir / "MEMORY.md").read_text()
    home = str(memory_home["home"])  # --project HOME: the per-project target of earlier versions
    plan, result = _sync(store, project=home)
    assert len(result.written) == 4 and result.state_written and not result.skipped
    bundle = (claude_dir / CLAUDE_BUNDLE_NAME).read_text()
    assert MARKER in bundle and "uv run pytest -q" in bundle
    codex_bundle = (memory_home["codex"] / "memories" / CODEX_BUNDLE_NAME).read_text()
    assert "Git default branch should be main" in codex_bundle and "reversible" in codex_bundle
    index = (claude_dir / "MEMORY.md").read_text()
    assert index.startswith(user_index) and index.count(f"]({CLAUDE_BUNDLE_NAME})") == 1
    written = [
        claude_dir / CLAUDE_BUNDLE_NAME,
        claude_dir / "MEMORY.md",
        memory_home["codex"] / "memories" / CODEX_BUNDLE_NAME,
        memory_home["codex"] / "AGENTS.md",
        store.state_file,
    ]
    before = _stamp(*written)
    for _ in range(2):
        plan, result = _sync(store, project=home)
        assert plan.writes == () and result.written == () and not result.state_written
    assert _stamp(*written) == before
    agents = (memory_home["codex"] / "AGENTS.md").read_text()
    assert agents.count(CODEX_BUNDLE_NAME) == 1


def test_source_change_updates_only_the_bundle(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    home = str(memory_home["home"])
    _sync(store, project=home)
    summary = memory_home["codex"] / "memories" / "memory_summary.md"
    summary.write_text(summary.read_text() + "- New: prefers pytest -x\n")
    plan, result = _sync(store, project=home)
    assert [(w.path.rsplit("/", 1)[-1], w.action.value) for w in result.written] == [(CLAUDE_BUNDLE_NAME, "update")]
    assert "prefers pytest -x" in (memory_home["home_project"] / "memory" / CLAUDE_BUNDLE_NAME).read_text()


def test_sources_are_never_modified(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    codex_before = _tree(memory_home["codex"] / "memories")
    project_before = _tree(memory_home["claude"] / "projects" / "-work-shop-api")
    _sync(store)
    codex_after = _tree(memory_home["codex"] / "memories")
    assert codex_after.pop(CODEX_BUNDLE_NAME)
    assert codex_after == codex_before
    assert _tree(memory_home["claude"] / "projects" / "-work-shop-api") == project_before


def test_file_without_marker_is_left_alone(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    theirs = memory_home["home_project"] / "memory" / CLAUDE_BUNDLE_NAME
    theirs.write_text("my own notes about codex\n")
    before = _stamp(theirs)
    home = str(memory_home["home"])
    plan, result = _sync(store, Direction("to-claude"), project=home)
    assert [p.new for p in plan.problems] == [True] and result.written == ()
    assert theirs.read_text() == "my own notes about codex\n" and _stamp(theirs) == before
    assert CLAUDE_BUNDLE_NAME not in (theirs.parent / "MEMORY.md").read_text()
    again, _ = _sync(store, Direction("to-claude"), project=home)
    assert [p.new for p in again.problems] == [False]  # the state remembers it was reported


def test_planted_secret_never_reaches_the_other_side(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    leaky = memory_home["home_project"] / "memory" / "tokens.md"
    leaky.write_text(f"---\nname: Tokens\ndescription: ci token\n---\nGITHUB_TOKEN is {FAKE_KEY}\n")
    plan, _ = _sync(store, Direction("to-codex"))
    written = (memory_home["codex"] / "memories" / CODEX_BUNDLE_NAME).read_text()
    assert FAKE_KEY not in written and "[REDACTED:github-token]" in written
    assert plan.reports[0].redactions == {"github-token": 1}


def test_a_file_changed_after_planning_is_skipped(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    plan = plan_memory_sync(store.read_inputs(), [Direction("to-codex")])
    agents = memory_home["codex"] / "AGENTS.md"
    agents.write_text("# my rules\n")
    result = store.apply(plan)
    assert any("changed since the plan" in why for why in result.skipped)
    assert agents.read_text() == "# my rules\n" and not result.state_written


def test_lock_held_by_another_process_refuses(store: MemoryStore) -> None:
    holder = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from smig_tui.adapters.fs import file_lock
        with file_lock(Path({str(store.state_dir / "lock")!r})):
            print("locked", flush=True)
            sys.stdin.readline()
        """
    )
    child = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        plan = plan_memory_sync(store.read_inputs())
        with pytest.raises(LockedError, match="memory sync"):
            store.apply(plan)
        assert not (Path(plan.writes[0].path)).exists()
    finally:
        child.communicate("done\n", timeout=600)
    assert store.apply(plan).written  # free again once the other run is done


def test_real_transcripts_beside_memory_are_not_read_or_touched(
    store: MemoryStore, memory_home: dict[str, Path], shared_fixtures: Path
) -> None:
    project = memory_home["claude"] / "projects" / "-work-shop-api"
    real = sorted((shared_fixtures / "claude").glob("*.jsonl"))[0]
    copy = project / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    shutil.copyfile(real, copy)
    inputs = store.read_inputs()
    assert all(f.role is FileRole.TOPIC and f.path.endswith(".md") for f in inputs.of("claude").files)
    _sync(store)
    assert copy.read_bytes() == real.read_bytes()


def test_project_option_targets_that_projects_memory(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    claude = store.read_inputs("/work/shop-api").of("claude")
    assert claude.bundle == str(memory_home["claude"] / "projects" / "-work-shop-api" / "memory" / CLAUDE_BUNDLE_NAME)


def test_symlinked_index_keeps_its_link(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    index = memory_home["home_project"] / "memory" / "MEMORY.md"
    dotfiles = memory_home["home"] / "dotfiles" / "MEMORY.md"
    dotfiles.parent.mkdir()
    dotfiles.write_text(index.read_text())
    index.unlink()
    index.symlink_to(dotfiles)
    _sync(store, Direction("to-claude"), project=str(memory_home["home"]))
    assert index.is_symlink() and f"]({CLAUDE_BUNDLE_NAME})" in dotfiles.read_text()


def test_project_memory_is_keyed_by_the_git_root(store: MemoryStore, tmp_path: Path) -> None:
    repo = tmp_path / "src" / "shop"
    (repo / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (repo / "pkg").mkdir()
    worktree = tmp_path / "src" / "shop-feature"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {repo / '.git' / 'worktrees' / 'feature'}\n")
    expected = claude_home().projects / claude_project_name(str(repo)) / "memory"
    assert memory_dir(claude_home(), store.home, str(repo / "pkg")) == expected
    assert memory_dir(claude_home(), store.home, str(worktree)) == expected
    plain = tmp_path / "notes"
    plain.mkdir()
    assert memory_dir(claude_home(), store.home, str(plain)).parent.name == claude_project_name(str(plain))


def test_pointer_goes_where_codex_reads_global_instructions(store: MemoryStore, memory_home: dict[str, Path]) -> None:
    override = memory_home["codex"] / "AGENTS.override.md"
    override.write_text("   \n")  # empty: Codex skips it and reads AGENTS.md
    assert store.read_inputs().of("codex").pointer == str(memory_home["codex"] / "AGENTS.md")
    override.write_text("# temporary global rules\n")
    _sync(store, Direction("to-codex"))
    assert override.read_text().startswith("# temporary global rules\n")
    assert CODEX_BUNDLE_NAME in override.read_text()
    assert not (memory_home["codex"] / "AGENTS.md").exists()


def test_status_says_when_claude_auto_memory_is_off(
    store: MemoryStore, memory_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def note() -> str:
        # Auto memory only matters to a project's MEMORY.md; CLAUDE.md imports load regardless.
        plan = plan_memory_sync(store.read_inputs(str(memory_home["home"])), [Direction("to-claude")])
        return plan.reports[0].note

    assert "will not load" not in note()
    (memory_home["claude"] / "settings.json").write_text('{"autoMemoryEnabled": false}')
    assert "`autoMemoryEnabled` is false" in note()
    (memory_home["claude"] / "settings.json").write_text("{not json")
    assert "will not load" not in note()
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    assert "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set" in note()
