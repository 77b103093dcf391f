"""Provides the benchmark rows of Gemini CLI's biggest session: the commands of `bench_commands` on a
Gemini CLI home holding one session the size of the corpus's biggest Codex thread, in the JSON-lines
form Gemini CLI 0.61.0 writes, and that session as one JSON document, as older releases wrote it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from smig_devtools.bench_commands import RSS_GOAL, floor_row, floor_run, run_smig
from smig_devtools.corpus import MB, Manifest


def gemini_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """Floor, plan, show, migrate and export on a 500 MB Gemini CLI session, both forms."""
    from smig_devtools.bench import Row, _reset, corpus_env, in_child
    from smig_devtools.gemini_corpus import generate_gemini

    codex = [e for e in manifest.sessions if e.agent == "codex" and not e.compressed and e.kind == "main"]
    if not codex:
        return []
    biggest = max(codex, key=lambda e: e.size)
    home = workdir / "gemini-huge"
    in_child(generate_gemini, home, [biggest])
    lines = next((home / ".gemini" / "tmp").rglob("session-*.jsonl"))
    document = lines.with_suffix(".json")
    legacy_home = workdir / "gemini-huge-document"
    legacy = legacy_home / document.relative_to(home)
    if not legacy.is_file():
        in_child(as_document, str(lines), str(legacy))
        for name in ("projects.json",):
            shutil.copy(home / ".gemini" / name, legacy_home / ".gemini" / name)
        shutil.copy(lines.parent.parent / ".project_root", legacy.parent.parent / ".project_root")
    rows: list[Any] = []
    for label, path, gemini_home in (("JSON lines", lines, home), ("one JSON document", legacy, legacy_home)):
        scratch = workdir / "smig-gemini-huge"
        _reset(scratch)
        (scratch / "cwd").mkdir()
        env = corpus_env(workdir, scratch / "smig") | {"GEMINI_CLI_HOME": str(gemini_home)}
        size = f"{path.stat().st_size / MB:,.0f} MB gemini ({label})"
        floor = floor_run(str(path), env)
        rows.append(floor_row(size, floor))
        commands = {
            "smig plan --json": ["plan", str(path), "--target", "gemini-2.5-pro", "--json"],
            "smig show --json": ["show", str(path), "--json"],
            "smig migrate gemini -> claude": [
                "migrate",
                str(path),
                "--target",
                "claude-sonnet-5-5",
                "--to",
                "claude",
                "--cwd",
                str(scratch / "cwd"),
            ],
            "smig export --format markdown": ["export", str(path), "--format", "markdown", "--out", str(scratch / "x")],
            "smig export --format json": ["export", str(path), "--format", "json", "--out", str(scratch / "y")],
        }
        for name, argv in commands.items():
            extra = {"CLAUDE_CONFIG_DIR": str(scratch / "claude")} if "migrate" in name else {}
            try:
                run = run_smig(argv, env | extra, scratch / "out")
            except RuntimeError as error:
                rows.append(Row(f"{name}, {size}", None, "s", "", None, f"failed: {error}"[:200]))
                continue
            ratio = run.cpu / max(floor.cpu, 1e-9)
            rows.append(
                Row(
                    f"{name}, {size}",
                    run.seconds,
                    "s",
                    f"<= {RSS_GOAL:.0f} MB, CPU <= 3x floor",
                    run.rss_mb <= RSS_GOAL and ratio <= 3.0,
                    f"CPU {run.cpu:.1f} s, peak RSS {run.rss_mb:,.0f} MB",
                    ratio,
                )
            )
        shutil.rmtree(scratch)
    return rows


def as_document(lines: str, document: str) -> None:
    """Write a JSON-lines Gemini session as the one document older releases wrote: its metadata and its
    messages (the records by id, last one kept, in order), as the client folds the lines."""
    meta: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    with open(lines, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if isinstance(record.get("id"), str):
                messages[record["id"]] = record
            elif isinstance(record.get("$set"), dict):
                update = record["$set"]
                if isinstance(update.get("messages"), list):
                    messages = {message["id"]: message for message in update["messages"]}
                meta.update({key: value for key, value in update.items() if key != "messages"})
            else:
                meta.update(record)
    Path(document).parent.mkdir(parents=True, exist_ok=True)
    Path(document).write_text(json.dumps({**meta, "messages": list(messages.values())}), encoding="utf-8")


LINE_MB = 100
LINE_GOAL = 2.0
LINE_TIMEOUT = 120.0


def single_line_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """`smig plan --json` on a Claude transcript one of whose lines is a 100 MB tool result (goal 2 s)."""
    from smig_devtools.bench import Row, _reset, corpus_env

    home = workdir / "claude-line"
    path = home / "projects" / "-home-user-line" / "0b0b0b0b-1111-4222-8333-444455556666.jsonl"
    if not path.is_file() or path.stat().st_size < LINE_MB * MB:
        _write_single_line(path)
    scratch = workdir / "smig-line"
    _reset(scratch)
    env = corpus_env(workdir, scratch) | {"CLAUDE_CONFIG_DIR": str(home)}
    floor = floor_run(str(path), env)
    size = f"{path.stat().st_size / MB:,.0f} MB claude, one {LINE_MB} MB line"
    try:
        run = run_smig(["plan", str(path), "--target", "gpt-5", "--json"], env, None, LINE_TIMEOUT)
    except RuntimeError:
        return [
            floor_row(size, floor),
            Row(
                f"smig plan --json, {size}",
                None,
                "s",
                f"<= {LINE_GOAL:g} s",
                False,
                f"not done in {LINE_TIMEOUT:.0f} s",
            ),
        ]
    return [
        floor_row(size, floor),
        Row(
            f"smig plan --json, {size}",
            run.seconds,
            "s",
            f"<= {LINE_GOAL:g} s",
            run.seconds <= LINE_GOAL,
            f"CPU {run.cpu:.1f} s, peak RSS {run.rss_mb:,.0f} MB",
            run.cpu / max(floor.cpu, 1e-9),
        ),
    ]


def _write_single_line(path: Path) -> None:
    """A prompt, a shell call and its 100 MB result on one line, then a reply (Claude Code's record shape)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    session = path.stem
    base = {
        "sessionId": session,
        "cwd": "/home/user/line",
        "version": "2.1.39",
        "isSidechain": False,
        "userType": "external",
    }
    words = "output line with some words and numbers 12345\n"
    records = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-11-01T10:00:00.000Z",
            "message": {"role": "user", "content": "Dump the whole log"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-11-01T10:00:01.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "cat log"}}],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "timestamp": "2026-11-01T10:00:02.000Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": words * (LINE_MB * MB // len(words))}
                ],
            },
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "u2",
            "timestamp": "2026-11-01T10:00:03.000Z",
            "message": {
                "id": "msg_2",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": "That is the whole log."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


EVERY_AGENT_GOAL = 1.2
"""`smig list` with every agent's home present, per session, against Codex and Claude Code alone."""
NO_GENERATOR = ("qwen",)
"""Registered agents the corpus generators cannot make a home for (their homes stay absent)."""


def every_agent_list_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """`smig list`, warm (median of 3), with a home of every agent a generator makes, against the corpus's
    Codex and Claude Code homes: the mixed run keeps the Codex home and puts, in place of the Claude
    Code sessions, as many sessions in a Gemini CLI home (Claude's sizes), an OpenCode and a Kilo Code
    database, so both list about the same number of sessions; the goal is per session."""
    from smig_devtools.bench import Row, _reset, corpus_env, in_child
    from smig_devtools.gemini_corpus import generate_gemini
    from smig_devtools.opencode_corpus import generate as generate_database

    claude = [e for e in manifest.sessions if e.agent == "claude" and not e.empty and not e.is_subagent]
    if not claude:
        return []
    place = workdir / "every-agent"
    absent = place / "absent"
    gemini_share = claude[: len(claude) // 2]
    rest = len(claude) - len(gemini_share)
    in_child(generate_gemini, place / "gemini", gemini_share)
    databases = {"OPENCODE_DB": place / "opencode.db", "KILO_DB": place / "kilo.db"}
    for (_, database), sessions in zip(databases.items(), (rest // 2, rest - rest // 2), strict=True):
        if not database.is_file():
            in_child(generate_database, database, sessions)
    homes_absent = {"GEMINI_CLI_HOME": str(absent), "QWEN_HOME": str(absent / ".qwen")}
    homes_absent |= {name: str(absent / f"{name}.db") for name in databases}
    runs: dict[str, tuple[int, Any]] = {}
    for label, homes in (
        ("codex + claude", homes_absent),
        (
            "every agent",
            homes_absent
            | {"CLAUDE_CONFIG_DIR": str(absent), "GEMINI_CLI_HOME": str(place / "gemini")}
            | {name: str(path) for name, path in databases.items()},
        ),
    ):
        scratch = workdir / f"smig-every-{label.split()[0]}"
        _reset(scratch)
        env = corpus_env(workdir, scratch) | homes
        listed = _listed(env)  # also fills the listing caches
        warm = sorted((run_smig(["list"], env, None) for _ in range(3)), key=lambda run: run.cpu)
        runs[label] = listed, warm[1]
    (n_base, base), (n_all, every) = runs["codex + claude"], runs["every agent"]
    ratio = (every.cpu / n_all) / max(base.cpu / n_base, 1e-9)
    return [
        Row(
            f"smig list, warm, a home of every agent ({n_all:,} sessions), per session",
            ratio,
            "x",
            f"<= {EVERY_AGENT_GOAL:g}x Codex + Claude Code",
            ratio <= EVERY_AGENT_GOAL,
            f"CPU {every.cpu:.3f} s (wall {every.seconds:.3f} s) for Codex, Gemini CLI ({len(gemini_share):,}), "
            f"OpenCode and Kilo Code ({rest:,} together) against {base.cpu:.3f} s (wall {base.seconds:.3f} s) "
            f"for {n_base:,} Codex and Claude Code sessions; no generator for {', '.join(NO_GENERATOR)} (home absent)",
        )
    ]


def _listed(env: dict[str, str]) -> int:
    """How many sessions `smig list` lists in `env` (one run, which fills the listing caches)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "smig_tui", "list", "--json"], env=env, capture_output=True, check=True
    ).stdout
    return len(json.loads(out))
