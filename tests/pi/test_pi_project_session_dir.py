"""Sessions a project's own settings send to a folder of their own are listed, from the folders smig knows.

Pi 0.73.1 takes `sessionDir` from the project's `.pi/settings.json` over the global `settings.json`, a
relative one from the folder it runs in; `smig list` looks for project settings in the folders smig
already knows (where any agent's sessions ran, where smig wrote a Pi session, the current folder and
its parents), never walking the disk.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig
from listing_caches import ran_in
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.pi import projects
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.models import Agent, ReadWarning
from smig_tui.core.native import Destination
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "pi"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
RECORDED = sorted((REAL / "home" / ".pi" / "agent" / "sessions").glob("*/*.jsonl"))


def _settings(path: Path, **values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def _fill(folder: Path) -> set[str]:
    """The recorded sessions copied into `folder` (flat, as Pi writes a `sessionDir`); their ids."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in RECORDED:
        shutil.copyfile(path, folder / path.name)
    return {path.stem.split("_", 1)[1] for path in RECORDED}


def _ran_in(cwd: Path, agent: str = "codex") -> None:
    """Another agent's listing cache with one session that ran in `cwd`."""
    ran_in(resolve_paths().cache_dir / f"listing-{agent}.json", cwd, agent)


def _listed() -> tuple[set[str], str]:
    code, out, err = smig("list", "--agent", "pi", "--all", "--json")
    assert code == 0, err
    return {row["id"] for row in json.loads(out)}, err


@pytest.mark.parametrize("setting", ["absolute", "relative", "global-relative"])
def test_a_project_s_own_session_folder_is_listed_shown_and_planned(
    setting: str, isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    project = tmp_path / "outside" / "proj"
    project.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # outside the home: only what other agents' listings say finds the project
    if setting == "absolute":
        folder = tmp_path / "proj-sessions"
        _settings(project / ".pi" / "settings.json", sessionDir=str(folder))
    elif setting == "relative":
        folder = project / ".pi" / "sessions"
        _settings(project / ".pi" / "settings.json", sessionDir=".pi/sessions", theme="dark")
    else:
        folder = project / "pi-rel"
        _settings(isolated_homes["home"] / ".pi" / "agent" / "settings.json", sessionDir="pi-rel")
    ids = _fill(folder)
    assert _listed()[0] == set()  # a folder no agent ran in and smig never wrote for is not looked in
    _ran_in(project)
    assert _listed()[0] == ids
    chat = SCENARIOS["tools"]["session"]
    code, out, err = smig("show", "--json", chat)
    assert code == 0, err
    assert [m["kind"] for m in json.loads(out)["messages"]].count("tool_call") == 3
    code, out, err = smig("plan", chat, "--target", "claude-sonnet-4-5", "--json")
    assert code == 0, err
    assert json.loads(out)["session_id"] == chat


def test_the_current_folder_s_settings_are_read(isolated_homes: dict[str, Path], monkeypatch: Any) -> None:
    project = isolated_homes["home"] / "work" / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir="s")
    ids = _fill(project / "s")
    monkeypatch.chdir(project)
    assert _listed()[0] == ids


def test_a_migration_into_a_project_s_folder_lists_from_anywhere(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    project = tmp_path / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir=".pi/sessions")
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "claude-sonnet-4-5"), {Destination("pi")})
    [output] = result.outputs
    assert Path(output.path).parent == project / ".pi" / "sessions"
    monkeypatch.chdir(tmp_path)  # outside the home; the source session is no agent's listing
    assert output.session_id in _listed()[0]
    assert json.loads((resolve_paths().data_dir / projects.REMEMBERED).read_text(encoding="utf-8")) == {
        "folders": [str(project)]
    }


def test_a_folder_shared_by_every_project_is_listed_once(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    shared = tmp_path / "everyone"
    _settings(isolated_homes["home"] / ".pi" / "agent" / "settings.json", sessionDir=str(shared))
    project = tmp_path / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir=str(shared))  # the same folder, named again
    ids = _fill(shared)
    _ran_in(project)
    monkeypatch.chdir(tmp_path)
    assert projects.project_session_folders([str(project)], None, lambda _w: None) == []
    code, out, err = smig("list", "--agent", "pi", "--all", "--json")
    assert code == 0, err
    rows = [row["id"] for row in json.loads(out)]
    assert sorted(rows) == sorted(ids)  # each once


def test_the_variable_wins_so_no_project_is_looked_at(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    project = tmp_path / "proj"
    _settings(project / ".pi" / "settings.json", sessionDir="s")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "variable"))
    assert projects.project_session_folders([str(project)], None, lambda _w: None) == []


def test_a_folder_without_settings_costs_one_stat(tmp_path: Path, monkeypatch: Any) -> None:
    folders = [tmp_path / f"p{n}" for n in range(20)]
    for folder in folders:
        folder.mkdir()
    (tmp_path / "p3" / ".pi").mkdir()  # Pi's folder, but no settings in it
    env = {"HOME": str(tmp_path)}
    asked: list[str] = []
    real_stat = os.stat

    def counting_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        asked.append(str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", lambda *_a: pytest.fail("a folder was listed"))
    monkeypatch.setattr(os, "listdir", lambda *_a: pytest.fail("a folder was listed"))
    monkeypatch.setattr(os, "stat", counting_stat)
    shared = (tmp_path / ".pi" / "agent" / "sessions",)
    assert projects.project_session_folders([str(f) for f in folders], env, lambda _w: None, shared) == []
    assert sorted(asked) == sorted(os.path.join(folder, ".pi", "settings.json") for folder in folders)


def test_a_broken_settings_file_is_one_warning_and_the_others_are_read(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    broken, good = tmp_path / "broken", tmp_path / "good"
    (broken / ".pi").mkdir(parents=True)
    (broken / ".pi" / "settings.json").write_text('{"sessionDir": ', encoding="utf-8")
    _settings(good / ".pi" / "settings.json", sessionDir="s")
    ids = _fill(good / "s")
    _ran_in(good)
    _ran_in(broken, "claude")
    monkeypatch.chdir(tmp_path)
    listed, err = _listed()
    assert listed == ids
    assert err.count(str(broken / ".pi" / "settings.json")) == 1 and "not JSON" in err
    warnings: list[ReadWarning] = []
    assert projects.project_session_folders([str(broken), str(good)], None, warnings.append) == [good / "s"]
    assert len(warnings) == 1


def test_a_search_finds_a_session_that_appears_in_a_project_s_own_folder_and_lists_no_pi_otherwise(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    """Pi's profile names each known folder's settings and the folders they give (`projects.watched`):
    a settings file or a session appearing there is seen by the next search; once nothing changes, no listing."""
    project = tmp_path / "outside" / "proj"
    project.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    _ran_in(project)
    services = build_services()
    services.refresh_search_index()
    before = [watched.path for watched in projects.watched(None, resolve_paths().cache_dir, resolve_paths().data_dir)]
    assert str(project / ".pi" / "settings.json") in before  # absent, yet named: its appearing counts
    _settings(project / ".pi" / "settings.json", sessionDir=".pi/sessions")
    ids = _fill(project / ".pi" / "sessions")
    hits = build_services().search("OSPREY", limit=100)
    assert {hit.session_id for hit in hits} & ids
    # Pi's own listing adds the folders its sessions ran in to the known folders (a folder whose later
    # sessions its settings send elsewhere is known that way), so the search after it lists Pi once more.
    assert {hit.session_id for hit in build_services().search("OSPREY", limit=100)} == {hit.session_id for hit in hits}
    calls: list[str] = []
    monkeypatch.setattr(projects.KnownProjectsSource, "discover", lambda self, warn: calls.append("listed") or iter(()))
    assert {hit.session_id for hit in build_services().search("OSPREY", limit=100)} == {hit.session_id for hit in hits}
    assert calls == []  # nothing Pi reads changed: Pi is not listed again
