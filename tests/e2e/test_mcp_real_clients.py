"""Proves smig's MCP server works inside the six real clients, each set up as docs/mcp.md says.

Each client is started with the docs' configuration block as written (`smig` found on PATH is this
checkout's), against a fake model server playing a scripted model: in Claude Code and Codex it calls
every smig tool by name, reads a paged handoff to its end and provokes errors; in Gemini CLI,
OpenCode, Qwen Code and Kilo Code it calls the read-only tools and (OpenCode, Qwen Code, Kilo Code) the
writer, which Qwen Code's one-shot run refuses. The tool results come back in the
client's next request, where the test reads them. Skips when the clients are not installed
(`SMIG_E2E_BIN`, `SMIG_E2E_NEW_BIN`; CI installs them pinned).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import FakeModelServer

from smig_tui.adapters.agents.copilot.mcp import PAGE_CHARS as COPILOT_PAGE
from smig_tui.mcp.schemas import PAGE_CHARS
from smig_tui.mcp.tools import SmigTools, pages_for
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
SESSION = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
"""The Claude fixture session in /home/user/proj (tests/fixtures/claude_home)."""
TINY = "tiny-test"
PAGE = 2_000
CLIENT_TIMEOUT = 240
CODEX_PROVIDER = (
    'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
    'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n'
    "request_max_retries = 0\nstream_max_retries = 0\n\n"
)
"""Codex's provider pointing at the fake model server; the README's block is appended to it."""


def _client(name: str) -> str:
    """The installed client, or skip."""
    folder = os.environ.get("SMIG_E2E_BIN")
    if not folder:
        pytest.skip("SMIG_E2E_BIN is not set (the real clients are not installed)")
    path = Path(folder) / name
    if not path.is_file():
        pytest.skip(f"{name} is not installed in {folder}")
    return str(path)


def readme_block(language: str, marker: str, client: str | None = None) -> str:
    """The docs' MCP configuration block for one client, exactly as a user would copy it.

    With `client`, only that client's part of the page is searched (Claude Code and Gemini CLI
    share the same JSON entry).
    """
    page = ROOT / "docs" / "mcp.md"
    if page.is_file():
        section = page.read_text(encoding="utf-8")
    else:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        section = readme[readme.index("## MCP server") :]
    if client is not None:
        start = section.index(f"### {client}\n")
        section = section[start : section.find("\n##", start + 1)]
    blocks = re.findall(rf"```{language}[^\n]*\n(.*?)```", section, re.S)
    return next(block for block in blocks if marker in block)


def _prepare() -> dict[str, Any]:
    """Commit a migration in-process and measure the pages the client will read.

    The offsets of later pages go into the script up front: a client may append its own notes
    after a tool result, so the fake server cannot always read one back to chain the next call.
    The client's own commit (same session, same target) is newer and has the same page layout.
    """
    tools = SmigTools(build_services())
    done = tools.commit_migration(SESSION, TINY, to=["store"])
    offsets, offset = [], 0
    while offset is not None:
        offsets.append(offset)
        offset = tools.get_handoff("/home/user/proj", offset=offset, max_chars=PAGE)["next_offset"]
    return {
        "migration_id": done["migration_id"],
        "handoff_offsets": offsets,
        "models_offsets": _page_offsets(lambda offset: tools.list_known_models(offset=offset)),
    }


def _page_offsets(call: Any) -> list[int]:
    """The offset of every page of a paged tool's reply."""
    offsets, offset = [], 0
    while offset is not None:
        offsets.append(offset)
        offset = call(offset)["next_offset"]
    return offsets


def _calls(prepared: dict[str, Any], agent: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every tool once or more, a paged handoff read to its end, then errors: (label, tool, arguments)."""
    chat = [{"role": "system", "content": "Be terse."}] + [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"turn {n} " + "word " * 200} for n in range(6)
    ]
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("window", "model_context_window", {"model": "gpt-5.1"}),
        ("models", "list_known_models", {"query": "claude"}),
        ("all0", "list_known_models", {}),  # the whole table is over 20,000 characters: several default pages
        *(
            (f"all{n}", "list_known_models", {"offset": offset})
            for n, offset in enumerate(prepared["models_offsets"][1:], start=1)
        ),
        ("sessions", "list_sessions", {"agent": agent, "limit": 50}),
        (
            "migrate",
            "migrate_session",
            {"messages_json": json.dumps(chat), "source_model": "gpt-5.1", "target_model": TINY},
        ),
        ("preview", "preview_migration", {"session_id": SESSION[:8], "target_model": TINY}),
        ("commit", "commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]}),
    ]
    for n, offset in enumerate(prepared["handoff_offsets"]):
        calls.append((f"page{n}", "get_handoff", {"workspace": "/home/user/proj", "max_chars": PAGE, "offset": offset}))
    return calls + [
        ("recall", "recall_omitted", {"migration_id": prepared["migration_id"], "query": ""}),
        ("bad_model", "model_context_window", {"model": "no-such-model-9"}),
        ("bad_id", "recall_omitted", {"migration_id": "../../etc/passwd", "query": "x"}),
        ("past_end", "get_handoff", {"workspace": "/home/user/proj", "offset": 10_000_000}),
    ]


def _steps(calls: list[tuple[str, str, dict[str, Any]]], agent: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The scripted model's steps for one client, and their labels.

    Both clients defer MCP tools: Claude Code loads their schemas with its ToolSearch tool, Codex with
    its client-side tool_search, which groups them in the namespace `mcp__smig`.
    """
    if agent == "claude":
        names = ",".join(f"mcp__smig__{tool}" for tool in sorted({tool for _, tool, _ in calls}))
        steps = [{"name": "ToolSearch", "args": {"query": f"select:{names}", "max_results": 10}}]
        steps += [{"name": f"mcp__smig__{tool}", "args": args} for _, tool, args in calls]
    else:
        steps = [{"tool_search": {"query": "smig model session migration handoff omitted", "limit": 20}}]
        steps += [{"name": tool, "namespace": "mcp__smig", "args": args} for _, tool, args in calls]
    return steps, ["load"] + [label for label, _, _ in calls]


def _run(
    homes: dict[str, Path], command: list[str], env: dict[str, str], server: FakeModelServer, labels: list[str]
) -> dict[str, dict[str, Any]]:
    """Run the client to completion against the running server; return the labelled tool results."""
    done = subprocess.run(
        command,
        env=env,
        cwd=homes["project"],
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    turns = [body for method, _, body in server.requests if method == "POST" and body.get("tools")]
    assert turns, "the client sent no request"
    return _results(turns, labels)


def _results(bodies: list[dict[str, Any]], labels: list[str]) -> dict[str, dict[str, Any]]:
    """Each labelled call's result as the client sent it to the model, read from its last request.

    The calls are the tool uses in the conversation, in order (one per chain step); a result is the
    text the model got back for that call, and whether the client flagged it an error.
    """
    body = bodies[-1]
    calls: list[str] = []
    results: dict[str, dict[str, Any]] = {}
    for item in body.get("messages") or []:  # Anthropic Messages
        for block in item["content"] if isinstance(item.get("content"), list) else []:
            if block.get("type") == "tool_use":
                calls.append(block["id"])
            elif block.get("type") == "tool_result":
                content = block.get("content")
                text = (
                    content
                    if isinstance(content, str)
                    else "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
                )
                results[block["tool_use_id"]] = {"text": text, "is_error": bool(block.get("is_error"))}
    for item in body.get("input") or [] if isinstance(body.get("input"), list) else []:  # OpenAI Responses
        if item.get("type") in ("function_call", "tool_search_call"):
            calls.append(item["call_id"])
        elif item.get("type") in ("function_call_output", "tool_search_output"):
            output = item.get("output", item.get("tools"))
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            if isinstance(output, list) and item["type"] != "tool_search_output":
                text = "".join(part.get("text", "") for part in output if isinstance(part, dict))
            results[item["call_id"]] = {"text": text, "is_error": None}
    found = {label: results[call] for label, call in zip(labels, calls, strict=False) if call in results}
    found["first_request"] = {"text": json.dumps(bodies[0]), "is_error": None}
    return found


def _parsed(result: dict[str, Any]) -> dict[str, Any]:
    """The JSON object a result starts with (a client may append its own notes after it)."""
    text = result["text"]
    return json.JSONDecoder().raw_decode(text[text.index("{") :])[0]


def _check(results: dict[str, dict[str, Any]], prepared: dict[str, Any], homes: dict[str, Path], agent: str) -> None:
    """Every tool answered correctly in the client's next request, the handoff read whole, errors as errors."""
    assert set(results) >= {
        "window",
        "models",
        "sessions",
        "migrate",
        "preview",
        "commit",
        "recall",
        "bad_model",
        "bad_id",
        "past_end",
    }, sorted(results)
    ok = {
        label: _parsed(result)
        for label, result in results.items()
        if not label.startswith(("bad", "past", "load", "first"))
    }
    first = results["first_request"]["text"] + results["load"]["text"]  # Claude names them; Codex's search finds them
    assert all(
        name in first
        for name in (
            "model_context_window",
            "list_known_models",
            "migrate_session",
            "list_sessions",
            "preview_migration",
            "commit_migration",
            "get_handoff",
            "recall_omitted",
        )
    ), "smig's tools were missing from the first request"
    assert ok["window"]["context_window"] == build_services().capacities.lookup("gpt-5.1").context_window
    assert ok["models"]["count"] >= 3 and all("claude" in m["name"] for m in ok["models"]["models"])
    pages = [ok[f"all{n}"] for n in range(len(prepared["models_offsets"]))]
    table = [model["name"] for page in pages for model in page["models"]]
    assert len(pages) >= 2 and pages[-1]["next_offset"] is None
    assert table == [m.name for m in build_services().capacities.search("")]
    assert 10_000 < len(results["all0"]["text"].encode()) < PAGE_CHARS + 1_000  # a default page reaches the model whole
    searched = ok["sessions"]["searched"][agent]
    assert searched == {"path": str(homes[agent]), "exists": True}  # the homes reached smig through the config
    assert ok["sessions"]["sessions"] and all(s["agent"] == agent for s in ok["sessions"]["sessions"])
    assert [m["role"] for m in ok["migrate"]["messages"][:2]] == ["system", "user"]
    assert ok["migrate"]["input_messages"] == 7
    assert ok["preview"]["session_id"] == SESSION and ok["preview"]["dropped_count"] >= 1
    commit = ok["commit"]
    assert Path(commit["record_path"]).is_file() and not commit["dry_run"]
    assert Path(commit["record_path"]).is_relative_to(homes["smig"])  # SMIG_TUI_HOME arrived too
    text = ""
    pages = len(prepared["handoff_offsets"])
    assert pages >= 2
    for n in range(pages):
        page = ok[f"page{n}"]
        assert page["id"] == commit["migration_id"] and page["offset"] == len(text)
        assert len(results[f"page{n}"]["text"]) <= PAGE + 200
        text += page["content"]
    assert page["next_offset"] is None and len(text) == page["total_chars"]
    whole = SmigTools(build_services()).get_handoff("/home/user/proj", max_chars=40_000)
    assert text == whole["content"]
    assert ok["recall"]["migration_id"] == prepared["migration_id"] and ok["recall"]["total_matches"] >= 1
    assert "Unknown model 'no-such-model-9'" in results["bad_model"]["text"]
    assert "is not a migration id" in results["bad_id"]["text"]
    assert "past the end" in results["past_end"]["text"]
    for label in ("bad_model", "bad_id", "past_end"):
        assert results[label]["is_error"] in (True, None), label  # Codex reports no flag in its text output


@pytest.fixture
def homes(fake_home: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """Fixture agent homes, a 400-token model in smig's config, and a project folder."""
    config = fake_home["smig"] / "config"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(f'[models."{TINY}"]\ncontext_window = 400\n', encoding="utf-8")
    project, user = tmp_path / "project", tmp_path / "user"
    project.mkdir()
    user.mkdir()  # HOME is elsewhere, so only the variables prove which homes smig was given
    return {**fake_home, "project": project, "user": user}


def _env(homes: dict[str, Path]) -> dict[str, str]:
    """A clean environment whose PATH finds this checkout's `smig` first, HOME apart from the agents' homes."""
    from mcp_clients import base_env

    return base_env(homes) | {"HOME": str(homes["user"])}


def test_claude_code_calls_every_smig_tool_from_the_readme_config(homes: dict[str, Path], tmp_path: Path) -> None:
    claude = _client("claude")
    prepared = _prepare()
    config = tmp_path / "mcp.json"
    config.write_text(readme_block("json", "mcpServers", "Claude Code"), encoding="utf-8")
    steps, labels = _steps(_calls(prepared, "claude"), "claude")
    with FakeModelServer(steps) as server:
        env = {
            **_env(homes),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        results = _run(
            homes,
            [claude, "-p", "E2E-MCP: use smig", "--mcp-config", str(config), "--allowedTools", "mcp__smig__*"],
            env,
            server,
            labels,
        )
    _check(results, prepared, homes, "claude")


def _run_codex(
    homes: dict[str, Path], codex: str, mcp_config: str, steps: list[dict[str, Any]], labels: list[str]
) -> dict[str, dict[str, Any]]:
    """`codex exec` with the fake provider and the given MCP block in CODEX_HOME's config.toml."""
    with FakeModelServer(steps) as server:
        config = CODEX_PROVIDER.replace("{url}", server.url) + mcp_config
        (homes["codex"] / "config.toml").write_text(config, encoding="utf-8")
        env = {**_env(homes), "FAKE_MODEL_KEY": "fake-key"}
        return _run(homes, [codex, "exec", "--skip-git-repo-check", "E2E-MCP: use smig"], env, server, labels)


def test_codex_calls_every_smig_tool_from_the_readme_config(homes: dict[str, Path]) -> None:
    codex = _client("codex")
    prepared = _prepare()
    steps, labels = _steps(_calls(prepared, "codex"), "codex")
    results = _run_codex(homes, codex, readme_block("toml", "[mcp_servers.smig]", "Codex"), steps, labels)
    _check(results, prepared, homes, "codex")


def test_codex_without_the_readme_settings_hides_the_homes_and_refuses_the_writer(homes: dict[str, Path]) -> None:
    """Why the README's Codex block has env_vars, and what approval_mode does: without env_vars Codex
    starts smig with a cleared environment (smig says which homes it searched); with the writer set to
    "prompt", `codex exec` (which cannot ask) refuses it while the read-only tools still run."""
    codex = _client("codex")
    bare = (
        '[mcp_servers.smig]\ncommand = "smig"\nargs = ["mcp"]\nrequired = true\n\n'
        '[mcp_servers.smig.tools.commit_migration]\napproval_mode = "prompt"\n'
    )
    calls = [
        ("sessions", "list_sessions", {"agent": "codex"}),
        ("commit", "commit_migration", {"session_id": SESSION, "target_model": TINY}),
    ]
    results = _run_codex(homes, codex, bare, *_steps(calls, "codex"))
    listed = _parsed(results["sessions"])
    assert listed["searched"]["codex"] == {"path": str(homes["user"] / ".codex"), "exists": False}
    assert listed["sessions"] == []
    assert "approval" in results["commit"]["text"] and "migration_id" not in results["commit"]["text"]
    assert not (homes["smig"] / "data").exists() and not (homes["user"] / ".local").exists()


def _merged(path: Path, block: str) -> None:
    """A docs block added to a client's JSON config, as a user merges it by hand."""
    config = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**config, **json.loads(block)}), encoding="utf-8")


DOCS_CALLS = [
    ("model_context_window", {"model": "gpt-5.1"}),
    ("list_sessions", {"agent": "claude", "limit": 50}),
    ("model_context_window", {"model": "no-such-model-9"}),
]


def test_gemini_cli_runs_smig_from_the_docs_config(homes: dict[str, Path]) -> None:
    """The docs' settings entry and policy file as written: `gemini -p` offers the read-only tools and runs them."""
    from mcp_clients import run_gemini

    def configure(env: dict[str, str]) -> None:
        gemini = homes["home"] / ".gemini"
        _merged(gemini / "settings.json", readme_block("json", "mcpServers", "Gemini CLI"))
        (gemini / "policies").mkdir(parents=True, exist_ok=True)
        (gemini / "policies" / "smig.toml").write_text(readme_block("toml", "mcpName", "Gemini CLI"), encoding="utf-8")

    window, listed, unknown = run_gemini(homes, homes["project"], DOCS_CALLS, configure)
    assert _parsed({"text": window})["context_window"] == build_services().capacities.lookup("gpt-5.1").context_window
    sessions = _parsed({"text": listed})
    assert sessions["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert {s["id"] for s in sessions["sessions"]} >= {SESSION}
    assert "Unknown model 'no-such-model-9'" in unknown


def test_opencode_runs_smig_from_the_docs_config(homes: dict[str, Path]) -> None:
    """The docs' `mcp` entry as written: OpenCode starts smig and runs its tools, the writer included."""
    from mcp_clients import run_opencode

    def configure(env: dict[str, str]) -> None:
        _merged(
            homes["home"] / ".config" / "opencode" / "opencode.json",
            readme_block("json", '"type": "local"', "OpenCode"),
        )

    calls = [*DOCS_CALLS, ("commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]})]
    window, listed, unknown, commit = run_opencode(homes, homes["project"], calls, configure)
    assert _parsed({"text": window})["name"] == "gpt-5.1"
    assert _parsed({"text": listed})["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert "Unknown model 'no-such-model-9'" in unknown
    record = Path(_parsed({"text": commit})["record_path"])
    assert record.is_file() and record.is_relative_to(homes["smig"])


def test_qwen_code_runs_smig_from_the_docs_config(homes: dict[str, Path]) -> None:
    """The docs' settings block as written: `qwen PROMPT` in its default approval mode runs the read-only
    tools the allow rules name, and refuses the writer, which would need to ask."""
    from mcp_clients import run_qwen

    def configure(env: dict[str, str]) -> None:
        _merged(homes["home"] / ".qwen" / "settings.json", readme_block("json", "mcpServers", "Qwen Code"))

    calls = [*DOCS_CALLS, ("commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]})]
    window, listed, unknown, commit = run_qwen(homes, homes["project"], calls, configure)
    assert _parsed({"text": window})["context_window"] == build_services().capacities.lookup("gpt-5.1").context_window
    sessions = _parsed({"text": listed})
    assert sessions["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert {s["id"] for s in sessions["sessions"]} >= {SESSION}
    assert "Unknown model 'no-such-model-9'" in unknown
    assert "permission" in commit and "declined" in commit and "record_path" not in commit
    assert not (homes["smig"] / "data").exists()  # the writer never ran


def test_kilo_code_runs_smig_from_the_docs_config(homes: dict[str, Path]) -> None:
    """The docs' `mcp` entry as written: Kilo Code starts smig and runs its tools, the writer included."""
    from mcp_clients import run_kilo

    def configure(env: dict[str, str]) -> None:
        _merged(homes["home"] / ".config" / "kilo" / "kilo.json", readme_block("json", '"type": "local"', "Kilo Code"))

    calls = [*DOCS_CALLS, ("commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]})]
    window, listed, unknown, commit = run_kilo(homes, homes["project"], calls, configure)
    assert _parsed({"text": window})["name"] == "gpt-5.1"
    assert _parsed({"text": listed})["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert "Unknown model 'no-such-model-9'" in unknown
    record = Path(_parsed({"text": commit})["record_path"])
    assert record.is_file() and record.is_relative_to(homes["smig"])


def test_copilot_cli_runs_smig_from_the_docs_config(homes: dict[str, Path]) -> None:
    """The docs' entry as written in `$COPILOT_HOME/mcp-config.json`: `copilot -p` runs the read-only tools
    without asking and refuses the writer, which would need to ask."""
    from mcp_clients import copilot_home, run_copilot

    def configure(env: dict[str, str]) -> None:
        _merged(copilot_home(homes) / "mcp-config.json", readme_block("json", "mcpServers", "Copilot CLI"))

    calls = [*DOCS_CALLS, ("commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]})]
    window, listed, unknown, commit = run_copilot(homes, homes["project"], calls, configure)
    assert _parsed({"text": window})["context_window"] == build_services().capacities.lookup("gpt-5.1").context_window
    sessions = _parsed({"text": listed})
    assert sessions["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert {s["id"] for s in sessions["sessions"]} >= {SESSION}
    assert "Unknown model 'no-such-model-9'" in unknown
    assert "Permission denied" in commit and "record_path" not in commit
    assert not (homes["smig"] / "data").exists()  # the writer never ran


def test_copilot_cli_set_up_by_install_lists_commits_with_its_flag_and_reads_the_handoff(
    homes: dict[str, Path],
) -> None:
    """`smig mcp --install copilot` alone, in a temp `COPILOT_HOME`: `copilot -p --allow-tool
    'smig(commit_migration)'` lists the sessions (the homes arrived through Copilot's environment), commits
    one (SMIG_TUI_HOME arrived) and reads its handoff back whole."""
    from mcp_clients import copilot_home, install, run_copilot

    calls = [
        ("list_sessions", {"agent": "claude", "limit": 50}),
        ("list_known_models", {}),  # a largest page, with figures that are not whole numbers
        ("commit_migration", {"session_id": SESSION, "target_model": TINY, "to": ["store"]}),
        ("get_handoff", {"workspace": "/home/user/proj"}),
    ]
    flag = ("--allow-tool", "smig(commit_migration)")
    results = run_copilot(homes, homes["project"], calls, install("copilot"), *flag)
    listed, models, commit, handoff = results
    config = json.loads((copilot_home(homes) / "mcp-config.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["smig"]["args"] == ["mcp"] and not (homes["home"] / ".copilot").exists()
    sessions = _parsed({"text": listed})
    assert sessions["searched"]["claude"] == {"path": str(homes["claude"]), "exists": True}
    assert sessions["searched"]["codex"] == {"path": str(homes["codex"]), "exists": True}
    assert {s["id"] for s in sessions["sessions"]} >= {SESSION}
    record = Path(_parsed({"text": commit})["record_path"])
    assert record.is_file() and record.is_relative_to(homes["smig"])
    page = _parsed({"text": handoff})
    assert page["id"] == _parsed({"text": commit})["migration_id"] and page["next_offset"] is None
    assert page == SmigTools(build_services()).get_handoff("/home/user/proj")
    with pages_for(COPILOT_PAGE):
        first = SmigTools(build_services()).list_known_models()
    assert _parsed({"text": models}) == first and COPILOT_PAGE - 2_000 < len(models.encode()) <= COPILOT_PAGE
    # each result once, exactly as smig sent it: Copilot adds no copy of a structured content equal to the text
    assert all(
        text == json.dumps(_parsed({"text": text}), ensure_ascii=False, separators=(",", ":")) for text in results
    )
