"""The OpenCode writer without the client: the import document it lays out, and its refusals.

That the real `opencode import` accepts the document and `opencode run -s` resumes it is proven in
tests/e2e/test_opencode_real_client.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session
from opencode_builders import SESSION_ID, install_database

from smig_tui.adapters.agents.opencode.writer import configured_model, opencode_id
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def _dry_run(tmp_path: Path, keep_last: int | None = None) -> tuple[dict, object]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    result = services.migrate(
        session, make_plan(session, "claude-sonnet-4-5", keep_last), {Destination("opencode")}, dry_run=True
    )
    [planned] = [f for f in result.files if f.destination == Destination("opencode")]
    return json.loads(planned.data), result


def test_the_import_document_has_the_shape_opencode_export_writes(tmp_path: Path) -> None:
    document, result = _dry_run(tmp_path)
    info, messages = document["info"], document["messages"]
    assert info["id"].startswith("ses_") and len(info["id"]) == 30
    assert info["directory"] == str(tmp_path / "project")
    assert info["title"].startswith("↪ from codex")
    roles = [m["info"]["role"] for m in messages]
    assert roles[0] == "user" and all(a != b for a, b in zip(roles, roles[1:], strict=False))
    ids = [m["info"]["id"] for m in messages]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # OpenCode orders messages by id
    for message in messages:
        assert message["info"]["sessionID"] == info["id"]
        [part] = message["parts"]
        assert part["type"] == "text" and part["messageID"] == message["info"]["id"]
        if message["info"]["role"] == "assistant":
            assert message["info"]["parentID"] in ids and message["info"]["finish"] == "stop"
    assert messages[0]["parts"][0]["text"].startswith(NOTE_PREFIX)
    texts = "\n".join(m["parts"][0]["text"] for m in messages)
    assert "PELICAN-77" in texts and "OSPREY-93" in texts
    [output] = result.outputs
    assert output.agent == "opencode" and output.session_id == info["id"]
    assert output.resume_command.endswith(f"opencode -s {info['id']}")


def test_a_truncated_plan_writes_only_what_it_keeps(tmp_path: Path) -> None:
    document, _ = _dry_run(tmp_path, keep_last=2)
    texts = "\n".join(m["parts"][0]["text"] for m in document["messages"])
    assert "PELICAN-77" not in texts and "OSPREY-93" in texts
    assert "were left out" in texts


def test_messages_name_the_users_configured_default_model(tmp_path: Path, isolated_homes: dict[str, Path]) -> None:
    config = isolated_homes["home"] / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"model": "local/qwen3-coder"}), encoding="utf-8")
    assert configured_model() == ("local", "qwen3-coder")
    document, _ = _dry_run(tmp_path)
    user = next(m["info"] for m in document["messages"] if m["info"]["role"] == "user")
    assert user["model"] == {"providerID": "local", "modelID": "qwen3-coder"}


def test_without_a_configured_model_messages_name_the_latest_sessions_model(
    tmp_path: Path, isolated_homes: dict[str, Path]
) -> None:
    install_database(isolated_homes["home"] / ".local" / "share" / "opencode")  # its session ran fake/claude-sonnet-4-5
    document, _ = _dry_run(tmp_path)
    user = next(m["info"] for m in document["messages"] if m["info"]["role"] == "user")
    assert user["model"] == {"providerID": "fake", "modelID": "claude-sonnet-4-5"}
    assert document["info"]["model"] == {"id": "claude-sonnet-4-5", "providerID": "fake"}


def test_ids_sort_like_opencodes() -> None:
    millis = int(NOW.timestamp() * 1000)
    assert opencode_id("msg", millis, 1) < opencode_id("msg", millis, 2) < opencode_id("msg", millis + 1, 0)
    assert opencode_id("ses", millis + 1, 0, descending=True) < opencode_id("ses", millis, 0, descending=True)


def test_without_the_opencode_command_nothing_is_written(
    tmp_path: Path, isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    services = build_services()
    with pytest.raises(WriteRefusedError, match="needs the `opencode` command"):
        services.migrate(session, make_plan(session, "claude-sonnet-4-5"), {Destination("opencode")})
    smig = isolated_homes["smig"]
    assert not list((smig / "data").rglob("*.json"))  # no import document, no record
    assert not services.can_write(Destination("opencode"))


def test_an_opencode_session_migrates_to_claude_code_and_pins_its_source(
    tmp_path: Path, isolated_homes: dict[str, Path]
) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "opencode")
    services = build_services()
    session = services.load_session(services.find_session(SESSION_ID))
    project = tmp_path / "project"
    project.mkdir()
    result = services.migrate(
        session, make_plan(session, "claude-sonnet-4-5"), {Destination("claude")}, cwd=str(project)
    )
    [output] = result.outputs
    written = Path(output.path).read_text(encoding="utf-8")
    assert "UNICODE-REPLY: now" in written and "héllo wörld ✓ 日本語 🚀" in written
    source = result.record.source
    assert source.agent == "opencode" and source.id == SESSION_ID and source.size > 0
    assert services.source_status(source.path, source.sha256, source.size) == "unchanged"
    import sqlite3

    with sqlite3.connect(database) as connection:  # OpenCode goes on with the session
        connection.execute(
            "INSERT INTO message VALUES ('msg_zzzzzzzzzzzzzzzzzzzzzzzzzz', ?, 1, 1, '{\"role\":\"user\"}')",
            (SESSION_ID,),
        )
    assert services.source_status(source.path, source.sha256, source.size) == "grown"
    with sqlite3.connect(database) as connection:  # or the session is deleted
        connection.execute("DELETE FROM part")
        connection.execute("DELETE FROM message")
    assert services.source_status(source.path, source.sha256, source.size) == "missing"
