"""Aider's chat histories read as the real client restores them, found where they are, never a traceback.

The histories and requests of tests/fixtures/real/aider were written by the real Aider 0.86.2
(make.py there); each request that followed a `--restore-chat-history` carries the restored history
between Aider's own messages, and smig's reading of the file as it was then must be that slice, item
by item.
"""

from __future__ import annotations

import json
import lzma
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from listing_caches import ran_in

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider import source as aider_source
from smig_tui.adapters.agents.aider.history import restore
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.models import Agent, ReadWarning, Role
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "aider"
PROJECTS = REAL / "projects"
AIDER = Agent("aider")


def _requests() -> list[dict[str, Any]]:
    with lzma.open(REAL / "requests.jsonl.xz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _restoring() -> list[tuple[str, dict[str, Any]]]:
    """(history file, request) of every main turn that followed a `--restore-chat-history`."""
    out = []
    for request in _requests():
        argv = request["argv"]
        if "--restore-chat-history" not in argv or len(request["body"]["messages"]) < 5:
            continue  # a commit message or summary request
        folder = "chat" if request["scenario"] == "handwritten" else request["scenario"]
        name = argv[argv.index("--chat-history-file") + 1] if "--chat-history-file" in argv else places.DEFAULT_NAME
        out.append((f"{folder}/{name}", request))
    return out


def _file_then(history: str, request: dict[str, Any]) -> str:
    """The history file as it was when the client started the run that sent `request`."""
    text = (PROJECTS / history).read_text(encoding="utf-8")
    prompt = request["argv"][request["argv"].index("--message") + 1]
    return text[: text.rindex("\n# aider chat started at ", 0, text.index(f" --message {prompt}"))]


@pytest.mark.parametrize(("history", "request_"), _restoring(), ids=lambda value: str(value)[:40])
def test_show_is_what_the_client_restored_item_by_item(
    history: str, request_: dict[str, Any], tmp_path: Path, isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    project = isolated_homes["home"] / "project"
    project.mkdir()
    (project / Path(history).name).write_text(_file_then(history, request_), encoding="utf-8")
    monkeypatch.chdir(project)
    services = build_services()
    [info] = services.list_sessions(agent=AIDER)
    session = services.load_session(info)
    shown = [{"role": m.role.value, "content": m.text} for m in session.messages]
    sent = [{"role": m["role"], "content": m["content"]} for m in request_["body"]["messages"]]
    if request_["scenario"] == "summary":
        # Aider had its weak model summarise the restored history (over its 1,024-token limit there):
        # the request carries the summary, smig the history that was summarised (what a migration takes).
        assert sent[7]["content"].startswith("I spoke to you previously about a number of things.")
        assert [m["role"] for m in shown] == ["user", "assistant"] and "SUMMARY-1" in shown[0]["content"]
        return
    starts = [i for i in range(len(sent)) if sent[i : i + len(shown)] == shown]
    assert starts == [7] or (request_["scenario"] == "edit" and starts == [9]), (shown, sent)  # after the examples


def test_the_lossy_lines_go_as_the_client_takes_them() -> None:
    text = (PROJECTS / "chat" / places.DEFAULT_NAME).read_text(encoding="utf-8")
    got = [(m.role, m.text) for m in restore(text).messages]
    assert ("assistant", "\nCHAT-REPLY-2: ünïcödé ✓ 日本語\n\n\n") in got  # `# A heading` and `> a quoted line` gone
    assert ("user", "four hashes\n") in got  # `#### four hashes` in a reply is a prompt to Aider
    assert got[-1] == ("assistant", "\nsmig-e2e-ok\n\n")


def test_one_file_is_one_session_however_many_runs_it_holds(isolated_homes: dict[str, Path], monkeypatch: Any) -> None:
    project = isolated_homes["home"] / "chat"
    shutil.copytree(PROJECTS / "chat", project)
    monkeypatch.chdir(project)
    sessions = {info.path: info for info in build_services().list_sessions(agent=AIDER)}
    own = sessions[str(project / places.DEFAULT_NAME)]
    written = sessions[str(project / ".aider.smig-0001.chat.history.md")]
    assert own.message_count == 10 and own.title == "CHAT-1: hello aider" and own.model == "openai/gpt-4.1"
    assert own.source_version == "0.86.2" and own.cwd == str(project)
    assert written.id == "0001" and written.title == "migrated from a Codex CLI session (HANDWRITTEN)"
    assert own.id == places.session_id_of(project / places.DEFAULT_NAME) != written.id
    assert len(sessions) == 2


def _ids(monkeypatch: Any, cwd: Path) -> set[str]:
    monkeypatch.chdir(cwd)
    return {info.path for info in build_services().list_sessions(agent=AIDER)}


def test_histories_are_found_where_the_other_agents_ran_up_to_the_git_root(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    repo = tmp_path / "outside" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    shutil.copy(PROJECTS / "edit" / places.DEFAULT_NAME, repo / places.DEFAULT_NAME)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _ids(monkeypatch, elsewhere) == set()  # outside the home, named by nothing: not looked for
    paths = resolve_paths()
    ran_in(paths.cache_dir / "listing-codex.json", repo / "src" / "deep")
    assert _ids(monkeypatch, elsewhere) == {str(repo / places.DEFAULT_NAME)}
    # what it learnt from each listing is kept by size and mtime: a damaged listing changes nothing known
    known = json.loads((paths.cache_dir / "session-folders.json").read_text(encoding="utf-8"))
    assert known["files"]["listing-codex.json"]["folders"] == [str(repo / "src" / "deep")]


def test_histories_are_found_in_the_configured_folders_and_files(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    shutil.copy(PROJECTS / "shell" / places.DEFAULT_NAME, one / places.DEFAULT_NAME)
    shutil.copy(PROJECTS / "chat" / places.DEFAULT_NAME, two / "custom-history.md")
    config = resolve_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[agents.aider]\nfolders = ["{one}", "{two / "custom-history.md"}"]\n', encoding="utf-8")
    assert _ids(monkeypatch, tmp_path) == {str(one / places.DEFAULT_NAME), str(two / "custom-history.md")}
    config.write_text('[agents.aider]\nfolders = "not a list"\n', encoding="utf-8")
    from cli_runner import smig

    code, out, err = smig("doctor")
    assert "agents.aider.folders must be a list of folders in quotes" in out + err


def test_the_current_folder_and_its_parents_in_the_home_and_aiders_own_variable(
    isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    home = isolated_homes["home"]
    (home / "work" / "sub").mkdir(parents=True)
    shutil.copy(PROJECTS / "shell" / places.DEFAULT_NAME, home / "work" / places.DEFAULT_NAME)
    assert _ids(monkeypatch, home / "work" / "sub") == {str(home / "work" / places.DEFAULT_NAME)}
    shutil.copy(PROJECTS / "chat" / places.DEFAULT_NAME, home / "work" / "sub" / "mine.md")
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", "mine.md")
    assert str(home / "work" / "sub" / "mine.md") in _ids(monkeypatch, home / "work" / "sub")


def test_a_warm_listing_reads_no_history(isolated_homes: dict[str, Path], monkeypatch: Any) -> None:
    project = isolated_homes["home"] / "chat"
    shutil.copytree(PROJECTS / "chat", project)
    monkeypatch.chdir(project)
    assert len(build_services().list_sessions(agent=AIDER)) == 2
    reads: list[Path] = []
    real = aider_source._glance
    monkeypatch.setattr(aider_source, "_glance", lambda path: reads.append(path) or real(path))
    assert len(build_services().list_sessions(agent=AIDER)) == 2
    assert reads == []
    with (project / places.DEFAULT_NAME).open("a", encoding="utf-8") as handle:
        handle.write("\n#### GREW: one more  \n\nGREW-REPLY\n\n")
    [grown] = [i for i in build_services().list_sessions(agent=AIDER) if i.path.endswith(places.DEFAULT_NAME)]
    assert reads == [project / places.DEFAULT_NAME] and grown.message_count == 12


DAMAGED = {
    "binary": bytes(range(256)) * 4,
    "latin-1": "# aider chat started at 2026-01-01 00:00:00\n\n#### caf\xe9  \n\nreply\n".encode("latin-1"),
    "nul": b"#### a\x00b  \n\n\x00\x00\n",
    "headers only": b"# aider chat started at nonsense\n\n> notice  \n",
    "empty": b"",
    "one long line": b"x" * 2_000_000,
    "odd line ends": "#### a\u2028# hidden\x0b> gone\r\n\rreply\x1c#### b\n".encode(),
}


@pytest.mark.parametrize("name", DAMAGED)
def test_damaged_markdown_lists_and_shows_without_a_traceback(
    name: str, isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    from cli_runner import smig

    project = isolated_homes["home"] / "p"
    project.mkdir()
    (project / places.DEFAULT_NAME).write_bytes(DAMAGED[name])
    monkeypatch.chdir(project)
    code, out, said = smig("list", "--agent", "aider", "--json")
    assert code == 0 and "Traceback" not in said
    for row in json.loads(out):
        code, shown, err = smig("show", row["id"])
        assert code == 0 and "Traceback" not in err, err
    if name == "latin-1":
        assert "not UTF-8" in said


def test_a_folder_named_like_a_history_or_an_unreadable_one_is_skipped(
    isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    project = isolated_homes["home"] / "p"
    (project / places.DEFAULT_NAME).mkdir(parents=True)
    locked = project / ".aider.smig-x.chat.history.md"
    locked.write_text("#### hi  \n\nthere\n", encoding="utf-8")
    locked.chmod(0)
    monkeypatch.chdir(project)
    warnings: list[ReadWarning] = []
    try:
        infos = list(build_services().iter_sessions(agent=AIDER, warn=warnings.append))
    finally:
        locked.chmod(0o600)
    if os.geteuid() != 0:  # root reads it anyway
        assert infos == [] and "cannot read it" in warnings[0].message
    assert all(info.path != str(project / places.DEFAULT_NAME) for info in infos)


def test_roles_alternate_as_restored_and_each_message_names_its_line() -> None:
    text = (PROJECTS / "edit" / places.DEFAULT_NAME).read_text(encoding="utf-8")
    history = restore(text)
    lines = text.splitlines()
    for message in history.messages:
        first = lines[message.line - 1]
        assert (first.startswith("#### ") and message.text.startswith(first[5:])) or message.role == "assistant"
    assert [m.role for m in aider_source.messages_of(history)] == [Role.USER, Role.ASSISTANT] * 2


def test_outside_a_repository_only_the_folder_itself_is_looked_in(tmp_path: Path) -> None:
    """Aider writes at the git root, else where it ran: a parent of a folder outside a repository holds
    no history of that folder's runs, so it is not listed (no directory listing of `/tmp` for nothing)."""
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    assert places.upward(plain, tmp_path / "home") == [plain]
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    assert places.upward(tmp_path / "repo" / "a" / "b", tmp_path / "home") == [
        tmp_path / "repo" / "a" / "b",
        tmp_path / "repo" / "a",
        tmp_path / "repo",
    ]


def test_a_title_from_a_first_prompt_holding_a_secret_lists_redacted(
    isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    """A title leaves smig redacted, as every other agent's does: the first prompt is the user's text."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    project = isolated_homes["home"] / "chat"
    shutil.copytree(PROJECTS / "chat", project)
    history = project / places.DEFAULT_NAME
    history.write_text(
        history.read_text(encoding="utf-8").replace("CHAT-1: hello aider", f"CHAT-1: my token is {token}"),
        encoding="utf-8",
    )
    monkeypatch.chdir(project)
    [own] = [info for info in build_services().list_sessions(agent=AIDER) if info.path == str(history)]
    assert own.title is not None and own.title.startswith("CHAT-1: my token is ")
    assert token not in own.title and token[:12] not in own.title


def test_histories_are_found_where_only_a_database_agent_ran(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    """OpenCode and Crush keep sessions as database rows: their listings name the folders too."""
    import sqlite3

    from crush_builders import install as install_crush
    from opencode_builders import install_database

    home = isolated_homes["home"]
    database = install_database(home / ".local" / "share" / "opencode")
    opencode_project = tmp_path / "oc-project"
    opencode_project.mkdir()
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE session SET directory = ?", (str(opencode_project),))
    connection.close()
    crush_project = install_crush(home)["alpha"]
    for project in (opencode_project, crush_project):
        shutil.copy(PROJECTS / "edit" / places.DEFAULT_NAME, project / places.DEFAULT_NAME)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert {info.agent for info in build_services().list_sessions()} >= {Agent("opencode"), Agent("crush")}
    assert _ids(monkeypatch, elsewhere) == {
        str(opencode_project / places.DEFAULT_NAME),
        str(crush_project / places.DEFAULT_NAME),
    }
