"""Titles leave smig redacted, whichever agent wrote the session (issue 33: `smig list` printed Gemini
and OpenCode titles unredacted, where MCP's `list_sessions` redacted them).

One session per kind of both corpora for Codex (its first prompt, and a thread name in
`session_index.jsonl`), Gemini CLI (its first prompt, and a `summary`) and OpenCode (its title), each
title holding a secret. `smig list` (table and `--json`), `smig show` (its header), MCP's
`list_sessions` and the listing the TUI draws its tree and card from are scored like every other
path (`smig show`'s header too; the messages below it are the conversation, shown as it is)
path: with the detector off (what reaches the path) and on (at least 98% of that gone).
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from opencode_builders import SESSION_ID as OPENCODE_SESSION
from opencode_builders import install_database
from secret_scoring import Item, every_kind, every_page, score

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHOWN = 25
"""Sessions whose `smig show` header is scored (the listing paths score them all)."""


def _cli(*argv: str) -> str:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    assert main(list(argv), ctx) == 0, ctx.out.stderr.getvalue()  # type: ignore[attr-defined]
    return ctx.out.stdout.getvalue()  # type: ignore[attr-defined]


def _codex(home: Path, index: int, text: str, named: bool) -> str:
    session_id = f"01a2{index:04x}-0000-7000-8000-00000000c0de"
    folder = home / ".codex" / "sessions" / "2026" / "11" / "30"
    folder.mkdir(parents=True, exist_ok=True)
    meta = {
        "id": session_id,
        "timestamp": "2026-11-30T10:00:00.000Z",
        "cwd": "/home/user/proj",
        "originator": "codex_cli_rs",
    }
    user = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "the prompt" if named else text}],
    }
    lines = [
        {"timestamp": "2026-11-30T10:00:00.000Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-11-30T10:00:01.000Z", "type": "response_item", "payload": user},
    ]
    (folder / f"rollout-2026-11-30T10-00-00-{session_id}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    if named:  # the user named the thread: the name is its title
        row = {"id": session_id, "thread_name": text, "updated_at": "2026-11-30T10:00:02.000Z"}
        with open(home / ".codex" / "session_index.jsonl", "a", encoding="utf-8") as index_file:
            index_file.write(json.dumps(row) + "\n")
    return session_id


def _gemini(home: Path, index: int, text: str, summarised: bool) -> str:
    [template] = (FIXTURES / "gemini" / "home" / ".gemini" / "tmp" / "osprey-app" / "chats").glob("session-*.jsonl")
    meta = json.loads(template.read_text().splitlines()[0])
    session_id = f"9e3a{index:04x}-0000-4000-8000-00000000c0de"
    meta["sessionId"] = session_id
    if summarised:
        meta["summary"] = text
    user = {
        "id": f"u{index}",
        "timestamp": "2026-12-03T13:40:00.000Z",
        "type": "user",
        "content": [{"text": "hi" if summarised else text}],
    }
    reply = {"id": f"g{index}", "timestamp": "2026-12-03T13:40:01.000Z", "type": "gemini", "content": "Done."}
    chats = home / ".gemini" / "tmp" / "osprey-app" / "chats"
    (chats / f"session-2026-12-03T13-40-{session_id[:8]}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in (meta, user, reply))
    )
    return session_id


def _opencode(database: Path, index: int, text: str) -> str:
    session_id = f"ses_c0de{index:04x}TitledWithASecret"
    with sqlite3.connect(database) as connection:
        connection.execute(
            "INSERT INTO session SELECT ?1, project_id, workspace_id, NULL, slug || ?1, directory, path, ?2, version, "
            "share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, "
            "tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, "
            "permission, agent, model, time_created, time_updated + ?3, time_compacting, time_archived "
            "FROM session WHERE id = ?4",
            (session_id, text, index, OPENCODE_SESSION),
        )
    return session_id


@pytest.fixture
def titled(isolated_homes: dict[str, Path], agent: str) -> list[tuple[str, Item]]:
    """A session titled with a secret of every kind for the test's agent (Codex, Gemini CLI or OpenCode).

    Only that agent's: each test scores its own agent's titles, and every `smig show` looks its session
    up among all the sessions listed (the other two agents' 572 took half of the module's CPU)."""
    home = isolated_homes["home"]
    made = []
    if agent == "codex":
        for n, planted in enumerate(every_kind(500)):
            made.append((_codex(home, n, planted.text, named=n % 2 == 1), Item("codex", "title", planted)))
    if agent == "gemini":
        (home / ".gemini").mkdir()
        (home / ".gemini" / "projects.json").write_text(
            json.dumps({"projects": {"/tmp/smig-gemini-fixture/osprey-app": "osprey-app"}})
        )
        (home / ".gemini" / "tmp" / "osprey-app" / "chats").mkdir(parents=True)
        (home / ".gemini" / "tmp" / "osprey-app" / ".project_root").write_text("/tmp/smig-gemini-fixture/osprey-app")
        for n, planted in enumerate(every_kind(600)):
            made.append((_gemini(home, n, planted.text, summarised=n % 2 == 1), Item("gemini", "title", planted)))
    if agent == "opencode":
        database = install_database(home / ".local" / "share" / "opencode")
        for n, planted in enumerate(every_kind(700)):
            made.append((_opencode(database, n, planted.text), Item("opencode", "title", planted)))
    assert made, agent
    return made


@pytest.mark.parametrize("agent", ["codex", "gemini", "opencode"])
def test_every_listing_path_shows_titles_redacted(
    titled: list[tuple[str, Item]], monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    items = [item for _, item in titled if item.agent == agent]
    ids = [session_id for session_id, item in titled if item.agent == agent]
    # A title keeps its first 120 characters: a secret planted further in never reaches a listing.
    least = 100
    monkeypatch.setenv("COLUMNS", "400")  # a table as wide as a title: the whole title is shown
    score(f"smig list titles ({agent})", items, lambda: _cli("list", "--all", "--agent", agent), monkeypatch, least)
    score(
        f"smig list --json titles ({agent})",
        items,
        lambda: _cli("list", "--all", "--json", "--agent", agent),
        monkeypatch,
        least,
    )
    score(
        f"mcp list_sessions titles ({agent})",
        items,
        lambda: every_page(
            lambda offset: SmigTools(build_services()).list_sessions(
                agent=agent, limit=500, offset=offset, max_chars=40_000
            )
        ),
        monkeypatch,
        least,
    )
    score(
        f"TUI tree and card titles ({agent})",
        items,
        lambda: "\n".join(info.title or "" for info in build_services().list_sessions(include_subagents=True)),
        monkeypatch,
        least,
    )
    shown = list(zip(ids, items, strict=True))[:SHOWN]
    score(
        f"smig show headers ({agent})",
        [item for _, item in shown],
        lambda: "\n".join(_cli("show", session_id).split("\n\n")[0] for session_id, _ in shown),  # the header
        monkeypatch,
        5,
    )
