"""The agent registry is the one list every front end loops over.

These tests hold every front end's list of agents equal to the registry's, and the registry to the
entry points (built-ins first, in their order; a broken plugin left out with one sentence). A fifth
agent with its own id, plugged in through the entry point alone, is `test_fifth_agent.py`.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.profile import Lazy
from smig_tui.cli.main import build_parser
from smig_tui.core import agent_rules
from smig_tui.core.native import Destination, destinations
from smig_tui.mcp.schemas import TOOLS
from smig_tui.services import build_services
from smig_tui.tui.screens.commit import native_choices

NOT_AGENTS = {"store", "markdown", "json"}


BUILT_INS = ["codex", "claude", "gemini", "opencode", "qwen", "kilo", "crush", "copilot", "pi", "aider"]
"""smig's own agents, in their order."""


def _choices(parser: argparse.ArgumentParser, command: str, option: str) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    return list(action.choices or [])


def _schema(tool: str) -> dict[str, object]:
    found = next(spec for spec in TOOLS if spec["name"] == tool)
    return found["inputSchema"]["properties"]  # type: ignore[no-any-return]


def _registry_ids() -> list[str]:
    return [entry.id for entry in registry.AGENTS]


def _writable_ids() -> list[str]:
    """The agents smig writes sessions for: every one but a read-only agent (no writer, a reason why)."""
    return [entry.id for entry in registry.AGENTS if entry.writer is not None and not entry.rules.read_only]


def test_the_vocabulary_and_the_mcp_schemas_name_exactly_the_registrys_agents() -> None:
    assert list(agent_rules.agent_ids()) == _registry_ids()
    assert _registry_ids() == BUILT_INS
    assert _writable_ids() == [
        "codex",
        "claude",
        "gemini",
        "opencode",
        "qwen",
        "kilo",
        "copilot",
        "pi",
        "aider",
    ]  # Crush is read-only
    assert {d.value for d in destinations()} - NOT_AGENTS == set(_writable_ids())
    assert _schema("list_sessions")["agent"]["enum"] == _registry_ids()  # type: ignore[index]
    enum = _schema("commit_migration")["to"]["items"]["enum"]  # type: ignore[index]
    assert set(enum) - NOT_AGENTS == set(_writable_ids())


def test_services_the_cli_and_the_commit_dialog_follow_the_registry() -> None:
    services = build_services()
    assert [source.agent.value for source in services.sources] == _registry_ids()
    assert list(services.agent_homes()) == _registry_ids()
    parser = build_parser()
    assert _choices(parser, "list", "--agent") == _registry_ids()
    assert set(_choices(parser, "migrate", "--to")) - NOT_AGENTS == set(_writable_ids())
    assert {key for key, _ in native_choices() if key} == set(_writable_ids())


def test_the_light_entry_point_reader_agrees_with_importlib_metadata() -> None:
    found = sorted(registry.installed_entry_points())
    expected = sorted((ep.name, ep.value) for ep in metadata.entry_points(group=registry.GROUP))
    assert found == expected and ("codex", "smig_tui.adapters.agents.codex:PROFILE") in found


def test_a_broken_plugin_is_left_out_with_one_sentence(tmp_path: Path) -> None:
    dist = tmp_path / "broken_agent-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text(
        "[smig.agents]\nbroken = no_such_module:PROFILE\nclaude = smig_tui.adapters.agents.codex:PROFILE\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        registry.load()
        assert [entry.id for entry in registry.AGENTS] == BUILT_INS
        assert len(registry.PROBLEMS) == 2
        assert "claude" in registry.PROBLEMS[0] and "built-in agent's id" in registry.PROBLEMS[0]
        assert "broken" in registry.PROBLEMS[1] and "could not be loaded" in registry.PROBLEMS[1]
    finally:
        sys.path.remove(str(tmp_path))
        registry.load()
    assert [entry.id for entry in registry.AGENTS] == BUILT_INS


def test_each_profile_resumes_a_session_as_its_writer_records_it(tmp_path: Path) -> None:
    """The profile's continue command is the writer's: what `--continue` starts and what is printed."""
    from migration_builders import make_plan, make_session

    services = build_services()
    session = make_session(tmp_path / "src")
    for entry in registry.AGENTS:
        if entry.writer is None:  # a read-only agent: nothing of smig's to resume, no client it starts
            assert entry.resume_argv is None and entry.program is None and entry.rules.read_only, entry.id
            continue
        # the id is the last word, or in it (Aider's names the history file `.aider.smig-ID.chat.history.md`)
        assert entry.resume_argv is not None and "ID-1" in entry.resume_argv("ID-1")[-1]
        if not services.can_write(entry.id):
            continue  # OpenCode's writer needs its command
        result = services.migrate(session, make_plan(session), {Destination(entry.id)}, dry_run=True)
        [output] = result.outputs
        assert output.argv == entry.resume_argv(output.session_id)


def test_each_agents_program_is_what_its_resume_command_starts() -> None:
    """`smig doctor` looks for `program`; `--continue` starts the resume command's first word: one client."""
    for entry in registry.AGENTS:
        if entry.writer is None:
            continue  # a read-only agent: smig never starts its client
        assert entry.resume_argv is not None, entry.id
        assert entry.program == entry.resume_argv("an-id")[0], entry.id


def _lazy_parts(value: object, seen: set[int]) -> list[Lazy]:
    """Every `Lazy` a profile holds, in its own fields and in the rules, overhead and refs it carries
    (`lazy_value` gives a `Lazy`'s bound `resolve`)."""
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, Lazy):
        return [value]
    bound = getattr(value, "__self__", None)
    if isinstance(bound, Lazy):
        return [bound]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [part for field in dataclasses.fields(value) for part in _lazy_parts(getattr(value, field.name), seen)]
    return []


def test_every_lazy_part_of_every_profile_names_what_its_module_has() -> None:
    """A profile names its reader, writer and memory code as `module:attribute`, imported on first use:
    each one resolves, so a misspelt name fails here rather than on a user's first commit."""
    profiles = registry.load()
    parts = [part for profile in profiles for part in _lazy_parts(profile, set())]
    assert {part.target.split(":")[1] for part in parts} >= {"read", "RULES", "resume_argv"}
    for part in parts:
        found = part.resolve()
        assert found is not None and (callable(found) or part.target.endswith(":RULES")), part.target
    with pytest.raises(ValueError, match="module:attribute"):
        Lazy("smig_tui.adapters.agents.profile")


def test_listing_the_agents_imports_none_of_their_writers_or_memory_code() -> None:
    code = (
        "import re, sys, smig_tui.cli.main, smig_tui.services\n"
        "smig_tui.cli.main.build_parser(['list'])\n"
        "smig_tui.services.build_services({'HOME': '/nonexistent', 'SMIG_TUI_HOME': '/nonexistent/smig'})\n"
        "print([m for m in sys.modules if re.search(r'^smig_tui[.]adapters[.]agents[.][a-z]+[.](writer|memory)$', m)])"
    )
    run = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert run.stdout.strip() == "[]"
