"""`smig mcp --install crush` and `--check` against Crush's `crush.json`, in temp homes.

The recipe is read from Crush's source (its client cannot be installed offline here): the tests hold
the file it reads, the entry's shape, the allow list's names and that nothing of the user's is lost.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.mcp.install import plan_install, read_only_tools


@pytest.fixture
def project(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CRUSH_GLOBAL_CONFIG", raising=False)
    return folder


def test_install_writes_a_stdio_entry_and_allows_only_the_read_only_tools(
    isolated_homes: dict[str, Path], project: Path
) -> None:
    code, out, err = smig("mcp", "--install", "crush")
    config = isolated_homes["home"] / ".config" / "crush" / "crush.json"
    assert code == 0 and out.startswith(f"crush: smig added in {config}"), err
    written = json.loads(config.read_text())
    assert written["$schema"] == "https://charm.land/crush.json"
    assert written["mcp"]["smig"]["type"] == "stdio" and written["mcp"]["smig"]["args"][-1] in ("mcp", "smig_tui.mcp")
    assert written["permissions"]["allowed_tools"] == [f"mcp_smig_{tool}" for tool in read_only_tools()]
    assert "mcp_smig_commit_migration" not in written["permissions"]["allowed_tools"]
    code, out, err = smig("mcp", "--check")
    assert code == 0 and out.startswith("crush     ok "), out + err
    assert smig("mcp", "--install", "crush")[1].startswith("crush: smig already set up in ")


def test_the_users_servers_settings_and_allowed_tools_are_kept(isolated_homes: dict[str, Path], project: Path) -> None:
    config = isolated_homes["home"] / ".config" / "crush" / "crush.json"
    config.parent.mkdir(parents=True)
    mine = {
        "mcp": {"context7": {"type": "http", "url": "https://example.invalid/mcp"}},
        "permissions": {"allowed_tools": ["view", "mcp_context7_get-library-doc"]},
        "options": {"debug": True},
    }
    config.write_text(json.dumps(mine))
    assert smig("mcp", "--install", "crush")[0] == 0
    written = json.loads(config.read_text())
    assert written["mcp"]["context7"] == mine["mcp"]["context7"] and written["options"] == {"debug": True}
    assert written["permissions"]["allowed_tools"][:2] == ["view", "mcp_context7_get-library-doc"]
    assert "$schema" not in written  # smig adds a schema to a file it creates, never to the user's


def test_crush_s_config_variables_and_the_project_file(project: Path, tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path / "h")}
    assert plan_install("crush", env=home).path == tmp_path / "h" / ".config" / "crush" / "crush.json"
    xdg = home | {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert plan_install("crush", env=xdg).path == tmp_path / "xdg" / "crush" / "crush.json"
    moved = xdg | {"CRUSH_GLOBAL_CONFIG": str(tmp_path / "moved")}
    assert plan_install("crush", env=moved).path == tmp_path / "moved" / "crush.json"
    assert plan_install("crush", project=True, env=home, cwd=project).path == project / "crush.json"


def test_a_crush_json_that_is_not_an_object_is_left_as_it_is(isolated_homes: dict[str, Path], project: Path) -> None:
    config = isolated_homes["home"] / ".config" / "crush" / "crush.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"permissions": {"allowed_tools": "everything"}}')
    code, out, err = smig("mcp", "--install", "crush")
    assert code != 0 and "Traceback" not in out + err and len((out + err).strip().splitlines()) == 1, out + err
    assert config.read_text() == '{"permissions": {"allowed_tools": "everything"}}'
