"""Provides the benchmark rows of Gemini CLI's biggest session: the commands of `bench_commands` on a
Gemini CLI home holding one session the size of the corpus's biggest Codex thread, in the JSON-lines
form Gemini CLI 0.61.0 writes, and that session as one JSON document, as older releases wrote it;
the 100 MB single line; and `smig list` with a home of each of the ten agents.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from smig_devtools.bench_commands import (
    FLOOR_GOAL,
    HOMES,
    RSS_GOAL,
    TARGETS,
    every_command_rows,
    floor_row,
    floor_run,
    megabytes,
    run_smig,
)
from smig_devtools.corpus import MB, Manifest


def gemini_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """Floor, plan, show, migrate and export on a 500 MB Gemini CLI session, both forms."""
    from smig_devtools.bench import _reset, corpus_env, in_child
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
    if not legacy.is_file() or not _indented(legacy):  # (an earlier benchmark wrote it on one line)
        in_child(as_document, str(lines), str(legacy))
        for name in ("projects.json",):
            shutil.copy(home / ".gemini" / name, legacy_home / ".gemini" / name)
        shutil.copy(lines.parent.parent / ".project_root", legacy.parent.parent / ".project_root")
    rows: list[Any] = []
    for label, path, gemini_home in (("JSON lines", lines, home), ("one JSON document", legacy, legacy_home)):
        scratch = workdir / "smig-gemini-huge"
        _reset(scratch)
        env = corpus_env(workdir, scratch / "smig") | {"GEMINI_CLI_HOME": str(gemini_home)}
        size = f"{megabytes(path.stat().st_size)} MB gemini ({label})"
        rows += session_rows("gemini", str(path), str(path), size, env, scratch)
        shutil.rmtree(scratch)
    return rows


def session_rows(
    agent: str,
    ref: str,
    floor_ref: str,
    size: str,
    env: dict[str, str],
    scratch: Path,
    destinations: tuple[str, ...] = ("claude",),
) -> list[Any]:
    """The parse floor on `floor_ref`, then `smig plan --json`, `show` (table and JSON), `migrate` to each of
    `destinations` and `export` in every format on the session `ref` (its id or path), each as a multiple of
    the floor, with its peak RSS (goals: 3x the floor, 400 MB)."""
    from smig_devtools.bench import Row

    floor = floor_run(floor_ref, env)
    rows: list[Any] = [floor_row(size, floor)]
    try:
        run = run_smig(["plan", ref, "--target", TARGETS.get(agent, "gpt-5"), "--json"], env, None)
    except RuntimeError as error:
        rows.append(Row(f"smig plan --json, {size}", None, "s", "", None, f"failed: {error}"[:200]))
    else:
        ratio = run.cpu / max(floor.cpu, 1e-9)
        rows.append(
            Row(
                f"smig plan --json, {size}",
                run.seconds,
                "s",
                f"<= {RSS_GOAL:.0f} MB, CPU <= {FLOOR_GOAL:g}x floor",
                run.rss_mb <= RSS_GOAL and ratio <= FLOOR_GOAL,
                f"CPU {run.cpu:.1f} s",
                ratio,
                run.rss_mb,
            )
        )
    return rows + every_command_rows(agent, ref, size, env, scratch, floor, destinations=destinations)


AGENT_SHARE = 0.2
"""The newer agents' big session, as a share of the corpus's biggest (100 MB beside 500 MB): their clients
are younger and their users' sessions smaller; Gemini CLI and OpenCode get the whole size."""
DATABASE_AGENTS = {"opencode": "OPENCODE_DB", "kilo": "KILO_DB"}


def agent_rows(workdir: Path, manifest: Manifest, agents: tuple[str, ...] | None = None) -> list[Any]:
    """Floor, plan, show, migrate and export on one big session of each agent a generator makes a home for
    (besides Codex, Claude Code and Gemini CLI, which have rows of their own): OpenCode at the size of the
    corpus's biggest session, Kilo Code, Qwen Code, Copilot CLI, Pi, Crush and Aider at `AGENT_SHARE` of it."""
    from smig_devtools.bench import Row, _reset, corpus_env

    claude = [e for e in manifest.sessions if e.agent == "claude" and not e.empty and not e.is_subagent]
    if not claude:
        return []
    biggest = max(e.size for e in manifest.sessions)
    rows: list[Any] = []
    for agent in agents or ("opencode", "kilo", "qwen", "copilot", "pi", "crush", "aider"):
        size = biggest if agent == "opencode" else int(biggest * AGENT_SHARE)
        place = workdir / f"big-{agent}"
        try:
            home_env = big_home(agent, place, size, claude[0])
        except (RuntimeError, ValueError, OSError) as error:
            rows.append(Row(f"{agent} big session", None, "s", "", None, f"not generated: {error}"[:200]))
            continue
        scratch = workdir / f"smig-big-{agent}"
        _reset(scratch)
        quiet = {name: str(scratch / "absent") for name in HOMES.values()}  # no other agent's sessions
        env = corpus_env(workdir, scratch / "smig") | quiet | home_env
        try:
            listed = _sessions(env, agent)
        except RuntimeError as error:
            listed, why = [], str(error)
        else:
            why = "`smig list` lists no session in its home"
        if not listed:
            rows.append(Row(f"{agent} big session", None, "s", "", None, why[:200]))
            continue
        info = listed[0]
        floor_ref = info["path"] if not str(info["path"]).endswith(".db") else f"{info['path']}#{info['id']}"
        label = f"{megabytes(os.path.getsize(floor_ref.partition('#')[0]))} MB {agent}"
        rows += session_rows(agent, info["id"], floor_ref, label, env, scratch)
        shutil.rmtree(scratch)
    return rows


def big_home(agent: str, place: Path, size: int, like: Any) -> dict[str, str]:
    """Make (or reuse) a home of `agent` holding one session of about `size` bytes, in a child process; return
    the environment pointing smig at it."""
    from dataclasses import replace

    from smig_devtools.bench import in_child

    entry = replace(like, size=size, cwd=str(place / "work"), prompt="Refactor the parser and run the tests")
    (place / "work" / ".git").mkdir(parents=True, exist_ok=True)
    if agent in DATABASE_AGENTS:
        database = place / f"{agent}.db"
        if not database.is_file():
            in_child(opencode_session, str(database), size)
        return {DATABASE_AGENTS[agent]: str(database)}
    module = importlib.import_module(f"smig_devtools.{agent}_corpus")
    in_child(getattr(module, f"generate_{agent}"), place / agent, [entry])
    return {
        "qwen": {"QWEN_HOME": str(place / agent / ".qwen"), "QWEN_RUNTIME_DIR": ""},
        "copilot": {"COPILOT_HOME": str(place / agent / ".copilot")},
        "pi": {"PI_CODING_AGENT_DIR": str(place / agent / ".pi" / "agent"), "PI_CODING_AGENT_SESSION_DIR": ""},
        "crush": {"CRUSH_GLOBAL_DATA": str(place / agent)},
        "aider": {"AIDER_CHAT_HISTORY_FILE": str(place / "work" / ".aider.chat.history.md")},
    }[agent]


def _sessions(env: dict[str, str], agent: str) -> list[dict[str, Any]]:
    """The sessions `smig list --json --agent AGENT` lists in `env` (sub-sessions left out)."""
    import subprocess
    import sys

    clean = {key: value for key, value in env.items() if value}
    argv = [sys.executable, "-m", "smig_tui", "list", "--json", "--agent", agent, "--limit", "0"]
    proc = subprocess.run(argv, env=clean, capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"smig list --agent {agent} failed ({proc.returncode}): {proc.stderr.decode()[-300:]}")
    out = proc.stdout
    listed = [row for row in json.loads(out) if not row.get("parent_id")]
    return sorted(listed, key=lambda row: -int(row.get("size") or 0))[:1]


def opencode_session(database: str, size: int, seed: int = 7) -> int:
    """Write an OpenCode database (the schema of `opencode_corpus`, also Kilo Code's) holding one session of
    about `size` bytes of rows: prompts, then steps of reasoning, text and bash calls with long outputs.
    Returns the number of parts written."""
    import random

    from smig_devtools.opencode_corpus import BASE_MS, _id, new_database, turn

    rng = random.Random(seed)
    connection = new_database(database)
    session_id = _id("ses", 0xFFFFFFFFFFFF - BASE_MS)
    model = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
    written = counter = parts = 0
    moment = BASE_MS
    while written < size:
        messages, rows, counter, moment = turn(
            rng,
            session_id,
            counter,
            moment,
            steps=(2, 6),
            cache_read=False,
            output_words=(50, 3000),
            command="pytest -q",
        )
        connection.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
        connection.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", rows)
        written += sum(len(str(message[-1])) for message in messages) + sum(len(str(row[-1])) for row in rows)
        parts += len(rows)
    connection.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, model, time_created, "
        "time_updated) VALUES (?, 'global', NULL, 'big', '/home/user/smig', 'Refactor the parser', '1.18.33', ?, ?, ?)",
        (session_id, json.dumps({"id": model["modelID"], "providerID": model["providerID"]}), BASE_MS, moment),
    )
    connection.commit()
    connection.close()
    return parts


def as_document(lines: str, document: str) -> None:
    """Write a JSON-lines Gemini session as the one document older releases wrote: its metadata and its
    messages (the records by id, last one kept, in order), as the client folds the lines, indented as the
    client wrote it (`JSON.stringify(conversation, null, 2)`)."""
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
    whole = {**meta, "messages": list(messages.values())}
    Path(document).write_text(json.dumps(whole, indent=2, ensure_ascii=False), encoding="utf-8")


def _indented(document: Path) -> bool:
    """Whether a document was written indented, as the client writes it."""
    with document.open("rb") as handle:
        return handle.read(2) == b"{\n"


LINE_MB = 100
LINE_GOAL = 2.0
LINE_TIMEOUT = 120.0


def single_line_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """`smig plan --json` on a Claude transcript one of whose lines is a 100 MB tool result (goal 2 s), and
    the peak memory of the commands that write that result out (`line_memory_rows`)."""
    from smig_devtools.bench import Row, _reset, corpus_env, in_child

    home = workdir / "claude-line"
    path = home / "projects" / "-home-user-line" / "0b0b0b0b-1111-4222-8333-444455556666.jsonl"
    if not path.is_file() or path.stat().st_size < LINE_MB * MB:
        # in a child: the 100 MB string would raise this process's peak, which every later child starts from
        in_child(write_single_line, path)
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
            f"CPU {run.cpu:.1f} s",
            run.cpu / max(floor.cpu, 1e-9),
            run.rss_mb,
        ),
        *line_memory_rows(str(path), size, env, scratch, floor),
    ]


LINE_COMMANDS = (
    ("smig show --json", ["show", "--json"]),
    ("smig export --format json", ["export", "--format", "json"]),
    ("smig export --format markdown", ["export", "--format", "markdown"]),
    ("smig export --format openai", ["export", "--format", "openai"]),
)
"""The commands that write the 100 MB message itself, whose peak memory is the row (each copy of the text
it holds on the way out is 100 MB more)."""


def line_memory_rows(path: str, size: str, env: dict[str, str], scratch: Path, floor: Any) -> list[Any]:
    """Peak RSS of `smig show --json` and of each export writing the session of one 100 MB message (goal 400 MB)."""
    from smig_devtools.bench import Row

    rows: list[Any] = []
    for name, command in LINE_COMMANDS:
        out = scratch / f"line-{command[-1]}"
        exported = command[0] == "export"  # to its file, where `show --json` writes to stdout
        argv = [command[0], path, *command[1:], *(["--out", str(out)] if exported else [])]
        label = f"{name}, {size}: peak RSS"
        try:
            run = run_smig(argv, env, None if exported else out, LINE_TIMEOUT)
        except RuntimeError as error:
            rows.append(Row(label, None, "MB", "", None, f"failed: {error}"[:200]))
            continue
        finally:
            out.unlink(missing_ok=True)
        rows.append(
            Row(
                label,
                run.rss_mb,
                "MB",
                f"<= {RSS_GOAL:.0f} MB",
                run.rss_mb <= RSS_GOAL,
                f"{run.seconds:.2f} s, CPU {run.cpu:.1f} s",
                run.cpu / max(floor.cpu, 1e-9),
                run.rss_mb,
            )
        )
    return rows


def write_single_line(path: Path) -> None:
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
"""`smig list` with every agent's home present, per session, against Codex and Claude Code alone, first
and warm: every reader lists from what it shows (a file's ends or lines, a database's rows), reads a
session whole only where those cannot say, and keeps the entry until the session changes."""
GENERATED = ("gemini", "qwen", "copilot", "pi", "crush", "aider")
"""The agents whose homes are generated from the corpus's Claude sessions (their sizes), in this order;
OpenCode and Kilo Code get databases of their own generator; Claude Code keeps some of its projects."""
PAIRS = 5
"""Warm runs of each listing, taken in turn (a shared machine's load moves both alike)."""


def every_agent_list_rows(workdir: Path, manifest: Manifest) -> list[Any]:
    """`smig list` with a home of each of the ten agents, against the corpus's Codex and Claude Code homes
    alone, first (empty smig caches) and warm (median of 5, the two runs taken in turn): the mixed run
    keeps the Codex home and shares the Claude Code sessions out among the other nine agents (a ninth of
    Claude Code's projects stay in a Claude Code home; the rest become sessions of the same sizes in the
    formats of Gemini CLI, Qwen Code, Copilot CLI, Pi, Crush and Aider, and OpenCode and Kilo Code
    databases), so both list about the same number of sessions; the goal is per session."""
    from smig_devtools.bench import Row, _reset, corpus_env

    claude = [e for e in manifest.sessions if e.agent == "claude" and not e.empty and not e.is_subagent]
    if not claude:
        return []
    place = workdir / "every-agent"
    absent = place / "absent"
    homes = _every_agent_homes(workdir, place, claude)
    quiet = {name: str(absent / name) for name in homes if name != "CLAUDE_CONFIG_DIR"}
    quiet |= {"QWEN_RUNTIME_DIR": "", "PI_CODING_AGENT_SESSION_DIR": ""}  # unset: the homes above hold the sessions
    envs: dict[str, dict[str, str]] = {}
    first: dict[str, Any] = {}
    for label, chosen in (("codex + claude", quiet), ("every agent", quiet | homes)):
        scratch = workdir / f"smig-every-{label.split()[0]}"
        _reset(scratch)
        env = {key: value for key, value in (corpus_env(workdir, scratch) | chosen).items() if value}
        envs[label] = env
        first[label] = run_smig(["list"], env, None)  # empty smig caches: every session read
    counts = {label: _listed(env) for label, env in envs.items()}
    warm: dict[str, list[Any]] = {label: [] for label in envs}
    for _ in range(PAIRS):
        for label, env in envs.items():
            warm[label].append(run_smig(["list"], env, None))
    base, every = "codex + claude", "every agent"
    n_base, n_all = sum(counts[base].values()), sum(counts[every].values())
    shown = ", ".join(f"{agent} {count:,}" for agent, count in sorted(counts[every].items(), key=lambda kv: -kv[1]))
    rows = []
    for kind, runs in (
        ("first (empty smig caches)", first),
        (
            f"warm (median of {PAIRS}, in turn)",
            {label: sorted(r, key=lambda run: run.cpu)[PAIRS // 2] for label, r in warm.items()},
        ),
    ):
        ratio = (runs[every].cpu / n_all) / max(runs[base].cpu / n_base, 1e-9)
        rows.append(
            Row(
                f"smig list, {kind}, a home of all ten agents ({n_all:,} sessions), per session",
                ratio,
                "x",
                f"<= {EVERY_AGENT_GOAL:g}x Codex + Claude Code",
                ratio <= EVERY_AGENT_GOAL,
                f"CPU {runs[every].cpu:.3f} s (wall {runs[every].seconds:.3f} s) for {shown}, against "
                f"{runs[base].cpu:.3f} s (wall {runs[base].seconds:.3f} s) for {n_base:,} Codex and Claude Code sessions",
                rss=runs[every].rss_mb,
            )
        )
    return rows


def _every_agent_homes(workdir: Path, place: Path, claude: list[Any]) -> dict[str, str]:
    """Make (or reuse) a home of each agent but Codex from the corpus's Claude sessions; return the
    environment pointing smig at them. The generated sessions run in project folders of their own
    (git repositories under `place/work`), one Aider history in each."""
    from dataclasses import replace

    from smig_devtools.aider_corpus import generate_aider
    from smig_devtools.bench import in_child
    from smig_devtools.copilot_corpus import generate_copilot
    from smig_devtools.crush_corpus import generate_crush
    from smig_devtools.gemini_corpus import generate_gemini
    from smig_devtools.opencode_corpus import generate as generate_database
    from smig_devtools.pi_corpus import generate_pi
    from smig_devtools.qwen_corpus import generate_qwen

    kept, rest = _claude_share(claude, 1 + len(GENERATED) + 2)
    _claude_home(workdir / "claude", place / "claude", {entry.cwd for entry in kept})
    every = len(GENERATED) + 2
    shares = {agent: rest[number::every] for number, agent in enumerate(GENERATED)}
    databases = rest[len(GENERATED) :: every], rest[len(GENERATED) + 1 :: every]
    # The corpus's projects become folders of their own (git repositories, as Aider keeps a history
    # at the root of one). Aider has one history per project, found through the folders the other
    # agents' listing caches name (Crush's, OpenCode's and Kilo Code's name none): its sessions go to
    # projects those name, one each, and any beyond that number go to the other agents.
    folders = {entry.cwd: place / "work" / Path(entry.cwd).name for entry in claude}
    for folder in folders.values():
        (folder / ".git").mkdir(parents=True, exist_ok=True)
    others = [agent for agent in GENERATED if agent != "aider"]
    named = sorted({entry.cwd for agent in others if agent != "crush" for entry in shares[agent]})
    aider, spare = shares["aider"][: len(named)], shares["aider"][len(named) :]
    shares["aider"] = [replace(entry, cwd=cwd) for entry, cwd in zip(aider, named, strict=False)]
    for number, entry in enumerate(spare):
        shares[others[number % len(others)]].append(entry)
    for agent, share in shares.items():
        shares[agent] = [replace(entry, cwd=str(folders[entry.cwd])) for entry in share]
    makers = {
        "gemini": generate_gemini,
        "qwen": generate_qwen,
        "copilot": generate_copilot,
        "pi": generate_pi,
        "crush": generate_crush,
        "aider": generate_aider,
    }
    for agent, make in makers.items():
        in_child(make, place / agent, shares[agent])
    for name, share in zip(("opencode", "kilo"), databases, strict=True):
        database = place / f"{name}-{len(share)}.db"
        if not database.is_file():
            in_child(generate_database, database, len(share))
    return {
        "CLAUDE_CONFIG_DIR": str(place / "claude"),
        "GEMINI_CLI_HOME": str(place / "gemini"),
        "QWEN_HOME": str(place / "qwen" / ".qwen"),
        "COPILOT_HOME": str(place / "copilot" / ".copilot"),
        "PI_CODING_AGENT_DIR": str(place / "pi" / ".pi" / "agent"),
        "CRUSH_GLOBAL_DATA": str(place / "crush"),
        "OPENCODE_DB": str(place / f"opencode-{len(databases[0])}.db"),
        "KILO_DB": str(place / f"kilo-{len(databases[1])}.db"),
    }


def _claude_share(claude: list[Any], agents: int) -> tuple[list[Any], list[Any]]:
    """The Claude Code sessions of whole projects (smallest first, each taken while it brings their number
    nearer one `agents`-th of them), and the others."""
    by_project: dict[str, list[Any]] = {}
    for entry in claude:
        by_project.setdefault(entry.cwd, []).append(entry)
    target = len(claude) / agents
    kept: list[Any] = []
    for _, entries in sorted(by_project.items(), key=lambda item: (len(item[1]), item[0])):
        if kept and abs(len(kept) + len(entries) - target) >= abs(len(kept) - target):
            break
        kept += entries
    chosen = {entry.cwd for entry in kept}
    return kept, [entry for entry in claude if entry.cwd not in chosen]


def _claude_home(corpus: Path, home: Path, cwds: set[str]) -> None:
    """A Claude Code home holding these projects of the corpus's, hard-linked (made again when they differ)."""
    import os

    from smig_devtools.corpus import munge

    wanted = sorted(munge(cwd) for cwd in cwds)
    marker = home / "corpus.json"
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == wanted:
        return
    if home.exists():
        if not marker.is_file():
            raise ValueError(f"{home} exists and was not made by the benchmark; refusing to replace it.")
        shutil.rmtree(home)
    for name in wanted:
        shutil.copytree(corpus / "projects" / name, home / "projects" / name, copy_function=os.link)
    marker.write_text(json.dumps(wanted), encoding="utf-8")


def _listed(env: dict[str, str]) -> dict[str, int]:
    """How many sessions `smig list` lists in `env`, by agent."""
    import subprocess
    import sys
    from collections import Counter

    out = subprocess.run(
        [sys.executable, "-m", "smig_tui", "list", "--json"], env=env, capture_output=True, check=True
    ).stdout
    return dict(Counter(str(row.get("agent")) for row in json.loads(out)))
