"""The MCP server as an agent sees it: a subprocess on stdio, driven by the official mcp client."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from smig_tui.services import build_services  # noqa: E402

TIMEOUT = 60
"""Bound on every exchange with the server (start-up imports tiktoken and the SDK)."""
TINY = "tiny-test"
TOOLS = {"model_context_window", "list_known_models", "migrate_session", "list_sessions", "preview_migration",
         "commit_migration", "get_handoff", "recall_omitted"}
VERBOSE_SESSION = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
"""The Claude fixture session in /home/user/proj (checked in under tests/fixtures/claude_home)."""


@pytest.fixture
def homes(fake_home: dict[str, Path]) -> dict[str, Path]:
    """Fixture homes plus a config with a 400-token model, so the small fixtures must be truncated."""
    config = fake_home["smig"] / "config"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(f'[models."{TINY}"]\ncontext_window = 400\n', encoding="utf-8")
    return fake_home


def tree(*roots: Path) -> dict[str, str]:
    """Every file under `roots` with its sha256, to see exactly what a call wrote."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")) if root.exists() else []:
            if path.is_file():
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@asynccontextmanager
async def server(cwd: Path) -> AsyncIterator[ClientSession]:
    """Start `python -m smig_tui.mcp` with this test's environment and hand back an initialised session."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "smig_tui.mcp"], env=dict(os.environ),
                                   cwd=str(cwd))
    with anyio.fail_after(TIMEOUT):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured result."""
    with anyio.fail_after(TIMEOUT):
        result = await session.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def fail(session: ClientSession, name: str, **arguments: Any) -> str:
    """Call a tool that must fail; return the error text the model would read."""
    with anyio.fail_after(TIMEOUT):
        result = await session.call_tool(name, arguments)
    assert result.is_error
    return " ".join(block.text for block in result.content if hasattr(block, "text"))


async def test_lists_every_tool_with_a_schema(homes: dict[str, Path], tmp_path: Path) -> None:
    async with server(tmp_path) as session:
        with anyio.fail_after(TIMEOUT):
            listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == TOOLS
    migrate = tools["migrate_session"].input_schema
    assert set(migrate["required"]) == {"messages_json", "source_model", "target_model"}
    assert "truncate" in migrate["properties"]["strategy"]["enum"]
    assert tools["commit_migration"].input_schema["properties"]["to"]["anyOf"][0]["items"]["enum"][:3] == [
        "store", "claude", "codex"]
    assert all(tool.description for tool in tools.values())
    window = tools["model_context_window"].output_schema
    assert window["properties"]["context_window"]["type"] == "integer" and "harness_window" in window["required"]


async def test_model_tools_answer_from_the_capacity_table(homes: dict[str, Path], tmp_path: Path) -> None:
    table = build_services().capacities
    async with server(tmp_path) as session:
        window = await call(session, "model_context_window", model="gpt-5.1")
        unknown = await fail(session, "model_context_window", model="gpt-5.1-turbo-ultra")
        claude = await call(session, "list_known_models", query="claude")
        tiny = await call(session, "model_context_window", model=TINY)
    expected = table.lookup("gpt-5.1")
    assert (window["context_window"], window["max_output"], window["harness_window"]) == (
        expected.context_window, expected.max_output, expected.harness_window)
    assert window["provider"] == "openai" and window["encoding"] == "o200k_base" and window["source"]
    assert "Unknown model 'gpt-5.1-turbo-ultra'" in unknown and "Did you mean" in unknown and "gpt-5.1" in unknown
    assert claude["count"] == len(claude["models"]) > 3
    assert all("claude" in model["name"] for model in claude["models"])
    assert tiny["context_window"] == 400  # the config file the server was started with is read


CHAT = [
    {"role": "system", "content": "You are a careful release engineer."},
    {"role": "user", "content": "Why does the release workflow fail on tags? " + "context " * 150},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": '{"cmd": "cat ci.yml"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "on: push: tags: ['v*'] " + "yaml " * 150},
    {"role": "user", "content": [{"type": "text", "text": "And the fix?"}]},
    {"role": "assistant", "content": "Quote the glob: tags: ['v*.*.*']."},
]


async def test_migrate_session_is_pure_and_fits_or_truncates(homes: dict[str, Path], tmp_path: Path) -> None:
    before = tree(homes["home"], homes["smig"] / "data")
    async with server(tmp_path) as session:
        fits = await call(session, "migrate_session", messages_json=json.dumps(CHAT), source_model="gpt-5.1",
                          target_model="claude-sonnet-4-5")
        cut = await call(session, "migrate_session", messages_json=CHAT, source_model="gpt-5.1", target_model=TINY)
        bad_json = await fail(session, "migrate_session", messages_json="[{\"role\": ", source_model="gpt-5.1",
                              target_model=TINY)
        bad_role = await fail(session, "migrate_session", messages_json='[{"role": "wizard", "content": "x"}]',
                              source_model="gpt-5.1", target_model=TINY)
        unknown = await fail(session, "migrate_session", messages_json="[]", source_model="gpt-5.1",
                             target_model="no-such-model-9")
    assert fits["decision"]["fits"] and fits["strategy"] == "as-is"
    assert fits["messages"] == [{**m, "content": "And the fix?"} if isinstance(m["content"], list) else m
                                for m in CHAT]
    assert fits["tokens_before"] == fits["tokens_after"] > 300
    assert not cut["decision"]["fits"] and cut["strategy"] == "truncate"
    assert cut["tokens_after"] <= cut["decision"]["budget"] < cut["tokens_before"]
    assert cut["messages"][0]["role"] == "user" and cut["placeholder"] == cut["messages"][0]["content"]
    assert {"role": "system", "content": CHAT[0]["content"]} in cut["messages"]  # system prompts are pinned
    assert cut["messages"][-1] == CHAT[-1]
    dropped = {item["id"] for item in cut["dropped"]}
    assert {"m1"} <= dropped and "m0" in cut["kept_ids"]
    assert "not valid JSON" in bad_json
    assert "messages[0].role must be one of" in bad_role
    assert "Unknown model 'no-such-model-9'" in unknown
    assert tree(homes["home"], homes["smig"] / "data") == before


async def test_ids_are_checked_before_any_lookup(homes: dict[str, Path], tmp_path: Path) -> None:
    async with server(tmp_path) as session:
        traversal = await fail(session, "preview_migration", session_id="../../etc/passwd", target_model=TINY)
        as_path = await fail(session, "commit_migration", session_id="/etc/passwd", target_model=TINY)
        recall = await fail(session, "recall_omitted", migration_id="../../etc/passwd", query="root")
        missing = await fail(session, "preview_migration", session_id="ffffffff-0000", target_model=TINY)
        stored = await fail(session, "recall_omitted", migration_id="0" * 32, query="x")
        handoff = await fail(session, "get_handoff", workspace=str(tmp_path / "nowhere"))
        pins = await fail(session, "preview_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY,
                          pins=["not-a-message"])
        target = await fail(session, "commit_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY,
                            to=["store", "nowhere"])
    assert "'../../etc/passwd' is not a session id" in traversal
    assert "'/etc/passwd' is not a session id" in as_path
    assert "is not a migration id" in recall
    assert "No session matches 'ffffffff-0000'" in missing
    assert "No stored migration has id" in stored
    assert "No migration is stored for workspace" in handoff
    assert "'not-a-message' is not a message id" in pins
    assert "Input validation error" in target or "nowhere" in target
    assert not (homes["smig"] / "data" / "migrations").exists()


async def test_listing_and_preview_match_the_fixture(homes: dict[str, Path], tmp_path: Path) -> None:
    services = build_services()
    loaded = services.load_session(services.find_session(VERBOSE_SESSION))
    async with server(tmp_path) as session:
        listed = await call(session, "list_sessions", agent="claude", limit=50)
        scoped = await call(session, "list_sessions", cwd="/home/user/my_app")
        preview = await call(session, "preview_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY)
        pinned = await call(session, "preview_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY,
                            pins=[loaded.messages[1].id])
    ids = {entry["id"] for entry in listed["sessions"]}
    assert VERBOSE_SESSION in ids and all(entry["agent"] == "claude" for entry in listed["sessions"])
    assert {entry["cwd"] for entry in scoped["sessions"]} == {"/home/user/my_app"}
    assert preview["session_id"] == VERBOSE_SESSION and preview["strategy"] == "truncate"
    dropped = [item["id"] for item in preview["dropped"]]
    assert set(dropped) | set(preview["kept_ids"]) == {message.id for message in loaded.messages}
    assert preview["tokens_after"] <= preview["decision"]["budget"] < preview["tokens_before"]
    assert preview["placeholder"] and "earlier messages" in preview["placeholder"]
    assert loaded.messages[1].id in pinned["kept_ids"]


def _word_only_in_dropped(services: Any, preview: dict[str, Any]) -> tuple[str, set[str]]:
    """A word that appears only in messages the plan drops, and the ids of those holding it."""
    session = services.load_session(services.find_session(VERBOSE_SESSION))
    dropped = {item["id"] for item in preview["dropped"]}
    texts = {m.id: m.text.lower() for m in session.messages if not m.opaque}
    kept_words = {w for mid, text in texts.items() if mid not in dropped for w in text.split()}
    for mid in sorted(dropped):
        for word in texts.get(mid, "").split():
            if word.isalpha() and len(word) > 5 and word not in kept_words:
                return word, {i for i in dropped if word in " ".join(texts.get(i, "").split())}
    raise AssertionError("the fixture has no word found only in dropped messages")


async def test_commit_then_handoff_then_recall(homes: dict[str, Path], tmp_path: Path) -> None:
    services = build_services()
    info = services.find_session(VERBOSE_SESSION)
    source = Path(info.path)
    original = source.read_bytes()
    opaque = {m.id for m in services.load_session(info).messages if m.opaque}
    agent_homes = (homes["codex"], homes["claude"])
    before = tree(*agent_homes)
    async with server(tmp_path) as session:
        dry = await call(session, "commit_migration", session_id=VERBOSE_SESSION, target_model=TINY,
                         to=["claude", "codex"], dry_run=True)
        assert tree(*agent_homes) == before and not (homes["smig"] / "data").exists()
        preview = await call(session, "preview_migration", session_id=VERBOSE_SESSION, target_model=TINY)
        done = await call(session, "commit_migration", session_id=VERBOSE_SESSION, target_model=TINY,
                          to=["store", "claude"])
        handoff = await call(session, "get_handoff", workspace="/home/user/proj")
        chat = await call(session, "get_handoff", workspace="/home/user/proj/", format="openai")
        word, holders = _word_only_in_dropped(services, preview)
        recalled = await call(session, "recall_omitted", migration_id=done["migration_id"], query=word.upper())
        everything = await call(session, "recall_omitted", migration_id=done["migration_id"], query="", limit=100)
        with source.open("ab") as handle:  # the source agent keeps writing its live session
            handle.write(b'{"type":"summary","summary":"later"}\n')
        grown = await call(session, "recall_omitted", migration_id=done["migration_id"], query=word)
        source.write_bytes(original.replace(b"verbose", b"VERBOSE"))
        rewritten = await fail(session, "recall_omitted", migration_id=done["migration_id"], query=word)
        source.unlink()
        gone = await fail(session, "recall_omitted", migration_id=done["migration_id"], query=word)
    assert dry["dry_run"] and dry["record_path"] and [f["destination"] for f in dry["files"]] == ["claude", "codex"]
    written = set(tree(*agent_homes)) - set(before)
    assert written == {f["path"] for f in done["files"]} and len(written) == 1
    assert all(Path(path).is_relative_to(homes["claude"]) for path in written)
    assert Path(done["record_path"]).is_file() and Path(done["record_path"]).is_relative_to(homes["smig"])
    assert done["resume_commands"] == [done["files"][0]["resume_command"]] and "claude --resume" in done["resume_commands"][0]
    assert done["dropped"] == len(preview["dropped"]) and done["tokens_after"] == preview["tokens_after"]
    assert handoff["migration_id"] == done["migration_id"] == chat["migration_id"]
    assert handoff["omitted"] == len(preview["dropped"]) and handoff["recall"]
    assert handoff["content"].startswith("# Handoff:") and preview["placeholder"].splitlines()[0] in handoff["content"]
    assert chat["content"][0]["content"] == preview["placeholder"]
    assert {m["id"] for m in recalled["messages"]} == holders and recalled["source"]["status"] == "unchanged"
    assert {m["id"] for m in everything["messages"]} == {item["id"] for item in preview["dropped"]} - opaque
    assert grown["source"]["status"] == "grown" and {m["id"] for m in grown["messages"]} == holders
    assert recalled["unavailable"] == grown["unavailable"] == 0
    assert "was rewritten since migration" in rewritten
    assert "is gone" in gone
    assert not (set(tree(homes["codex"])) - set(before))
