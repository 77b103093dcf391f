"""Pi's `sessionDir` setting moves its session folder, for smig's reader and writer as for Pi 0.73.1.

Pi takes the folder from `--session-dir`, then `PI_CODING_AGENT_SESSION_DIR`, then `sessionDir` in the
project's `.pi/settings.json` over the global `settings.json` (`~` the home folder, a relative path from
the folder Pi runs in). The real client resuming a migration written there is
tests/e2e/test_pi_real_client.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.pi.home import flat_sessions, project_sessions, session_folders
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services


def _settings(path: Path, **values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def _migrate(tmp_path: Path, project: Path) -> Path:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "claude-sonnet-4-5"), {Destination("pi")})
    [output] = result.outputs
    return Path(output.path)


def _listed_ids() -> set[str]:
    services = build_services()
    return {info.id for info in services.list_sessions() if info.agent == Agent("pi")}


def test_a_global_setting_moves_every_session(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    home = isolated_homes["home"]
    _settings(home / ".pi" / "agent" / "settings.json", sessionDir="~/pi-sessions")
    project = tmp_path / "proj"
    path = _migrate(tmp_path, project)
    assert path.parent == home / "pi-sessions"  # one flat folder, `~` as the home folder
    assert path.stem.split("_", 1)[1] in _listed_ids()
    assert session_folders() == (home / "pi-sessions", home / ".pi" / "agent" / "sessions")


def test_sessions_left_in_the_default_folder_are_still_listed(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    before = _migrate(tmp_path, tmp_path / "proj")
    _settings(isolated_homes["home"] / ".pi" / "agent" / "settings.json", sessionDir=str(tmp_path / "moved"))
    after = _migrate(tmp_path, tmp_path / "proj")
    assert (
        after.parent == tmp_path / "moved"
        and before.parent.parent == isolated_homes["home"] / ".pi" / "agent" / "sessions"
    )
    assert {before.stem.split("_", 1)[1], after.stem.split("_", 1)[1]} <= _listed_ids()


def test_a_project_setting_wins_and_a_relative_folder_is_the_project_s(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    home = isolated_homes["home"]
    _settings(home / ".pi" / "agent" / "settings.json", sessionDir=str(tmp_path / "global"))
    project = tmp_path / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir=".pi/sessions")
    path = _migrate(tmp_path, project)
    assert path.parent == project / ".pi" / "sessions"
    assert project_sessions(None, str(tmp_path / "other")) == tmp_path / "global"  # another project: the global one
    # A relative folder depends on the project: a listing for no project in particular cannot name it.
    _settings(home / ".pi" / "agent" / "settings.json", sessionDir="rel")
    assert flat_sessions() is None and project_sessions(None, str(project)) == project / ".pi" / "sessions"
    assert project_sessions(None, str(tmp_path / "other")) == tmp_path / "other" / "rel"


def test_the_variable_wins_over_the_settings(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settings(isolated_homes["home"] / ".pi" / "agent" / "settings.json", sessionDir=str(tmp_path / "settings"))
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "variable"))
    project = tmp_path / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir="proj-sessions")
    assert _migrate(tmp_path, project).parent == tmp_path / "variable"


def test_a_broken_settings_file_leaves_the_default(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    settings = isolated_homes["home"] / ".pi" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"sessionDir": ', encoding="utf-8")
    path = _migrate(tmp_path, tmp_path / "proj")
    assert path.parent.parent == isolated_homes["home"] / ".pi" / "agent" / "sessions"
