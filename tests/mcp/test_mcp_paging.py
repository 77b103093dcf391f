"""Pages are measured in UTF-8 bytes: every page fits its budget in bytes (so in characters, in any
client's sense), and paging through a 1 MB text or list reassembles it exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from smig_tui.mcp.paging import page_items, page_text
from smig_tui.mcp.schemas import MAX_PAGE_CHARS, PAGE_CHARS, TOOLS

PIECES = [
    "plain ASCII words and numbers 12345 ",
    "移行したセッションはそのまま再開できます。",
    "emoji outside the BMP 🚀🧪𝄞😀 ",
    'quotes " and backslashes \\ and C:\\\\paths ',
    "new\nlines\tand\ttabs\r\n",
    "\u2028line separator\u2029 and \x00 control \x1f ",
]


def utf16_units(text: str) -> int:
    """Characters as JavaScript counts them (Gemini CLI's limit): a character outside the BMP is two."""
    return len(text.encode("utf-16-le")) // 2


def wire(result: dict[str, object]) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("budget", [2_000, PAGE_CHARS, MAX_PAGE_CHARS])
def test_a_1_mb_text_pages_within_budget_and_reassembles_exactly(budget: int) -> None:
    text = "".join(PIECES[(n * 7) % len(PIECES)] for n in range(27_000))
    assert len(text.encode()) > 1_000_000
    head = {"migration_id": "0" * 32, "workspace": "/home/user/proj"}
    pieces, offset, pages = [], 0, 0
    while offset is not None:
        page = page_text(head, "content", text, offset, budget, "get_handoff")
        sent = wire(page)
        assert len(sent.encode()) <= budget and utf16_units(sent) <= budget and len(sent) <= budget
        assert page["offset"] == offset and page["total_chars"] == len(text)
        pieces.append(page["content"])
        offset = page["next_offset"]
        assert offset is None or f"offset={offset}" in page["next_page"]
        pages += 1
    assert "".join(pieces) == text
    escaped = len(json.dumps(text, ensure_ascii=False).encode())
    assert pages <= escaped / (budget - 700) + 1  # pages are full but for the fields around the text


def test_a_page_of_japanese_holds_about_a_third_as_many_characters_as_ascii() -> None:
    head = {"id": "x"}
    ascii_page = page_text(head, "content", "a" * 100_000, 0, PAGE_CHARS, "get_handoff")
    japanese = page_text(head, "content", "移" * 100_000, 0, PAGE_CHARS, "get_handoff")
    assert len(ascii_page["content"]) > PAGE_CHARS - 1_000
    assert PAGE_CHARS // 3 - 400 < len(japanese["content"]) <= PAGE_CHARS // 3


def test_a_list_of_items_pages_within_budget_and_reassembles() -> None:
    items = [{"id": n, "text": PIECES[n % len(PIECES)] * (1 + n % 50)} for n in range(6_000)]
    pieces: list[object] = []
    offset: int | None = 0
    while offset is not None:
        page = page_items({"count": len(items)}, "hits", items, offset, PAGE_CHARS, "search_sessions")
        assert len(wire(page).encode()) <= PAGE_CHARS
        pieces += page["hits"]
        offset = page["next_offset"]
    assert pieces == items


def test_an_item_too_big_for_a_page_alone_is_cut_to_fit_in_bytes() -> None:
    item = {"id": 1, "text": "移行" * 40_000}
    page = page_items({}, "hits", [item], 0, PAGE_CHARS, "search_sessions")
    assert len(wire(page).encode()) <= PAGE_CHARS
    assert page["hits"][0]["cut_chars"] > 0 and page["hits"][0]["text"].endswith("…[cut]")


def test_every_paged_tool_states_the_byte_budget() -> None:
    paged = [tool for tool in TOOLS if "max_chars" in tool["inputSchema"]["properties"]]
    assert len(paged) == 7
    for tool in paged:
        spec = tool["inputSchema"]["properties"]["max_chars"]
        assert spec["maximum"] == MAX_PAGE_CHARS == 40_000 and f"Default {PAGE_CHARS:,}" in spec["description"]
        assert "bytes" in spec["description"]


def test_the_docs_entries_are_what_install_writes() -> None:
    """The set-up the docs show by hand and what `smig mcp --install` writes agree, client by client."""
    import tomllib

    from smig_tui.mcp.install import entry, launch, mcp_config, read_only_tools, toml_block

    root = Path(__file__).parents[2]
    page = root / "docs" / "mcp.md"
    text = page.read_text(encoding="utf-8") if page.is_file() else (root / "README.md").read_text(encoding="utf-8")

    def block(client: str, language: str) -> str:
        start = text.index(f"### {client}\n")
        part = text[start : text.find("\n##", start + 1)]
        return re.findall(rf"```{language}[^\n]*\n(.*?)```", part, re.S)[0]

    command = ["smig", "mcp"]
    assert json.loads(block("Claude Code", "json")) == {"mcpServers": {"smig": entry("claude", command)}}
    assert json.loads(block("Gemini CLI", "json")) == {"mcpServers": {"smig": entry("gemini", command)}}
    [(_, policy)] = mcp_config("gemini").extra_files({}, launch(command))
    assert tomllib.loads(block("Gemini CLI", "toml")) == tomllib.loads(policy)
    assert json.loads(block("OpenCode", "json"))["mcp"] == {"smig": entry("opencode", command)}
    assert json.loads(block("Kilo Code", "json"))["mcp"] == {"smig": entry("kilo", command)}
    assert json.loads(block("Kilo Code", "json"))["$schema"] == "https://app.kilo.ai/config.json"
    qwen = json.loads(block("Qwen Code", "json"))
    assert qwen["mcpServers"] == {"smig": entry("qwen", command)}
    assert qwen["permissions"]["allow"] == [f"mcp__smig__{tool}" for tool in read_only_tools()]
    assert json.loads(block("Copilot CLI", "json")) == {"mcpServers": {"smig": entry("copilot", command)}}
    assert tomllib.loads(block("Codex", "toml")) == tomllib.loads(toml_block(("mcp_servers",), entry("codex", command)))


def test_a_client_that_cuts_results_shorter_gets_pages_that_fit_it(isolated_homes: dict[str, Path]) -> None:
    """Qwen Code (`clientInfo` `qwen-cli-mcp-client-<server>`) keeps a result over 28,000 characters in a file
    and sends it twice: its pages hold 13,000
    bytes at most, whatever `max_chars` asks; other clients keep the usual pages."""
    from smig_tui.mcp.server import page_ceiling
    from smig_tui.mcp.tools import SmigTools, pages_for
    from smig_tui.services import build_services

    assert page_ceiling({"name": "qwen-cli-mcp-client-smig"}) == 13_000
    assert page_ceiling({"name": "claude-code"}) is None and page_ceiling({}) is None
    assert page_ceiling({"name": "copilot-cli"}) == 20_000  # Copilot CLI files away a result over 20,480 bytes
    tools = SmigTools(build_services())
    with pages_for(page_ceiling({"name": "qwen-cli-mcp-client-smig"})):
        small = tools.list_known_models(max_chars=MAX_PAGE_CHARS)
    usual = tools.list_known_models(max_chars=MAX_PAGE_CHARS)
    size = len(json.dumps(small, ensure_ascii=False, separators=(",", ":")).encode())
    assert 12_000 < size <= 13_000 < len(json.dumps(usual, ensure_ascii=False, separators=(",", ":")).encode())
    assert usual["models"][: len(small["models"])] == small["models"] and small["next_offset"] is not None
