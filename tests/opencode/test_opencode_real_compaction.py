"""A session the real OpenCode 1.18.33 compacted by itself reads, in `smig show`, as the last request it sent.

`tests/fixtures/real/opencode/` holds the session's rows and that request, recorded by `record.py`
there: after auto-compaction OpenCode sends the model "What did we do so far?", the summary as the
assistant's answer, its own "Continue if you have next steps…" and the reply, then the new prompt.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from opencode_builders import request_history

from smig_tui.adapters.agents.opencode.home import resolve_home
from smig_tui.adapters.agents.opencode.source import OpenCodeSource

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "opencode"


def _install(data_dir: Path) -> str:
    """The recorded rows as OpenCode's database (WAL, as it keeps it); the session id."""
    data_dir.mkdir(parents=True)
    connection = sqlite3.connect(data_dir / "opencode.db")
    connection.executescript((REAL / "compacted.sql").read_text(encoding="utf-8"))
    connection.execute("PRAGMA journal_mode=WAL")
    connection.commit()
    connection.close()
    return str(json.loads((REAL / "compacted_request.json").read_text(encoding="utf-8"))["session_id"])


def _sent() -> list[tuple[str, str, Any]]:
    """The request's history as (role, kind, content), item for item."""
    return request_history(json.loads((REAL / "compacted_request.json").read_text(encoding="utf-8"))["messages"])


def test_smig_show_reads_a_compacted_session_item_for_item_as_its_last_request(
    isolated_homes: dict[str, Path],
) -> None:
    session_id = _install(isolated_homes["home"] / ".local" / "share" / "opencode")
    code, stdout, stderr = run_cli(["show", "--json", session_id], lambda _paths: OpenCodeSource(resolve_home()))
    assert code == 0, stderr
    shown = [
        (m["role"], "text" if m["kind"] == "summary" else m["kind"], m["text"])
        for m in json.loads(stdout)["messages"]
        if not m["injected"]
    ]
    sent = _sent()
    assert [role for role, _, _ in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert sent[0][2] == "What did we do so far?" and sent[2][2].startswith("Continue if you have next steps")
    assert shown[: len(sent)] == sent  # the request, then the reply to its last prompt
    assert shown[len(sent) :] == [("assistant", "text", "smig-e2e-ok")]
