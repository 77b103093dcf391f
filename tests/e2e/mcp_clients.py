"""Runs the real clients with smig as an MCP server against scripted fake models, and reads back
what each tool call gave the model.

Each runner takes the calls the scripted model makes (tool name and arguments), sets the client up
(`configure(env)` writes its MCP config before the run: `smig mcp --install`, or a docs snippet),
runs it once to the end, and returns the text each call's result had in the model request that first
carried it (later requests may shorten old results: Gemini CLI masks big ones), in call order. Claude Code
and Codex load MCP tools through their tool search first; Qwen Code too (`tool_search`, then each call
through its `tool_call`, as `mcp__smig__<tool>`); Gemini CLI names the tools `mcp_smig_<tool>`, OpenCode
and Kilo Code `smig_<tool>`, Copilot CLI `smig-<tool>`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from copilot_client import copilot_binary, copilot_env
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from gemini_client import MODEL as GEMINI_MODEL
from gemini_client import NO_RELAUNCH as GEMINI_NO_RELAUNCH
from gemini_client import gemini_binary, prepare_home
from kilo_client import QUIET as KILO_QUIET
from kilo_client import configure as configure_kilo_provider
from kilo_client import kilo_binary
from qwen_client import MODEL as QWEN_MODEL
from qwen_client import NO_RELAUNCH as QWEN_NO_RELAUNCH
from qwen_client import prepare_home as prepare_qwen_home
from qwen_client import qwen_binary
from real_clients import OPENCODE_QUIET

CLIENT_TIMEOUT = 600
"""A hang guard for one client run of many tool calls, not a speed bound."""
Calls = list[tuple[str, dict[str, Any]]]
Configure = Callable[[dict[str, str]], None]
CODEX_PROVIDER = (
    'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
    'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n'
    "request_max_retries = 0\nstream_max_retries = 0\n"
)


def client_binary(name: str) -> str:
    """The installed client, or skip."""
    if name == "gemini":
        return gemini_binary()
    folder = os.environ.get("SMIG_E2E_BIN")
    if not folder or not (Path(folder) / name).is_file():
        pytest.skip(f"{name} is not installed (set SMIG_E2E_BIN)")
    return str(Path(folder) / name)


def smig_binary() -> str:
    """This checkout's `smig` (the venv's), which the clients find first on PATH."""
    found = Path(sys.executable).parent / "smig"
    assert found.is_file(), "this checkout's smig is not installed in its venv"
    return str(found)


def base_env(homes: dict[str, Path]) -> dict[str, str]:
    """A clean environment whose PATH finds this checkout's smig first, with the temp homes only."""
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(homes["home"]),
        "LANG": "C.UTF-8",
        "TMPDIR": os.environ.get("TMPDIR") or tempfile.gettempdir(),  # the clients' own (tests/e2e/conftest.py)
        "CODEX_HOME": str(homes["codex"]),
        "CLAUDE_CONFIG_DIR": str(homes["claude"]),
        "SMIG_TUI_HOME": str(homes["smig"]),
        "NO_COLOR": "1",
        "CI": "1",
        "TIKTOKEN_CACHE_DIR": os.environ.get("TIKTOKEN_CACHE_DIR", ""),
    }


def claude_env(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    """Claude Code's environment against the fake Messages API."""
    return base_env(homes) | {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def gemini_env(homes: dict[str, Path], server: FakeGeminiServer) -> dict[str, str]:
    """Gemini CLI's environment against the fake Gemini API, its settings selecting API-key auth."""
    prepare_home(homes["home"])
    return base_env(homes) | {
        "GEMINI_API_KEY": "smig-test",
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        **GEMINI_NO_RELAUNCH,
    }


def install(client: str) -> Configure:
    """Set the client up the way a user would: `smig mcp --install CLIENT` in its real config file."""

    def configure(env: dict[str, str]) -> None:
        done = subprocess.run(
            [smig_binary(), "mcp", "--install", client], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and "smig added in" in done.stdout, done.stderr

    return configure


def run_client(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, (done.stdout[-1000:], done.stderr[-3000:])
    return done


def run_claude(homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure, prompt: str = "go") -> list[str]:
    """`claude -p` with smig's tools allowed; the results of `calls` as the model read them."""
    names = ",".join(sorted({f"mcp__smig__{tool}" for tool, _ in calls}))
    steps = [{"name": "ToolSearch", "args": {"query": f"select:{names}", "max_results": 20}}]
    steps += [{"name": f"mcp__smig__{tool}", "args": args} for tool, args in calls]
    with FakeModelServer(steps) as server:
        env = claude_env(homes, server)
        configure(env)
        run_client([client_binary("claude"), "-p", prompt, "--allowedTools", "mcp__smig__*"], cwd, env)
        bodies = [body for body in server.bodies("/messages") if body.get("tools")]
    return [anthropic_results(body)[-1] for body in bodies[1:]][1:]


def run_codex(homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure) -> list[str]:
    """`codex exec` with the fake provider; the results of `calls` as the model read them."""
    steps: list[dict[str, Any]] = [{"tool_search": {"query": "smig handoff session model", "limit": 20}}]
    steps += [{"name": tool, "namespace": "mcp__smig", "args": args} for tool, args in calls]
    with FakeModelServer(steps) as server:
        homes["codex"].mkdir(parents=True, exist_ok=True)
        (homes["codex"] / "config.toml").write_text(CODEX_PROVIDER.replace("{url}", server.url), encoding="utf-8")
        env = base_env(homes) | {"FAKE_MODEL_KEY": "fake-key"}
        configure(env)
        run_client([client_binary("codex"), "exec", "--skip-git-repo-check", "go"], cwd, env)
        bodies = [body for body in server.bodies("/responses") if body.get("tools")]
    return [responses_results(body)[-1] for body in bodies[1:]][1:]


def run_gemini(homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure, prompt: str = "go") -> list[str]:
    """`gemini -p` against the fake Gemini API; the results of `calls` as the model read them."""
    steps = [{"name": f"mcp_smig_{tool}", "args": args} for tool, args in calls]
    with FakeGeminiServer(steps) as server:
        env = gemini_env(homes, server)
        configure(env)
        run_client([client_binary("gemini"), "-p", prompt, "-m", GEMINI_MODEL], cwd, env)
        turns = server.turns()
    return [gemini_results(body)[-1] for body in turns[1:]]


def run_opencode(
    homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure, prompt: str = "go"
) -> list[str]:
    """`opencode run` with a fake Anthropic provider; the results of `calls` as the model read them."""
    steps = [{"name": f"smig_{tool}", "args": args} for tool, args in calls]
    with FakeModelServer(steps) as server:
        env = configure_opencode_provider(homes, server)
        configure(env)
        run_client([client_binary("opencode"), "run", prompt], cwd, env)
        bodies = [body for body in server.bodies("/messages") if body.get("tools")]
    return [anthropic_results(body)[-1] for body in bodies[1:]]


def run_qwen(homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure, prompt: str = "go") -> list[str]:
    """`qwen PROMPT` (one turn, default approval mode) against the fake Chat Completions API; the results of
    `calls` as the model read them."""
    names = ",".join(sorted({f"mcp__smig__{tool}" for tool, _ in calls}))
    steps: list[dict[str, Any]] = [{"name": "tool_search", "args": {"query": f"select:{names}"}}]
    steps += [{"name": "tool_call", "args": {"name": f"mcp__smig__{tool}", "arguments": args}} for tool, args in calls]
    with FakeModelServer(steps) as server:
        prepare_qwen_home(homes["home"])
        env = base_env(homes) | {
            "OPENAI_BASE_URL": f"{server.url}/v1",
            "OPENAI_API_KEY": "smig-test",
            "OPENAI_MODEL": QWEN_MODEL,
            **QWEN_NO_RELAUNCH,
        }
        configure(env)
        run_client([qwen_binary(), prompt], cwd, env)
        bodies = [body for body in server.bodies("/chat/completions") if _offers(body, "tool_call")]
    return [chat_results(body)[-1] for body in bodies[1:]][1:]


def run_kilo(homes: dict[str, Path], cwd: Path, calls: Calls, configure: Configure, prompt: str = "go") -> list[str]:
    """`kilo run` with a fake OpenAI-compatible provider; the results of `calls` as the model read them."""
    steps = [{"name": f"smig_{tool}", "args": args} for tool, args in calls]
    with FakeModelServer(steps) as server:
        configure_kilo_provider(homes["home"], server)
        env = base_env(homes) | KILO_QUIET
        configure(env)
        run_client([kilo_binary(), "run", prompt], cwd, env)
        bodies = [body for body in server.bodies("/chat/completions") if body.get("tools")]
    return [chat_results(body)[-1] for body in bodies[1:]]


COMPACTING = "Please create a detailed summary of the conversation so far."
"""How Copilot CLI 1.0.102 opens its compaction request (which offers the tools too): the scripted model
answers it with text, not the next call, and the conversation goes on."""


def run_copilot(
    homes: dict[str, Path],
    cwd: Path,
    calls: Calls,
    configure: Configure,
    *flags: str,
    prompt: str = "go",
    server_name: str = "smig",
) -> list[str]:
    """`copilot -p PROMPT FLAGS` (BYOK, Anthropic type, no sign-in) with its home in `COPILOT_HOME`; the
    results of `calls` (tools of the server `server_name`) as the model first read them (Copilot compacts
    a long run and drops old results)."""
    steps = [{"name": f"{server_name}-{tool}", "args": args} for tool, args in calls]
    with FakeModelServer(steps, takes_step=lambda body: bool(body.get("tools")) and not _compacting(body)) as server:
        env = copilot_env(homes["home"], server) | base_env(homes) | {"COPILOT_HOME": str(copilot_home(homes))}
        configure(env)
        run_client([copilot_binary(), "-p", prompt, *flags], cwd, env)
        bodies = [body for body in server.bodies("/messages") if body.get("tools") and not _compacting(body)]
    first: dict[str, str] = {}
    for body in bodies:
        for call, text in anthropic_results_by_call(body):
            first.setdefault(call, text)
    return list(first.values())


def copilot_home(homes: dict[str, Path]) -> Path:
    """The temp `COPILOT_HOME` a test's Copilot CLI runs with (away from `~/.copilot`, so only the variable finds it)."""
    return homes["home"] / "copilot-home"


def _compacting(body: dict[str, Any]) -> bool:
    """Whether a Messages request is Copilot CLI's request for a summary of the conversation."""
    last = (body.get("messages") or [{}])[-1].get("content")
    return isinstance(last, list) and any(COMPACTING in str(block.get("text", "")) for block in last)


def _offers(body: dict[str, Any], tool: str) -> bool:
    """Whether a Chat Completions request offers the model `tool` (an agent's turn, not a side request)."""
    return any((spec.get("function") or {}).get("name") == tool for spec in body.get("tools") or [])


def configure_opencode_provider(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    """OpenCode's config with a provider `fake` at the server; the environment to run it with."""
    folder = homes["home"] / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/anthropic",
        "name": "fake",
        "options": {"baseURL": f"{server.url}/v1", "apiKey": "test"},
        "models": {"claude-sonnet-4-5": {"name": "fake", "limit": {"context": 200000, "output": 8000}}},
    }
    config = {
        "model": "fake/claude-sonnet-4-5",
        "autoupdate": False,
        "share": "disabled",
        "provider": {"fake": provider},
    }
    (folder / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    return base_env(homes) | OPENCODE_QUIET


def anthropic_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result in an Anthropic Messages request, in order."""
    return [text for _, text in anthropic_results_by_call(body)]


def anthropic_results_by_call(body: dict[str, Any]) -> list[tuple[str, str]]:
    """Every tool result in an Anthropic Messages request, in order: the call's id and the result's text."""
    found = []
    for message in body.get("messages") or []:
        for block in message["content"] if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                text = (
                    content
                    if isinstance(content, str)
                    else "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
                )
                found.append((str(block.get("tool_use_id")), text))
    return found


def responses_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool (and tool search) output in an OpenAI Responses request, in order."""
    found = []
    for item in body.get("input") or []:
        if item.get("type") in ("function_call_output", "tool_search_output"):
            output = item.get("output", item.get("tools"))
            if isinstance(output, list) and item["type"] == "function_call_output":
                output = "".join(part.get("text", "") for part in output if isinstance(part, dict))
            found.append(output if isinstance(output, str) else json.dumps(output, ensure_ascii=False))
    return found


def chat_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool message in an OpenAI Chat Completions request, in order."""
    found = []
    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            content = message.get("content")
            found.append(
                content
                if isinstance(content, str)
                else "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
            )
    return found


def gemini_results(body: dict[str, Any]) -> list[str]:
    """The text of every function response in a Gemini request, in order."""
    found = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            response = (part.get("functionResponse") or {}).get("response")
            if response is not None:
                output = response.get("output", response) if isinstance(response, dict) else response
                found.append(output if isinstance(output, str) else json.dumps(output, ensure_ascii=False))
    return found


def parsed(text: str) -> dict[str, Any]:
    """The JSON object a result holds (a client may wrap it, or append its own notes after it)."""
    value: dict[str, Any] = json.JSONDecoder().raw_decode(text[text.index("{") :])[0]
    return value
