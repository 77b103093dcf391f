"""The MCP tools' behaviour in-process: chat conversion, source verification, recall, and a missing `mcp`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fake_llm_server import FakeLLM, llm_server_fixture  # noqa: F401 - fixture
from migration_builders import install_shared_fixture

from smig_tui.adapters.source_check import source_status
from smig_tui.core.errors import MigrationNotFoundError, SummaryConsentError
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.openai_chat import MAX_CHAT_MESSAGES, ChatInputError, load_chat, to_chat
from smig_tui.mcp.recall import match_omitted
from smig_tui.mcp.tools import InvalidArgumentError, SmigTools, check_session_id
from smig_tui.services import build_services


def test_chat_parts_tool_calls_and_results_become_neutral_messages() -> None:
    messages = load_chat(
        json.dumps(
            [
                {"role": "developer", "content": [{"type": "input_text", "text": "Be brief."}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "Look at"}, {"type": "image_url", "image_url": {}}],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "a", "function": {"name": "read", "arguments": {"path": "x.py"}}},
                        {"id": "b", "function": {"name": "grep", "arguments": '{"q": 1}'}},
                    ],
                },
                {"role": "tool", "tool_call_id": "a", "content": "print(1)"},
                {"role": "tool", "tool_call_id": "b", "content": "x.py:1"},
                {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]},
            ]
        )
    )
    assert [(m.id, m.role, m.kind) for m in messages] == [
        ("m0", Role.DEVELOPER, Kind.TEXT),
        ("m1", Role.USER, Kind.TEXT),
        ("m2.c0", Role.ASSISTANT, Kind.TOOL_CALL),
        ("m2.c1", Role.ASSISTANT, Kind.TOOL_CALL),
        ("m3", Role.TOOL, Kind.TOOL_RESULT),
        ("m4", Role.TOOL, Kind.TOOL_RESULT),
        ("m5", Role.ASSISTANT, Kind.TEXT),
    ]
    assert [m.index for m in messages] == list(range(7))
    assert messages[1].text == "Look at\n[image]" and messages[2].text == '{"path": "x.py"}'
    assert [m.call_id for m in messages[2:6]] == ["a", "b", "a", "b"] and messages[6].text == "No."


def test_to_chat_regroups_tool_calls_on_their_own_turn_only() -> None:
    chat = [
        {"role": "assistant", "content": "Done with step one."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {
            "role": "assistant",
            "content": "Next",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "3"},
    ]
    assert to_chat(load_chat(chat)) == chat
    summary = Message(0, "smig-placeholder", Role.USER, Kind.SUMMARY, "[3 earlier messages omitted]")
    hidden = Message(1, "r", Role.ASSISTANT, Kind.REASONING, "thinking")
    assert to_chat([summary, hidden]) == [{"role": "user", "content": "[3 earlier messages omitted]"}]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ('{"role": ', "not valid JSON"),
        ('{"role": "user"}', "must be a JSON array"),
        ("[]", "is empty"),
        ('["hi"]', "messages[0] must be an object"),
        ('[{"role": "user", "content": 5}]', "messages[0].content must be a string"),
        ('[{"role": "user", "content": [{"type": "audio"}]}]', "messages[0].content[0] is not a text"),
        ('[{"role": "assistant", "tool_calls": [{"id": "x"}]}]', "tool_calls[0] needs a function"),
        ('[{"role": "assistant", "tool_calls": {}}]', "tool_calls must be an array"),
    ],
)
def test_bad_chat_input_is_one_sentence(data: str, error: str) -> None:
    with pytest.raises(ChatInputError, match=error.replace("[", r"\[").replace("]", r"\]")):
        load_chat(data)


def test_oversized_chat_input_is_refused_before_parsing() -> None:
    with pytest.raises(ChatInputError, match="larger than 20 MB"):
        load_chat("[" + " " * 20_000_001 + "]")
    with pytest.raises(ChatInputError, match="more than the limit"):
        load_chat([{"role": "user", "content": ""}] * (MAX_CHAT_MESSAGES + 1))


@pytest.mark.parametrize("bad", ["../../etc/passwd", "/etc/passwd", "a.jsonl", "abc", "x" * 129, "ab\0cd", ""])
def test_session_ids_never_carry_a_path(bad: str) -> None:
    with pytest.raises(InvalidArgumentError, match="is not a session id"):
        check_session_id(bad)
    assert check_session_id("agent-a1b2c3d") == "agent-a1b2c3d"


def test_source_status_tells_unchanged_grown_changed_and_missing(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 1000)
    digest, size = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_size
    assert source_status(str(path), digest, size) == "unchanged"
    with path.open("ab") as handle:
        handle.write(b'{"b": 2}\n')
    assert source_status(str(path), digest, size) == "grown"
    path.write_bytes(b'{"a": 2}\n' * 1001)
    assert source_status(str(path), digest, size) == "changed"
    path.write_bytes(b'{"a": 1}\n' * 999)
    assert source_status(str(path), digest, size) == "changed"
    path.unlink()
    assert source_status(str(path), digest, size) == "missing"


def test_recall_matches_phrase_first_then_all_words_case_blind() -> None:
    texts = ["Release: the workflow failed", "workflow for  THE release", "nothing here", "RELEASE notes"]
    messages = [Message(i, f"m{i}", Role.USER, Kind.TEXT, text) for i, text in enumerate(texts)]
    assert [m.id for m in match_omitted(messages, "the release")] == ["m1", "m0"]
    assert [m.id for m in match_omitted(messages, "release workflow")] == ["m0", "m1"]
    assert [m.id for m in match_omitted(messages, "workflow for")] == ["m1"]
    assert [m.id for m in match_omitted(messages, "release")] == ["m0", "m1", "m3"]
    assert [m.id for m in match_omitted(messages, "  ")] == ["m0", "m1", "m2", "m3"]
    assert match_omitted(messages, "deploy") == []


def test_real_sessions_round_trip_through_preview_commit_and_recall(
    shared_fixtures: Path, isolated_homes: dict[str, Path]
) -> None:
    installed = [
        install_shared_fixture(path, isolated_homes["codex"], isolated_homes["claude"])
        for path in sorted((shared_fixtures / "claude").glob("*.jsonl"))
        + sorted((shared_fixtures / "codex").glob("*.jsonl"))
    ]
    assert any(installed)
    services = build_services()
    tools = SmigTools(services)
    checked = round_trips = 0
    for entry in tools.list_sessions(limit=500)["sessions"]:
        session = services.load_session(services.find_session(entry["id"]))
        if len(session.messages) < 20:
            continue
        preview = tools.preview_migration(entry["id"], "gpt-4", reserve=6_000, max_chars=40_000)
        dropped = [
            item
            for item in all_pages(tools.preview_migration, "items", entry["id"], "gpt-4", reserve=6_000)
            if not item["kept"]
        ]
        if not dropped or not session.info.cwd:
            continue
        omitted = preview["left_out"]  # the same figures the placeholder (and the lineage note) give
        if preview["placeholder"]:
            assert preview["placeholder"].startswith(
                f"[smig: {omitted['messages']} earlier messages omitted ({omitted['tokens']:,} tokens)"
            )
        codex = tools.preview_migration(entry["id"], "gpt-5.5")
        assert codex["decision"]["overhead"] == services.overhead_tokens(services.capacities.lookup("gpt-5.5"))
        done = tools.commit_migration(entry["id"], "gpt-4", reserve=6_000)
        recalled = tools.recall_omitted(done["migration_id"], "", limit=100)
        texts = {m.id: m.text for m in session.messages}
        assert recalled["source"]["status"] == "unchanged"
        assert recalled["total_matches"] == len([i for i in dropped if not _opaque(session, i["id"])])
        assert preview["dropped_count"] + preview["not_migrated_count"] == len(dropped)
        assert all(texts[m["id"]][: len(m["text"])] == m["text"] for m in recalled["messages"])
        chat = to_chat(session.messages)
        pure = tools.migrate_session(chat, "gpt-5.1", "gpt-5.5")
        assert pure["input_messages"] == len(chat)
        if pure["decision"]["fits"] and not pure["dropped_count"] and not pure["not_migrated_count"]:
            paged = all_pages(tools.migrate_session, "messages", chat, "gpt-5.1", "gpt-5.5")
            whole = list(to_chat(load_chat(chat)))
            assert len(paged) == len(whole)  # a message too large for a page alone is cut, and says so
            assert [m for m in paged if "cut_chars" not in m] == [
                m for m, p in zip(whole, paged, strict=True) if "cut_chars" not in p
            ]
            round_trips += 1
        checked += 1
    assert checked >= 3 and round_trips >= 1


def all_pages(tool, key: str, *args, **kwargs) -> list:  # type: ignore[no-untyped-def]
    """Every item of a paged tool result, read page by page as a client would, each page within budget."""
    items, offset = [], 0
    while offset is not None:
        page = tool(*args, offset=offset, **kwargs)
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()) <= kwargs.get(
            "max_chars", 36_000
        )
        items += page[key]
        offset = page["next_offset"]
        assert (offset is None) == (page["next_page"] is None)
    return items


def _opaque(session, message_id: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether a message is opaque reasoning (never recalled: it cannot be read)."""
    return any(m.id == message_id and m.opaque for m in session.messages)


def test_handoff_pages_and_summaries_need_consent(fake_home: dict[str, Path]) -> None:
    tools = SmigTools(build_services())
    with pytest.raises(SummaryConsentError, match="Confirm with"):
        tools.commit_migration("5f0c2a9e", "gpt-4", strategy="summary")
    done = tools.commit_migration("5f0c2a9e", "gpt-4o", to=["store"])
    first = tools.get_handoff("/home/user/proj", max_chars=2_000)
    assert first["id"] == done["migration_id"] and first["next_offset"] == len(first["content"])
    assert "offset=" + str(first["next_offset"]) in first["next_page"]
    whole = tools.get_handoff("/home/user/proj", max_chars=40_000)
    assert whole["next_offset"] is None and first["total_chars"] == len(whole["content"]) > 2_000
    text, offset = "", 0
    while offset is not None:
        page = tools.get_handoff("/home/user/proj", offset=offset, max_chars=2_000)
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()) <= 2_000
        text, offset = text + page["content"], page["next_offset"]
    assert text == whole["content"]
    stored = all_pages(tools.get_handoff, "content", "/home/user/proj", format="json")
    assert [m["id"] for m in stored] == list(tools.services.store.get(done["migration_id"]).kept_ids)
    with pytest.raises(InvalidArgumentError, match="unknown format"):
        tools.get_handoff("/home/user/proj", format="yaml")
    with pytest.raises(InvalidArgumentError, match="max_chars must be"):
        tools.get_handoff("/home/user/proj", max_chars=10)
    with pytest.raises(InvalidArgumentError, match="past the end"):
        tools.get_handoff("/home/user/proj", offset=whole["total_chars"])


def test_a_handoff_written_for_many_agents_keeps_every_small_page_within_max_chars(fake_home: dict[str, Path]) -> None:
    """Five written sessions make a head larger than the smallest page: whole keys step aside, never the budget."""
    tools = SmigTools(build_services())
    tools.commit_migration("5f0c2a9e", "gpt-4o", to=["store", "codex", "claude", "gemini", "qwen", "pi"])
    roomy = tools.get_handoff("/home/user/proj", format="json", max_chars=40_000)
    assert len(roomy["outputs"]) == 5 and "head_left_out" not in roomy
    for format in ("markdown", "openai", "json"):
        whole = tools.get_handoff("/home/user/proj", format=format, max_chars=40_000)
        assert whole["next_offset"] is None
        pieces, offset = [], 0
        while offset is not None:
            page = tools.get_handoff("/home/user/proj", format=format, offset=offset, max_chars=2_000)
            assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()) <= 2_000
            assert page["id"] == whole["id"] and page["tokens_after"] == whole["tokens_after"]
            assert "outputs" not in page and page["head_left_out"][0] == "outputs"
            asked = int(page["head_note"].split("max_chars=")[-1].split()[0].replace(",", ""))
            assert "outputs" in tools.get_handoff("/home/user/proj", format=format, offset=offset, max_chars=asked)
            pieces.append(page["content"])
            offset = page["next_offset"]
        if format == "markdown":
            assert "".join(pieces) == whole["content"]
        else:
            assert [item for piece in pieces for item in piece] == whole["content"]


def test_handoff_is_found_from_a_subfolder_but_never_from_home_or_root(fake_home: dict[str, Path]) -> None:
    tools = SmigTools(build_services())
    done = tools.commit_migration("5f0c2a9e", "gpt-4", to=["store"])
    below = tools.get_handoff("/home/user/proj/src/deep", format="json")
    assert below["id"] == done["migration_id"] and below["source"]["cwd"] == "/home/user/proj"
    with pytest.raises(MigrationNotFoundError, match="No migration is stored for workspace /home/user/other"):
        tools.get_handoff("/home/user/other")
    asked: list[str] = []
    tools.services.store.latest = lambda folder: asked.append(folder)  # type: ignore[method-assign]
    home = fake_home["home"]
    with pytest.raises(MigrationNotFoundError):
        tools.get_handoff(str(home / "code" / "app"))
    assert asked == [str(home / "code" / "app"), str(home / "code")]  # not HOME, not above it


def _modules_after(code: str) -> set[str]:
    """Modules loaded by a fresh interpreter after running `code`."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout
    return set(out.split())


def test_neither_the_cli_nor_the_server_loads_the_mcp_sdk_textual_or_openai() -> None:
    assert "mcp" not in _modules_after("import smig_tui.cli.main as m\nm.build_parser()")
    served = _modules_after("from smig_tui.mcp.server import build_server\nbuild_server()")
    assert not {"mcp", "pydantic", "textual", "openai", "tiktoken", "smig_tui.tui", "smig_tui.services"} & served


def test_counts_agree_with_the_note_and_the_input_and_the_note_follows_the_system_message() -> None:
    chat = [{"role": "system", "content": "You are terse."}]
    for n in range(30):
        chat.append({"role": "user", "content": f"question {n} " + "word " * 300})
        chat.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{n}", "type": "function", "function": {"name": "shell", "arguments": "{}"}},
                    {"id": f"d{n}", "type": "function", "function": {"name": "grep", "arguments": "{}"}},
                ],
            }
        )
        chat.append({"role": "tool", "tool_call_id": f"c{n}", "content": "out " * 50})
        chat.append({"role": "tool", "tool_call_id": f"d{n}", "content": "hit " * 50})
    tools = SmigTools(build_services())
    result = tools.migrate_session(chat, "gpt-4o", "gpt-4", reserve=2_000)
    messages = all_pages(tools.migrate_session, "messages", chat, "gpt-4o", "gpt-4", reserve=2_000)
    assert result["input_messages"] == len(chat) == 121
    assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[1]["content"] == result["placeholder"]
    note = result["placeholder"]
    assert f"{result['dropped_count']} earlier messages omitted ({result['dropped_tokens']:,} tokens)" in note
    assert result["dropped_count"] > 10 and result["output_messages"] == len(messages)


def test_a_decoded_array_over_20_mb_is_refused_like_a_string() -> None:
    big = [{"role": "user", "content": "x" * 1_000_000} for _ in range(21)]
    tools = SmigTools(build_services())
    with pytest.raises(InvalidArgumentError, match="more than the limit of 20 MB"):
        tools.migrate_session(big, "gpt-4o", "gpt-4")
    with pytest.raises(InvalidArgumentError, match="more than the limit of 20 MB"):
        tools.migrate_session(json.dumps(big), "gpt-4o", "gpt-4")


def test_summaries_are_offered_with_the_clis_consent_and_a_configured_summarizer(
    fake_home: dict[str, Path], llm_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[summarizer]\nprovider = "test"\nbase_url = "{llm_server.url}"\nmodel = "handoff-model"\n'
        'api_key_env = "SMIG_TEST_SUMMARY_KEY"\nmax_retries = 0\ntimeout = 10\n'
        '[models."tiny-test"]\ncontext_window = 400\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("SMIG_TEST_SUMMARY_KEY", "sk-test-summary")
    tools = SmigTools(build_services())
    preview = tools.preview_migration("5f0c2a9e", "tiny-test", strategy="summary")
    with pytest.raises(SummaryConsentError):
        tools.commit_migration("5f0c2a9e", "tiny-test", strategy="summary")
    assert preview["strategy"] == "summary" and not llm_server.requests  # nothing sent without consent
    done = tools.commit_migration("5f0c2a9e", "tiny-test", strategy="summary", yes_send=True)
    record = tools.services.store.get(done["migration_id"])
    assert len(llm_server.requests) >= 1 and done["strategy"] == "summary"
    assert record.summary and "Finish the work" in record.summary
    handoff = tools.get_handoff("/home/user/proj", max_chars=40_000)
    assert "Finish the work" in handoff["content"]


def test_a_long_omitted_message_is_read_whole_page_by_page(fake_home: dict[str, Path]) -> None:
    transcript = next((fake_home["claude"] / "projects").rglob("5f0c2a9e*.jsonl"))
    long_text = "Actually keep --verbose, but add a short -v alias. " + "Détails «précis» 🙂 line\n" * 400
    original = "Actually keep --verbose, but add a short -v alias"
    transcript.write_text(
        transcript.read_text(encoding="utf-8").replace(original, json.dumps(long_text)[1:-1]), encoding="utf-8"
    )
    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[models."tiny-test"]\ncontext_window = 400\n', encoding="utf-8")
    tools = SmigTools(build_services())
    done = tools.commit_migration("5f0c2a9e", "tiny-test")
    [match] = tools.recall_omitted(done["migration_id"], "short -v alias")["messages"]
    assert match["truncated"] and match["chars"] == len(long_text) and long_text.startswith(match["text"])
    assert f"message_id={match['id']!r}" in match["more"]
    text, offset = "", 0
    while offset is not None:
        page = tools.recall_omitted(done["migration_id"], message_id=match["id"], offset=offset, max_chars=2_000)
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()) <= 2_000
        text, offset = text + page["text"], page["next_offset"]
    assert text == long_text and page["total_chars"] == len(long_text)
    with pytest.raises(InvalidArgumentError, match="is not a message migration"):
        tools.recall_omitted(done["migration_id"], message_id="nope")


def test_paging_renders_a_handoff_and_reads_a_recalled_source_once_until_either_changes(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client reads a big handoff a page at a time: each page used to render and redact the whole handoff
    again, and each recall page to read and redact the whole source again."""
    import smig_tui.mcp.tools as tools_module

    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[models."tiny-test"]\ncontext_window = 400\n', encoding="utf-8")
    rendered: list[str] = []
    render = tools_module._handoff_content
    monkeypatch.setattr(
        tools_module, "_handoff_content", lambda record, fmt: rendered.append(fmt) or render(record, fmt)
    )
    tools = SmigTools(build_services())
    loads: list[str] = []
    load = tools.services.load_session
    monkeypatch.setattr(tools.services, "load_session", lambda info: loads.append(info.id) or load(info))
    done = tools.commit_migration("5f0c2a9e", "tiny-test")
    loads.clear()
    pages = {
        fmt: all_pages(tools.get_handoff, "content", "/home/user/proj", format=fmt, max_chars=2_000)
        for fmt in ("markdown", "json")
    }
    assert len(pages["markdown"]) > 2 and pages["json"]
    assert all_pages(tools.get_handoff, "content", "/home/user/proj", max_chars=2_000) == pages["markdown"]
    assert rendered == ["markdown", "json"]
    newer = tools.commit_migration("5f0c2a9e", "gpt-4o")
    assert tools.get_handoff("/home/user/proj", max_chars=40_000)["id"] == newer["migration_id"]
    assert rendered == ["markdown", "json", "markdown"]
    loads.clear()

    first = all_pages(tools.recall_omitted, "messages", done["migration_id"], "", limit=3, max_chars=2_000)
    again = tools.recall_omitted(done["migration_id"], "", limit=100)
    assert len(first) == 3 and len(loads) == 1
    assert again["source"]["status"] == "unchanged"
    transcript = next((fake_home["claude"] / "projects").rglob("5f0c2a9e*.jsonl"))
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(transcript.read_text(encoding="utf-8").splitlines()[-1] + "\n")
    grown = tools.recall_omitted(done["migration_id"], "", limit=100)
    assert len(loads) == 2 and grown["source"]["status"] == "grown"
    assert grown["messages"] == again["messages"]
    transcript.write_text("changed\n", encoding="utf-8")
    with pytest.raises(Exception, match="was rewritten since migration"):
        tools.recall_omitted(done["migration_id"], "")


def test_what_is_kept_between_pages_stays_within_its_budget(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source whose omitted text is over `KEPT_CHARS` is read again for each call, not held by the
    server; what is kept never adds up to more than the budget."""
    import smig_tui.mcp.tools as tools_module

    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[models."tiny-test"]\ncontext_window = 400\n', encoding="utf-8")
    tools = SmigTools(build_services())
    loads: list[str] = []
    load = tools.services.load_session
    monkeypatch.setattr(tools.services, "load_session", lambda info: loads.append(info.id) or load(info))
    done = tools.commit_migration("5f0c2a9e", "tiny-test")
    handoff = tools.get_handoff("/home/user/proj", max_chars=40_000)["content"]
    loads.clear()
    omitted = sum(m["chars"] for m in tools.recall_omitted(done["migration_id"], "", limit=100)["messages"])
    assert len(loads) == 1 and omitted > 100
    monkeypatch.setattr(tools_module, "KEPT_CHARS", omitted - 1)
    tools = SmigTools(tools.services)
    for _ in range(3):
        tools.recall_omitted(done["migration_id"], "", limit=100)
    assert len(loads) == 4
    monkeypatch.setattr(tools_module, "KEPT_CHARS", len(handoff) + omitted)
    tools = SmigTools(tools.services)
    tools.get_handoff("/home/user/proj", max_chars=40_000)
    tools.recall_omitted(done["migration_id"], "")
    tools.get_handoff("/home/user/proj", format="json", max_chars=40_000)  # pushes the oldest out
    kept = tools._kept
    assert sum(size for _, size in kept.values()) <= tools_module.KEPT_CHARS
    assert [key[2] for key in kept if key[0] == "handoff"] == ["json"]  # the oldest, the Markdown, went first


def test_the_continue_prompt_skips_the_callers_own_sessions(fake_home: dict[str, Path], monkeypatch) -> None:
    """Agents are values (`Agent("claude")` made twice is equal, not the same object): the caller's
    newest session is skipped by equality, so the prompt hands over another agent's."""
    from smig_tui.core.models import Agent
    from smig_tui.mcp.handoffs import Handoffs

    services = build_services()
    monkeypatch.chdir("/")
    newest = services.list_sessions(cwd="/")[0]
    caller = Agent(str(newest.agent))  # another object, the same agent
    chosen = Handoffs(services)._chosen(None, None, caller)
    assert chosen.agent != newest.agent


def test_listed_sessions_carry_their_git_branch_as_smig_list_knows_it(fake_home: dict[str, Path]) -> None:
    """Each listed session says the branch it was last on (the shape of services/json_shapes.py), and `branch`
    keeps the sessions `smig list --branch NAME` lists, in its order."""
    from cli_runner import smig

    from smig_tui.services.json_shapes import session_json

    services = build_services()
    tools = SmigTools(services)
    listed = tools.list_sessions(limit=500)["sessions"]
    by_id = {info.id: info for info in services.list_sessions()}
    assert listed and all(entry == session_json(by_id[entry["id"]]) for entry in listed)
    branches = {entry["git_branch"] for entry in listed}
    assert {"main", "ci-fix"} <= branches and None in branches  # a session whose agent recorded none says null
    for branch in ("main", "ci-fix"):
        code, out, _ = smig("list", "--branch", branch, "--cwd", "/", "--json")
        assert code == 0
        cli = [entry["id"] for entry in json.loads(out)]
        mcp = [entry["id"] for entry in tools.list_sessions(branch=branch, limit=500)["sessions"]]
        assert mcp == cli and cli and all(by_id[sid].git_branch == branch for sid in mcp)
    assert tools.list_sessions(branch="no-such-branch")["sessions"] == []
