"""Proves the Gemini CLI reader and writer against the real Gemini CLI (0.61.0) and a fake Gemini API.

The reader must see what the client sent the model; a session smig writes for Gemini CLI must be
resumed by `gemini --resume ID` with the migrated history in its request; a Gemini session migrated
to Codex and Claude Code must be resumed by those real clients. Skips when the clients are missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_env import (
    claude_env,
    client_binary,
    codex_home_for,
    distinctive_texts,
    install_fixture,
    run_client,
    shared_fixtures_dir,
)
from fake_gemini_server import REPLY, FakeGeminiServer
from fake_model_server import REPLY as OTHER_REPLY
from fake_model_server import FakeModelServer
from gemini_client import run_gemini
from gemini_items import request_items, session_items
from migration_builders import make_plan, make_session
from real_clients import install_gemini_source

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Plan, Session, Strategy
from smig_tui.core.native import Destination
from smig_tui.services import Services, build_services

pytestmark = pytest.mark.e2e


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "osprey-app"
    project.mkdir()
    (project / "notes.txt").write_text("PELICAN-77 is the release codename.\n", encoding="utf-8")
    return project


def test_smig_reads_a_real_gemini_session_as_the_client_sent_it(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = _project(tmp_path)
    steps = [
        {
            "thought": "**Plan** read the notes",
            "text": "Reading.",
            "name": "read_file",
            "args": {"file_path": "notes.txt"},
        },
        {"name": "run_shell_command", "args": {"command": "echo ünïcode ✓", "description": "echo"}},
    ]
    with FakeGeminiServer(steps=steps) as server:
        run_gemini(
            isolated_homes["home"], project, server, "-p", "OSPREY-93: find the codename", "--approval-mode", "yolo"
        )
        last = server.turns()[-1]
    [info] = build_services().list_sessions(agent=Agent("gemini"))
    session = build_services().load_session(info)
    sent = request_items(last)
    assert info.cwd == str(project) and info.title == "OSPREY-93: find the codename"
    assert len(sent) == 6 and session_items(session)[: len(sent)] == sent
    assert session_items(session)[len(sent) :] == [("model", "text", REPLY)]
    assert session.measured_context_tokens and info.context_tokens == session.measured_context_tokens


def _small_target(services: Services, session: Session) -> str:
    """A Google model in the config whose window holds about half of the session, so truncation drops some."""
    tokens = services.plan(session, "gemini-2.5-pro", Strategy.AS_IS).tokens_before
    config = services.paths.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[models."half-gemini"]\ncontext_window = {tokens // 2 + 500}\nmax_output = 500\n'
        'provider = "google"\nencoding = "o200k_base"\n',
        encoding="utf-8",
    )
    return "half-gemini"


@pytest.mark.parametrize("strategy", [Strategy.AS_IS, Strategy.TRUNCATE])
@pytest.mark.parametrize("agent", [Agent("claude"), Agent("codex")])
def test_gemini_resumes_a_migrated_claude_or_codex_session(
    isolated_homes: dict[str, Path], tmp_path: Path, agent: Agent, strategy: Strategy
) -> None:
    if not (shared_fixtures_dir()).is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    project = _project(tmp_path)
    session = install_fixture("shared", agent, shared_fixtures_dir(), isolated_homes, project, tmp_path)
    services = build_services()
    target = "gemini-2.5-pro" if strategy is Strategy.AS_IS else _small_target(services, session)
    services = build_services()
    plan: Plan = services.plan(session, target, strategy)
    assert (plan.placeholder is not None) == (strategy is Strategy.TRUNCATE)
    result = services.migrate(session, plan, {Destination("gemini")})
    [output] = result.outputs
    expected = distinctive_texts(result)
    before = Path(output.path).stat().st_size
    with FakeGeminiServer() as server:
        run = run_gemini(isolated_homes["home"], project, server, "--resume", output.session_id, "-p", "continue")
        sent = json.dumps(server.turns()[-1], ensure_ascii=False)
    assert REPLY in run.stdout
    for text in [NOTE_PREFIX, result.migration_id, *expected, "continue"]:
        assert json.dumps(text, ensure_ascii=False)[1:-1] in sent, text
    if strategy is Strategy.TRUNCATE:
        assert plan.placeholder and json.dumps(plan.placeholder.split("«")[0], ensure_ascii=False)[1:-1] in sent
    assert Path(output.path).stat().st_size > before  # resumed in place: the same session file


def _gemini_source(isolated_homes: dict[str, Path], project: Path) -> Session:
    """The recorded Gemini session in the temp home, its project folder pointed at `project`."""
    services = build_services()
    info = services.find_session(install_gemini_source(isolated_homes, project))
    assert info.cwd == str(project)
    return services.load_session(info)


@pytest.mark.parametrize("keep_last", [None, 4])
def test_codex_and_claude_resume_a_migrated_gemini_session(
    isolated_homes: dict[str, Path], tmp_path: Path, keep_last: int | None
) -> None:
    claude, codex = client_binary("claude"), client_binary("codex")
    project = _project(tmp_path)
    session = _gemini_source(isolated_homes, project)
    with FakeModelServer() as server:
        codex_home_for(isolated_homes, server)
        services = build_services()
        to_claude = services.migrate(
            session, make_plan(session, "claude-sonnet-4-5", keep_last), {Destination("claude")}
        )
        to_codex = services.migrate(session, make_plan(session, "gpt-5.5", keep_last), {Destination("codex")})
        claude_run = run_client(
            [claude, "-p", "--resume", to_claude.outputs[0].session_id, "continue"],
            project,
            claude_env(isolated_homes, server),
        )
        to_anthropic = json.dumps(server.bodies("/messages"), ensure_ascii=False)
        codex_run = run_client(
            [codex, "exec", "--skip-git-repo-check", "resume", to_codex.outputs[0].session_id, "continue"],
            project,
            claude_env(isolated_homes, server) | {"SMIG_FAKE_KEY": "test"},
        )
        to_openai = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    assert OTHER_REPLY in claude_run.stdout and OTHER_REPLY in codex_run.stdout
    for sent, result in ((to_anthropic, to_claude), (to_openai, to_codex)):
        assert result.migration_id in sent and "It was notes.txt, in the project root." in sent
        assert "from gemini session 91ffce34-43fe-493b-adc5-17413feeec43" in sent
        assert "<session_context>" not in sent  # Gemini CLI's own context is not carried over
        if keep_last:
            assert "earlier messages omitted" in sent and "Let me read the notes." not in sent  # dropped
        else:
            assert "PELICAN-77 is the release codename." in sent  # a tool result, flattened to text


def _lay_out(project: Path, shape: str) -> None:
    """A project folder of one shape: empty, a few files, a nested tree past the 200 entries the client
    lists, or a git work tree."""
    project.mkdir()
    if shape == "files":
        for number in range(12):
            (project / f"notes_{number:02d}.md").write_text("x")
    elif shape == "tree":
        for package in range(8):
            folder = project / f"package_{package}" / "src"
            folder.mkdir(parents=True)
            for number in range(30):
                (folder / f"module_{number:02d}.py").write_text("x")
    elif shape == "git":
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (project / "README.md").write_text("x")


@pytest.fixture
def short_root() -> Iterator[Path]:
    """A new folder of the same short path length in every run (`/tmp/smig-gemini-XXXXXXXX`).

    Gemini CLI's request shows the project folder's path and its own temp folder in the home twice each
    (about 0.8 o200k tokens a character): under pytest's temp folders the count grew with the run's
    number and the test's name, and under `pytest -n` by another 20 tokens (`popen-gw0/`).
    """
    root = Path(tempfile.mkdtemp(prefix="smig-gemini-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("shape", ["empty", "files", "tree", "git"])
def test_the_gemini_overhead_smig_plans_with_is_what_the_client_adds_to_a_request(
    short_root: Path, exact_tokens: None, shape: str
) -> None:
    """System prompt, tool definitions and `<session_context>` of a fresh home's first request, by o200k,
    against the overhead smig plans with for that project folder: the shipped figure (an empty folder)
    plus what the client shows of the folder (its listing, up to 200 entries) and its git section. The
    home and the project are in `short_root`, so where pytest keeps its temp files does not move the count."""
    from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

    project = short_root / shape
    _lay_out(project, shape)
    (short_root / "home").mkdir()
    with FakeGeminiServer() as server:
        run_gemini(short_root / "home", project, server, "-p", "hello there")
        body = server.turns()[-1]
    counter = make_counter("o200k_base")
    system = "".join(part.get("text", "") for part in body["systemInstruction"]["parts"])
    context = [
        part["text"]
        for content in body["contents"]
        for part in content["parts"]
        if part.get("text") and part["text"] != "hello there"
    ]
    measured = (
        counter.count(system)
        + counter.count(json.dumps(body["tools"], ensure_ascii=False))
        + sum(counter.count(text) for text in context)
    )
    services = build_services()
    planned = services.overhead_for(services.capacities.lookup("gemini-2.5-pro"), "gemini", str(project))
    assert planned is not None and planned.source.startswith("measured with Gemini CLI 0.61.0")
    assert abs(measured - planned.tokens) <= 60  # the date and the temp paths in the context vary a little


def test_gemini_resumes_a_truncated_gemini_session_smig_wrote(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """Gemini to Gemini: the recorded session cut to its newest messages, written beside the original."""
    project = _project(tmp_path)
    session = _gemini_source(isolated_homes, project)
    result = build_services().migrate(
        session, make_plan(session, "gemini-2.5-pro", keep_last=4), {Destination("gemini")}
    )
    [output] = result.outputs
    assert Path(output.path).parent == isolated_homes["home"] / ".gemini" / "tmp" / "osprey-app" / "chats"
    with FakeGeminiServer() as server:
        run_gemini(isolated_homes["home"], project, server, "--resume", output.session_id, "-p", "continue")
        sent = json.dumps(server.turns()[-1], ensure_ascii=False)
    assert result.migration_id in sent and "earlier messages omitted" in sent
    assert "It was notes.txt, in the project root." in sent and "Let me read the notes." not in sent


def test_resume_latest_continues_the_migration_not_an_older_session_of_the_user(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`gemini --resume latest` picks by `startTime`; the user's own session there started after the
    migrated conversation's first message, yet the migration, written later, is the latest."""
    project = _project(tmp_path)
    with FakeGeminiServer() as server:
        run_gemini(isolated_homes["home"], project, server, "-p", "an earlier session of the user's")
        session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
        result = build_services().migrate(session, make_plan(session, "gemini-2.5-pro"), {Destination("gemini")})
        server.requests.clear()
        run_gemini(isolated_homes["home"], project, server, "--resume", "latest", "-p", "continue")
        sent = json.dumps(server.turns()[-1], ensure_ascii=False)
    assert result.migration_id in sent and "OSPREY-93" in sent
    assert "an earlier session of the user's" not in sent


def test_a_session_written_into_an_older_hash_folder_is_carried_over_by_the_client(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """Before slugs, Gemini CLI named a project's folder by the sha256 of its path, and it copies such a
    folder to the slug folder on start. smig writes into it, so the user's older sessions still move."""
    from smig_tui.adapters.agents.gemini.layout import project_hash

    project = _project(tmp_path)
    legacy = isolated_homes["home"] / ".gemini" / "tmp" / project_hash(str(project))
    (legacy / "chats").mkdir(parents=True)
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    [output] = build_services().migrate(session, make_plan(session, "gemini-2.5-pro"), {Destination("gemini")}).outputs
    assert Path(output.path).parent == legacy / "chats"
    with FakeGeminiServer() as server:
        run_gemini(isolated_homes["home"], project, server, "--resume", output.session_id, "-p", "continue")
        sent = json.dumps(server.turns()[-1], ensure_ascii=False)
    assert "OSPREY-93" in sent
    slug_copy = isolated_homes["home"] / ".gemini" / "tmp" / "osprey-app" / "chats" / Path(output.path).name
    assert slug_copy.is_file()  # the client moved the folder over, the migration with it
