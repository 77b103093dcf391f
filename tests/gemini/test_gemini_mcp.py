"""MCP tools with Gemini CLI sessions: listed and filtered, previewed, and committed to a Gemini session."""

from __future__ import annotations

import shutil
from pathlib import Path

from smig_tui.mcp.schemas import DESTINATIONS
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"
SESSION_ID = "91ffce34-43fe-493b-adc5-17413feeec43"


def test_mcp_lists_previews_and_commits_gemini_sessions(fake_home: dict[str, Path]) -> None:
    gemini = fake_home["home"] / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", gemini)
    tools = SmigTools(build_services())
    listed = tools.list_sessions(agent="gemini")
    assert [s["id"] for s in listed["sessions"]] == [SESSION_ID]
    assert listed["searched"]["gemini"] == {"path": str(gemini), "exists": True}
    everything = tools.list_sessions(limit=500)["sessions"]
    assert {s["agent"] for s in everything} == {"codex", "claude", "gemini"}
    preview = tools.preview_migration(SESSION_ID[:8], "gpt-5.5")
    assert preview["agent"] == "gemini" and preview["not_migrated_count"] >= 1  # the <session_context> block
    assert "gemini" in DESTINATIONS
    done = tools.commit_migration(SESSION_ID[:8], "gemini-2.5-pro", to=["gemini"])
    [output] = [f for f in done["files"] if f["session_id"]]
    assert output["destination"] == "gemini"
    assert done["resume_commands"] == [output["resume_command"]]
    assert output["resume_command"].endswith(f"gemini --resume {output['session_id']}")
    assert Path(output["path"]).parent == gemini / "tmp" / "osprey-app" / "chats"
