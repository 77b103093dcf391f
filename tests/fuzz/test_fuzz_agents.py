"""Fuzz, every agent's format: a session damaged the ways a tool or a crash damages it, beside healthy
sessions of every built-in agent (Codex, Claude Code, Gemini CLI, OpenCode, Qwen Code, Kilo Code, Crush,
Copilot CLI, Pi, Aider).

The damage (issue 33): JSON nested 10^5 deep (a whole line, and a field of a real record), a lone
UTF-16 surrogate in a message (valid JSON, which Python keeps and no UTF-8 stream can write), and
one line of 100 MB. Each case runs `list`, `show` (text, `--json`, `--full`), `plan`, `migrate`
and `export` through the real CLI with a strict UTF-8 stdout, and the MCP tools: no crash log, no
traceback, at most one error sentence, and what the other sessions list is what they list without
the damaged one.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from crush_builders import install as install_crush
from crush_builders import make as crush_fixture
from kilo_builders import install_database as install_kilo_database
from opencode_builders import SESSION_ID as OPENCODE_SESSION
from opencode_builders import install_database

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.errors import SmigError
from smig_tui.services import build_services

TESTS = Path(__file__).resolve().parents[1]

FIXTURES = TESTS / "fixtures"
DEPTH = 100_000
HUGE = 100 * 10**6
TARGET = "gpt-4o"
CODEX_BASE = "sessions/2026/11/22/rollout-2026-11-22T11-30-00-01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4.jsonl"
CLAUDE_BASE = "projects/-home-user-proj/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"
GEMINI_ID = "91ffce34-43fe-493b-adc5-17413feeec43"
QWEN_ID = "3bfa446a-138b-4a92-b210-4f563a837835"
QWEN_LAST = "92d6c8e7-04ed-4e40-aff3-75a7f9ea3ccb"
"""The last record of the recorded Qwen chat: a record appended after it continues the chain."""
PI_ID = "01a24408-afb3-72e4-8784-b399e499cf76"
PI_LAST = "4b11a3bf"
"""The last entry of the recorded Pi chat: an entry appended after it is on the branch Pi resumes."""
DAMAGED = {
    "codex": "01a2dead-0000-7000-8000-00000000da3a",
    "claude": "c1a0dead-0000-4000-8000-00000000da3a",
    "gemini": "9e3adead-0000-4000-8000-00000000da3a",
    "opencode": "ses_dead0000000000da3aDamaged",
    "qwen": "0e3adead-0000-4000-8000-00000000da3a",
    "kilo": "ses_dead0000000000da3aDmgKilo",
    "crush": "c0a5dead-0000-4000-8000-00000000da3a",
    "copilot": "c0deda3a-0000-4000-8000-00000000da3a",
    "aider": "a1de0dead-0000-4000-8000-00000000da3a",
    "pi": "01a2dead-0000-7000-8000-0000000000a1",
}
COPILOT_ID = "87a16853-2172-4723-8b19-3193943d7365"
"""The recorded Copilot CLI chat, copied under the damaged id."""
DATABASES = {"opencode": "opencode.db", "kilo": "kilo.db", "crush": "crush.db"}
"""The agents whose sessions are rows of one SQLite database (OpenCode's storage), by its file name."""
AGENTS = tuple(DAMAGED)
AIDER_PROJECT = "aider-osprey"
"""Aider's histories live in project folders: the recorded `chat` project, under the home, is the current folder."""


def _homes(base: Path) -> dict[str, Path]:
    """Healthy sessions of every agent under `base/home` (what `isolated_homes` points at)."""
    home = base / "home"
    shutil.copytree(FIXTURES / "codex_home", home / ".codex", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "claude_home", home / ".claude", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "gemini" / "home" / ".gemini", home / ".gemini", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "real" / "qwen" / "home" / ".qwen", home / ".qwen", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "real" / "copilot" / "home" / ".copilot", home / ".copilot", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "real" / "pi" / "home" / ".pi", home / ".pi", dirs_exist_ok=True)
    database = install_database(home / ".local" / "share" / "opencode")
    kilo_database = install_kilo_database(home / ".local" / "share" / "kilo" / "kilo.db")
    crush = install_crush(home)  # two projects' databases, built from Crush's schema
    shutil.copytree(FIXTURES / "real" / "aider" / "projects" / "chat", home / AIDER_PROJECT)
    return {
        "crush": crush["alpha"] / ".crush" / "crush.db",
        "home": home,
        "codex": home / ".codex",
        "claude": home / ".claude",
        "gemini": home / ".gemini",
        "qwen": home / ".qwen",
        "copilot": home / ".copilot",
        "pi": home / ".pi" / "agent",
        "opencode": database,
        "kilo": kilo_database,
        "aider": home / AIDER_PROJECT,
    }


def _deep() -> str:
    return "[" * DEPTH + "]" * DEPTH


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _text_record(agent: str, text: str) -> str:
    """One record of the agent's format holding `text` as a message's text (spliced raw, not escaped)."""
    if agent == "codex":
        head = '{"timestamp":"2026-11-22T11:40:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_dmg","output":'
        return head + text + "}}"
    if agent == "claude":
        head = (
            '{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"0000dead-0000-4000-8000-000000000001",'
            f'"sessionId":"{DAMAGED["claude"]}","cwd":"/home/user/proj","timestamp":"2026-03-03T09:59:00.000Z",'
            '"message":{"role":"user","content":'
        )
        return head + text + "}}"
    if agent == "qwen":
        head = (
            f'{{"uuid":"0000dead-0000-4000-8000-000000000002","parentUuid":"{QWEN_LAST}",'
            f'"sessionId":"{DAMAGED["qwen"]}","timestamp":"2026-12-05T02:31:00.000Z","type":"user",'
            '"cwd":"/tmp/smig-real-qwen/work/chat","version":"0.24.4","message":{"role":"user","parts":[{"text":'
        )
        return head + text + "}]}}"
    if agent == "copilot":
        head = '{"type":"user.message","data":{"content":'
        return head + text + '},"id":"0000dead-0000-4000-8000-000000000003","timestamp":"2026-12-05T02:31:00.000Z"}'
    if agent == "pi":
        head = (
            f'{{"type":"message","id":"dead0002","parentId":"{PI_LAST}","timestamp":"2026-12-05T02:31:00.000Z",'
            '"message":{"role":"user","content":[{"type":"text","text":'
        )
        return head + text + "}]}}"
    head = '{"id":"dead0001","timestamp":"2026-12-03T13:40:00.000Z","type":"user","content":[{"text":'
    return head + text + "}]}"


def _place_file(agent: str, homes: dict[str, Path], extra: list[str]) -> Path:
    """A copy of a fixture session under a new id, with `extra` raw lines appended."""
    if agent == "codex":
        source = homes["codex"] / CODEX_BASE
        path = source.with_name(f"rollout-2026-11-22T11-30-00-{DAMAGED['codex']}.jsonl")
        text = source.read_text(encoding="utf-8").replace("01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4", DAMAGED["codex"])
    elif agent == "claude":
        source = homes["claude"] / CLAUDE_BASE
        path = source.with_name(f"{DAMAGED['claude']}.jsonl")
        text = source.read_text(encoding="utf-8").replace(source.stem, DAMAGED["claude"])
    elif agent == "qwen":
        [source] = (homes["qwen"] / "projects").glob(f"*/chats/{QWEN_ID}.jsonl")
        path = source.with_name(f"{DAMAGED['qwen']}.jsonl")
        text = source.read_text(encoding="utf-8").replace(QWEN_ID, DAMAGED["qwen"])
    elif agent == "copilot":
        state = homes["copilot"] / "session-state"
        shutil.copytree(state / COPILOT_ID, state / DAMAGED["copilot"])
        workspace = state / DAMAGED["copilot"] / "workspace.yaml"
        workspace.write_text(workspace.read_text(encoding="utf-8").replace(COPILOT_ID, DAMAGED["copilot"]), "utf-8")
        path = state / DAMAGED["copilot"] / "events.jsonl"
        text = path.read_text(encoding="utf-8").replace(COPILOT_ID, DAMAGED["copilot"])
    elif agent == "pi":
        [source] = (homes["pi"] / "sessions").glob(f"*/*_{PI_ID}.jsonl")
        path = source.with_name(f"2026-12-05T02-31-00-000Z_{DAMAGED['pi']}.jsonl")
        text = source.read_text(encoding="utf-8").replace(PI_ID, DAMAGED["pi"])
    else:
        [source] = (homes["gemini"] / "tmp" / "osprey-app" / "chats").glob("session-*.jsonl")
        path = source.with_name(f"session-2026-12-03T13-40-{DAMAGED['gemini'][:8]}.jsonl")
        text = source.read_text(encoding="utf-8").replace(GEMINI_ID, DAMAGED["gemini"])
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.rstrip("\n") + "\n")
        for line in extra:
            handle.write(line + "\n")
    return path


def _copy_rows(connection: sqlite3.Connection, table: str, replaced: dict[str, str], where: str) -> None:
    """Copy `table`'s rows `where` selects, each column as is unless `replaced` gives its new value
    (column names read from the table: Kilo's tables carry columns OpenCode's do not)."""
    columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
    values = ", ".join(replaced.get(column, column) for column in columns)
    connection.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {values} FROM {table} WHERE {where}")


def _database_copy(agent: str, database: Path, damage: Callable[[sqlite3.Connection], None]) -> str:
    """A recorded session of `agent`'s database copied under a new id (its messages and parts too), then
    damaged: OpenCode's recorded session, Kilo's newest top-level one."""
    new = DAMAGED[agent]
    connection = sqlite3.connect(database)
    with connection:
        if agent == "opencode":
            old = OPENCODE_SESSION
        else:
            query = "SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_updated DESC LIMIT 1"
            old = connection.execute(query).fetchone()[0]
        session = f"session_id = '{old}'"
        _copy_rows(
            connection,
            "session",
            {
                "id": f"'{new}'",
                "parent_id": "NULL",
                "slug": "slug || '-dmg'",
                "title": "'damaged copy'",
                "time_updated": "time_updated + 1",
            },
            f"id = '{old}'",
        )
        _copy_rows(connection, "message", {"id": "'d' || id", "session_id": f"'{new}'"}, session)
        _copy_rows(
            connection,
            "part",
            {"id": "'d' || id", "message_id": "'d' || message_id", "session_id": f"'{new}'"},
            session,
        )
        damage(connection)
    connection.close()
    return new


def _database_damage(kind: str, agent: str) -> Callable[[sqlite3.Connection], None]:
    new = DAMAGED[agent]

    def damage(connection: sqlite3.Connection) -> None:
        first_part = connection.execute(
            'SELECT id FROM part WHERE session_id = ? AND data LIKE \'%"type":"text"%\' ORDER BY id LIMIT 1', (new,)
        ).fetchone()[0]
        if kind == "deep":
            if agent == "opencode":  # Kilo indexes every message's role, so its SQLite refuses a row it cannot parse
                message = connection.execute("SELECT id FROM message WHERE session_id = ? ORDER BY id LIMIT 1", (new,))
                connection.execute(
                    "UPDATE message SET data = ? WHERE id = ?",
                    ('{"role":"user","x":' + _deep() + "}", message.fetchone()[0]),
                )
            connection.execute(
                "UPDATE part SET data = ? WHERE id = ?", ('{"type":"text","text":' + _deep() + "}", first_part)
            )
        elif kind == "surrogate":
            connection.execute(
                "UPDATE part SET data = ? WHERE id = ?", ('{"type":"text","text":"half \\ud800 of a pair"}', first_part)
            )
        else:
            connection.execute(
                "UPDATE part SET data = ? WHERE id = ?",
                (json.dumps({"type": "text", "text": _huge_text()}), first_part),
            )

    return damage


def _huge_text() -> str:
    """100 MB of capitals: no break for the tokenizer's byte-pair merges (once quadratic on such runs)."""
    block = "".join(chr(65 + (n * 7919) % 26) for n in range(1 << 16))
    return (block * (HUGE // len(block) + 1))[:HUGE]


def _damage_lines(kind: str, agent: str) -> list[str]:
    if kind == "deep":
        return [_deep(), _text_record(agent, _deep())]
    if kind == "surrogate":
        return [_text_record(agent, '"a lone \\ud800 surrogate and a \\udfff too"')]
    return [_text_record(agent, json.dumps(_huge_text()))]


def _crush_copy(kind: str, database: Path) -> str:
    """Crush's tool session copied under a new id with its messages, its first prompt's parts then damaged."""
    new = DAMAGED["crush"]
    connection = sqlite3.connect(database)
    with connection:
        old = crush_fixture.TOOLS
        _copy_rows(connection, "sessions", {"id": f"'{new}'", "title": "'damaged copy'"}, f"id = '{old}'")
        _copy_rows(connection, "messages", {"id": "'d' || id", "session_id": f"'{new}'"}, f"session_id = '{old}'")
        if kind == "deep":
            parts = '[{"type":"text","data":{"text":' + _deep() + "}}]"
        elif kind == "surrogate":
            parts = '[{"type":"text","data":{"text":"half \\ud800 of a pair"}}]'
        else:
            parts = json.dumps([{"type": "text", "data": {"text": _huge_text()}}])
        connection.execute("UPDATE messages SET parts = ? WHERE id = 'dm-t1'", (parts,))
    connection.close()
    return new


def _place_history(kind: str, project: Path) -> Path:
    """A copy of Aider's recorded history with the damage appended as Markdown: Aider parses no JSON, so the
    deep nesting is a prompt's text, and bytes that are no UTF-8 (a broken byte, an encoded lone surrogate)
    stand for the surrogate; both make the file unreadable to Aider itself, which smig says."""
    path = project / f".aider.smig-{DAMAGED['aider']}.chat.history.md"
    text = (project / ".aider.chat.history.md").read_bytes()
    if kind == "deep":
        damage = b"#### " + _deep().encode() + b"  \n\n\xff\xfe not UTF-8\n"
    elif kind == "surrogate":
        damage = b"#### a lone \xed\xa0\x80 surrogate  \n\nreply\n"
    else:
        damage = b"#### " + _huge_text().encode() + b"  \n"
    path.write_bytes(text + damage)
    return path


def _place(kind: str, agent: str, homes: dict[str, Path]) -> str:
    """The damaged session of `agent`; its reference for `show`."""
    if agent == "aider":
        return str(_place_history(kind, homes["aider"]))
    if agent == "crush":
        return _crush_copy(kind, homes["crush"])
    if agent in DATABASES:
        return _database_copy(agent, homes[agent], _database_damage(kind, agent))
    return str(_place_file(agent, homes, _damage_lines(kind, agent)))


def _cli(*argv: str) -> tuple[int, str, list[str]]:
    """The CLI with a strict UTF-8 stdout, as a terminal or a pipe has (a StringIO takes anything)."""
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    ctx = Context(out=Output(stdout=stdout, stderr=io.StringIO()))
    code = main(list(argv), ctx)
    stdout.flush()
    return code, raw.getvalue().decode("utf-8"), ctx.out.stderr.getvalue().splitlines()  # type: ignore[attr-defined]


def _others(listing: str) -> list[dict[str, Any]]:
    """The listing's entries for every session but the damaged ones (without the fields a run may vary)."""
    entries = json.loads(listing)
    entries = entries["sessions"] if isinstance(entries, dict) else entries
    return sorted(
        ({key: value for key, value in entry.items() if key not in ("counted_tokens",)} for entry in entries),
        key=lambda entry: (entry["agent"], entry["id"]),
    )


def _run_every_front_door(kind: str, agent: str, ref: str, homes: dict[str, Path], out: Path) -> list[str]:
    """Every command and MCP tool on the damaged session; every line they wrote to stderr."""
    said: list[str] = []
    commands = [
        ("list", "--all"),
        ("show", ref),
        ("show", ref, "--json"),
        ("show", ref, "--full"),
        ("plan", ref, "--target", TARGET),
        ("plan", ref, "--target", TARGET, "--json"),
        ("migrate", ref, "--target", TARGET, "--to", "json", "--out", str(out / "m.json")),
        ("export", ref, "--format", "markdown", "--out", str(out / "e.md")),
        ("export", ref, "--format", "json", "--out", str(out / "e.json"), "--force"),
    ]
    for argv in commands:
        code, stdout, stderr = _cli(*argv)
        label = f"{agent}-{kind} {' '.join(argv[:1] + argv[2:3])}"
        assert not any("Traceback" in line for line in stderr), (label, stderr)
        errors = [line for line in stderr if line.startswith("smig: error: ")]
        assert len(errors) <= 1 and not any(line.startswith("smig: error: Unexpected ") for line in errors), (
            label,
            errors,
        )
        assert code in (0, 1, 3, 4), (label, code, stderr)
        if "--json" in argv and code == 0:
            json.loads(stdout)  # a lone surrogate goes out as its escape: still JSON
        said += stderr
    pytest.importorskip("pydantic")
    from smig_tui.mcp.tools import SmigTools

    tools = SmigTools(build_services())
    for name, call in (
        ("list_sessions", lambda: tools.list_sessions(limit=100)),
        ("preview_migration", lambda: tools.preview_migration(build_services().find_session(ref).id, TARGET)),
        (
            "commit_migration",
            lambda: tools.commit_migration(
                build_services().find_session(ref).id, TARGET, to=["markdown", "claude"], dry_run=True
            ),
        ),
    ):
        try:
            json.dumps(call())
        except SmigError:
            pass
        except Exception as error:
            pytest.fail(f"{agent}-{kind} {name}: {type(error).__name__}: {error}")
    return said


def _case(kind: str, agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> float:
    """Run one case; the seconds it took."""
    homes = _homes(tmp_path)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(homes["home"]))
    monkeypatch.chdir(homes["aider"])
    code, before, stderr = _cli("list", "--all", "--json")
    assert code == 0, stderr
    ref = _place(kind, agent, homes)
    out = homes["home"] / "out"
    out.mkdir()
    started = time.monotonic()
    said = _run_every_front_door(kind, agent, ref, homes, out)
    took = time.monotonic() - started
    code, after, stderr = _cli("list", "--all", "--json")
    assert code == 0, stderr
    damaged = set(DAMAGED.values())
    others = [entry for entry in _others(after) if entry["id"] not in damaged]
    assert others == _others(before), f"{agent}-{kind}: the other sessions list differently"
    named = DATABASES.get(agent, Path(ref).name)
    if kind == "deep":  # the damage is said, naming the file
        assert any(line.startswith("smig: warning: ") and named in line for line in said), said
    crashes = tmp_path / "smig" / "cache" / "crashes"
    assert not crashes.exists() or list(crashes.iterdir()) == [], f"{agent}-{kind}: crash logs written"
    return took


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("kind", ["deep", "surrogate"])
def test_one_damaged_session_is_a_warning_and_the_others_list_as_before(
    kind: str, agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_homes: dict[str, Path]
) -> None:
    _case(kind, agent, tmp_path, monkeypatch)


# The 100 MB one-line cases run with SMIG_FUZZ_HUGE=1 (tests/conftest.py; about a minute each on two
# cores: the benchmark's size, not the unit suite's); `python -m smig_devtools.bench` does not run them.
@pytest.mark.huge
@pytest.mark.parametrize("agent", AGENTS)
def test_a_100_mb_line_reads_and_plans_in_linear_time(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_homes: dict[str, Path]
) -> None:
    took = _case("huge", agent, tmp_path, monkeypatch)
    print(f"fuzz: {agent} 100 MB line: every front door in {took:.0f} s")


def test_every_agent_and_kind_is_covered() -> None:
    assert set(AGENTS) == {
        entry.id for entry in __import__("smig_tui.adapters.agents.registry", fromlist=["AGENTS"]).AGENTS
    }
