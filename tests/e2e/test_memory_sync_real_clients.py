"""Memory sync among the agents, proven by what each real client sends its model.

Each agent with a driver (tests/e2e/drivers) keeps a distinct note in its own memory, where the agent
itself keeps it (`seed_memory`: a Codex memory summary, a Claude Code topic file, Gemini CLI's
`GEMINI.md` and Qwen Code's `QWEN.md` as their `save_memory` tools write them, OpenCode's, Kilo's and Pi's
global `AGENTS.md`, Copilot CLI's instructions folder). After `smig memory sync`, the receiver's real client starts a session against a
local fake model server and the request it sent shows what the sync gave it (`memory_carries`):
- Gemini CLI, Qwen Code and Claude Code inline the bundle their global `GEMINI.md` / `QWEN.md` /
  `~/.claude/CLAUDE.md` imports, so the other agents' notes are in it, whatever folder the client runs in;
- OpenCode, Kilo and Codex load their global rules, so the line naming smig's bundle is in it (the model
  opens the bundle when a task needs it); Pi's too, and its turn has the model open the bundle with Pi's
  `read` tool, so the request after that read carries every other agent's note;
- Copilot CLI reads every file of its instructions folder, smig's bundle among them; Aider sends every
  file its global `.aider.conf.yml` reads, and smig's line there names the bundle. With `--project`, Claude Code's bundle is listed in that
  project's `MEMORY.md` instead, which Claude loads only when it runs there.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_env import claude_env, client_binary, codex_home_for
from drivers import Servers, all_drivers
from drivers import aider as aider_driver
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from gemini_client import run_gemini
from real_clients import _run, configure_opencode

from smig_tui.adapters.agents.claude.memory import project_name as claude_project_name
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output

pytestmark = pytest.mark.e2e

NOTES = {
    "codex": "OTTER-CODEX-17 prefers uv over pip",
    "claude": "HERON-CLAUDE-41 never force-push to main",
    "gemini": "KESTREL-GEMINI-23 tests live in tests/unit",
    "opencode": "LYNX-OPENCODE-59 answer in British English",
}
PROMPT = "hello"
DRIVERS = all_drivers()
MEMORY_HOOKS = ("seed_memory", "memory_turn", "memory_carries")
"""The optional driver hooks this test needs of a receiver (tests/e2e/drivers/__init__.py)."""


def _note(agent: str) -> str:
    """The distinct note kept in `agent`'s own memory."""
    return NOTES.get(agent) or f"NOTE-{agent.upper()}-{sum(map(ord, agent))} keep the changelog current"


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _gemini_settings(home: Path, context_file: str | None) -> None:
    """API-key auth (what `run_gemini` needs) and, when given, a `context.fileName`."""
    settings: dict[str, Any] = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    if context_file:
        settings["context"] = {"fileName": [context_file, "GEMINI.md"]}
    _write(home / ".gemini" / "settings.json", json.dumps(settings))


def _seed_memories(homes: dict[str, Path], gemini_file: str) -> None:
    """One note in each agent's own memory, where that agent itself keeps it."""
    _write(homes["codex"] / "memories" / "memory_summary.md", f"# Summary\n\n- {NOTES['codex']}\n")
    claude_memory = homes["claude"] / "projects" / claude_project_name(str(homes["home"])) / "memory"
    _write(
        claude_memory / "feedback_push.md",
        f"---\nname: push rule\ndescription: {NOTES['claude']}\ntype: feedback\n---\n\n{NOTES['claude']}.\n",
    )
    _write(homes["home"] / ".gemini" / gemini_file, f"## Gemini Added Memories\n- {NOTES['gemini']}\n")
    _write(homes["home"] / ".config" / "opencode" / "AGENTS.md", f"# Rules\n\n- {NOTES['opencode']}\n")


def _sync() -> dict[str, Any]:
    """`smig memory sync --json` in-process; its parsed report (fails the test on a non-zero exit)."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["memory", "sync", "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return dict(json.loads(out.stdout.getvalue()))


def _sent(body: dict[str, Any]) -> str:
    """A request body as one searchable string (JSON escapes undone)."""
    return json.dumps(body, ensure_ascii=False).replace("\\n", "\n").replace('\\"', '"')


def _gemini_request(homes: dict[str, Path], project: Path, server: FakeGeminiServer) -> str:
    server.requests.clear()
    run_gemini(homes["home"], project, server, "-p", PROMPT)
    turns = server.turns()
    assert turns, "Gemini CLI sent the model no request"
    return _sent(turns[-1])


def _opencode_request(homes: dict[str, Path], project: Path, server: FakeModelServer) -> str:
    server.requests.clear()
    _run([client_binary("opencode"), "run", PROMPT], project, configure_opencode(homes, server))
    bodies = [body for body in server.bodies("/messages") if body.get("tools")]
    assert bodies, "OpenCode sent the model no request"
    return _sent(bodies[-1])


def _claude_request(homes: dict[str, Path], project: Path, server: FakeModelServer) -> str:
    server.requests.clear()
    _run([client_binary("claude"), "-p", PROMPT], project, claude_env(homes, server))
    bodies = [body for body in server.bodies("/messages") if body.get("tools")]
    assert bodies, "Claude Code sent the model no request"
    return _sent(bodies[-1])


def test_each_bundle_holds_the_other_agents_notes_and_the_users_files_keep_theirs(
    isolated_homes: dict[str, Path], model_server: FakeModelServer
) -> None:
    homes = isolated_homes
    _gemini_settings(homes["home"], None)
    codex_home_for(homes, model_server)
    configure_opencode(homes, model_server)
    _seed_memories(homes, "GEMINI.md")

    written = set(_sync()["written"])
    gemini_bundle = homes["home"] / ".gemini" / "smig_memory.md"
    opencode_bundle = homes["home"] / ".config" / "opencode" / "smig_memory.md"
    codex_bundle = homes["codex"] / "memories" / "claude_code_smig.md"
    assert {str(gemini_bundle), str(opencode_bundle), str(codex_bundle)} <= written
    # Each bundle holds the other three agents' notes and never the receiver's own.
    for agent, bundle in (("gemini", gemini_bundle), ("opencode", opencode_bundle)):
        text = bundle.read_text(encoding="utf-8")
        assert [note for key, note in NOTES.items() if key != agent and note not in text] == []
        assert NOTES[agent] not in text
    # The user's own files kept every line they had; smig only appended its one line.
    gemini_memory = (homes["home"] / ".gemini" / "GEMINI.md").read_text(encoding="utf-8")
    assert gemini_memory == f"## Gemini Added Memories\n- {NOTES['gemini']}\n@./smig_memory.md\n"
    assert (homes["claude"] / "CLAUDE.md").read_text(encoding="utf-8") == "@smig_memory.md\n"


@pytest.mark.parametrize("receiver", list(DRIVERS))
def test_the_real_client_receives_the_other_agents_memory(
    receiver: str,
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> None:
    """Every agent with a driver keeps a note in its own memory; after `smig memory sync` the receiver's real
    client, started in a project folder (not home), sends what its driver says the sync gave it."""
    taker = DRIVERS[receiver]
    lacking = [hook for hook in MEMORY_HOOKS if not hasattr(taker, hook)]
    if lacking:
        pytest.skip(f"drivers/{receiver}.py has no {', '.join(lacking)}: its memory is not proven by its client")
    homes, servers = isolated_homes, Servers(model_server, gemini_server)
    project = tmp_path / "project"
    project.mkdir()
    notes = {agent: _note(agent) for agent, module in DRIVERS.items() if hasattr(module, "seed_memory")}
    for agent in notes:
        DRIVERS[agent].seed_memory(homes, notes[agent])
    taker.prepare_receiver(homes, servers)

    _sync()
    sent = _sent(taker.memory_turn(homes, project, servers))

    expected = taker.memory_carries(homes, notes)
    assert expected and [text for text in expected if text not in sent] == []
    # A second sync finds nothing to do: no bundle carried itself back into another.
    assert _sync()["writes"] == []


def test_gemini_cli_reads_the_context_file_its_settings_name(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    gemini_server: FakeGeminiServer,
) -> None:
    homes = isolated_homes
    project = tmp_path / "project"
    project.mkdir()
    _gemini_settings(homes["home"], "CONTEXT.md")
    # A note that mentions a file the way Gemini CLI writes an import must not pull that file in.
    _write(homes["home"] / ".gemini" / "private.md", "PRIVATE-99\n")
    _write(
        homes["codex"] / "memories" / "memory_summary.md",
        f"# Summary\n\n- {NOTES['codex']}\n- notes kept in @./private.md\n",
    )

    report = _sync()
    context = homes["home"] / ".gemini" / "CONTEXT.md"
    assert str(context) in report["written"]
    assert not (homes["home"] / ".gemini" / "GEMINI.md").exists()

    sent = _gemini_request(homes, project, gemini_server)
    assert NOTES["codex"] in sent and "notes kept in" in sent
    assert "PRIVATE-99" not in sent and "Import failed" not in sent


def test_opencode_keeps_reading_claude_md_when_smig_will_not_shadow_it(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
) -> None:
    homes = isolated_homes
    project = tmp_path / "project"
    project.mkdir()
    configure_opencode(homes, model_server)
    _write(homes["claude"] / "CLAUDE.md", f"- {NOTES['claude']}\n")
    _write(homes["codex"] / "memories" / "memory_summary.md", f"# Summary\n\n- {NOTES['codex']}\n")
    agents_md = homes["home"] / ".config" / "opencode" / "AGENTS.md"

    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["memory", "sync", "--to-opencode"], Context(out=out))
    assert isinstance(out.stderr, io.StringIO)
    assert code == 4 and "OpenCode now reads" in out.stderr.getvalue()
    assert not agents_md.exists()

    # Without smig's refusal the user would lose this: OpenCode reads CLAUDE.md only while AGENTS.md is absent.
    env = configure_opencode(homes, model_server)
    env.pop("OPENCODE_DISABLE_CLAUDE_CODE")
    model_server.requests.clear()
    _run([client_binary("opencode"), "run", PROMPT], project, env)
    assert NOTES["claude"] in _sent([b for b in model_server.bodies("/messages") if b.get("tools")][-1])
    agents_md.write_text("# Rules\n", encoding="utf-8")
    model_server.requests.clear()
    _run([client_binary("opencode"), "run", PROMPT], project, env)
    assert NOTES["claude"] not in _sent([b for b in model_server.bodies("/messages") if b.get("tools")][-1])


def test_claude_code_gets_synced_memory_in_any_folder_and_follows_no_import_in_it(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
) -> None:
    homes = isolated_homes
    elsewhere = tmp_path / "work" / "other-repo"
    elsewhere.mkdir(parents=True)
    _write(homes["claude"] / "CLAUDE.md", "# My rules\n- USER-RULE-31 keep diffs small\n")
    # Claude Code follows `@path` imports inside imported files: a note naming a file that way must
    # not pull it into every request.
    _write(homes["claude"] / "private.md", "PRIVATE-CLAUDE-88\n")
    _write(
        homes["codex"] / "memories" / "memory_summary.md",
        f"# Summary\n\n- {NOTES['codex']}\n- notes kept in @private.md\n@private.md\n",
    )

    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    assert main(["memory", "sync", "--to-claude"], Context(out=out)) == 0
    sent = _claude_request(homes, elsewhere, model_server)
    assert NOTES["codex"] in sent and "notes kept in" in sent and "USER-RULE-31" in sent
    assert "PRIVATE-CLAUDE-88" not in sent

    # The per-project target: the bundle is listed in that project's MEMORY.md and reaches Claude only there.
    (homes["claude"] / "CLAUDE.md").write_text("# My rules\n", encoding="utf-8")
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    assert main(["memory", "sync", "--to-claude", "--project", str(elsewhere)], Context(out=out)) == 0
    assert "[codex_memory_smig.md](codex_memory_smig.md)" in _claude_request(homes, elsewhere, model_server)
    assert "codex_memory_smig.md" not in _claude_request(homes, tmp_path, model_server)


def test_gemini_and_opencode_read_a_long_instruction_file_to_its_end(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> None:
    """smig adds its line to Gemini CLI's and OpenCode's file past 32 KiB (Codex's budget, not theirs):
    the real clients still follow it, so refusing there would only have lost the sync."""
    homes = isolated_homes
    project = tmp_path / "project"
    project.mkdir()
    _gemini_settings(homes["home"], None)
    configure_opencode(homes, model_server)
    _seed_memories(homes, "GEMINI.md")
    filler = "".join(f"- house rule {n}: keep functions short and named for what they do\n" for n in range(700))
    for path in (homes["home"] / ".gemini" / "GEMINI.md", homes["home"] / ".config" / "opencode" / "AGENTS.md"):
        path.write_text(path.read_text(encoding="utf-8") + filler, encoding="utf-8")
        assert path.stat().st_size > 40_000
    _sync()
    gemini_memory = (homes["home"] / ".gemini" / "GEMINI.md").read_text(encoding="utf-8")
    assert gemini_memory.endswith("\n@./smig_memory.md\n")

    bundle = (homes["home"] / ".gemini" / "smig_memory.md").read_text(encoding="utf-8")
    assert NOTES["claude"] in bundle  # the bundle lists the big file instead of carrying it, notes stay
    sent = _gemini_request(homes, project, gemini_server)
    assert "house rule 699" in sent and NOTES["claude"] in sent
    sent = _opencode_request(homes, project, model_server)
    assert f"also read {homes['home'] / '.config' / 'opencode' / 'smig_memory.md'}" in sent


def test_aider_reads_the_bundle_through_the_line_smig_adds_to_its_config(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
) -> None:
    """No `read` key in the user's `~/.aider.conf.yml`: smig appends `read: BUNDLE`, and the real Aider, run
    in a project folder, merges the user's keys with that line and sends the bundle's notes to its model."""
    homes = isolated_homes
    project = tmp_path / "project"
    project.mkdir()
    (homes["home"] / ".aider").mkdir()
    config = homes["home"] / ".aider.conf.yml"
    config.write_text("# mine\nauto-commits: false\n", encoding="utf-8")
    _seed_memories(homes, "GEMINI.md")

    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    assert main(["memory", "sync", "--to-aider"], Context(out=out)) == 0, out.stderr
    bundle = homes["home"] / ".aider.smig_memory.md"
    assert config.read_text(encoding="utf-8") == f"# mine\nauto-commits: false\nread: {bundle}\n"

    model_server.requests.clear()
    sent = _sent(aider_driver.memory_turn(homes, project, Servers(model_server)))
    assert [note for note in NOTES.values() if note not in sent] == []
    assert str(bundle) in sent or ".aider.smig_memory.md" in sent  # Aider names the read-only file it sends
