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
