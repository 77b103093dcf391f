"""smig's server driven by the official SDK client over stdio: many calls at once, progress and a ping
during a 50 MB session's reading, the 2026-07-28 era, and the handoff prompt, resources and completions."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")
import mcp_types as types  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

TIMEOUT = 600
"""A hang guard on each exchange, not a speed bound."""
FIXTURES = Path(__file__).parents[1] / "fixtures"
ROLLOUT = "sessions/2026/11/20/rollout-2026-11-20T10-00-00-01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9.jsonl"
CODEX_ID = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
SECRET = "sk-proj-Qx8vT2mN5kL9pR3sW7yZ1aB4cD6eF0gH"
"""An OpenAI-shaped key planted in the session: no prompt, resource or completion may show it."""


def install_rollout(codex_home: Path, project: Path, extra_lines: int = 0, line_chars: int = 10_000) -> Path:
    """The fixture Codex rollout, run in `project`, a secret in its last prompt, `extra_lines` turns appended."""
    text = (FIXTURES / "codex_home" / ROLLOUT).read_text(encoding="utf-8").replace("/home/user/proj", str(project))
    target = codex_home / ROLLOUT
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as out:
        out.write(text)
        for n in range(extra_lines):
            role = "user" if n % 2 == 0 else "assistant"
            kind = "input_text" if role == "user" else "output_text"
            body = f"turn {n}: " + ("the parser keeps its flags in one table " * (line_chars // 40))
            item = {"type": "message", "role": role, "content": [{"type": kind, "text": body}]}
            out.write(
                json.dumps({"timestamp": "2026-11-20T10:30:00.000Z", "type": "response_item", "payload": item}) + "\n"
            )
        last = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": f"use OPENAI_API_KEY={SECRET} now"}],
        }
        out.write(
            json.dumps({"timestamp": "2026-11-20T11:00:00.000Z", "type": "response_item", "payload": last}) + "\n"
        )
    return target


@asynccontextmanager
async def connected(cwd: Path, mode: str = "legacy", client: str = "claude-code") -> AsyncIterator[Client]:
    """`python -m smig_tui.mcp` in `cwd`, connected by the SDK's client as `client` (the caller's agent)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "smig_tui.mcp"], env=dict(os.environ), cwd=str(cwd)
    )
    info = types.Implementation(name=client, version="1")
    with anyio.fail_after(TIMEOUT):
        async with Client(params, mode=mode, client_info=info, cache=None) as session:  # type: ignore[arg-type]
            yield session


@pytest.fixture
def project(isolated_homes: dict[str, Path], tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


async def test_forty_calls_at_once_all_succeed(fake_home: dict[str, Path], project: Path) -> None:
    results: dict[int, Any] = {}
    async with connected(project) as client:

        async def one(n: int) -> None:
            name, arguments = [
                ("model_context_window", {"model": "gpt-5.1"}),
                ("list_known_models", {"offset": 0}),
                ("list_sessions", {"limit": 5}),
                ("preview_migration", {"session_id": "5f0c2a9e", "target_model": "gpt-4"}),
            ][n % 4]
            results[n] = await client.call_tool(name, arguments)

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as group:
                for n in range(40):
                    group.start_soon(one, n)
    assert len(results) == 40
    assert not [n for n, result in results.items() if result.is_error], [
        r.content for r in results.values() if r.is_error
    ][:1]
    assert {results[n].structured_content["name"] for n in range(0, 40, 4)} == {"gpt-5.1"}


async def test_progress_and_a_ping_during_a_50_mb_session(isolated_homes: dict[str, Path], project: Path) -> None:
    """Progress comes from the real reading of the session, and a ping is answered while it goes on."""
    path = install_rollout(isolated_homes["codex"], project, extra_lines=5_000)
    assert path.stat().st_size > 50_000_000
    seen: list[tuple[float, float | None, str | None]] = []
    first = anyio.Event()
    outcome: dict[str, Any] = {}
    async with connected(project) as client:

        async def progressed(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))
            first.set()

        async def preview() -> None:
            outcome["result"] = await client.call_tool(
                "preview_migration", {"session_id": CODEX_ID, "target_model": "gpt-4"}, progress_callback=progressed
            )
            outcome["at"] = time.perf_counter()

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as group:
                group.start_soon(preview)
                await first.wait()
                sent = time.perf_counter()
                await client.session.send_ping()
                outcome["pong"] = time.perf_counter()
                assert "result" not in outcome  # the call was still running when the ping came back
    assert not outcome["result"].is_error, outcome["result"].content
    assert outcome["pong"] < outcome["at"]
    progress = [p for p, _, _ in seen]
    assert len(seen) >= 10 and progress == sorted(set(progress))
    assert all(total is not None and p <= total for p, total, _ in seen) and seen[-1][1] >= path.stat().st_size
    assert seen[0][2] and "MB" in seen[0][2]
    print(
        f"ping answered in {(outcome['pong'] - sent) * 1000:.1f} ms while a 50 MB session was read; {len(seen)} progress notes"
    )


async def test_the_sdk_speaks_2026_07_28_to_smig(fake_home: dict[str, Path], project: Path) -> None:
    async with connected(project, mode="auto") as client:
        assert client.session.discover_result is not None  # the probe found a 2026-07-28 server
        assert "2026-07-28" in client.session.discover_result.supported_versions
        listed = await client.list_tools()
        window = await client.call_tool("model_context_window", {"model": "gpt-5.1"})
        prompts = await client.list_prompts()
    assert len(listed.tools) == 10 and not window.is_error and window.structured_content["name"] == "gpt-5.1"
    assert [prompt.name for prompt in prompts.prompts] == ["continue_from_agent"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_handoff_prompt_puts_the_other_agents_session_here_redacted(
    isolated_homes: dict[str, Path], project: Path, mode: str
) -> None:
    install_rollout(isolated_homes["codex"], project)
    async with connected(project, mode=mode) as client:
        listed = await client.list_prompts()
        prompt = await client.get_prompt("continue_from_agent", {})
        named = await client.get_prompt("continue_from_agent", {"agent": "codex", "model": "gpt-4"})
        unfilled = await client.get_prompt("continue_from_agent", {"agent": "$1", "session": "$2", "model": "$3"})
        agents = await client.complete(
            types.PromptReference(type="ref/prompt", name="continue_from_agent"), {"name": "agent", "value": "c"}
        )
        ids = await client.complete(
            types.PromptReference(type="ref/prompt", name="continue_from_agent"),
            {"name": "session", "value": CODEX_ID[:4]},
        )
        with pytest.raises(Exception, match="No claude session ran in"):
            await client.get_prompt("continue_from_agent", {"agent": "claude"})
        with pytest.raises(Exception, match="no prompt 'nope'"):
            await client.get_prompt("nope", {})
    [continue_from] = listed.prompts
    assert {argument.name for argument in continue_from.arguments or []} == {"agent", "session", "model"}
    [message] = prompt.messages
    text = message.content.text  # type: ignore[union-attr]
    assert message.role == "user" and f"session {CODEX_ID}" in text and "# Handoff:" in text
    assert SECRET not in text and "[REDACTED" in text
    assert "fitted to gpt-4" in named.messages[0].content.text  # type: ignore[union-attr]
    assert unfilled.messages == prompt.messages  # OpenCode's placeholders for arguments not given
    assert agents.completion.values == ["codex", "claude", "crush", "copilot"]  # every agent whose id starts so
    assert ids.completion.values == [CODEX_ID] and ids.completion.total == 1


async def test_sessions_are_resources_paged_read_fitted_and_redacted(
    isolated_homes: dict[str, Path], project: Path
) -> None:
    install_rollout(isolated_homes["codex"], project)
    shutil.copytree(FIXTURES / "claude_home", isolated_homes["claude"], dirs_exist_ok=True)
    async with connected(project, client="gemini-cli-mcp-client") as client:
        templates = await client.list_resource_templates()
        first = await client.list_resources()
        read = await client.read_resource(f"smig://session/{CODEX_ID}")
        completed = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="smig://session/{id}"), {"name": "id", "value": ""}
        )
        with pytest.raises(Exception, match="cursor 'bogus' is not one smig gave"):
            await client.list_resources(cursor="bogus")  # type: ignore[call-arg]
        with pytest.raises(Exception, match="No session matches"):
            await client.read_resource("smig://session/ffffffff-0000")
    assert [t.uri_template for t in templates.resource_templates] == ["smig://session/{id}"]
    uris = [str(resource.uri) for resource in first.resources]
    assert uris[0] == f"smig://session/{CODEX_ID}"  # this folder's session first
    assert len(uris) > 1 and first.next_cursor is None
    [contents] = read.contents
    assert contents.mime_type == "text/markdown" and "# Handoff:" in contents.text  # type: ignore[union-attr]
    assert SECRET not in contents.text and "[REDACTED" in contents.text  # type: ignore[union-attr]
    assert completed.completion.values[0] == CODEX_ID and len(completed.completion.values) == len(uris)


async def test_a_secret_in_a_title_is_redacted_in_listings_and_prompts(
    isolated_homes: dict[str, Path], project: Path
) -> None:
    from codex_rollouts import write_rollout

    session = "019aa00d-0000-7000-8000-0000000000d1"
    write_rollout(isolated_homes["codex"], project, session, [f"deploy with token {SECRET} please", "On it."])
    async with connected(project) as client:
        listed = await client.list_resources()
        prompt = await client.get_prompt("continue_from_agent", {"session": session})
        read = await client.read_resource(f"smig://session/{session}")
    shown = json.dumps(
        [listed.model_dump(mode="json"), prompt.model_dump(mode="json"), read.model_dump(mode="json")],
        ensure_ascii=False,
    )
    assert SECRET not in shown and shown.count("[REDACTED") >= 3
