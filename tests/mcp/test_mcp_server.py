"""The MCP server as an agent sees it: a subprocess on stdio, driven by the official mcp client."""

from __future__ import annotations

import hashlib
import io
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

from smig_tui.core.native import shown_command  # noqa: E402
from smig_tui.services import build_services  # noqa: E402

TIMEOUT = 600
"""A hang guard on every exchange with the server, not a speed bound (start-up imports tiktoken and the SDK)."""
TINY = "tiny-test"
TOOLS = {
    "model_context_window",
    "list_known_models",
    "migrate_session",
    "list_sessions",
    "preview_migration",
    "commit_migration",
    "get_handoff",
    "recall_omitted",
    "search_sessions",
    "memory_sync",
}
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
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "smig_tui.mcp"], env=dict(os.environ), cwd=str(cwd)
    )
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
    assert migrate["properties"]["strategy"]["enum"] == ["truncate", "tools-first", "as-is"]  # no summary offered
    assert tools["commit_migration"].input_schema["properties"]["to"]["items"]["enum"][:3] == [
        "store",
        "claude",
        "codex",
    ]
    for tool in tools.values():  # Codex drops default and title: every argument says its own
        assert tool.description
        for name, spec in tool.input_schema["properties"].items():
            assert len(spec.get("description", "")) > 20, (tool.name, name)
            if name not in tool.input_schema["required"]:
                assert "Default" in spec["description"], (tool.name, name)
    for strategy in ("truncate:", "tools-first:", "as-is:", "summary:", "summary-tail:"):
        assert strategy in tools["preview_migration"].input_schema["properties"]["strategy"]["description"]
    writers = {name for name, tool in tools.items() if not (tool.annotations and tool.annotations.read_only_hint)}
    assert writers == {"commit_migration", "memory_sync"}
    commit = tools["commit_migration"].annotations
    assert commit is not None and commit.destructive_hint is False
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
        expected.context_window,
        expected.max_output,
        expected.harness_window,
    )
    assert window["provider"] == "openai" and window["encoding"] == "o200k_base" and window["source"]
    assert "Unknown model 'gpt-5.1-turbo-ultra'" in unknown and "Did you mean" in unknown and "gpt-5.1" in unknown
    assert claude["count"] > 3 and len(claude["models"]) == (claude["next_offset"] or claude["count"])  # a page
    assert all("claude" in model["name"] for model in claude["models"])
    assert tiny["context_window"] == 400  # the config file the server was started with is read


CHAT = [
    {"role": "system", "content": "You are a careful release engineer."},
    {"role": "user", "content": "Why does the release workflow fail on tags? " + "context " * 150},
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": '{"cmd": "cat ci.yml"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "on: push: tags: ['v*'] " + "yaml " * 150},
    {"role": "user", "content": [{"type": "text", "text": "And the fix?"}]},
    {"role": "assistant", "content": "Quote the glob: tags: ['v*.*.*']."},
]


async def test_migrate_session_is_pure_and_fits_or_truncates(homes: dict[str, Path], tmp_path: Path) -> None:
    before = tree(homes["home"], homes["smig"] / "data")
    async with server(tmp_path) as session:
        fits = await call(
            session,
            "migrate_session",
            messages_json=json.dumps(CHAT),
            source_model="gpt-5.1",
            target_model="claude-sonnet-4-5",
        )
        cut = await call(session, "migrate_session", messages_json=CHAT, source_model="gpt-5.1", target_model=TINY)
        bad_json = await fail(
            session, "migrate_session", messages_json='[{"role": ', source_model="gpt-5.1", target_model=TINY
        )
        bad_role = await fail(
            session,
            "migrate_session",
            messages_json='[{"role": "wizard", "content": "x"}]',
            source_model="gpt-5.1",
            target_model=TINY,
        )
        unknown = await fail(
            session, "migrate_session", messages_json="[]", source_model="gpt-5.1", target_model="no-such-model-9"
        )
    assert fits["decision"]["fits"] and fits["strategy"] == "as-is"
    assert fits["messages"] == [{**m, "content": "And the fix?"} if isinstance(m["content"], list) else m for m in CHAT]
    assert fits["tokens_before"] == fits["tokens_after"] > 300
    assert not cut["decision"]["fits"] and cut["strategy"] == "truncate"
    assert cut["tokens_after"] <= cut["decision"]["budget"] < cut["tokens_before"]
    assert cut["messages"][0] == {"role": "system", "content": CHAT[0]["content"]}  # pinned, and still first
    assert cut["messages"][1] == {"role": "user", "content": cut["placeholder"]}
    assert cut["messages"][-1] == CHAT[-1] and CHAT[1] not in cut["messages"]
    assert cut["input_messages"] == len(CHAT) and cut["dropped_count"] >= 1
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
        pins = await fail(
            session, "preview_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY, pins=["not-a-message"]
        )
        target = await fail(
            session, "commit_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY, to=["store", "nowhere"]
        )
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
        preview = await call(
            session, "preview_migration", session_id=VERBOSE_SESSION[:8], target_model=TINY, max_chars=40_000
        )
        pinned = await call(
            session,
            "preview_migration",
            session_id=VERBOSE_SESSION[:8],
            target_model=TINY,
            pins=[loaded.messages[1].id],
            max_chars=40_000,
        )
    assert preview["next_offset"] is None
    assert listed["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    ids = {entry["id"] for entry in listed["sessions"]}
    assert VERBOSE_SESSION in ids and all(entry["agent"] == "claude" for entry in listed["sessions"])
    assert {entry["cwd"] for entry in scoped["sessions"]} == {"/home/user/my_app"}
    assert preview["session_id"] == VERBOSE_SESSION and preview["strategy"] == "truncate"
    assert [item["id"] for item in preview["items"]] == [message.id for message in loaded.messages]
    assert preview["tokens_after"] <= preview["decision"]["budget"] < preview["tokens_before"]
    assert preview["placeholder"] and "earlier messages" in preview["placeholder"]
    assert {item["id"]: item["kept"] for item in pinned["items"]}[loaded.messages[1].id]


def _word_only_in_dropped(services: Any, preview: dict[str, Any]) -> tuple[str, set[str]]:
    """A word that appears only in messages the plan drops, and the ids of those holding it."""
    session = services.load_session(services.find_session(VERBOSE_SESSION))
    dropped = {item["id"] for item in preview["items"] if not item["kept"]}
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
        dry = await call(
            session,
            "commit_migration",
            session_id=VERBOSE_SESSION,
            target_model=TINY,
            to=["claude", "codex"],
            dry_run=True,
        )
        assert tree(*agent_homes) == before and not (homes["smig"] / "data").exists()
        preview = await call(  # for the agent it is committed to: its window and overhead make the room
            session, "preview_migration", session_id=VERBOSE_SESSION, target_model=TINY, max_chars=40_000, to="claude"
        )
        done = await call(
            session, "commit_migration", session_id=VERBOSE_SESSION, target_model=TINY, to=["store", "claude"]
        )
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
    assert (
        done["resume_commands"] == [done["files"][0]["resume_command"]]
        and "claude --resume" in done["resume_commands"][0]
    )
    native = done["files"][0]  # the command as data too: what a client starts without a shell
    assert native["resume_argv"] == ["claude", "--resume", native["session_id"]]
    assert shown_command(tuple(native["resume_argv"]), native["resume_cwd"]) == native["resume_command"]
    assert native["resume_cwd"] == "/home/user/proj"
    assert handoff["outputs"] == [
        {
            "agent": "claude",
            "path": native["path"],
            "session_id": native["session_id"],
            "argv": native["resume_argv"],
            "cwd": "/home/user/proj",
            "resume_command": native["resume_command"],
        }
    ]
    dropped = [item for item in preview["items"] if not item["kept"]]
    assert done["dropped"] == len(dropped) and done["tokens_after"] == preview["tokens_after"]
    assert handoff["id"] == done["migration_id"] == chat["id"]
    assert handoff["left_out"] == done["left_out"]["messages"] > 0 and handoff["recall"]
    assert handoff["content"].startswith("# Handoff:") and preview["placeholder"].splitlines()[0] in handoff["content"]
    assert chat["content"][0]["content"] == preview["placeholder"]
    assert {m["id"] for m in recalled["messages"]} == holders and recalled["source"]["status"] == "unchanged"
    assert {m["id"] for m in everything["messages"]} == {item["id"] for item in dropped} - opaque
    assert grown["source"]["status"] == "grown" and {m["id"] for m in grown["messages"]} == holders
    assert recalled["unavailable"] == grown["unavailable"] == 0
    assert "was rewritten since migration" in rewritten
    assert "is gone" in gone
    assert not (set(tree(homes["codex"])) - set(before))


async def test_errors_name_tools_and_arguments_not_cli_flags(homes: dict[str, Path], tmp_path: Path) -> None:
    async with server(tmp_path) as session:
        unknown_model = await fail(session, "model_context_window", model="no-such-model-9")
        wrong_type = await fail(session, "list_sessions", limit="ten")
        out_of_range = await fail(session, "get_handoff", workspace=str(tmp_path), max_chars=10)
        extra = await fail(session, "list_known_models", colour="red")
        missing = await fail(session, "migrate_session", source_model="gpt-5.1", target_model=TINY)
        summary = await fail(
            session,
            "migrate_session",
            messages_json="[]",
            source_model="gpt-5.1",
            target_model=TINY,
            strategy="summary",
        )
        consent = await fail(
            session, "commit_migration", session_id=VERBOSE_SESSION, target_model=TINY, strategy="summary"
        )
        not_found = await fail(session, "preview_migration", session_id="ffffffff-0000", target_model=TINY)
        still_alive = await call(session, "model_context_window", model="gpt-5.1")
    assert unknown_model.startswith("model_context_window: Unknown model") and "list_known_models" in unknown_model
    assert "smig models" not in unknown_model and not_found.startswith("preview_migration: No session matches")
    assert wrong_type == "list_sessions: limit must be an integer, not string."
    assert out_of_range == "get_handoff: max_chars must be from 2,000 to 40,000, not 10."
    assert "list_known_models has no argument 'colour'" in extra
    assert missing == "migrate_session needs the argument messages_json."
    assert "strategy must be one of truncate, tools-first, as-is" in summary
    assert "yes_send=true" in consent and "--" not in consent and "smig summarize" not in consent
    assert f"Searched codex home {homes['codex']}" in not_found and "list_sessions" in not_found
    assert still_alive["name"] == "gpt-5.1"


async def test_the_20_mb_cap_holds_for_an_array_as_for_a_string(homes: dict[str, Path], tmp_path: Path) -> None:
    big = [{"role": "user", "content": "x" * 1_000_000} for _ in range(21)]
    async with server(tmp_path) as session:
        as_array = await fail(session, "migrate_session", messages_json=big, source_model="gpt-5.1", target_model=TINY)
        as_text = await fail(
            session, "migrate_session", messages_json=json.dumps(big), source_model="gpt-5.1", target_model=TINY
        )
    assert "more than the limit of 20 MB" in as_array and "more than the limit of 20 MB" in as_text


def test_the_server_answers_the_handshake_without_loading_the_core(tmp_path: Path) -> None:
    """`smig mcp` must be up before Codex sends its first request: the handshake and tools/list load
    neither the SDK nor smig's services; the first tool call does."""
    import subprocess

    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage"},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    ]
    code = (
        "import sys, runpy\nsys.argv = ['smig', 'mcp']\nfrom smig_tui.cli.main import main\nmain()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic', 'tiktoken') "
        "or m == 'smig_tui.mcp.tools'), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input="\n".join(json.dumps(x) for x in lines) + "\nnot json\n",
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply.get("id") for reply in replies] == [1, 2, 3, 4, None]
    assert (
        replies[0]["result"]["protocolVersion"] == "2025-06-18" and replies[0]["result"]["serverInfo"]["name"] == "smig"
    )
    assert len(replies[1]["result"]["tools"]) == len(TOOLS)
    assert replies[2]["error"]["code"] == -32601 and replies[3]["result"] == {}
    assert replies[4]["error"]["code"] == -32700
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_an_unexpected_failure_is_one_sentence_and_the_server_serves_on() -> None:
    """A bug in a tool or the dispatcher must not kill the server or print a traceback to the client."""
    from smig_tui.mcp.protocol import Call, Method, StdioServer

    def broken_tool(call: Call) -> dict[str, Any]:
        raise KeyError(call.method)

    server = StdioServer("smig", "0", "", {"tools/call": Method(broken_tool)}, {})
    call = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "x", "arguments": {}}})
    ping = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    reader, writer = io.BytesIO(f"{call}\n{ping}\n".encode()), io.BytesIO()
    server.serve(reader, writer)
    replies = {reply["id"]: reply for reply in map(json.loads, writer.getvalue().splitlines())}
    assert replies[7] == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32603, "message": "smig failed on this request (KeyError)."},
    }
    assert replies[8] == {"jsonrpc": "2.0", "id": 8, "result": {}}


def test_a_tool_that_raises_unexpectedly_is_a_tool_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from smig_tui.mcp.server import SmigToolRunner
    from smig_tui.mcp.tools import SmigTools

    def boom(self: SmigTools, model: str) -> dict[str, Any]:
        raise ValueError("internal detail")

    monkeypatch.setattr(SmigTools, "model_context_window", boom)
    result = SmigToolRunner()("model_context_window", {"model": "gpt-5.1"})
    assert result["isError"] is True
    [content] = result["content"]
    assert content["text"].startswith(
        "model_context_window: Unexpected ValueError (internal detail); the details are in "
    )


def test_a_request_runs_with_the_cyclic_collector_paused_and_resumes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Else its passes walk the session a tool reads again and again (0.5-0.7 s of a 500 MB preview)."""
    import gc

    from smig_tui.mcp.handoffs import Handoffs
    from smig_tui.mcp.server import SmigToolRunner, build_server
    from smig_tui.mcp.tools import SmigTools

    seen: list[tuple[str, bool]] = []
    real = SmigTools.model_context_window

    def window(self: SmigTools, model: str) -> dict[str, Any]:
        seen.append(("tool", gc.isenabled()))
        if model == "boom":
            raise ValueError("internal detail")
        return real(self, model)

    def prompt(self: Handoffs, call: Any) -> dict[str, Any]:
        seen.append(("prompt", gc.isenabled()))
        raise ValueError("internal detail")

    monkeypatch.setattr(SmigTools, "model_context_window", window)
    monkeypatch.setattr(Handoffs, "get_prompt", prompt)
    assert gc.isenabled()
    runner = SmigToolRunner()
    assert runner("model_context_window", {"model": "gpt-5.1"})["isError"] is False
    assert gc.isenabled()
    assert runner("model_context_window", {"model": "boom"})["isError"] is True
    assert gc.isenabled()
    request = {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "handoff"}}
    writer = io.BytesIO()
    build_server().serve(io.BytesIO(f"{json.dumps(request)}\n".encode()), writer)
    assert json.loads(writer.getvalue())["error"]["code"] == -32603  # a sentence, and the collector is back
    assert gc.isenabled()
    assert seen == [("tool", False), ("tool", False), ("prompt", False)]


def test_a_request_lets_go_of_the_session_it_read(homes: dict[str, Path]) -> None:
    """A later request reads a session anew: the memos kept it until the next read, walked once more by
    the collector (0.17 s on 500 MB) and held in memory meanwhile."""
    import gc

    from smig_tui.core.models import Session
    from smig_tui.mcp.server import SmigToolRunner

    mine = str(homes["smig"].parent)  # this test's homes: a session another test left is not this one's

    def alive() -> bool:
        return any(
            type(found) is Session and found.info.id == VERBOSE_SESSION and found.info.path.startswith(mine)
            for found in gc.get_objects()
        )

    runner = SmigToolRunner()
    preview = runner("preview_migration", {"session_id": VERBOSE_SESSION, "target_model": TINY})
    assert preview["isError"] is False and not alive()
    again = runner(
        "preview_migration", {"session_id": VERBOSE_SESSION, "target_model": TINY, "strategy": "tools-first"}
    )
    assert again["isError"] is False and not alive()
