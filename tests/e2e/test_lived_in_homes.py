"""Proves a migration is what each real client continues and lists first in a home it has used for a while.

A fresh temp home has none of what months of use leave behind: Codex's thread index
(`state_5.sqlite`), Claude Code's `.claude.json`, Gemini CLI's project registry and its session
clean-up, OpenCode's database in WAL mode, and sessions of the user's own, newer than the migrated
conversation, in the same folder. The module builds such a home once: each installed client runs
two sessions of the user's in the project folder. Then, for each of the four destinations, smig
migrates an older conversation into it, and the real client's "continue the latest" must continue
the migration (sending the kept history in order), its session list must show it first, and the
migration's result must say so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_env import _DEFAULT_BIN, base_env, carries_prompt, claude_env, codex_home_for
from fake_gemini_server import FakeGeminiServer
from fake_model_server import REPLY, FakeModelServer
from gemini_client import run_gemini
from gemini_items import request_items, session_items
from migration_builders import make_plan, make_session
from real_clients import OPENCODE_QUIET, configure_opencode

from smig_tui.adapters.agents.codex.thread_index import ask
from smig_tui.adapters.migration_commit import Committer, MigrationRequest
from smig_tui.adapters.readback import ReadBackError
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent, Kind, Role
from smig_tui.core.native import Destination
from smig_tui.services import build_services, migrated_messages

pytestmark = pytest.mark.e2e

AGENTS = ["codex", "claude", "gemini", "opencode"]
TARGETS = {
    "codex": "gpt-5.5",
    "claude": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
    "opencode": "claude-sonnet-4-5",
}
CLIENT_TIMEOUT = 240
PROMPT = "continue"


def _installed(name: str) -> str | None:
    """The pinned client, or None when it is not installed."""
    for folder in (os.environ.get("SMIG_E2E_BIN"), str(_DEFAULT_BIN)):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    return None


@dataclass
class LivedIn:
    """A home every installed client has used, with the user's own sessions in `project`."""

    root: Path
    homes: dict[str, Path]
    project: Path
    model_server: FakeModelServer
    gemini_server: FakeGeminiServer
    clients: dict[str, str] = field(default_factory=dict)

    def client(self, agent: str) -> str:
        if agent not in self.clients:
            pytest.skip(f"{agent} is not installed (set SMIG_E2E_BIN or run .ci/run)")
        return self.clients[agent]

    def run(self, agent: str, *args: str) -> subprocess.CompletedProcess[str]:
        """Run `agent`'s real client in the project folder with the home's environment."""
        if agent == "gemini":
            return run_gemini(self.homes["home"], self.project, self.gemini_server, *args)
        env = {
            "codex": base_env(self.homes) | {"SMIG_FAKE_KEY": "test"},
            "claude": claude_env(self.homes, self.model_server),
            "opencode": base_env(self.homes) | OPENCODE_QUIET,
        }[agent]
        run = subprocess.run(
            [self.client(agent), *args],
            cwd=self.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode == 0, (agent, args, run.stdout[-1000:], run.stderr[-2000:])
        return run

    def point_smig_here(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """smig (in this process) reads and writes this home, and finds the clients it runs."""
        monkeypatch.setenv("HOME", str(self.homes["home"]))
        monkeypatch.setenv("CODEX_HOME", str(self.homes["codex"]))
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(self.homes["claude"]))
        monkeypatch.setenv("SMIG_TUI_HOME", str(self.homes["smig"]))
        if "opencode" in self.clients:
            monkeypatch.setenv("SMIG_OPENCODE_BIN", self.clients["opencode"])
        if "codex" in self.clients:
            monkeypatch.setenv("SMIG_CODEX_BIN", self.clients["codex"])
        for key, value in OPENCODE_QUIET.items():
            monkeypatch.setenv(key, value)


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


@pytest.fixture(scope="module")
def lived_in(
    tmp_path_factory: pytest.TempPathFactory, model_server: FakeModelServer, gemini_server: FakeGeminiServer
) -> LivedIn:
    """Two sessions of the user's in each installed client, the second the newest thing in the folder."""
    root = tmp_path_factory.mktemp("lived-in")
    homes = {"home": root / "home", "codex": root / "home" / ".codex", "claude": root / "home" / ".claude"}
    homes["smig"] = root / "smig"
    homes["home"].mkdir()
    project = root / "osprey-app"
    project.mkdir()
    home = LivedIn(root, homes, project, model_server, gemini_server)
    home.clients = {agent: path for agent in AGENTS if (path := _installed(agent))}
    if "codex" in home.clients:
        codex_home_for(homes, model_server)
    if "opencode" in home.clients:
        configure_opencode(homes, model_server)
    for prompt in ("an older session of the user's", "the user's newest session"):
        for agent in home.clients:
            if agent == "codex":
                home.run(agent, "exec", "--skip-git-repo-check", prompt)
            elif agent in ("claude", "gemini"):
                home.run(agent, "-p", prompt)
            else:
                home.run(agent, "run", prompt)
    return home


def _kept_lines(result: MigrationResult) -> list[str]:
    """The first line of every kept user or assistant text: what the resumed request must carry, in order."""
    lines = []
    for message in result.record.messages:
        if message.get("injected"):
            continue  # harness context (AGENTS.md): not carried as conversation
        if message["kind"] == Kind.TEXT.value and message["role"] in (Role.USER.value, Role.ASSISTANT.value):
            first = message["text"].strip().splitlines()[0] if message["text"].strip() else ""
            if len(first) >= 12:
                lines.append(first[:60])
    return lines


def _in_order(sent: str, texts: list[str]) -> bool:
    """Whether every text appears in `sent`, each after the one before."""
    position = 0
    for text in texts:
        found = sent.find(json.dumps(text, ensure_ascii=False)[1:-1], position)
        if found < 0:
            return False
        position = found
    return True


def _continue_latest(home: LivedIn, agent: str) -> dict[str, Any]:
    """Run the client's "continue the latest" with PROMPT in the project; the model request of that turn."""
    home.model_server.requests.clear()
    home.gemini_server.requests.clear()
    if agent == "codex":
        home.run(agent, "exec", "--skip-git-repo-check", "resume", "--last", PROMPT)
        bodies = home.model_server.bodies("/responses")
    elif agent == "claude":
        home.run(agent, "-p", "-c", PROMPT)
        bodies = [body for body in home.model_server.bodies("/messages") if carries_prompt(body, PROMPT)]
    elif agent == "gemini":
        home.run(agent, "--resume", "latest", "-p", PROMPT)
        bodies = home.gemini_server.turns()
    else:
        home.run(agent, "run", "-c", PROMPT)
        bodies = [body for body in home.model_server.bodies("/messages") if body.get("tools")]
    assert bodies, f"{agent} sent the model no request"
    return bodies[-1]


def _listed_first(home: LivedIn, agent: str) -> str | None:
    """The session the client's own list of the folder's sessions shows first (newest)."""
    if agent == "codex":  # the picker's list: Codex's app server, as `codex resume` asks it
        env = base_env(home.homes) | {"SMIG_FAKE_KEY": "test"}
        [answer] = ask(home.client(agent), env, [("thread/list", {"cwd": str(home.project)})], cwd=str(home.project))
        rows = answer["result"]["data"]
        return str(rows[0]["id"]) if rows else None
    if agent == "claude":  # its picker needs a terminal; it orders by the transcripts' modification time
        folder = next(home.homes["claude"].glob("projects/*osprey-app"))
        newest = max(folder.glob("*.jsonl"), key=lambda path: path.stat().st_mtime)
        return newest.stem
    if agent == "gemini":  # numbered oldest first: the newest is the last
        listed = home.run(agent, "--list-sessions").stdout
        ids = [line.rsplit("[", 1)[1].rstrip("]") for line in listed.splitlines() if line.rstrip().endswith("]")]
        return ids[-1] if ids else None
    listed = home.run(agent, "session", "list").stdout  # newest first
    rows = [line.split()[0] for line in listed.splitlines() if line.startswith("ses_")]
    return rows[0] if rows else None


@pytest.mark.parametrize("agent", AGENTS)
def test_the_client_continues_and_lists_the_migration_first(
    lived_in: LivedIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    lived_in.client(agent)  # skips when it is not installed
    lived_in.point_smig_here(monkeypatch)
    source = Agent("codex") if agent == "claude" else Agent("claude")
    session = make_session(tmp_path / "src", agent=source, cwd=str(lived_in.project))  # its last message: Jan 2026
    result = build_services().migrate(session, make_plan(session, target=TARGETS[agent]), {Destination(agent)})
    [output] = result.outputs
    smig_first = build_services().list_sessions(agent=Agent(agent))[0].id

    # "Continue the latest" first: Codex's picker list repairs its index as it lists, `--last` does not.
    sent = json.dumps(_continue_latest(lived_in, agent), ensure_ascii=False)
    listed = _listed_first(lived_in, agent)

    checks = {
        "continues the migration": result.migration_id in sent,
        "sends the kept history in order": _in_order(sent, [*_kept_lines(result), PROMPT]),
        "lists it first": listed == output.session_id,
        "smig lists it first": smig_first == output.session_id,
    }
    assert all(checks.values()), (checks, _kept_lines(result), sent[:6000])
    [fact] = result.continue_latest
    assert fact.migration and fact.picks == output.session_id, fact.sentence
    assert fact.sentence == f"`{fact.command}` in {lived_in.project} continues this migration."


def _gemini_files(home: LivedIn, session_id: str) -> list[Path]:
    """Every session file of the project whose first line names `session_id`."""
    chats = next(home.homes["home"].glob(".gemini/tmp/*/chats"))
    return sorted(
        path
        for path in chats.glob("session-*.jsonl")
        if json.loads(path.read_text(encoding="utf-8").splitlines()[0]).get("sessionId") == session_id
    )


def test_a_gemini_session_smig_wrote_survives_a_later_resume_and_the_next_run(
    lived_in: LivedIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 leaves a stub when a session is resumed in a later minute than its file name, and
    its next run deletes every file whose name ends like the stub's: with a UUID id, the conversation."""
    lived_in.client("gemini")
    lived_in.point_smig_here(monkeypatch)
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(lived_in.project))
    services = build_services()
    plan = make_plan(session, target="gemini-2.5-pro")
    committer = Committer(services.paths, services.store, services.agents, services.env)
    written = datetime.now(UTC) - timedelta(minutes=2)  # so the resume below falls in a later minute
    request = MigrationRequest(session, plan, migrated_messages(plan), to={Destination("gemini")}, now=written)
    result = committer.migrate(request)
    [output] = result.outputs

    lived_in.run("gemini", "--resume", output.session_id, "-p", "resumed two minutes later")
    stub = [path for path in _gemini_files(lived_in, output.session_id) if str(path) != output.path]
    listed = [info for info in build_services().list_sessions(agent=Agent("gemini")) if info.id == output.session_id]
    read = build_services().load_session(listed[0])
    lived_in.run("gemini", "-p", "the next run of the user's")  # the client's clean-up runs as it starts
    survived = [str(path) for path in _gemini_files(lived_in, output.session_id)]
    sent = json.dumps(_continue_with(lived_in, output.session_id), ensure_ascii=False)

    assert len(stub) == 1  # the client did leave its stub: the case this test is about
    assert [info.path for info in listed] == [output.path]  # smig reads one session, not the stub
    assert [m.text for m in read.messages if m.role is Role.USER][-1] == "resumed two minutes later"
    assert survived == [output.path]  # the clean-up removed the stub alone
    assert result.migration_id in sent and _in_order(sent, [*_kept_lines(result), "resumed two minutes later"])


def _continue_with(home: LivedIn, session_id: str) -> dict[str, Any]:
    """`gemini --resume ID -p PROMPT`; the model request of that turn."""
    home.gemini_server.requests.clear()
    home.run("gemini", "--resume", session_id, "-p", PROMPT)
    return home.gemini_server.turns()[-1]


def _fingerprints(home: LivedIn) -> dict[str, str]:
    """sha256 of the clients' own databases and registries (their `-shm` index files left out: any
    reader, the clients' own included, rewrites those)."""
    wanted = [
        *home.homes["codex"].glob("*.sqlite"),
        *home.homes["codex"].glob("*.sqlite-wal"),
        *home.homes["home"].glob(".local/share/opencode/*.db"),
        *home.homes["home"].glob(".local/share/opencode/*.db-wal"),
        *home.homes["home"].glob(".gemini/projects.json"),
        *home.homes["claude"].glob(".claude.json"),
    ]
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in wanted}


def test_a_commit_that_fails_leaves_the_clients_databases_byte_identical(
    lived_in: LivedIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every destination at once; the last file-only session fails its read-back after all were written."""
    for agent in AGENTS:
        lived_in.client(agent)
    lived_in.point_smig_here(monkeypatch)
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(lived_in.project))
    before = _fingerprints(lived_in)
    sessions_before = {info.id for info in build_services().list_sessions()}
    checked: list[str] = []

    def failing_verify(writer: Any, output: Any, expected: Any) -> None:
        checked.append(output.agent)
        if output.agent == "gemini":
            raise ReadBackError("the written Gemini CLI session reads back differently (a test's failure).")

    monkeypatch.setattr("smig_tui.adapters.migration_commit.verify", failing_verify)
    with pytest.raises(ReadBackError):
        build_services().migrate(
            session, make_plan(session, target="claude-sonnet-4-5"), {Destination(agent) for agent in AGENTS}
        )

    assert "gemini" in checked and "opencode" not in checked  # OpenCode's import comes after the files
    assert _fingerprints(lived_in) == before and len(before) >= 6
    assert {info.id for info in build_services().list_sessions()} == sessions_before


@pytest.mark.parametrize("agent", ["opencode", "codex"])
def test_a_commit_made_while_the_client_runs_keeps_the_clients_writes(
    lived_in: LivedIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """The client is mid-turn (its request held at the fake server) while smig commits into its home."""
    client = lived_in.client(agent)
    lived_in.point_smig_here(monkeypatch)
    argv = (
        [client, "run", "a turn in flight"]
        if agent == "opencode"
        else [client, "exec", "--skip-git-repo-check", "a turn in flight"]
    )
    env = base_env(lived_in.homes) | (OPENCODE_QUIET if agent == "opencode" else {"SMIG_FAKE_KEY": "test"})
    server = lived_in.model_server
    server.held.clear()
    server.release.clear()
    running = subprocess.Popen(
        argv,
        cwd=lived_in.project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert server.held.wait(CLIENT_TIMEOUT), "the client never reached the model"
        session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(lived_in.project))
        result = build_services().migrate(session, make_plan(session, target=TARGETS[agent]), {Destination(agent)})
    finally:
        server.release.set()
        out, err = running.communicate(timeout=CLIENT_TIMEOUT)
    assert running.returncode == 0, (out[-1000:], err[-2000:])
    [output] = result.outputs
    services = build_services()
    theirs = [
        texts
        for info in services.list_sessions(agent=Agent(agent), include_subagents=True)  # Codex hides `exec` threads
        if (texts := [m.text for m in services.load_session(info).messages if not m.injected])
        and "a turn in flight" in texts[0]
    ]
    assert len(theirs) == 1 and REPLY in theirs[0][-1]  # the client's turn, its reply included
    assert result.continue_latest[0].migration, result.continue_latest[0].sentence
    assert output.session_id in {info.id for info in services.list_sessions(agent=Agent(agent))}


def test_gemini_resends_earlier_tool_results_on_resume_and_smig_reads_each_once(
    lived_in: LivedIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 sends an earlier call's result again on every resume (from the call and from the
    user record after it) and stores a reply without its final newline. smig reads each result once, as
    the one result per call every other agent's API takes, and everything else item for item."""
    lived_in.client("gemini")
    lived_in.point_smig_here(monkeypatch)
    server = lived_in.gemini_server
    server.steps = [
        {"name": "run_shell_command", "args": {"command": "echo PHEASANT-12", "description": "echo"}},
        {"text": "It printed PHEASANT-12.\n"},
    ]
    lived_in.run("gemini", "-p", "PHEASANT-12: run echo", "--approval-mode", "yolo")
    [info] = [
        info for info in build_services().list_sessions(agent=Agent("gemini")) if info.title == "PHEASANT-12: run echo"
    ]
    for number in range(3):
        server.steps = [{"text": f"Answer {number}.\n"}]
        server.requests.clear()
        lived_in.run("gemini", "--resume", info.id, "-p", f"again {number}", "--approval-mode", "yolo")
    last = server.turns()[-1]
    read = session_items(build_services().load_session(build_services().find_session(info.id)))
    sent, once = request_items(last), request_items(last, once=True)

    # The one result, sent again: twice or three times, by whether a resume fell in a later minute
    # than the session file (a stub file then holds its own copy of the history).
    assert [item[0:2] for item in sent].count(("user", "result")) >= 2
    assert read[: len(once)] == once and read[len(once) :] == [("model", "text", "Answer 2.")]
    assert ("model", "text", "It printed PHEASANT-12.") in once  # stored and resent without its final newline


def _smig(*argv: str) -> str:
    """`smig ARGV` in-process; its stdout (fails the test on a non-zero exit)."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return out.stdout.getvalue()


def test_the_archive_keeps_a_gemini_session_the_clients_clean_up_deletes(
    lived_in: LivedIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session of the user's (a UUID id) resumed in a later minute than its file name is deleted by the
    next run. The client's stub is written here the way it writes it (its start record and its context
    block, named for the next minute) rather than by waiting a minute for the client to write it."""
    lived_in.client("gemini")
    lived_in.point_smig_here(monkeypatch)
    lived_in.run("gemini", "-p", "Remember the codeword HERON-451 for later")
    [info] = [i for i in build_services().list_sessions(agent=Agent("gemini")) if "HERON-451" in (i.title or "")]
    original = Path(info.path)
    _smig("archive")
    start, context = original.read_text(encoding="utf-8").splitlines()[:2]
    minute = datetime.now(UTC) + timedelta(minutes=1)
    stub = original.with_name(f"session-{minute.strftime('%Y-%m-%dT%H-%M')}-{info.id[:8]}.jsonl")
    stub.write_text(start + "\n" + context + "\n", encoding="utf-8")
    lived_in.run("gemini", "-p", "the next run of the user's")  # the client's clean-up runs as it starts
    gone = not original.exists() and not stub.exists()
    listed = [row for row in json.loads(_smig("list", "--json", "--all")) if row["id"] == info.id]
    restored = Path(_smig("archive", "restore", info.id).strip())
    sent = json.dumps(_continue_with(lived_in, info.id), ensure_ascii=False)

    assert gone  # the client deleted the conversation with its stub
    assert [row["archived"] for row in listed] == [True]
    assert restored == original and "Remember the codeword HERON-451 for later" in sent
