"""The MCP tools on an OpenCode session: listed with its home, previewed, committed, and recalled from."""

from __future__ import annotations

from pathlib import Path

from opencode_builders import SESSION_ID, install_database

from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services


def test_list_preview_commit_and_recall_an_opencode_session(isolated_homes: dict[str, Path]) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "opencode")
    config = isolated_homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[models."tiny-test"]\ncontext_window = 2000\nmax_output = 100\n', encoding="utf-8")
    tools = SmigTools(build_services())
    listed = tools.list_sessions(agent="opencode")
    assert [entry["id"] for entry in listed["sessions"]] == [SESSION_ID]
    assert listed["searched"]["opencode"] == {"path": str(database), "exists": True}
    preview = tools.preview_migration(SESSION_ID, "tiny-test", reserve=100)
    assert preview["left_out"]["messages"] > 0  # the 4,000-line tool output cannot fit 2,000 tokens
    done = tools.commit_migration(SESSION_ID, "tiny-test", reserve=100)
    recalled = tools.recall_omitted(done["migration_id"], "Full output saved", limit=10)
    assert recalled["source"]["status"] == "unchanged"  # the session's rows still hash as committed
    assert recalled["total_matches"] == 1
