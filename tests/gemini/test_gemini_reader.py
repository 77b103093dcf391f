"""The Gemini CLI reader on a session recorded with the real client (tests/fixtures/gemini), and on damage."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_runner import run_cli
from gemini_items import request_items, session_items

from smig_tui.adapters.agents import content_parts
from smig_tui.adapters.agents.gemini.layout import project_hash
from smig_tui.adapters.agents.gemini.records import read_conversation
from smig_tui.adapters.agents.gemini.source import GeminiSource
from smig_tui.core.models import Agent, Kind, ReadWarning, Session, SessionInfo
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"
SESSION_ID = "91ffce34-43fe-493b-adc5-17413feeec43"
RECORDED_CWD = "/tmp/smig-gemini-fixture/osprey-app"


@pytest.fixture
def gemini_home(isolated_homes: dict[str, Path]) -> Path:
    """The recorded Gemini home copied into the temp HOME."""
    home = isolated_homes["home"] / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", home)
    return home


def _session_file(home: Path) -> Path:
    [path] = (home / "tmp" / "osprey-app" / "chats").glob("session-*.jsonl")
    return path


def _read(home: Path) -> tuple[list[SessionInfo], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    return list(GeminiSource(home).discover(warnings.append)), warnings


def _load(home: Path, info: SessionInfo) -> tuple[Session, list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    return GeminiSource(home).load(info, warnings.append), warnings


def _last_turn(log: str) -> dict[str, object]:
    requests = [json.loads(line) for line in (FIXTURE / "requests" / log).read_text(encoding="utf-8").splitlines()]
    return [r for r in requests if r["offers_tools"]][-1]


def test_listing_gives_the_facts_of_the_recorded_session(gemini_home: Path) -> None:
    [info], warnings = _read(gemini_home)
    assert warnings == []
    assert (info.id, info.agent, info.cwd) == (SESSION_ID, Agent("gemini"), RECORDED_CWD)  # from .project_root
    assert info.title == "OSPREY-93: read notes.txt and tell me the release codename"
    assert info.model == "gemini-2.5-pro" and info.origin == "main" and not info.is_subagent
    assert info.context_tokens == 514  # tokens.total of the last reply, as the client logged it
    assert info.updated == "2026-12-03T13:33:10.319Z"


def test_the_stub_a_later_minute_resume_leaves_is_not_a_second_session(gemini_home: Path) -> None:
    """Gemini CLI 0.61.0, resuming in a later minute than the file's name, starts a second file of the
    same id holding its start record and its context block only (seen in the lived-in e2e test)."""
    original = _session_file(gemini_home)
    start, context = original.read_text(encoding="utf-8").splitlines()[:2]
    assert '"sessionId"' in start and "<session_context>" in context
    stub = original.with_name(f"session-2026-12-03T13-40-{SESSION_ID[:8]}.jsonl")
    stub.write_text(start.replace("13:33:", "13:40:") + "\n" + context + "\n", encoding="utf-8")
    infos, warnings = _read(gemini_home)
    [info] = infos
    session, _ = _load(gemini_home, info)
    assert warnings == [] and info.path == str(original) and info.id == SESSION_ID
    assert session_items(session)[:-1] == request_items(_last_turn("session1-run2.jsonl"), once=True)


def test_a_loaded_session_is_what_the_client_sent_the_model_on_resume(gemini_home: Path) -> None:
    [info], _ = _read(gemini_home)
    session, warnings = _load(gemini_home, info)
    sent = request_items(_last_turn("session1-run2.jsonl"), once=True)
    assert warnings == []
    assert session_items(session)[: len(sent)] == sent
    assert session_items(session)[len(sent) :] == [("model", "text", "It was notes.txt, in the project root.")]
    assert info.message_count is None  # a listing reads the file's ends only; the count comes with a load
    assert session.messages[0].injected and session.messages[0].text.startswith("<session_context>")
    [thought] = [m for m in session.messages if m.kind is Kind.REASONING]
    assert thought.text == "**Reading the notes** I should open notes.txt first."
    assert session.measured_context_tokens == 514


def test_the_first_run_reads_as_its_last_request(gemini_home: Path, tmp_path: Path) -> None:
    """The file as it stood after the first run (up to the second run's metadata line)."""
    path = _session_file(gemini_home)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    second_run = next(i for i, line in enumerate(lines) if i and '"projectHash"' in line and '"$set"' not in line)
    path.write_text("".join(lines[:second_run]), encoding="utf-8")
    [info], _ = _read(gemini_home)
    session, _ = _load(gemini_home, info)
    sent = request_items(_last_turn("session1-run1.jsonl"))
    assert session_items(session)[: len(sent)] == sent
    assert session_items(session)[len(sent) :] == [
        ("model", "text", "The release codename is PELICAN-77 (from notes.txt).")
    ]
    usage = [m.usage for m in session.messages if m.usage is not None]
    assert [u.context_tokens for u in usage] == [208, 294, 400]  # each call's tokens.total, on its first message
    records = [m.id.split(":")[0] for m in session.messages]
    assert all(records[i - 1] != records[i] for i, m in enumerate(session.messages) if m.usage is not None)


def test_a_half_written_last_line_is_one_warning_and_the_rest_still_reads(gemini_home: Path) -> None:
    path = _session_file(gemini_home)
    lines = len(path.read_text(encoding="utf-8").splitlines())
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id":"half","timestamp":"2026-12-03T13:40:00.000Z","type":"user","content":[{"te')
    [info], warnings = _read(gemini_home)
    session, load_warnings = _load(gemini_home, info)
    [listed] = warnings  # the listing reads the file's ends: it names the file
    assert listed.path == str(path) and "half-written" in listed.message
    [loaded] = load_warnings  # the full read names the line
    assert (loaded.path, loaded.line) == (str(path), lines + 1) and "damaged" in loaded.message
    assert info.title == "OSPREY-93: read notes.txt and tell me the release codename" and info.context_tokens == 514
    assert session_items(session)[-1] == ("model", "text", "It was notes.txt, in the project root.")


def test_a_corrupt_document_is_one_warning_naming_it_and_other_sessions_still_list(gemini_home: Path) -> None:
    broken = _session_file(gemini_home).with_name("session-2026-12-01T10-00-0badf00d.json")
    broken.write_text(
        '{"sessionId": "0badf00d-0000-4000-8000-000000000000", "messages": [{"id": "a", "ty', encoding="utf-8"
    )
    infos, warnings = _read(gemini_home)
    assert [info.id for info in infos] == [SESSION_ID]
    [warning] = warnings
    assert warning.path == str(broken)
    assert (
        warning.message
        == "skipped: not a readable Gemini CLI session (its JSON is cut off or damaged at line 1, column 80)"
    )


def test_an_older_json_document_reads_like_the_json_lines(gemini_home: Path) -> None:
    """Gemini CLI wrote one JSON document per session before its JSON-lines files (and still reads them).

    A document is parsed whole, a JSON-lines file is listed from its ends: both give the same facts.
    """
    path = _session_file(gemini_home)
    [from_ends], _ = _read(gemini_home)
    parsed = read_conversation(path)
    document = {**parsed.meta, "messages": list(parsed.messages.values())}
    legacy = path.with_name(path.name.removesuffix("l"))
    path.unlink()
    legacy.write_text(json.dumps(document, indent=2), encoding="utf-8")
    [info], warnings = _read(gemini_home)
    session, _ = _load(gemini_home, info)
    assert warnings == [] and info.path == str(legacy)
    facts = ("id", "cwd", "title", "model", "context_tokens", "updated", "created")
    assert [getattr(info, name) for name in facts] == [getattr(from_ends, name) for name in facts]
    assert session_items(session)[:-1] == request_items(_last_turn("session1-run2.jsonl"), once=True)
    assert session.extra["format"].startswith("one JSON document")


def test_a_rewind_drops_the_message_and_everything_after_it(gemini_home: Path) -> None:
    path = _session_file(gemini_home)
    prompt = next(
        json.loads(line)["id"]
        for line in path.read_text(encoding="utf-8").splitlines()
        if "Which file held it" in line and line.startswith('{"id"')
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"$rewindTo": prompt}) + "\n")
    [info], _ = _read(gemini_home)
    session, _ = _load(gemini_home, info)
    assert session_items(session)[-1] == ("model", "text", "The release codename is PELICAN-77 (from notes.txt).")


def test_a_folder_named_by_the_older_path_hash_finds_its_cwd_in_the_registry(gemini_home: Path) -> None:
    old = gemini_home / "tmp" / project_hash(RECORDED_CWD)
    (gemini_home / "tmp" / "osprey-app").rename(old)
    (old / ".project_root").unlink()
    [info], _ = _read(gemini_home)
    assert info.cwd == RECORDED_CWD


def test_sub_agent_sessions_are_listed_as_such(gemini_home: Path) -> None:
    chats = _session_file(gemini_home).parent
    child = chats / SESSION_ID / "a1b2c3d4-0000-4000-8000-000000000000.jsonl"
    child.parent.mkdir()
    child.write_text(
        json.dumps({"sessionId": "a1b2c3d4-0000-4000-8000-000000000000", "projectHash": "x", "kind": "subagent"})
        + "\n"
        + json.dumps({"id": "u1", "type": "user", "content": [{"text": "Find the codename"}]})
        + "\n",
        encoding="utf-8",
    )
    infos, _ = _read(gemini_home)
    [sub] = [info for info in infos if info.is_subagent]
    assert sub.parent_id == SESSION_ID and sub.cwd == RECORDED_CWD


def test_gemini_cli_home_moves_the_folder(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shutil.copytree(FIXTURE / "home" / ".gemini", tmp_path / "elsewhere" / ".gemini")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "elsewhere"))
    [info] = build_services().list_sessions(agent=Agent("gemini"))
    assert info.id == SESSION_ID


def test_cli_lists_shows_and_plans_a_gemini_session(gemini_home: Path) -> None:
    source = lambda paths: GeminiSource(gemini_home)  # noqa: E731
    code, out, err = run_cli(["list", "--agent", "gemini", "--json"], source)
    assert code == 0 and err == ""
    assert [row["id"] for row in json.loads(out)] == [SESSION_ID]
    code, out, _ = run_cli(["show", SESSION_ID[:8]], source)
    assert code == 0 and "PELICAN-77" in out
    code, out, _ = run_cli(["plan", SESSION_ID[:8], "--target", "gemini-2.5-pro", "--json"], source)
    assert code == 0
    plan = json.loads(out)
    assert plan["decision"]["fits"] is True


def test_a_big_files_tool_outputs_are_packed_as_read_and_the_session_is_the_same(
    gemini_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from smig_tui.adapters.agents.gemini import records
    from smig_tui.adapters.stored_text import PackedText

    [info], _ = _read(gemini_home)
    whole, _ = _load(gemini_home, info)
    monkeypatch.setattr(records, "FILE_BYTES", 0)  # every file counts as big
    monkeypatch.setattr(content_parts, "TEXT_CHARS", 10)  # and every output as long
    packed, _ = _load(gemini_home, info)

    def fields(session: Session) -> list[tuple[object, ...]]:
        return [(m.id, m.role, m.kind, m.text, m.tool_name, m.call_id, m.is_error, m.usage) for m in session.messages]

    assert any(isinstance(message.body, PackedText) for message in packed.messages)
    assert not any(isinstance(message.body, PackedText) for message in whole.messages)
    assert fields(packed) == fields(whole)


def _as_document(home: Path) -> dict[str, object]:
    """The recorded session as the one document older releases wrote (what `read_conversation` folds)."""
    conversation = read_conversation(_session_file(home))
    return {**conversation.meta, "messages": list(conversation.messages.values())}


def _unpacked(value: object) -> object:
    from smig_tui.adapters.stored_text import PackedText

    if isinstance(value, PackedText):
        return value.read()
    if isinstance(value, dict):
        return {key: _unpacked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unpacked(item) for item in value]
    return value


def _indented_but_one_message(document: dict[str, object]) -> str:
    """The document as the client indents it, but for its first message, written on one line (edited by hand)."""
    messages = document["messages"]
    assert isinstance(messages, list) and len(messages) > 1
    head = json.dumps({key: value for key, value in document.items() if key != "messages"}, indent=2)
    items = [json.dumps(messages[0]), *(json.dumps(m, indent=2).replace("\n", "\n    ") for m in messages[1:])]
    return head[: -len("\n}")] + ',\n  "messages": [\n    ' + ",\n    ".join(items) + "\n  ]\n}"


@pytest.mark.source_only  # watches the compiled reader by replacing its `_stream_document` and `_Stream`
@pytest.mark.parametrize(
    "layout",
    [
        "pretty",
        "one line",
        "one line, no projectHash",
        "pretty, cut off",
        "one line, a line after",
        "pretty, CRLF",
        "pretty, indented by 4",
        "pretty, a message on one line",
    ],
)
def test_a_big_document_is_parsed_a_message_at_a_time_into_the_same_conversation(
    gemini_home: Path, layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big session written as one document is streamed (its outputs packed as each message is parsed)
    into the conversation the whole parse gives; one it cannot stream (damaged, more after it) is
    parsed whole as before, with the same error."""
    from smig_tui.adapters.agents.gemini import records
    from smig_tui.adapters.stored_text import PackedText

    document = _as_document(gemini_home)
    if "no projectHash" in layout:
        del document["projectHash"]
    text = json.dumps(document, indent=2) if "pretty" in layout else json.dumps(document, ensure_ascii=False)
    if "indented by 4" in layout:
        text = json.dumps(document, indent=4)
    if "a message on one line" in layout:
        text = _indented_but_one_message(document)
    if "cut off" in layout:
        text = text[: len(text) // 2]
    if "a line after" in layout:
        text += "\n" + json.dumps({"$rewindTo": "nothing"})
    if "CRLF" in layout:
        text = text.replace("\n", "\r\n")
    path = gemini_home / "tmp" / "osprey-app" / "chats" / "session-2026-12-01T10-00-d0c0d0c0.json"
    path.write_text(text + "\n", encoding="utf-8")

    def parsed() -> object:
        try:
            conversation = read_conversation(path, pack=True)
        except records.NotASession as error:
            return str(error)
        fields = [conversation.meta, conversation.messages, conversation.lines, conversation.damaged]
        return _unpacked(fields), conversation.legacy

    whole = parsed()
    streamed: list[int] = []
    real = records._stream_document
    monkeypatch.setattr(records, "FILE_BYTES", 0)  # every file counts as big
    monkeypatch.setattr(content_parts, "TEXT_CHARS", 10)  # and every output as long
    monkeypatch.setattr(records, "_CHUNK", 64)  # values cut by the buffer's end everywhere
    monkeypatch.setattr(records, "_stream_document", lambda *a: streamed.append(1) or real(*a))
    streams: list[records._Stream] = []
    stream = records._Stream

    def watched(handle: object) -> records._Stream:
        streams.append(stream(handle))
        return streams[-1]

    monkeypatch.setattr(records, "_Stream", watched)
    big = parsed()
    assert big == whole and streamed == [1]
    # The messages of a document indented as the client writes it are parsed by msgspec, one at a time up to
    # the line that closes each; the standard decoder reads the metadata (each key and value) and the rest.
    head = 2 * (len(document) - 1) + 1
    messages = len(document["messages"])  # type: ignore[arg-type]
    expected = {"pretty": head, "pretty, a message on one line": head + 1, "pretty, indented by 4": head + messages}
    if layout in expected:
        assert streams[0].standard_parses == expected[layout]
    if layout in ("pretty", "one line", "pretty, CRLF"):
        conversation = read_conversation(path, pack=True)
        outputs = [
            part["functionResponse"]["response"]["output"]
            for message in conversation.messages.values()
            for part in (message.get("content") if isinstance(message.get("content"), list) else [])
            if isinstance(part, dict) and "functionResponse" in part
        ]
        assert outputs and all(isinstance(output, PackedText) for output in outputs)
    if "cut off" in layout:
        assert "cut off or damaged" in str(big)


def test_a_document_looked_up_by_path_and_then_loaded_is_read_once(
    gemini_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old document's listing entry needs every message, so `smig plan PATH` read it twice (a 500 MB one:
    1.4 s more); the load takes the lookup's read while the file is unchanged, and only the load after it."""
    from smig_tui.adapters.agents.gemini import source

    document = _session_file(gemini_home).with_suffix(".json")
    document.write_text(json.dumps(_as_document(gemini_home), indent=2), encoding="utf-8")
    _session_file(gemini_home).unlink()
    reads: list[Path] = []
    monkeypatch.setattr(
        source, "read_conversation", lambda path, pack: reads.append(path) or read_conversation(path, pack)
    )
    services = build_services()
    whole = services.load_session(services.find_session(str(document)))
    assert reads == [document]  # looked up and loaded: one read
    assert services.load_session(services.find_session(str(document))).messages == whole.messages
    assert reads == [document, document]  # the load took it: the next one reads (the lookup hit the cache)
    os.utime(document, (1_900_000_000, 1_900_000_000))
    info = services.find_session(str(document))  # read again: changed since the cache's entry
    with document.open("a", encoding="utf-8") as handle:
        handle.write("\n")  # and changed after the lookup read it
    reads.clear()
    assert services.load_session(info).messages == whole.messages and reads == [document]
    os.utime(document, (1_900_000_100, 1_900_000_100))
    reads.clear()
    [listed] = services.list_sessions()  # a whole listing: no load of what it read need follow
    assert services.load_session(listed).messages == whole.messages and reads == [document, document]
