"""`CLAUDE_CODE_PROJECT_DIR_NAME`: with it set, the real Claude Code keeps every session in
`projects/<name>/`; a session smig writes there is the one it resumes.

Facts measured on Claude Code 2.1.332 (harness runs with the variable set): `my-custom-name`,
`MyName`, `my_name`, `-lead` and a 64-character name are used as given; `a.b`, `My.Name_1`, `a/b`,
`../up`, `.`, `..`, `a\\b`, `é` and names of 65+ characters are ignored (the cwd's usual folder).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.scan import project_dir_override
from smig_tui.adapters.agents.claude.writer import project_dir
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services


@pytest.mark.parametrize("name", ["my-custom-name", "MyName", "my_name", "-lead", "q" * 64])
def test_names_claude_code_uses(name: str) -> None:
    assert project_dir_override({"CLAUDE_CODE_PROJECT_DIR_NAME": name}) == name


@pytest.mark.parametrize("name", ["", "a.b", "My.Name_1", "a/b", "../up", ".", "..", "a\\b", "é", "w" * 65])
def test_names_claude_code_ignores(name: str) -> None:
    assert project_dir_override({"CLAUDE_CODE_PROJECT_DIR_NAME": name}) is None


def test_the_writer_uses_the_named_folder_for_any_cwd(isolated_homes: dict[str, Path]) -> None:
    env = dict(os.environ, CLAUDE_CODE_PROJECT_DIR_NAME="shared-box")
    assert (
        project_dir(claude_home(env), "/home/a/one")
        == project_dir(claude_home(env), "/srv/two")
        == claude_home().projects / "shared-box"
    )
    assert project_dir(claude_home(dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="a.b")), "/srv/two").name == "-srv-two"


def _claude() -> str:
    folder = os.environ.get("SMIG_E2E_BIN")
    if not folder:
        pytest.skip("SMIG_E2E_BIN is not set (the real clients are not installed)")
    found = Path(folder) / "claude"
    if not found.is_file():
        pytest.skip(f"claude is not installed in {folder}")
    return str(found)


@pytest.mark.e2e
def test_claude_code_resumes_a_session_written_under_the_named_folder(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = _claude()
    monkeypatch.setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "named-box")
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session), {Destination("claude")})
    [output] = result.outputs
    assert Path(output.path).parent == isolated_homes["claude"] / "projects" / "named-box"
    with FakeModelServer() as server:
        env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
        env |= {
            "HOME": str(isolated_homes["home"]),
            "CLAUDE_CONFIG_DIR": str(isolated_homes["claude"]),
            "CLAUDE_CODE_PROJECT_DIR_NAME": "named-box",
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "NO_COLOR": "1",
            "CI": "1",
        }
        run = subprocess.run(
            [claude, "-p", "--resume", output.session_id, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            stdin=subprocess.DEVNULL,
        )
        bodies = [body for body in server.bodies("/messages") if body.get("messages")]
    assert run.returncode == 0, run.stderr[-2000:]
    assert REPLY in run.stdout
    sent = json.dumps([body["messages"] for body in bodies], ensure_ascii=False)
    assert result.migration_id in sent  # the migrated history reached the model
    assert sorted(path.name for path in (isolated_homes["claude"] / "projects").iterdir()) == ["named-box"]
