"""Errors carry what can be done about them as data (`Hint`); each front end words it, none rewrites
another's sentence: the CLI (`str(error)`), the TUI (`describe_error`) and the MCP tools (`TOOL_WORDS`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from smig_tui.core.errors import CLI_WORDS, Hint, SessionNotFoundError, SmigError, UnknownModelError, worded
from smig_tui.mcp.server import SmigToolRunner
from smig_tui.mcp.words import TOOL_WORDS
from smig_tui.services import build_services
from smig_tui.tui.errors import TUI_WORDS, describe_error

FLAG = re.compile(r"(?<![\w-])--[a-z]")


@pytest.mark.parametrize("words", [CLI_WORDS, TUI_WORDS, TOOL_WORDS], ids=["cli", "tui", "mcp"])
def test_every_front_end_words_every_hint(words: dict[Hint, str]) -> None:
    assert set(words) == set(Hint)


@pytest.mark.parametrize(("words", "name"), [(TUI_WORDS, "tui"), (TOOL_WORDS, "mcp")])
def test_the_tui_and_mcp_words_name_no_command_line_flag(words: dict[Hint, str], name: str) -> None:
    assert not [phrase for phrase in words.values() if FLAG.search(phrase)], name


def test_one_error_reads_in_each_front_ends_words() -> None:
    error = UnknownModelError("gpt-9", ["gpt-5"], "/c/config.toml")
    shared = "Unknown model 'gpt-9'. Did you mean: gpt-5?"
    assert str(error) == f"{shared} See `smig models` for the table, or add it under [models] in /c/config.toml."
    assert describe_error(error) == f"{shared} Press t for the table, or add it under [models] in /c/config.toml."
    assert worded(error, TOOL_WORDS).endswith(
        "list_known_models lists the table, or add it under [models] in /c/config.toml."
    )
    assert str(SmigError("Plain.")) == worded(SmigError("Plain."), TUI_WORDS) == "Plain."
    assert worded(ValueError("not ours"), TUI_WORDS) == "not ours"


def test_no_shared_error_sentence_names_a_flag() -> None:
    """Outside the CLI's own modules, a sentence names no flag: the flag is the CLI's word for a hint."""
    package = Path(__file__).parents[2] / "smig_tui"
    found = []
    for path in package.rglob("*.py"):
        relative = path.relative_to(package)
        if relative.parts[0] == "cli" or relative == Path("core/errors.py"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"Error\(|raise ", line) and FLAG.search(line):
                found.append(f"{relative}: {line.strip()}")
    assert not found


def test_a_session_that_is_not_there_in_the_cli_and_the_mcp_tools(fake_home: dict[str, Path]) -> None:
    services = build_services()
    with pytest.raises(SessionNotFoundError) as raised:
        services.find_session("ffffffff")
    assert str(raised.value) == "No session matches 'ffffffff'. `smig list` shows the ids."
    reply = SmigToolRunner(services)("preview_migration", {"session_id": "ffffffff", "target_model": "gpt-4o"})
    text = reply["content"][0]["text"]
    assert reply["isError"] and text.startswith(
        "preview_migration: No session matches 'ffffffff'. Searched codex home "
    )
    assert text.endswith(" list_sessions shows the ids.") and "smig list" not in text
