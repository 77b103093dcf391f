"""Proves a migrated session resumes in the real Claude Code and Codex CLIs.

smig migrates a session into temp agent homes; the real client resumes it non-interactively against
a fake model server on 127.0.0.1, and the request the client sent must carry the migrated history.
Skips when the clients are not installed (`.ci/run` installs them from npm into SMIG_E2E_BIN).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from client_env import client_binary

sys.path.insert(0, str(Path(__file__).parent))
from client_env import (
    CLIENT_TIMEOUT,
    base_env,
    carries_prompt,
    claude_env,
    codex_home_for,
    distinctive_texts,
    install_fixture,
    run_client,
    shared_fixtures_dir,
)
from fake_model_server import REPLY, FakeModelServer
from migration_builders import make_plan, make_session

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Plan, PlanItem, Session, Strategy
from smig_tui.core.native import Destination
from smig_tui.services import Services, build_services

pytestmark = pytest.mark.e2e


def _plan(services: Services, session: Session, target: str) -> Plan:
    """The real planner's as-is plan when it is there; else every message kept."""
    planner = getattr(services, "plan", None)
    if planner is not None:
        return planner(session, target, Strategy.AS_IS)
    from smig_tui.core.models import Decision

    items = tuple(PlanItem(message=m, tokens=1, kept=True, reason="as-is") for m in session.messages)
    decision = Decision(target=target, session_tokens=len(items), window=10**6, reserve=0, fits=True)
    return Plan(strategy=Strategy.AS_IS, decision=decision, items=items)


@pytest.fixture(params=["built", "shared"])
def source_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "shared" and not shared_fixtures_dir().is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    return str(request.param)


def test_claude_code_resumes_a_migrated_codex_session(
    isolated_homes: dict[str, Path], tmp_path: Path, source_kind: str
) -> None:
    claude = client_binary("claude")
    project = tmp_path / "project"
    project.mkdir()
    session = install_fixture(source_kind, Agent("codex"), shared_fixtures_dir(), isolated_homes, project, tmp_path)
    services = build_services()
    result = services.migrate(session, _plan(services, session, "claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    expected = distinctive_texts(result)
    before = Path(output.path).stat().st_size
    with FakeModelServer() as server:
        env = base_env(isolated_homes) | {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        run = subprocess.run(
            [claude, "-p", "--resume", output.session_id, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        bodies = [b for b in server.bodies("/messages") if b.get("messages")]
    assert run.returncode == 0, run.stderr[-2000:]
    assert REPLY in run.stdout
    sent = [json.dumps(b, ensure_ascii=False) for b in bodies]
    main = [s for s, b in zip(sent, bodies, strict=True) if carries_prompt(b, "continue")]
    assert main, "no request carried the new prompt"
    for text in [NOTE_PREFIX, result.migration_id, *expected]:
        assert any(json.dumps(text, ensure_ascii=False)[1:-1] in s for s in main), text
    assert Path(output.path).stat().st_size > before  # resumed in place: the same session id and file


def test_codex_resumes_a_migrated_claude_session(
    isolated_homes: dict[str, Path], tmp_path: Path, source_kind: str
) -> None:
    codex = client_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    session = install_fixture(source_kind, Agent("claude"), shared_fixtures_dir(), isolated_homes, project, tmp_path)
    with FakeModelServer() as server:
        isolated_homes["codex"].mkdir(parents=True, exist_ok=True)
        (isolated_homes["codex"] / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
            encoding="utf-8",
        )
        services = build_services()
        result = services.migrate(session, _plan(services, session, "gpt-5.5"), {Destination("codex")})
        [output] = result.outputs
        expected = distinctive_texts(result)
        before = Path(output.path).stat().st_size
        env = base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        run = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", "resume", output.session_id, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        bodies = server.bodies("/responses")
    assert run.returncode == 0, run.stderr[-2000:]
    assert REPLY in run.stdout
    assert bodies, "codex sent no Responses request"
    sent = json.dumps(bodies[-1], ensure_ascii=False)
    for text in [NOTE_PREFIX, result.migration_id, *expected, "continue"]:
        assert json.dumps(text, ensure_ascii=False)[1:-1] in sent, text
    assert "You are Codex" in sent  # Codex kept its own instructions: the rollout did not replace them
    assert Path(output.path).stat().st_size > before  # resumed in place, appended to the same rollout


def test_claude_code_finds_a_session_written_for_a_cwd_over_200_characters(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    claude = client_binary("claude")
    project = tmp_path / ("long-" + "a" * 110) / ("deeper-" + "b" * 110)
    project.mkdir(parents=True)
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    assert len(Path(output.path).parent.name) > 200
    with FakeModelServer() as server:
        env = base_env(isolated_homes) | {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        run = subprocess.run(
            [claude, "-p", "--resume", output.session_id, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        sent = json.dumps(server.bodies("/messages"), ensure_ascii=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "OSPREY-93" in sent and "PELICAN-77" in sent
    # Resumed in place: the one transcript with this id is still the file smig wrote, in its folder.
    assert [p.parent for p in isolated_homes["claude"].rglob(f"{output.session_id}.jsonl")] == [
        Path(output.path).parent
    ]


def test_codex_lists_the_migrated_session_as_the_latest(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """`resume --last` goes through Codex's listing (file name, head, source and provider filters)."""
    codex = client_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    with FakeModelServer() as server:
        isolated_homes["codex"].mkdir(parents=True, exist_ok=True)
        (isolated_homes["codex"] / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
            encoding="utf-8",
        )
        services = build_services()
        result = services.migrate(session, make_plan(session), {Destination("codex")})
        [output] = result.outputs
        before = Path(output.path).stat().st_size
        env = base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        run = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", "resume", "--last", "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        sent = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "OSPREY-93" in sent and result.migration_id in sent
    assert Path(output.path).stat().st_size > before


def test_claude_code_continues_the_migrated_session_as_the_latest_in_its_folder(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`claude -c` finds sessions through the project folder of the cwd, not by id."""
    claude = client_binary("claude")
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    before = Path(output.path).stat().st_size
    with FakeModelServer() as server:
        env = base_env(isolated_homes) | {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        run = subprocess.run(
            [claude, "-p", "-c", "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        sent = json.dumps(server.bodies("/messages"), ensure_ascii=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "OSPREY-93" in sent and result.migration_id in sent
    assert Path(output.path).stat().st_size > before


def test_codex_resumes_a_truncated_migration_with_its_placeholder(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    codex = client_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
    with FakeModelServer() as server:
        isolated_homes["codex"].mkdir(parents=True, exist_ok=True)
        (isolated_homes["codex"] / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
            encoding="utf-8",
        )
        services = build_services()
        result = services.migrate(session, make_plan(session, keep_last=2), {Destination("codex")})
        [output] = result.outputs
        env = base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        run = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", "resume", output.session_id, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        sent = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (
        "[smig: 9 earlier messages omitted (90 tokens)" in sent
        and "9 earlier messages (90 tokens) were left out" in sent
    )
    assert "OSPREY-93" in sent and "test_osprey" in sent
    assert "PELICAN-77" not in sent  # dropped by the plan, so never sent


def test_claude_continues_the_migration_not_a_session_the_user_had_there(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`claude -p -c` after a migration continues it, though the folder holds a session of the user's
    modified after the migrated conversation's last message (the file is dated when it is written)."""
    claude = client_binary("claude")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        env = claude_env(isolated_homes, server)
        run_client([claude, "-p", "an earlier session of the user's"], project, env)
        [theirs] = list(isolated_homes["claude"].rglob("*.jsonl"))
        session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
        services = build_services()
        result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
        [output] = result.outputs
        theirs_size, before = theirs.stat().st_size, Path(output.path).stat().st_size
        server.requests.clear()
        run_client([claude, "-p", "-c", "continue"], project, env)
        sent = json.dumps(server.bodies("/messages"), ensure_ascii=False)
    assert result.migration_id in sent and "OSPREY-93" in sent
    assert Path(output.path).stat().st_size > before and theirs.stat().st_size == theirs_size


def _codex_threads(homes: dict[str, Path], cwd: Path) -> list[dict[str, Any]]:
    """Codex's own thread list (`codex app-server` `thread/list`), through the shared harness."""
    lister = Path(__file__).parents[2].parent / "shared" / "harness" / "codex_threads.py"
    if not lister.is_file():
        pytest.skip("../shared/harness is not present (fresh clone)")
    env = dict(os.environ, PEERS_BIN=str(Path(client_binary("codex")).parent))
    run = subprocess.run(
        [sys.executable, str(lister), str(homes["codex"]), str(cwd)],
        env=env,
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
    )
    answer = json.loads(run.stdout)
    assert answer["error"] is None, answer
    return list(answer["threads"])


def test_codex_lists_the_migration_first_with_a_readable_name_and_continues_it(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    codex = client_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        codex_home_for(isolated_homes, server)
        env = base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        # A thread of the user's in the same folder, modified after the migrated conversation ended.
        session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
        services = build_services()
        first = services.migrate(session, make_plan(session), {Destination("codex")}).outputs[0]
        os.utime(first.path, (time.time() - 60,) * 2)  # long after its conversation ended
        result = services.migrate(session, make_plan(session, target="tiny", keep_last=2), {Destination("codex")})
        [output] = result.outputs
        threads = _codex_threads(isolated_homes, project)
        before = Path(output.path).stat().st_size
        run = run_client([codex, "exec", "--skip-git-repo-check", "resume", "--last", "continue"], project, env)
        sent = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    assert [thread["id"] for thread in threads] == [output.session_id, first.session_id]
    newest = threads[0]
    assert newest["name"] == "↪ from claude: Fix the flaky parser"
    assert not newest["preview"].startswith("[smig") and "OSPREY-93" in newest["preview"]
    assert newest["model"] == "gpt-5.5"  # a model Codex runs, not the planning target "tiny"
    assert result.migration_id in sent and "[smig: 9 earlier messages omitted (90 tokens)" in sent
    assert Path(output.path).stat().st_size > before
    assert "recorded with model" not in run.stderr


def test_both_clients_continue_a_session_written_for_another_folder(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`--cwd`: a session recorded in one folder lands in another (a moved or cloned repository)."""
    claude, codex = client_binary("claude"), client_binary("codex")
    recorded, moved = tmp_path / "old" / "repo", tmp_path / "clone" / "repo"
    moved.mkdir(parents=True)
    with FakeModelServer() as server:
        codex_home_for(isolated_homes, server)
        services = build_services()
        to_claude = make_session(tmp_path / "a", agent=Agent("codex"), cwd=str(recorded))
        to_codex = make_session(tmp_path / "b", agent=Agent("claude"), cwd=str(recorded))
        claude_id = services.migrate(
            to_claude, make_plan(to_claude, target="claude-sonnet-4-5"), {Destination("claude")}, cwd=str(moved)
        ).migration_id
        codex_id = services.migrate(to_codex, make_plan(to_codex), {Destination("codex")}, cwd=str(moved)).migration_id
        run_client([claude, "-p", "-c", "continue"], moved, claude_env(isolated_homes, server))
        to_anthropic = json.dumps(server.bodies("/messages"), ensure_ascii=False)
        run_client(
            [codex, "exec", "--skip-git-repo-check", "resume", "--last", "continue"],
            moved,
            base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"},
        )
        to_openai = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    for sent, migration_id in ((to_anthropic, claude_id), (to_openai, codex_id)):
        assert migration_id in sent and "OSPREY-93" in sent
        assert f"it was recorded in {recorded}" in sent
