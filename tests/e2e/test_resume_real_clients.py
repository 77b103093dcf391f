"""Proves a migrated session resumes in the real Claude Code and Codex CLIs.

smig migrates a session into temp agent homes; the real client resumes it non-interactively against
a fake model server on 127.0.0.1, and the request the client sent must carry the migrated history.
Skips when the clients are not installed (`.ci/run` installs them from npm into SMIG_E2E_BIN).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer
from migration_builders import make_plan, make_session

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent, Kind, Plan, PlanItem, Role, Session, Strategy
from smig_tui.core.native import Destination
from smig_tui.services import Services, build_services

pytestmark = pytest.mark.e2e

_DEFAULT_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-e2e" / "node_modules" / ".bin"
CLIENT_TIMEOUT = 240


def _client(name: str) -> str:
    """The installed client binary, or skip."""
    for folder in (os.environ.get("SMIG_E2E_BIN"), str(_DEFAULT_BIN)):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    found = shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (set SMIG_E2E_BIN or run .ci/run)")
    return found


def _base_env(homes: dict[str, Path]) -> dict[str, str]:
    """A clean environment: temp homes only, nothing from a real profile or a parent agent."""
    env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
    env.update(
        HOME=str(homes["home"]),
        CODEX_HOME=str(homes["codex"]),
        CLAUDE_CONFIG_DIR=str(homes["claude"]),
        NO_COLOR="1",
        CI="1",
    )
    return env


def _plan(services: Services, session: Session, target: str) -> Plan:
    """The real planner's as-is plan when it is there; else every message kept."""
    planner = getattr(services, "plan", None)
    if planner is not None:
        return planner(session, target, Strategy.AS_IS)
    from smig_tui.core.models import Decision

    items = tuple(PlanItem(message=m, tokens=1, kept=True, reason="as-is") for m in session.messages)
    decision = Decision(target=target, session_tokens=len(items), window=10**6, reserve=0, fits=True)
    return Plan(strategy=Strategy.AS_IS, decision=decision, items=items)


def _install_fixture(
    kind: str, agent: Agent, shared: Path | None, homes: dict[str, Path], project: Path, tmp_path: Path
) -> Session:
    """Put a source session in the temp homes, its cwd pointed at a real folder, and read it."""
    services = build_services()
    if kind == "built":
        session = make_session(tmp_path / "src", agent=agent, cwd=str(project))
        return session
    assert shared is not None
    if agent == Agent("codex"):
        original = shared / "codex" / "jazzyalex__agent-sessions__stage0-codex-small.jsonl"
        text = original.read_text(encoding="utf-8").replace('"/tmp/repo', json.dumps(str(project))[:-1])
        thread = json.loads(text.splitlines()[0])["payload"]["id"]
        target = homes["codex"] / "sessions" / "2026" / "08" / "03" / f"rollout-2026-08-03T10-48-56-{thread}.jsonl"
    else:
        original = shared / "claude" / "marot__spotter__short.jsonl"
        old = "/home/marco/projects/spotter"
        text = original.read_text(encoding="utf-8").replace(json.dumps(old)[:-1], json.dumps(str(project))[:-1])
        sid = next(json.loads(line)["sessionId"] for line in text.splitlines() if '"sessionId"' in line)
        target = homes["claude"] / "projects" / "spotter" / f"{sid}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    info = services.find_session(str(target))
    return services.load_session(info)


def _carries_prompt(body: dict, prompt: str) -> bool:
    """True when a user message anywhere in the request is the prompt (Claude Code 2.1.332 appends a
    `role: "system"` environment message after it, so the prompt is not always the last message)."""
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else content or []
        texts = [b if isinstance(b, str) else b.get("text", "") for b in blocks if isinstance(b, (str, dict))]
        if any(text.strip() == prompt for text in texts):
            return True
    return False


def _distinctive_texts(result: MigrationResult) -> list[str]:
    """Texts from the migrated conversation the resumed request must carry."""
    texts = []
    for message in result.record.messages:
        if message["kind"] == Kind.TEXT.value and message["role"] in (Role.USER.value, Role.ASSISTANT.value):
            line = message["text"].strip().splitlines()[0] if message["text"].strip() else ""
            if len(line) >= 12:
                texts.append(line[:60])
    assert texts, "the fixture has no prose to look for"
    return [texts[0], texts[-1]]


@pytest.fixture(params=["built", "shared"])
def source_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "shared" and not (Path(__file__).parents[2].parent / "shared" / "fixtures").is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    return str(request.param)


def _shared() -> Path:
    return Path(__file__).parents[2].parent / "shared" / "fixtures"


def test_claude_code_resumes_a_migrated_codex_session(
    isolated_homes: dict[str, Path], tmp_path: Path, source_kind: str
) -> None:
    claude = _client("claude")
    project = tmp_path / "project"
    project.mkdir()
    session = _install_fixture(source_kind, Agent("codex"), _shared(), isolated_homes, project, tmp_path)
    services = build_services()
    result = services.migrate(session, _plan(services, session, "claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    expected = _distinctive_texts(result)
    before = Path(output.path).stat().st_size
    with FakeModelServer() as server:
        env = _base_env(isolated_homes) | {
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
    main = [s for s, b in zip(sent, bodies, strict=True) if _carries_prompt(b, "continue")]
    assert main, "no request carried the new prompt"
    for text in [NOTE_PREFIX, result.migration_id, *expected]:
        assert any(json.dumps(text, ensure_ascii=False)[1:-1] in s for s in main), text
    assert Path(output.path).stat().st_size > before  # resumed in place: the same session id and file


def test_codex_resumes_a_migrated_claude_session(
    isolated_homes: dict[str, Path], tmp_path: Path, source_kind: str
) -> None:
    codex = _client("codex")
    project = tmp_path / "project"
    project.mkdir()
    session = _install_fixture(source_kind, Agent("claude"), _shared(), isolated_homes, project, tmp_path)
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
        expected = _distinctive_texts(result)
        before = Path(output.path).stat().st_size
        env = _base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
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
    claude = _client("claude")
    project = tmp_path / ("long-" + "a" * 110) / ("deeper-" + "b" * 110)
    project.mkdir(parents=True)
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    assert len(Path(output.path).parent.name) > 200
    with FakeModelServer() as server:
        env = _base_env(isolated_homes) | {
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
    codex = _client("codex")
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
        env = _base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
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
    claude = _client("claude")
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
    [output] = result.outputs
    before = Path(output.path).stat().st_size
    with FakeModelServer() as server:
        env = _base_env(isolated_homes) | {
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
    codex = _client("codex")
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
        env = _base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
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


def _claude_env(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    return _base_env(homes) | {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def _codex_home(homes: dict[str, Path], server: FakeModelServer) -> None:
    homes["codex"].mkdir(parents=True, exist_ok=True)
    (homes["codex"] / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
        encoding="utf-8",
    )


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def test_claude_continues_the_migration_not_a_session_the_user_had_there(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`claude -p -c` after a migration continues it, though the folder holds a session of the user's
    modified after the migrated conversation's last message (the file is dated when it is written)."""
    claude = _client("claude")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        env = _claude_env(isolated_homes, server)
        _run([claude, "-p", "an earlier session of the user's"], project, env)
        [theirs] = list(isolated_homes["claude"].rglob("*.jsonl"))
        session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
        services = build_services()
        result = services.migrate(session, make_plan(session, target="claude-sonnet-4-5"), {Destination("claude")})
        [output] = result.outputs
        theirs_size, before = theirs.stat().st_size, Path(output.path).stat().st_size
        server.requests.clear()
        _run([claude, "-p", "-c", "continue"], project, env)
        sent = json.dumps(server.bodies("/messages"), ensure_ascii=False)
    assert result.migration_id in sent and "OSPREY-93" in sent
    assert Path(output.path).stat().st_size > before and theirs.stat().st_size == theirs_size


def _codex_threads(homes: dict[str, Path], cwd: Path) -> list[dict[str, Any]]:
    """Codex's own thread list (`codex app-server` `thread/list`), through the shared harness."""
    lister = Path(__file__).parents[2].parent / "shared" / "harness" / "codex_threads.py"
    if not lister.is_file():
        pytest.skip("../shared/harness is not present (fresh clone)")
    env = dict(os.environ, PEERS_BIN=str(Path(_client("codex")).parent))
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
    codex = _client("codex")
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        _codex_home(isolated_homes, server)
        env = _base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"}
        # A thread of the user's in the same folder, modified after the migrated conversation ended.
        session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(project))
        services = build_services()
        first = services.migrate(session, make_plan(session), {Destination("codex")}).outputs[0]
        os.utime(first.path, (time.time() - 60,) * 2)  # long after its conversation ended
        result = services.migrate(session, make_plan(session, target="tiny", keep_last=2), {Destination("codex")})
        [output] = result.outputs
        threads = _codex_threads(isolated_homes, project)
        before = Path(output.path).stat().st_size
        run = _run([codex, "exec", "--skip-git-repo-check", "resume", "--last", "continue"], project, env)
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
    claude, codex = _client("claude"), _client("codex")
    recorded, moved = tmp_path / "old" / "repo", tmp_path / "clone" / "repo"
    moved.mkdir(parents=True)
    with FakeModelServer() as server:
        _codex_home(isolated_homes, server)
        services = build_services()
        to_claude = make_session(tmp_path / "a", agent=Agent("codex"), cwd=str(recorded))
        to_codex = make_session(tmp_path / "b", agent=Agent("claude"), cwd=str(recorded))
        claude_id = services.migrate(
            to_claude, make_plan(to_claude, target="claude-sonnet-4-5"), {Destination("claude")}, cwd=str(moved)
        ).migration_id
        codex_id = services.migrate(to_codex, make_plan(to_codex), {Destination("codex")}, cwd=str(moved)).migration_id
        _run([claude, "-p", "-c", "continue"], moved, _claude_env(isolated_homes, server))
        to_anthropic = json.dumps(server.bodies("/messages"), ensure_ascii=False)
        _run(
            [codex, "exec", "--skip-git-repo-check", "resume", "--last", "continue"],
            moved,
            _base_env(isolated_homes) | {"SMIG_FAKE_KEY": "test"},
        )
        to_openai = json.dumps(server.bodies("/responses"), ensure_ascii=False)
    for sent, migration_id in ((to_anthropic, claude_id), (to_openai, codex_id)):
        assert migration_id in sent and "OSPREY-93" in sent
        assert f"it was recorded in {recorded}" in sent
