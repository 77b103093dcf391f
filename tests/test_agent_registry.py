"""The agent registry is the one list every front end loops over, and an agent plugs in through it alone.

The first tests hold every front end's list of agents equal to the registry's. The others swap the
registry for one where OpenCode is gone and the Gemini slot is taken by a made-up agent ("Wisp",
with its own reader and `NativeWriter`): the services, the CLI, the source tree, the commit dialog and
a real commit all follow, with no other change.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session
from textual.app import App, ComposeResult

from smig_tui.adapters.agents import claude, codex, registry
from smig_tui.adapters.agents.entry import AgentEntry, Env
from smig_tui.adapters.paths import Paths
from smig_tui.cli.main import build_parser
from smig_tui.core.handoff import to_turns
from smig_tui.core.migration import ContinueLatest, Destination, NativeOutput, PlannedFile, continue_fact
from smig_tui.core.models import Agent, Kind, Message, Role, Session, SessionInfo
from smig_tui.core.ports import NativeLayout, NativeRequest, NativeWriter, SessionSource, WarningSink
from smig_tui.mcp.schemas import TOOLS
from smig_tui.services import build_services
from smig_tui.tui import backend
from smig_tui.tui.screens.commit import native_choices
from smig_tui.tui.widgets.source_tree import SourceTree

NOT_AGENTS = {"store", "markdown", "json"}


def _choices(parser: argparse.ArgumentParser, command: str, option: str) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    return list(action.choices or [])


def _schema(tool: str) -> dict[str, object]:
    found = next(spec for spec in TOOLS if spec["name"] == tool)
    return found["inputSchema"]["properties"]  # type: ignore[no-any-return]


def _registry_ids() -> list[str]:
    return [entry.id for entry in registry.AGENTS]


def test_the_vocabulary_and_the_mcp_schemas_name_exactly_the_registrys_agents() -> None:
    assert [agent.value for agent in Agent] == _registry_ids()
    assert {d.value for d in Destination} - NOT_AGENTS == set(_registry_ids())
    assert _schema("list_sessions")["agent"]["enum"] == _registry_ids()  # type: ignore[index]
    destinations = _schema("commit_migration")["to"]["items"]["enum"]  # type: ignore[index]
    assert set(destinations) - NOT_AGENTS == set(_registry_ids())


def test_services_the_cli_and_the_commit_dialog_follow_the_registry() -> None:
    services = build_services()
    assert [source.agent.value for source in services.sources] == _registry_ids()
    assert list(services.agent_homes()) == _registry_ids()
    parser = build_parser()
    assert _choices(parser, "list", "--agent") == _registry_ids()
    assert set(_choices(parser, "migrate", "--to")) - NOT_AGENTS == set(_registry_ids())
    assert {key for key, _ in native_choices() if key} == set(_registry_ids())


# --- a registry with a made-up agent in the Gemini slot ----------------------------------------------


def _wisp_session(path: Path, warn: WarningSink) -> Session:
    data = json.loads(path.read_text(encoding="utf-8"))
    info = SessionInfo(
        id=data["id"],
        agent=Agent.GEMINI,
        path=str(path),
        cwd=data["cwd"],
        title=data["title"],
        updated="2026-01-03T00:00:00Z",
    )
    messages = tuple(
        Message(index=i, id=f"w{i}", role=Role(role), kind=Kind.TEXT, body=text)
        for i, (role, text) in enumerate(data["turns"])
    )
    return Session(info=info, messages=messages)


class WispSource:
    """Reads Wisp's sessions: one JSON file each."""

    agent = Agent.GEMINI

    def __init__(self, home: Path) -> None:
        self.home = home

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        for path in sorted(self.home.glob("*.json")):
            yield _wisp_session(path, warn).info

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        return _wisp_session(Path(info.path), warn)


class WispWriter:
    """Writes a Wisp session; remembers what the commit asked of it."""

    agent = Agent.GEMINI
    calls: list[str] = []

    def __init__(self, home: Path) -> None:
        self.home = home

    def unavailable(self) -> str | None:
        return None

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        turns = to_turns(request.messages, note=request.note)
        session_id = f"wisp-{request.lineage.migration_id}"
        path = self.home / f"{session_id}.json"
        data = json.dumps(
            {
                "id": session_id,
                "cwd": request.folder,
                "title": request.title,
                "turns": [[turn.role.value, turn.text] for turn in turns],
            }
        )
        native = NativeOutput("gemini", str(path), session_id, ("wisp", "--resume", session_id))
        return NativeLayout((PlannedFile(Destination.GEMINI, str(path), data, native=native),), turns)

    def install(self, planned: PlannedFile) -> None:
        self.calls.append("install")

    def uninstall(self, planned: PlannedFile) -> None:
        self.calls.append("uninstall")

    def announce(self, planned: PlannedFile) -> None:
        self.calls.append("announce")

    imports = False

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        self.calls.append("settle")
        assert planned.native is not None
        return continue_fact(planned.native, "wisp --last", str(self.home), planned.native.session_id)

    def read_back(self, output: NativeOutput) -> Session:
        self.calls.append("read_back")
        return _wisp_session(Path(output.path), lambda _warning: None)


@pytest.fixture
def wisp_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The registry as codex, claude and Wisp (no OpenCode); Wisp's home holds one session."""
    home = tmp_path / "wisp"
    home.mkdir()
    (home / "w1.json").write_text(
        json.dumps(
            {
                "id": "wisp-one",
                "cwd": str(tmp_path),
                "title": "Tame the wisp",
                "turns": [["user", "hello"], ["assistant", "hi"]],
            }
        )
    )

    def source(_paths: Paths, _env: Env) -> SessionSource:
        return WispSource(home)

    def writer(_paths: Paths, _env: Env) -> NativeWriter:
        return WispWriter(home)

    wisp = AgentEntry(
        Agent.GEMINI,
        "Wisp",
        hand_to=Agent.CLAUDE,
        default_target="gpt-5.5",
        shown_when_empty=False,
        home=lambda _paths, _env: home,
        source=source,
        writer=writer,
    )
    monkeypatch.setattr(registry, "AGENTS", (codex.ENTRY, claude.ENTRY, wisp))
    WispWriter.calls = []
    return home


def test_services_and_the_cli_list_the_agent_the_registry_names(wisp_registry: Path) -> None:
    services = build_services()
    assert [source.agent.value for source in services.sources] == ["codex", "claude", "gemini"]
    assert [info.title for info in services.list_sessions()] == ["Tame the wisp"]
    assert services.agent_homes()["gemini"] == wisp_registry and "opencode" not in services.agent_homes()
    assert _choices(build_parser(), "list", "--agent") == ["codex", "claude", "gemini"]
    assert native_choices() == (
        ("claude", "Claude Code session"),
        ("codex", "Codex session"),
        ("gemini", "Wisp session"),
        ("", "No native session"),
    )


def test_a_commit_writes_reads_back_and_announces_through_the_registered_writer(
    wisp_registry: Path, tmp_path: Path
) -> None:
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent.CODEX)
    preview, choices, plans = backend.commit_preview(services, session, make_plan(session))
    assert set(choices) == {"store", "claude", "codex", "gemini"}  # no OpenCode: it is not registered
    assert set(plans) == {"", "claude", "codex", "gemini"}  # each choice states the plan it writes
    result = services.migrate(session, make_plan(session), {Destination.GEMINI})
    (output,) = result.outputs
    assert Path(output.path).parent == wisp_registry and output.resume_command.startswith("wisp --resume")
    assert WispWriter.calls == ["install", "read_back", "announce", "settle"]
    [fact] = result.continue_latest
    assert fact.migration and fact.sentence == f"`wisp --last` in {wisp_registry} continues this migration."
    written = services.load_session(services.find_session(output.session_id))
    assert written.messages[-1].text == session.messages[-1].text
    assert backend.default_native(written) == "claude" and backend.default_target(written) == "gpt-5.5"


async def test_the_source_tree_shows_the_registered_agent_by_its_name(wisp_registry: Path) -> None:
    services = build_services()

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SourceTree(here=None, id="tree")

    async with TreeApp().run_test() as pilot:
        tree = pilot.app.query_one(SourceTree)
        tree.add_sessions(services.list_sessions())
        await pilot.pause()
        labels = [str(node.label) for node in tree.root.children]
    assert labels == ["Codex (0)", "Claude Code (0)", "Wisp (1)"]
