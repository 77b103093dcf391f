"""The secrets suite: every kind of secret, planted everywhere a session holds text, is gone on every path out.

Two real-format sessions (a Codex rollout and a Claude Code transcript, built on the checked-in
fixture homes) hold each of the kinds of both corpora (`secret_corpus`, and `field_kinds`: written
apart from the detector's patterns) in user text, assistant text, tool-call arguments and tool
output, each a different synthetic secret. Each output path runs twice: once with the detector
switched off, which shows which planted secrets reach that path at all (the denominator), and once
as shipped, which must drop at least 98% of them. Ordinary code and configuration must come through
unchanged: at most 1% of at least 5,000 lines altered.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_llm_server import FakeLLM, llm_server_fixture  # noqa: F401 - fixture
from field_kinds import field_secrets
from ordinary_lines import ordinary_lines
from secret_corpus import Planted
from secret_scoring import KINDS, POSITIONS, Item, every_kind, every_page, score

from smig_tui.adapters.storage.summary_cache import SummaryCache
from smig_tui.adapters.summarizer import OpenAIChatBackend, Summarizer
from smig_tui.adapters.summarizer_config import SummarizerConfig
from smig_tui.cli.main import main
from smig_tui.core.export import ExportFormat
from smig_tui.core.models import Session, Strategy
from smig_tui.core.native import Destination
from smig_tui.core.redact import redact
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import Services, build_services

BATCH = 25
"""Kinds per batch: each planted message starts `(batch-N)`, so one recall_omitted call (at most 100
messages) can ask for one batch's four positions."""
CODEX_ID = "01a2c0de-5ec0-7e75-8a1b-2c3d4e5f6a7b"
CLAUDE_ID = "c1a0de5e-c0de-4e75-8a1b-2c3d4e5f6a7b"
WORKSPACE = "/home/user/vault"
TARGET = "gpt-4o"
MAX_ALTERED = 0.01
CODEX_TEMPLATE = "sessions/2026/11/21/rollout-2026-11-21T09-15-00-01a1fd63-3620-7b2c-83d4-e5f6a7b8c9d0.jsonl"
CLAUDE_TEMPLATE = "projects/-home-user-proj/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"


def _plants(agent: str) -> dict[str, list[Planted]]:
    """A different secret of every kind for each position of one agent's session."""
    base = 100 if agent == "codex" else 200
    return {position: every_kind(base + n) for n, position in enumerate(POSITIONS)}


def _marked(index: int, planted: Planted) -> str:
    """The planted text with its batch marker in front."""
    return f"(batch-{index // BATCH}) {planted.text}"


def _lines(path: Path, count: int) -> list[dict]:
    """The first `count` records of a fixture (later lines may be damaged on purpose)."""
    return [json.loads(line) for line in path.read_text().split("\n")[:count]]


def _write_codex(home: Path, plants: dict[str, list[Planted]]) -> None:
    """A rollout shaped like the fixture's: its header lines, then four items per kind."""
    template = _lines(home / CODEX_TEMPLATE, 5)
    meta, turn = template[0], template[4]
    meta["payload"] = {**meta["payload"], "id": CODEX_ID, "cwd": WORKSPACE}
    turn["payload"] = {**turn["payload"], "cwd": WORKSPACE}
    out = [meta, template[1], template[2], turn]

    def item(n: int, payload: dict) -> dict:
        return {
            "timestamp": f"2026-11-23T10:{n // 60:02d}:{n % 60:02d}.000Z",
            "type": "response_item",
            "payload": payload,
        }

    for i in range(len(plants["user"])):
        n = 4 * i
        out.append(
            item(
                n,
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": _marked(i, plants["user"][i])}],
                },
            )
        )
        out.append(
            item(
                n + 1,
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": f"call_{i}",
                    "arguments": json.dumps({"cmd": _marked(i, plants["tool-call"][i]), "workdir": WORKSPACE}),
                },
            )
        )
        out.append(
            item(
                n + 2,
                {
                    "type": "function_call_output",
                    "call_id": f"call_{i}",
                    "output": _marked(i, plants["tool-output"][i]),
                },
            )
        )
        out.append(
            item(
                n + 3,
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": _marked(i, plants["assistant"][i])}],
                },
            )
        )
    folder = home / "sessions/2026/11/23"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"rollout-2026-11-23T10-00-00-{CODEX_ID}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in out)
    )


def _write_claude(
    home: Path,
    plants: dict[str, list[Planted]],
    session_id: str = CLAUDE_ID,
    count: int | None = None,
    mark: Callable[[int, Planted], str] = _marked,
) -> None:
    """A transcript shaped like the fixture's: its user and assistant envelopes, four lines per kind."""
    template = _lines(home / CLAUDE_TEMPLATE, 2)
    user, assistant = template[0], template[1]
    out: list[dict] = []
    parent = None

    def add(base: dict, message: dict) -> None:
        nonlocal parent
        uid = f"{len(out):08x}-0000-4000-8000-{session_id[-12:]}"
        out.append(
            {
                **base,
                "parentUuid": parent,
                "uuid": uid,
                "sessionId": session_id,
                "cwd": WORKSPACE,
                "timestamp": f"2026-11-23T11:{len(out) // 60 % 60:02d}:{len(out) % 60:02d}.000Z",
                "message": {**base["message"], **message},
            }
        )
        parent = uid

    for i in range(count if count is not None else len(plants["user"])):
        add(user, {"role": "user", "content": mark(i, plants["user"][i])})
        add(
            assistant,
            {
                "id": f"msg_{i}a",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": "Bash",
                        "input": {"command": mark(i, plants["tool-call"][i])},
                    }
                ],
            },
        )
        add(
            user,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "content": mark(i, plants["tool-output"][i]), "tool_use_id": f"toolu_{i}"}
                ],
            },
        )
        add(assistant, {"id": f"msg_{i}b", "content": [{"type": "text", "text": mark(i, plants["assistant"][i])}]})
    folder = home / "projects/-home-user-vault"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in out))


@pytest.fixture
def planted_homes(fake_home: dict[str, Path]) -> dict[str, list[Item]]:
    """Both agents' homes with the planted sessions; returns every planted item by agent."""
    items: dict[str, list[Item]] = {}
    for agent, write in (("codex", _write_codex), ("claude", _write_claude)):
        plants = _plants(agent)
        write(fake_home[agent], plants)
        items[agent] = [Item(agent, position, planted) for position in POSITIONS for planted in plants[position]]
    return items


def _session(services: Services, session_id: str) -> Session:
    return services.load_session(services.find_session(session_id))


SESSIONS = [("codex", CODEX_ID), ("claude", CLAUDE_ID)]


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
@pytest.mark.parametrize("fmt", [f.value for f in ExportFormat])
def test_exports_redact_every_kind(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str, fmt: str
) -> None:
    services = build_services()
    session = _session(services, session_id)
    # The memory note keeps the goal, commands and last state only: it carries what it carries.
    least = 1 if fmt == ExportFormat.MEMORY.value else KINDS * len(POSITIONS)
    score(
        f"export {fmt} ({agent})",
        planted_homes[agent],
        lambda: services.export(session, ExportFormat(fmt)),
        monkeypatch,
        least,
    )


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_export_with_a_plan_redacts_its_placeholder(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    services = build_services()
    session = _session(services, session_id)
    window = services.capacities.lookup(TARGET).context_window
    plan = services.plan(session, TARGET, Strategy.TRUNCATE, reserve=window - 4_000)
    assert plan.placeholder and plan.dropped
    for fmt in ExportFormat:
        score(
            f"export {fmt.value} with a truncating plan ({agent})",
            planted_homes[agent],
            lambda fmt=fmt: services.export(session, fmt, plan),
            monkeypatch,
            1,
        )


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_clipboard_gets_the_redacted_export(
    planted_homes: dict[str, list[Item]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    agent: str,
    session_id: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bin_dir, pasted = tmp_path / "bin", tmp_path / "pasted.txt"
    bin_dir.mkdir()
    tool = bin_dir / "wl-copy"
    tool.write_text(f"#!/bin/sh\ncat > '{pasted}'\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")

    def run() -> str:
        assert main(["export", session_id, "--format", "markdown", "--clipboard"]) == 0
        capsys.readouterr()
        return pasted.read_text()

    score(f"clipboard ({agent})", planted_homes[agent], run, monkeypatch)


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
@pytest.mark.parametrize("where", ["stdout", "file"])
def test_streamed_markdown_export_redacts_every_kind(
    planted_homes: dict[str, list[Item]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    agent: str,
    session_id: str,
    where: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`smig export` streams Markdown message by message to stdout or its file, redacting each on the way."""
    out = tmp_path / "export.md"

    def run() -> str:
        argv = ["export", session_id, "--format", "markdown"] + (
            ["--out", str(out), "--force"] if where == "file" else []
        )
        assert main(argv) == 0
        printed = capsys.readouterr().out
        return out.read_text() if where == "file" else printed

    score(f"streamed export to {where} ({agent})", planted_homes[agent], run, monkeypatch)


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_truncating_migration_redacts_the_header_it_writes(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    """A migration redacts only what it writes: the kept messages, the note, and the title and goal."""
    services = build_services()
    session = _session(services, session_id)
    window = services.capacities.lookup(TARGET).context_window
    plan = services.plan(session, TARGET, Strategy.TRUNCATE, reserve=window - 4_000)
    assert plan.dropped

    def commit() -> str:
        result = services.migrate(session, plan, {Destination("codex"), Destination("claude"), Destination.MARKDOWN})
        return "\n".join(Path(file.path).read_text() for file in result.files) + Path(result.record_path).read_text()

    score(f"truncating migration ({agent})", planted_homes[agent], commit, monkeypatch, 1)


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_native_sessions_and_storage_redact_every_kind(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    services = build_services()
    session = _session(services, session_id)
    plan = services.plan(session, TARGET, Strategy.AS_IS)
    outputs: dict[str, str] = {}

    def commit() -> None:
        result = services.migrate(session, plan, {Destination("codex"), Destination("claude")})
        for file in result.files:
            outputs[file.destination.value] = Path(file.path).read_text()
        outputs["storage"] = Path(result.record_path).read_text()

    for name in ("codex", "claude", "storage"):
        score(
            f"{'native ' if name != 'storage' else ''}{name} ({agent})",
            planted_homes[agent],
            lambda name=name: (commit(), outputs[name])[1],
            monkeypatch,
        )


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_summarizer_requests_redact_every_kind(
    planted_homes: dict[str, list[Item]],
    monkeypatch: pytest.MonkeyPatch,
    llm_server: FakeLLM,
    tmp_path: Path,
    agent: str,
    session_id: str,
) -> None:
    session = _session(build_services(), session_id)
    config = SummarizerConfig(
        provider="test",
        model="test-model",
        base_url=llm_server.url,
        api_key_env="TEST_SUMMARY_KEY",
        api_key="test-key",
        timeout=120.0,  # the local fake answers at once; a busy machine may still be slow to schedule it
        max_retries=0,
        context_window=32_000,
    )

    def run() -> str:
        llm_server.requests.clear()
        summarizer = Summarizer(
            config, SummaryCache(tmp_path / "summaries"), backend_factory=lambda c: OpenAIChatBackend(c, stream=True)
        )
        summarizer.summarize(session.messages, allow_network=True, use_cache=False)
        return llm_server.bodies

    score(f"summarizer requests ({agent})", planted_homes[agent], run, monkeypatch)


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_mcp_tools_redact_every_kind(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    tools = SmigTools(build_services())
    window = tools.services.capacities.lookup(TARGET).context_window

    def commit(reserve: int = 0) -> dict:
        return tools.commit_migration(session_id, TARGET, "truncate", to=["store"], reserve=reserve)

    def handoff(fmt: str) -> str:
        commit()
        return every_page(lambda offset: tools.get_handoff(WORKSPACE, fmt, offset=offset, max_chars=40_000))

    def recall() -> str:
        migration = commit(window - 2_000)["migration_id"]
        batches = range(-(-len(planted_homes[agent]) // (BATCH * len(POSITIONS))))
        return "\n".join(
            every_page(
                lambda offset, n=n: tools.recall_omitted(
                    migration, f"(batch-{n})", limit=100, offset=offset, max_chars=40_000
                )
            )
            for n in batches
        )

    reply = json.dumps(commit(), ensure_ascii=False)  # ids, paths and figures: no text of the session
    assert not [item for item in planted_homes[agent] if item.shows_in(reply)]
    for fmt in ("markdown", "openai", "json"):
        score(f"mcp get_handoff {fmt} ({agent})", planted_homes[agent], lambda fmt=fmt: handoff(fmt), monkeypatch)
    score(f"mcp recall_omitted ({agent})", planted_homes[agent], recall, monkeypatch)
    score(
        f"mcp preview_migration ({agent})",
        planted_homes[agent],
        lambda: every_page(
            lambda offset: tools.preview_migration(
                session_id, TARGET, "truncate", reserve=window - 2_000, offset=offset, max_chars=40_000
            )
        ),
        monkeypatch,
        1,
    )


def _served(*requests: dict) -> list[dict]:
    """Answers of `smig mcp`'s own server (the stdio protocol, in process) to a handshake and `requests`."""
    from smig_tui.mcp.server import build_server

    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}]
    lines += [{"jsonrpc": "2.0", "id": n, **request} for n, request in enumerate(requests, 1)]
    writer = io.BytesIO()
    build_server(build_services()).serve(
        io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines)), writer
    )
    answers = [json.loads(line) for line in writer.getvalue().splitlines()]
    return [next(answer for answer in answers if answer.get("id") == n) for n in range(1, len(requests) + 1)]


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_mcp_prompts_and_resources_redact_every_kind(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    """The handoff an agent pulls in as a prompt (`continue_from_agent`) or reads as a resource
    (`smig://session/<id>`), and the resource listing's titles."""

    def prompt() -> str:
        [answer] = _served(
            {
                "method": "prompts/get",
                "params": {"name": "continue_from_agent", "arguments": {"session": session_id, "model": TARGET}},
            }
        )
        return json.dumps(answer["result"], ensure_ascii=False)

    def resource() -> str:
        [listing, read] = _served(
            {"method": "resources/list", "params": {}},
            {"method": "resources/read", "params": {"uri": f"smig://session/{session_id}"}},
        )
        return json.dumps([listing["result"], read["result"]], ensure_ascii=False)

    score(f"mcp prompt continue_from_agent ({agent})", planted_homes[agent], prompt, monkeypatch)
    score(f"mcp resource smig://session ({agent})", planted_homes[agent], resource, monkeypatch)


@pytest.mark.parametrize(("agent", "session_id"), SESSIONS)
def test_the_search_index_stores_every_kind_redacted(
    planted_homes: dict[str, list[Item]], monkeypatch: pytest.MonkeyPatch, agent: str, session_id: str
) -> None:
    """What the search index keeps on disk (every stored text and title, and the snippets it shows):
    a secret indexed is a secret at rest in smig's cache."""

    def run() -> str:
        services = build_services()
        shutil.rmtree(services.search_index.folder, ignore_errors=True)  # a fresh index, as a first run builds it
        services.refresh_search_index()
        index = services.search_index
        with index._guard:
            conn = index._connection()
            stored = [
                index._text(conn, block, start, length)
                for block, start, length in conn.execute("SELECT block, start, length FROM texts")
            ]
            titles = [title for (title,) in conn.execute("SELECT title FROM files") if title]
        index.close()
        hits = services.search("batch", limit=50)
        return "\n".join(stored + titles + [hit.snippet for hit in hits])

    score(f"search index ({agent})", planted_homes[agent], run, monkeypatch)


def test_mcp_migrate_session_redacts_every_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    plants = _plants("codex")
    items = [Item("chat", position, planted) for position in POSITIONS for planted in plants[position]]
    chat: list[dict] = []
    for i in range(len(plants["user"])):
        chat.append({"role": "user", "content": plants["user"][i].text})
        chat.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "shell", "arguments": json.dumps({"cmd": plants["tool-call"][i].text})},
                    }
                ],
            }
        )
        chat.append({"role": "tool", "tool_call_id": f"call_{i}", "content": plants["tool-output"][i].text})
        chat.append({"role": "assistant", "content": plants["assistant"][i].text})
    tools = SmigTools(build_services())
    score(
        "mcp migrate_session",
        items,
        lambda: every_page(
            lambda offset: tools.migrate_session(chat, "gpt-4o", "gpt-4o", offset=offset, max_chars=40_000)
        ),
        monkeypatch,
    )


@pytest.fixture
def first_prompt_sessions(fake_home: dict[str, Path]) -> list[tuple[str, Item]]:
    """One small Claude session per kind whose first prompt holds the secret, then a short exchange."""
    made = []
    for i, planted in enumerate(every_kind(300)):
        session_id = f"5ec0{i:04x}-0000-4000-8000-0000000000{i % 100:02d}"
        # A second prompt follows: the newest prompt is always kept, so the first one is what a plan drops.
        short = {
            "user": [planted, Planted("-", "Now the tests.", ())],
            "tool-call": [Planted("-", "ls", ())] * 2,
            "tool-output": [Planted("-", "a b", ())] * 2,
            "assistant": [Planted("-", "Done.", ())] * 2,
        }
        _write_claude(fake_home["claude"], short, session_id, 2, mark=lambda _, planted: planted.text)
        made.append((session_id, Item("claude", "first prompt", planted)))
    return made


def test_titles_and_the_placeholders_first_prompt_are_redacted(
    first_prompt_sessions: list[tuple[str, Item]], monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = SmigTools(build_services())
    items = [item for _, item in first_prompt_sessions]
    window = tools.services.capacities.lookup(TARGET).context_window

    def previews() -> str:
        return "\n".join(
            json.dumps(tools.preview_migration(session_id, TARGET, "truncate", reserve=window - 60), ensure_ascii=False)
            for session_id, _ in first_prompt_sessions
        )

    score(
        "mcp list_sessions titles",
        items,
        lambda: every_page(lambda offset: tools.list_sessions(limit=500, offset=offset, max_chars=40_000)),
        monkeypatch,
        KINDS,
    )
    # The placeholder quotes the first 200 characters: secrets planted further in never reach it.
    score("mcp preview_migration placeholder (first prompt)", items, previews, monkeypatch, 45)


def test_memory_sync_redacts_every_kind(memory_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    plants = every_kind(400)
    items = [Item("memory", "memory file", planted) for planted in plants]
    note = memory_home["home_project"] / "memory" / "user_editor.md"
    original = note.read_text()
    services = build_services()
    share = 60
    """Kinds per note: a bundle over the receiver's budget lists its files instead of their text."""

    def plant(chunk: list[Planted]) -> None:
        body = "\n\n".join(f"- {planted.text}" for planted in chunk)
        note.write_text(original + "\n## Credentials I was given\n\n" + body + "\n")

    def run() -> str:
        written = []
        for start in range(0, len(plants), share):
            plant(plants[start : start + share])
            written += [write.after for write in services.memory_plan().writes]
        return "\n".join(written)

    score("memory sync", items, run, monkeypatch, KINDS)
    on_disk = []
    for start in range(0, len(plants), share):
        plant(plants[start : start + share])
        result = services.memory_apply(services.memory_plan())
        assert result.written
        on_disk += [Path(write.path).read_text() for write in result.written]
    assert not [item for item in items if item.shows_in("\n".join(on_disk))]


def test_ordinary_code_and_configuration_come_through_unchanged() -> None:
    lines = ordinary_lines()
    assert len(lines) >= 5_000
    for form, wrap in (("plain", lambda line: line), ("json", lambda line: json.dumps({"cmd": line}))):
        altered = [line for line in lines if redact(wrap(line)).text != wrap(line)]
        share = len(altered) / len(lines)
        print(f"secrets suite: ordinary lines ({form}): {len(altered)} of {len(lines)} altered ({share:.2%})")
        assert share <= MAX_ALTERED, altered


def test_the_corpora_have_at_least_150_kinds() -> None:
    assert len({planted.kind for planted in field_secrets()}) >= KINDS  # the independent corpus alone
    assert len({planted.kind for planted in every_kind(13)}) >= KINDS + 94
