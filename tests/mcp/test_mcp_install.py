"""`smig mcp --install CLIENT` and `--check` against each client's config file, in temp homes."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.mcp.install import plan_install, read_only_tools, variables

CLIENTS = ("claude", "codex", "gemini", "opencode", "qwen", "kilo", "copilot")


@pytest.fixture
def homes(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Path]:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return {
        **isolated_homes,
        "project": project,
        "claude_json": isolated_homes["claude"] / ".claude.json",
        "codex_toml": isolated_homes["codex"] / "config.toml",
        "gemini_json": isolated_homes["home"] / ".gemini" / "settings.json",
        "gemini_policy": isolated_homes["home"] / ".gemini" / "policies" / "smig.toml",
        "opencode_json": isolated_homes["home"] / ".config" / "opencode" / "opencode.json",
        "qwen_json": isolated_homes["home"] / ".qwen" / "settings.json",
        "kilo_json": isolated_homes["home"] / ".config" / "kilo" / "kilo.json",
        "copilot_json": isolated_homes["home"] / ".copilot" / "mcp-config.json",
    }


def test_each_client_gets_its_entry_and_check_starts_each_as_configured(homes: dict[str, Path]) -> None:
    for client in CLIENTS:
        code, out, err = smig("mcp", "--install", client)
        assert code == 0 and f"{client}: smig added in " in out, err
    claude = json.loads(homes["claude_json"].read_text())["mcpServers"]["smig"]
    codex = tomllib.loads(homes["codex_toml"].read_text())["mcp_servers"]["smig"]
    gemini = json.loads(homes["gemini_json"].read_text())["mcpServers"]["smig"]
    opencode = json.loads(homes["opencode_json"].read_text())["mcp"]["smig"]
    qwen = json.loads(homes["qwen_json"].read_text())
    kilo = json.loads(homes["kilo_json"].read_text())
    copilot = json.loads(homes["copilot_json"].read_text())
    assert copilot == {"mcpServers": {"smig": claude}}
    command = [claude["command"], *claude["args"]]
    assert command[-1] in ("mcp", "smig_tui.mcp") and gemini == claude
    assert opencode == {"type": "local", "command": command, "enabled": True} == kilo["mcp"]["smig"]
    assert kilo["$schema"] == "https://app.kilo.ai/config.json" and qwen["mcpServers"]["smig"] == claude
    assert qwen["permissions"]["allow"] == [f"mcp__smig__{tool}" for tool in read_only_tools()]
    assert "mcp__smig__commit_migration" not in qwen["permissions"]["allow"] and len(read_only_tools()) == 8
    assert codex["required"] is True and codex["env_vars"] == list(variables())
    assert codex["tools"] == {"commit_migration": {"approval_mode": "approve"}}
    policy = tomllib.loads(homes["gemini_policy"].read_text())
    assert policy["rule"] == [
        {
            "toolName": "*",
            "mcpName": "smig",
            "toolAnnotations": {"readOnlyHint": True},
            "decision": "allow",
            "priority": 100,
        }
    ]
    code, out, err = smig("mcp", "--check")
    assert code == 0, out + err
    assert [line.split()[:2] for line in out.splitlines()[::2]][: len(CLIENTS)] == [[c, "ok"] for c in CLIENTS]
    assert out.count("10 tools in") == len(CLIENTS)
    code, out, _ = smig("mcp", "--install", "codex")
    assert out.startswith("codex: smig already set up in ")


def test_merging_keeps_every_other_server_and_setting(homes: dict[str, Path]) -> None:
    homes["codex"].mkdir(parents=True)
    codex_before = (
        '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n\n'
        '[mcp_servers.smig]\ncommand = "/old/smig"\nargs = ["mcp"]\n\n[mcp_servers.smig.tools.memory_sync]\n'
        'approval_mode = "prompt"\n\n[profiles.fast]\nmodel = "o4-mini"  # keep this comment\n'
    )
    homes["codex_toml"].write_text(codex_before)
    homes["claude_json"].parent.mkdir(parents=True, exist_ok=True)
    claude_before = {"numStartups": 7, "mcpServers": {"github": {"command": "gh-mcp"}}, "projects": {"/x": {"a": 1}}}
    homes["claude_json"].write_text(json.dumps(claude_before))
    homes["claude_json"].chmod(0o640)
    assert smig("mcp", "--install", "codex")[0] == 0 and smig("mcp", "--install", "claude")[0] == 0
    text = homes["codex_toml"].read_text()
    assert text.startswith(
        '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n\n[profiles.fast]\n'
    )
    assert 'model = "o4-mini"  # keep this comment' in text and "/old/smig" not in text and "memory_sync" not in text
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["docs"] == {"command": "docs-server"} and parsed["profiles"] == {
        "fast": {"model": "o4-mini"}
    }
    claude = json.loads(homes["claude_json"].read_text())
    assert claude["mcpServers"]["github"] == {"command": "gh-mcp"} and claude["projects"] == claude_before["projects"]
    assert claude["numStartups"] == 7 and "smig" in claude["mcpServers"]
    assert homes["claude_json"].stat().st_mode & 0o777 == 0o640  # the file keeps its permissions


def test_dry_run_prints_and_writes_nothing_and_project_scope_uses_the_folder(homes: dict[str, Path]) -> None:
    code, out, _ = smig("mcp", "--install", "opencode", "--dry-run")
    assert code == 0 and out.startswith(f"# {homes['opencode_json']} (added, dry run)\n{{")
    assert not homes["opencode_json"].exists()
    code, out, _ = smig("mcp", "--install", "claude", "--project")
    assert code == 0 and json.loads((homes["project"] / ".mcp.json").read_text())["mcpServers"]["smig"]
    code, out, _ = smig("mcp", "--install", "gemini", "--project", "--dry-run")
    assert str(homes["project"] / ".gemini" / "settings.json") in out and "mcpName" in out


@pytest.mark.parametrize(
    ("client", "key", "broken"),
    [
        ("claude", "claude_json", '{"mcpServers": {"a": 1},}'),
        ("gemini", "gemini_json", '// a comment\n{"mcpServers": {}}'),
        ("codex", "codex_toml", "model = \n"),
        ("codex", "codex_toml", 'mcp_servers = { smig = { command = "x" } }\n'),
        ("opencode", "opencode_json", "[1, 2]"),
        ("copilot", "copilot_json", '{"mcpServers": []}'),
    ],
)
def test_a_config_smig_cannot_merge_into_is_left_as_it_is(
    homes: dict[str, Path], client: str, key: str, broken: str
) -> None:
    homes[key].parent.mkdir(parents=True, exist_ok=True)
    homes[key].write_text(broken)
    code, out, err = smig("mcp", "--install", client)
    assert code == 2 and out == "" and str(homes[key]) in err and ("smig leaves" in err or "by hand" in err)
    assert homes[key].read_text() == broken


def test_never_over_a_link_or_a_fifo_or_a_foreign_policy(homes: dict[str, Path], tmp_path: Path) -> None:
    real = tmp_path / "dotfiles.json"
    real.write_text("{}")
    homes["claude_json"].parent.mkdir(parents=True, exist_ok=True)
    homes["claude_json"].symlink_to(real)
    code, _, err = smig("mcp", "--install", "claude")
    assert code != 0 and "not a regular file" in err and real.read_text() == "{}"
    homes["opencode_json"].parent.mkdir(parents=True)
    os.mkfifo(homes["opencode_json"])
    code, _, err = smig("mcp", "--install", "opencode")
    assert code != 0 and "not a regular file" in err
    homes["gemini_policy"].parent.mkdir(parents=True)
    homes["gemini_policy"].write_text('[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n')
    code, _, err = smig("mcp", "--install", "gemini")
    assert code != 0 and "smig did not write it" in err and not homes["gemini_json"].exists()


def test_a_config_the_client_rewrote_meanwhile_is_merged_again(homes: dict[str, Path]) -> None:
    from smig_tui.mcp.install import apply_install

    homes["gemini_json"].parent.mkdir(parents=True)
    homes["gemini_json"].write_text('{"theme": "dark"}')
    plan = plan_install("gemini")
    homes["gemini_json"].write_text('{"theme": "light", "mcpServers": {"other": {"command": "o"}}}')
    apply_install(plan)
    written = json.loads(homes["gemini_json"].read_text())
    assert written["theme"] == "light" and set(written["mcpServers"]) == {"other", "smig"}


def test_check_reports_a_server_that_does_not_start(homes: dict[str, Path]) -> None:
    homes["claude_json"].parent.mkdir(parents=True, exist_ok=True)
    homes["claude_json"].write_text(json.dumps({"mcpServers": {"smig": {"command": "/nowhere/smig", "args": ["mcp"]}}}))
    code, out, _ = smig("mcp", "--check")
    assert code == 1
    assert out.splitlines()[0].split()[:2] == ["claude", "FAILED"] and "/nowhere/smig is not found" in out
    assert "codex     -      not set up: smig mcp --install codex" in out


def test_a_config_naming_smig_elsewhere_still_gets_the_entry_added_and_qwen_keeps_its_own_rules(
    homes: dict[str, Path],
) -> None:
    homes["qwen_json"].parent.mkdir(parents=True)
    mine = {"permissions": {"allow": ["Bash(git *)", "mcp__smig__list_sessions"]}, "model": {"name": "smig-test"}}
    homes["qwen_json"].write_text(json.dumps(mine))
    code, out, err = smig("mcp", "--install", "qwen")
    assert code == 0 and out.startswith("qwen: smig added in "), err  # "smig-test" is not smig's entry
    allow = json.loads(homes["qwen_json"].read_text())["permissions"]["allow"]
    assert allow[:2] == ["Bash(git *)", "mcp__smig__list_sessions"] and len(allow) == 1 + len(read_only_tools())
    assert smig("mcp", "--install", "qwen")[1].startswith("qwen: smig already set up in ")
    homes["qwen_json"].write_text('{"permissions": {"allow": "everything"}}')
    code, _, err = smig("mcp", "--install", "qwen")
    assert code == 2 and "permissions.allow is not a list" in err


def test_kilo_s_config_folder_and_file_variables_are_honoured(homes: dict[str, Path], tmp_path: Path) -> None:
    env = {"HOME": str(homes["home"]), "KILO_CONFIG_DIR": str(tmp_path / "kilo-config")}
    assert plan_install("kilo", env=env).path == tmp_path / "kilo-config" / "kilo.json"
    env["KILO_CONFIG"] = str(tmp_path / "one.json")
    assert plan_install("kilo", env=env).path == tmp_path / "one.json"
    assert plan_install("kilo", project=True, env=env, cwd=homes["project"]).path == homes["project"] / "kilo.json"
    assert plan_install("qwen", env={"QWEN_HOME": str(tmp_path / "q")}).path == tmp_path / "q" / "settings.json"


def test_copilot_s_file_follows_copilot_home_keeps_its_servers_and_shares_claude_s_project_file(
    homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`COPILOT_HOME` moves `mcp-config.json` (Copilot then never reads `~/.copilot`); the user's servers in
    Copilot's own long form stay as written; a project's `.mcp.json` holds one entry Claude Code and
    Copilot CLI both read, so installing the second changes nothing."""
    moved = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(moved))
    moved.mkdir()
    theirs = {"type": "local", "command": "gh-mcp", "args": ["--stdio"], "tools": ["*"], "env": {"A": "1"}}
    (moved / "mcp-config.json").write_text(json.dumps({"mcpServers": {"github": theirs}, "note": "mine"}))
    code, out, err = smig("mcp", "--install", "copilot")
    assert code == 0 and out == f"copilot: smig added in {moved / 'mcp-config.json'}\n", err
    written = json.loads((moved / "mcp-config.json").read_text())
    assert written["mcpServers"]["github"] == theirs and written["note"] == "mine"
    assert set(written["mcpServers"]) == {"github", "smig"} and not homes["copilot_json"].exists()
    code, out, _ = smig("mcp", "--check")
    assert code == 0 and out.splitlines()[0].split()[:2] == ["copilot", "ok"]
    assert str(moved / "mcp-config.json") in out.splitlines()[1]
    assert smig("mcp", "--install", "claude", "--project")[0] == 0
    code, out, _ = smig("mcp", "--install", "copilot", "--project")
    assert code == 0 and out.startswith(f"copilot: smig already set up in {homes['project'] / '.mcp.json'}")


@pytest.mark.parametrize("kind", ["folder", "undecodable", "link"])
def test_a_copilot_config_smig_cannot_read_gets_one_sentence(homes: dict[str, Path], tmp_path: Path, kind: str) -> None:
    path = homes["copilot_json"]
    path.parent.mkdir(parents=True)
    if kind == "folder":
        path.mkdir()
    elif kind == "undecodable":
        path.write_bytes(b'{"mcpServers": {"x": "\xff"}}')
    else:
        (tmp_path / "dotfiles.json").write_text("{}")
        path.symlink_to(tmp_path / "dotfiles.json")
    code, out, err = smig("mcp", "--install", "copilot")
    assert code != 0 and out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert str(path) in err and ("not a regular file" in err or "Cannot read" in err)
    assert kind != "link" or (tmp_path / "dotfiles.json").read_text() == "{}"
