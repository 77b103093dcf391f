"""Aider in memory sync: smig's bundle named by one `read:` line of `~/.aider.conf.yml`, the files that
config reads carried to the other agents, and a config with a `read` key of its own left alone.

Driven through the CLI in-process in the temp home; the real client reading the bundle is proven in
tests/e2e/test_memory_sync_real_clients.py and tests/e2e/test_aider_real_client.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.adapters.agents.aider.memory import read_entries
from smig_tui.core.memory_model import MARKER


@pytest.fixture
def home(isolated_homes: dict[str, Path]) -> Path:
    """A home where Aider has run (its `~/.aider` folder) and Codex keeps a memory summary."""
    (isolated_homes["home"] / ".aider").mkdir()
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- CODEX-NOTE prefers uv\n", encoding="utf-8")
    return isolated_homes["home"]


def _config(home: Path) -> Path:
    return home / ".aider.conf.yml"


def _bundle(home: Path) -> Path:
    return home / ".aider.smig_memory.md"


def test_sync_creates_the_config_naming_the_bundle_and_a_second_sync_changes_nothing(home: Path) -> None:
    code, _, err = smig("memory", "sync", "--to-aider")
    assert code == 0, err
    assert _config(home).read_text(encoding="utf-8") == f"read: {_bundle(home)}\n"
    bundle = _bundle(home).read_text(encoding="utf-8")
    assert bundle.startswith(MARKER) and "CODEX-NOTE prefers uv" in bundle and "Codex" in bundle
    code, out, err = smig("memory", "sync", "--to-aider", "--json")
    assert code == 0, err
    assert json.loads(out)["writes"] == []
    assert _config(home).read_text(encoding="utf-8") == f"read: {_bundle(home)}\n"


def test_sync_appends_one_line_to_a_config_without_a_read_key(home: Path) -> None:
    mine = "# my settings\nmodel: gpt-4.1\nauto-commits: false  # read: is not a key here\n"
    _config(home).write_text(mine, encoding="utf-8")
    assert smig("memory", "sync")[0] == 0
    assert _config(home).read_text(encoding="utf-8") == mine + f"read: {_bundle(home)}\n"
    assert smig("memory", "sync")[0] == 0  # a second sync adds no second line
    assert _config(home).read_text(encoding="utf-8") == mine + f"read: {_bundle(home)}\n"


@pytest.mark.parametrize(
    "read", ["read: CONVENTIONS.md\n", "read: [a.md, b.md]\n", "read:\n  - a.md\n", '"read": a.md\n']
)
def test_a_config_with_its_own_read_key_is_left_alone_and_the_user_told_what_to_add(home: Path, read: str) -> None:
    mine = f"model: gpt-4.1\n{read}"
    _config(home).write_text(mine, encoding="utf-8")
    code, _, err = smig("memory", "sync", "--to-aider")
    assert code != 0
    assert _config(home).read_text(encoding="utf-8") == mine
    said = " ".join(err.split())
    assert f"add {_bundle(home)} to its `read` list" in said and "does not rewrite YAML" in said
    assert _bundle(home).is_file()  # the bundle is there for the user to list


def test_a_read_list_already_naming_the_bundle_needs_no_line(home: Path) -> None:
    mine = "read:\n  - ~/CONVENTIONS.md\n  - ~/.aider.smig_memory.md\n"
    _config(home).write_text(mine, encoding="utf-8")
    code, _, err = smig("memory", "sync", "--to-aider")
    assert code == 0, err
    assert _config(home).read_text(encoding="utf-8") == mine


def test_the_files_the_config_reads_cross_to_the_other_agents_but_not_the_bundle(
    home: Path, isolated_homes: dict[str, Path]
) -> None:
    (home / "CONVENTIONS.md").write_text("# Conventions\n- AIDER-NOTE tabs, never spaces\n", encoding="utf-8")
    (home / "relative.md").write_text("RELATIVE-NOTE\n", encoding="utf-8")
    _config(home).write_text(f"read: ['~/CONVENTIONS.md', relative.md, {_bundle(home)}]  # mine\n", encoding="utf-8")
    code, _, err = smig("memory", "sync")
    assert code == 0, err
    codex_bundle = (isolated_homes["codex"] / "memories" / "claude_code_smig.md").read_text(encoding="utf-8")
    assert "AIDER-NOTE tabs, never spaces" in codex_bundle and "Aider" in codex_bundle
    assert "RELATIVE-NOTE" not in codex_bundle  # relative to wherever Aider runs: not one file
    aider_bundle = _bundle(home).read_text(encoding="utf-8")
    assert "CODEX-NOTE" in aider_bundle and "AIDER-NOTE" not in aider_bundle
    code, out, err = smig("memory", "sync", "--json")
    assert code == 0, err and json.loads(out)["writes"] == []


def test_a_home_where_aider_never_ran_gets_no_config(isolated_homes: dict[str, Path]) -> None:
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    assert smig("memory", "sync")[0] == 0
    assert not _config(isolated_homes["home"]).exists() and not _bundle(isolated_homes["home"]).exists()


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("model: x\n", None),
        ("read: a.md  # note\n", ["a.md"]),
        ("read: 'a b.md'\n", ["a b.md"]),
        ('read: ["a.md", b.md]\n', ["a.md", "b.md"]),
        ("read:\n  - a.md\n  # c\n  - 'b.md'\nmodel: x\n- stray\n", ["a.md", "b.md"]),
        ("  read: nested.md\n", None),
    ],
)
def test_read_entries_understands_the_shapes_a_user_writes(text: str, entries: list[str] | None) -> None:
    assert read_entries(text) == entries
