"""Memory sync with Gemini CLI and OpenCode: the adapter on temp homes, the planner, the CLI and the TUI.

Gemini CLI keeps its memory in its global `GEMINI.md` (its `save_memory` tool appends under
`## Gemini Added Memories`), or in the file `context.fileName` names; OpenCode in its global
`AGENTS.md`. The locations and the import line are proven against the real clients in
tests/e2e/test_memory_sync_real_clients.py; these tests pin the rules around them.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable

from smig_tui.adapters.agents.claude.memory import project_name as claude_project_name
from smig_tui.adapters.memory_store import MemoryStore
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.memory_model import MARKER, Direction
from smig_tui.services import Services
from smig_tui.tui.screens.memory import MemoryScreen

FAKE_KEY = "sk-proj-" + "Q7x" * 12
GEMINI_NOTE = "KESTREL-23 tests live in tests/unit"
OPENCODE_NOTE = "LYNX-59 answer in British English"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _four_agent_home(homes: dict[str, Path]) -> dict[str, Path]:
    """A note in each agent's memory; an API key in OpenCode's rules."""
    home = homes["home"]
    _write(homes["codex"] / "memories" / "memory_summary.md", "# Summary\n- OTTER-17 prefers uv\n")
    memory = homes["claude"] / "projects" / claude_project_name(str(home)) / "memory"
    _write(memory / "push.md", "---\nname: push\ndescription: HERON-41 never force-push\ntype: feedback\n---\nNo.\n")
    gemini = _write(home / ".gemini" / "GEMINI.md", f"## Gemini Added Memories\n- {GEMINI_NOTE}\n")
    opencode = _write(home / ".config" / "opencode" / "AGENTS.md", f"- {OPENCODE_NOTE}\n- key {FAKE_KEY}\n")
    return {
        "gemini": gemini,
        "opencode": opencode,
        "gemini_bundle": gemini.parent / "smig_memory.md",
        "opencode_bundle": opencode.parent / "smig_memory.md",
        "claude_memory": memory,
    }


def _store() -> MemoryStore:
    return MemoryStore(resolve_paths())


def _services() -> Services:
    return Services(paths=resolve_paths())


def _smig(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    ctx = Context(out=Output(stdout=out, stderr=err))
    ctx.__dict__["services"] = _services()
    code = main(["memory", *argv], ctx)
    return code, out.getvalue(), err.getvalue()


def test_agents_not_set_up_get_no_files(isolated_homes: dict[str, Path]) -> None:
    _write(isolated_homes["codex"] / "memories" / "memory_summary.md", "# Summary\n- uv\n")
    plan = _services().memory_plan()
    assert [report.direction for report in plan.reports] == [Direction("to-claude"), Direction("to-codex")]
    assert not (isolated_homes["home"] / ".gemini").exists()
    assert not (isolated_homes["home"] / ".config").exists()
    code, out, _ = _smig()
    assert code == 0 and "Gemini CLI: not set up on this machine, so nothing is synced to it" in out
    assert "OpenCode: not set up on this machine" in out


def test_each_new_agent_gets_the_other_agents_memory_and_gives_its_own(isolated_homes: dict[str, Path]) -> None:
    files = _four_agent_home(isolated_homes)
    gemini_before = files["gemini"].read_text(encoding="utf-8")
    code, _, err = _smig("sync")
    assert code == 0, err

    gemini_bundle = files["gemini_bundle"].read_text(encoding="utf-8")
    assert gemini_bundle.startswith(MARKER)
    assert "OTTER-17" in gemini_bundle and "HERON-41" in gemini_bundle and "LYNX-59" in gemini_bundle
    assert GEMINI_NOTE not in gemini_bundle
    opencode_bundle = files["opencode_bundle"].read_text(encoding="utf-8")
    assert GEMINI_NOTE in opencode_bundle and "LYNX-59" not in opencode_bundle
    # Gemini CLI's own file keeps its text; only the import line is added. OpenCode gets a pointer line.
    assert files["gemini"].read_text(encoding="utf-8") == gemini_before + "@./smig_memory.md\n"
    assert f"also read {files['opencode_bundle']}" in files["opencode"].read_text(encoding="utf-8")
    # Gemini's and OpenCode's notes reach Codex and Claude Code too.
    codex_bundle = (isolated_homes["codex"] / "memories" / "claude_code_smig.md").read_text(encoding="utf-8")
    claude_bundle = (isolated_homes["claude"] / "smig_memory.md").read_text(encoding="utf-8")
    for bundle in (codex_bundle, claude_bundle, gemini_bundle):
        assert OPENCODE_NOTE in bundle and FAKE_KEY not in bundle and "[REDACTED:" in bundle
    assert GEMINI_NOTE in codex_bundle and GEMINI_NOTE in claude_bundle
    # Claude picks topic files by their description, so it names what else the file holds.
    assert "their projects, with Gemini CLI's and OpenCode's global instructions, synced by smig" in claude_bundle
    # smig's own lines never travel back: a second run has nothing to do.
    code, _, err = _smig("sync", "--quiet")
    assert (code, err) == (0, "")
    assert _services().memory_plan().writes == ()


def test_gemini_context_file_name_setting_moves_the_import(isolated_homes: dict[str, Path]) -> None:
    gemini = isolated_homes["home"] / ".gemini"
    _write(gemini / "settings.json", json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}))
    _write(gemini / "GEMINI.md", f"- {GEMINI_NOTE}\n")
    inputs = _store().read_inputs()
    assert inputs.of("gemini").pointer == str(gemini / "AGENTS.md")
    assert [source.path for source in inputs.of("gemini").files] == [str(gemini / "GEMINI.md")]
    _write(gemini / "settings.json", json.dumps({"context": {"fileName": "CONTEXT.md"}}))
    assert _store().read_inputs().of("gemini").pointer == str(gemini / "CONTEXT.md")
    _write(gemini / "settings.json", "{not json")
    assert _store().read_inputs().of("gemini").pointer == str(gemini / "GEMINI.md")


def test_a_file_at_a_bundle_path_without_the_marker_is_never_written(isolated_homes: dict[str, Path]) -> None:
    files = _four_agent_home(isolated_homes)
    _write(files["gemini_bundle"], "my own notes\n")
    code, _, err = _smig("sync", "--to-gemini")
    assert code == 4 and "without smig's generated-by marker" in err
    assert files["gemini_bundle"].read_text(encoding="utf-8") == "my own notes\n"
    assert "@./smig_memory.md" not in files["gemini"].read_text(encoding="utf-8")


def test_opencode_claude_md_fallback_is_not_shadowed(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolated_homes["home"]
    _write(isolated_homes["codex"] / "memories" / "memory_summary.md", "# Summary\n- uv\n")
    (home / ".local" / "share" / "opencode").mkdir(parents=True)  # OpenCode has run, no config folder
    _write(home / ".claude" / "CLAUDE.md", "- my rules\n")
    code, _, err = _smig("sync", "--to-opencode")
    assert code == 4 and "OpenCode now reads" in err
    assert not (home / ".config" / "opencode" / "AGENTS.md").exists()
    monkeypatch.setenv("OPENCODE_DISABLE_CLAUDE_CODE", "1")  # OpenCode then ignores CLAUDE.md anyway
    code, _, err = _smig("sync", "--to-opencode")
    assert code == 0, err
    assert (home / ".config" / "opencode" / "AGENTS.md").is_file()


def test_status_and_json_name_every_agent(isolated_homes: dict[str, Path]) -> None:
    _four_agent_home(isolated_homes)
    code, out, _ = _smig()
    assert code == 0
    for label in ("Claude Code", "Codex", "Gemini CLI", "OpenCode"):
        assert f"Memory for {label}" in out
    assert "gemini/GEMINI.md" in out and "opencode/AGENTS.md" in out
    code, out, _ = _smig("status", "--to-opencode", "--json")
    assert [d["direction"] for d in json.loads(out)["directions"]] == ["to-opencode"]


class _HostApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(MemoryScreen(Services(paths=resolve_paths())))


async def test_memory_screen_shows_gemini_and_opencode_files(isolated_homes: dict[str, Path]) -> None:
    files = _four_agent_home(isolated_homes)
    app = _HostApp()
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.plan is not None
        rows = {
            agent: screen.query_one(f"#{agent}-files", DataTable).row_count
            for agent in ("codex", "claude", "gemini", "opencode")
        }
        assert rows == {"codex": 1, "claude": 1, "gemini": 1, "opencode": 1}
        await pilot.press("d", "d", "d")  # every way → to-claude → to-codex → to-gemini
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [report.direction for report in screen.plan.reports] == [Direction("to-gemini")]
        assert screen.query_one("#gemini-files", DataTable).row_count == 0
        assert not files["gemini_bundle"].exists()  # showing writes nothing


def test_mcp_memory_sync_reports_then_applies_for_the_named_agents(isolated_homes: dict[str, Path]) -> None:
    from smig_tui.mcp.server import SmigToolRunner

    files = _four_agent_home(isolated_homes)
    run = SmigToolRunner(_services())
    report = run("memory_sync", {"to": ["gemini", "opencode"]})
    assert report["isError"] is False
    reply = report["structuredContent"]
    assert [d["direction"] for d in reply["directions"]] == ["to-gemini", "to-opencode"]
    assert reply["directions"][0]["sources_by_agent"] == {"codex": 1, "claude": 1, "opencode": 1}
    assert {w["path"] for w in reply["writes"]} == {
        str(files["gemini"]),
        str(files["gemini_bundle"]),
        str(files["opencode"]),
        str(files["opencode_bundle"]),
    }
    assert reply["applied"] is False and not files["gemini_bundle"].exists()
    assert FAKE_KEY not in report["content"][0]["text"]  # names files and counts, never their secrets

    applied = run("memory_sync", {"to": ["gemini"], "apply": True})["structuredContent"]
    assert applied["applied"] is True and set(applied["written"]) == {str(files["gemini"]), str(files["gemini_bundle"])}
    assert not files["opencode_bundle"].exists()
    assert run("memory_sync", {"to": ["gemini"]})["structuredContent"]["writes"] == []
    wrong = run("memory_sync", {"to": ["cursor"]})
    assert wrong["isError"] is True and "memory_sync" in wrong["content"][0]["text"]


def test_the_gemini_bundle_holds_no_import_gemini_would_follow(isolated_homes: dict[str, Path]) -> None:
    files = _four_agent_home(isolated_homes)
    _write(
        isolated_homes["codex"] / "memories" / "memory_summary.md",
        "# Summary\n@./secrets.md at a line start\n- see @docs/style.md, mail a@b.com\n",
    )
    code, _, err = _smig("sync", "--to-gemini")
    assert code == 0, err
    bundle = files["gemini_bundle"].read_text(encoding="utf-8")
    assert "\u200b@./secrets.md at a line start" in bundle and "see \u200b@docs/style.md" in bundle
    assert "mail a@b.com" in bundle  # an @ inside a word is no import: left as it is
    lines = bundle.splitlines()
    assert not any(line.startswith("@") or " @" in line for line in lines)
    # Claude Code follows imports in imported files too, so its bundle is escaped the same way.
    code, _, err = _smig("sync", "--to-claude")
    assert code == 0, err
    claude_bundle = (isolated_homes["claude"] / "smig_memory.md").read_text(encoding="utf-8")
    assert "\n\u200b@./secrets.md at a line start" in claude_bundle and "mail a@b.com" in claude_bundle
    # Codex reads its bundle as plain text: unchanged.
    code, _, err = _smig("sync", "--to-codex")
    assert code == 0, err
    codex_bundle = (isolated_homes["codex"] / "memories" / "claude_code_smig.md").read_text(encoding="utf-8")
    assert "\u200b" not in codex_bundle


def test_only_codex_holds_its_instruction_file_to_a_byte_budget(isolated_homes: dict[str, Path]) -> None:
    """Gemini CLI and OpenCode read their global file whole, so a long one still gets smig's line;
    Codex stops reading AGENTS.md at 32 KiB, so a line past that is refused, saying why."""
    files = _four_agent_home(isolated_homes)
    filler = "".join(f"- house rule {n}: keep functions short and named for what they do\n" for n in range(700))
    for path in (files["gemini"], files["opencode"], isolated_homes["codex"] / "AGENTS.md"):
        _write(path, path.read_text(encoding="utf-8") + filler if path.exists() else filler)
    assert files["gemini"].stat().st_size > 40_000
    code, _, err = _smig("sync")
    assert code == 4
    assert "past Codex's 32,768-byte instruction budget" in err
    assert files["gemini"].read_text(encoding="utf-8").endswith("@./smig_memory.md\n")
    assert f"also read {files['opencode_bundle']}" in files["opencode"].read_text(encoding="utf-8")
    assert "Gemini" not in err and "opencode" not in err.lower()
