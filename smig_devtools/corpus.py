r"""Provides a seeded generator of realistic fake `$CODEX_HOME` and `$CLAUDE_CONFIG_DIR` trees.

    python -m smig_devtools.corpus --codex-home DIR --claude-home DIR --sessions 2000 \\
        --total-gb 2 [--huge 1 --huge-mb 500] [--seed 7]

Sizes have a long tail (most sessions 10 KB-2 MB, a few tens of MB, `--huge` ones of hundreds);
sub-agent, exec and compaction-agent sessions, compactions, corrupt middle lines, truncated last
lines and empty files are mixed in; `--fork-share` / `--compressed-share` add Codex forks
(`history_base`) and `.jsonl.zst` rollouts. Everything follows from the seed, so two runs give identical
bytes. A manifest (`smig-corpus.json` in both homes) says what was written, for tests and the
benchmark. Pure stdlib.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from smig_devtools import corpus_text as text
from smig_devtools import turns
from smig_devtools.templates import Filler, Template
from smig_tui.adapters.zstd_files import compress_file
from smig_tui.core.errors import SmigError, WriteRefusedError

KB, MB, GB = 1 << 10, 1 << 20, 1 << 30
MANIFEST = "smig-corpus.json"
GENERATOR_VERSION = 1
"""Bump when the output changes, so the benchmark regenerates a reused corpus."""
BASE_TIME = 1_795_600_000.0
"""2026-11-25T08:26:40Z: sessions are spread over the 120 days before it."""
_POOL = 40

_PROJECTS = (
    "smig",
    "my_app",
    "api.v2",
    "web-client",
    "infra",
    "data_pipeline",
    "docs",
    "cli-tools",
    "ml.research",
    "mobile_app",
    "billing",
    "auth-service",
    "search",
    "scratch",
)


@dataclass
class SessionEntry:
    """One file the generator wrote, and what a reader should make of it."""

    agent: str
    kind: str
    """`main`, `exec`, `subagent` or `compact-agent`."""
    id: str
    path: str
    cwd: str
    parent_id: str | None = None
    is_subagent: bool = False
    title: str | None = None
    """A title set by the agent's own title record (`session_index.jsonl`, `custom-title`)."""
    prompt: str = ""
    """The first user prompt."""
    size: int = 0
    lines: int = 0
    corrupt_lines: list[int] = field(default_factory=list)
    truncated_line: int | None = None
    empty: bool = False
    compactions: int = 0
    compressed: bool = False
    """Written as `.jsonl.zst`, the way Codex rewrites an idle rollout."""
    inherited: int = 0
    """A fork's lines that come from its parent's file (`history_base`), not from its own."""


@dataclass
class Manifest:
    """What a run wrote, with the parameters that produced it."""

    params: dict[str, Any]
    sessions: list[SessionEntry]
    seconds: float = 0.0

    @property
    def total_bytes(self) -> int:
        """Bytes written across all session files."""
        return sum(entry.size for entry in self.sessions)

    def save(self, *homes: Path) -> None:
        """Write the manifest into each home."""
        data = json.dumps(
            {
                "params": self.params,
                "seconds": self.seconds,
                "sessions": [asdict(e) for e in self.sessions],
            },
            indent=1,
        )
        for home in homes:
            (home / MANIFEST).write_text(data, encoding="utf-8")

    @classmethod
    def load(cls, home: Path) -> Manifest | None:
        """Read the manifest a previous run left in `home`, if any."""
        try:
            data = json.loads((home / MANIFEST).read_text(encoding="utf-8"))
            return cls(data["params"], [SessionEntry(**e) for e in data["sessions"]], data["seconds"])
        except (OSError, ValueError, KeyError, TypeError):
            return None


@dataclass
class Spec:
    """A session to write, decided up front so parents know about their children."""

    index: int
    agent: str
    kind: str
    size: int
    created: float
    cwd: str
    id: str = ""
    parent: int | None = None
    corrupt: bool = False
    truncated: bool = False
    empty: bool = False
    compacted: bool = False
    titled: bool = False
    old_layout: bool = False


class Pools:
    """The seeded turn templates every session draws from, sorted by size."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"{seed}:pools")
        self.codex = sorted((turns.codex_turn(rng) for _ in range(_POOL)), key=lambda t: t.size)
        self.claude = sorted((turns.claude_turn(rng, False) for _ in range(_POOL)), key=lambda t: t.size)
        self.sidechain = sorted((turns.claude_turn(rng, True) for _ in range(_POOL // 2)), key=lambda t: t.size)
        self.sizes = {id(pool): [t.size for t in pool] for pool in (self.codex, self.claude, self.sidechain)}
        self.codex_compaction = turns.codex_compaction(rng)
        self.claude_compaction = turns.claude_compaction(rng)
        self.instructions = text.prose(rng, 60)
        self.agents_md = text.prose(rng, 25)

    def pick(self, rng: random.Random, pool: list[Template], remaining: int) -> Template:
        """Pick a template no bigger than what is left to write (or the smallest)."""
        sizes = self.sizes[id(pool)]
        hi = max(1, bisect.bisect_right(sizes, max(remaining, sizes[0])))
        return pool[rng.randrange(hi)]


def plan_sizes(rng: random.Random, count: int, total: int, huge: int, huge_bytes: int) -> list[int]:
    """Return `count` file sizes with a long tail, summing to about `total`."""
    huge = min(huge, count)
    rest = count - huge
    weights = []
    for _ in range(rest):
        if rng.random() < 0.025:
            weights.append(rng.uniform(2 * MB, 40 * MB))
        else:
            weights.append(min(2 * MB, max(10 * KB, rng.lognormvariate(12.2, 1.1))))
    budget = max(rest * 10 * KB, total - huge * huge_bytes)
    scale = budget / sum(weights) if weights else 1.0
    return [huge_bytes] * huge + [max(10 * KB, int(w * scale)) for w in weights]


def plan_specs(seed: int, count: int, total: int, huge: int, huge_bytes: int) -> list[Spec]:
    """Decide every session: agent, kind, parent, size and the damage it carries."""
    rng = random.Random(f"{seed}:plan")
    cwds = [f"/home/dev/work/{name}" for name in _PROJECTS]
    specs: list[Spec] = []
    mains: dict[str, list[int]] = {"codex": [], "claude": []}
    for index, size in enumerate(plan_sizes(rng, count, total, huge, huge_bytes)):
        agent = ("codex", "claude")[index % 2] if index < huge else rng.choice(("codex", "claude"))
        spec = Spec(index, agent, "main", size, BASE_TIME - rng.uniform(0, 120 * 86400), rng.choice(cwds))
        roll = rng.random()
        if index >= huge and mains[agent] and roll < 0.16:
            parent = specs[rng.choice(mains[agent])]
            spec.parent, spec.cwd = parent.index, parent.cwd
            spec.created = parent.created + rng.uniform(60, 3600)
            spec.size = min(spec.size, 2 * MB)
            spec.kind = _child_kind(rng, agent, parent, spec)
        elif agent == "codex" and roll < 0.22:
            spec.kind = "exec"
        if spec.kind == "main":
            mains[agent].append(index)
        spec.corrupt = rng.random() < 0.03
        spec.truncated = rng.random() < 0.03
        spec.empty = index >= huge and rng.random() < 0.005
        spec.compacted = spec.compacted or (spec.kind == "main" and rng.random() < 0.08)
        spec.titled = rng.random() < 0.3
        specs.append(spec)
    _ensure_variety(specs, huge)
    for spec in specs:
        spec.id = _session_id(rng, spec)
    return specs


def _ensure_variety(specs: list[Spec], huge: int) -> None:
    """Make even a small corpus hold every case once: damage, empty file, exec, sub-agents, compaction."""
    parents = {s.parent for s in specs}
    free = [
        s
        for s in specs[huge:]
        if s.kind == "main" and s.index not in parents and not (s.corrupt or s.truncated or s.empty or s.compacted)
    ]
    for flag in ("corrupt", "truncated", "empty", "compacted"):
        if free and not any(getattr(s, flag) for s in specs):
            setattr(free.pop(), flag, True)
    kinds = {(s.agent, s.kind) for s in specs}
    for agent, kind in (("codex", "exec"), ("codex", "subagent"), ("claude", "subagent")):
        hosts = [s for s in specs[huge:] if s.agent == agent and s.kind == "main" and s not in free[-1:]]
        if (agent, kind) in kinds or not free or (kind == "subagent" and not hosts):
            continue
        child = free.pop()
        child.agent, child.kind, child.size = agent, kind, min(child.size, 2 * MB)
        if kind == "subagent":
            host = hosts[0]
            child.parent, child.cwd, child.created = host.index, host.cwd, host.created + 600


def _child_kind(rng: random.Random, agent: str, parent: Spec, spec: Spec) -> str:
    """Choose what a child session is; a compaction agent marks its parent as compacted."""
    if agent == "claude" and rng.random() < 0.25:
        parent.compacted = True
        return "compact-agent"
    spec.old_layout = agent == "claude" and rng.random() < 0.2
    return "subagent"


def _session_id(rng: random.Random, spec: Spec) -> str:
    """Return a UUIDv7 for Codex (time matches `created`), a UUIDv4 for Claude, an agent id for sub-agents."""
    bits = rng.getrandbits(128)
    if spec.agent == "claude" and spec.kind != "main":
        prefix = "acompact-" if spec.kind == "compact-agent" else ""
        return f"{prefix}a{bits & (16**16 - 1):016x}"
    if spec.agent == "claude":
        raw = f"{bits:032x}"
        return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-{'89ab'[bits % 4]}{raw[17:20]}-{raw[20:32]}"
    ms = f"{int(spec.created * 1000):012x}"
    raw = f"{bits:032x}"
    return f"{ms[:8]}-{ms[8:12]}-7{raw[:3]}-{'89ab'[bits % 4]}{raw[4:7]}-{raw[8:20]}"


def munge(cwd: str) -> str:
    """Claude Code's project folder name for a cwd (short paths: no hash suffix)."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


def write_body(
    handle: Any,
    filler: Filler,
    pools: Pools,
    pool: list[Template],
    spec: Spec,
    entry: SessionEntry,
    compaction: Template | None,
    trailer: str = "",
) -> None:
    """Write turns until the file reaches its size, then `trailer`, with the damage planned for it."""
    rng = filler.rng
    written, lines = entry.size, entry.lines
    compact_at = spec.size * rng.uniform(0.3, 0.7) if compaction and spec.compacted else None
    corrupt_at = spec.size * rng.uniform(0.2, 0.8) if spec.corrupt else None
    while written < spec.size:
        if compact_at is not None and written >= compact_at:
            chunk, compact_at = filler.fill(compaction), None  # type: ignore[arg-type]
            entry.compactions += 1
        elif corrupt_at is not None and written >= corrupt_at:
            chunk, corrupt_at = _broken_line(filler.fill(pool[0])), None
            entry.corrupt_lines.append(lines + 1)
        else:
            template = pools.pick(rng, pool, spec.size - written)
            chunk = filler.fill(template)
            handle.write(chunk)
            written += len(chunk)
            lines += template.lines
            continue
        handle.write(chunk)
        written += len(chunk)
        lines += chunk.count("\n")
    handle.write(trailer)
    written += len(trailer)
    lines += trailer.count("\n")
    if spec.truncated:
        line = filler.fill(pool[0]).split("\n", 1)[0]
        handle.write(line[: len(line) // 2])
        written += len(line) // 2
        entry.truncated_line = lines + 1
    entry.size, entry.lines = written, lines


def _broken_line(chunk: str) -> str:
    """Cut a conversation line (one every reader must parse) short, as a crash mid-write would."""
    lines = chunk.split("\n")
    line = next((x for x in lines if '"type":"response_item"' in x or '"type":"user"' in x), lines[0])
    return line[: len(line) * 2 // 3] + "\n"


def write_header(handle: Any, filler: Filler, records: list[dict[str, Any]], entry: SessionEntry) -> None:
    """Write the per-session opening lines through the filler so their slots are filled too."""
    chunk = filler.fill(Template.build(records, last_uuid=records[-1].get("_last", -1)))
    handle.write(chunk)
    entry.size, entry.lines = len(chunk), chunk.count("\n")


def _filler(spec: Spec, seed: int, consts: dict[str, str]) -> Filler:
    rng = random.Random(f"{seed}:session:{spec.index}")
    return Filler(rng, spec.created, consts, f"{rng.getrandbits(80):020x}")


def write_codex(spec: Spec, specs: list[Spec], pools: Pools, home: Path, seed: int) -> SessionEntry:
    """Write one rollout file under `sessions/YYYY/MM/DD/`."""
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(spec.created))
    folder = home / "sessions" / stamp[:4] / stamp[5:7] / stamp[8:10]
    path = folder / f"rollout-{stamp}-{spec.id}.jsonl"
    parent = specs[spec.parent] if spec.parent is not None else None
    entry = SessionEntry(
        "codex",
        spec.kind,
        spec.id,
        str(path),
        spec.cwd,
        parent.id if parent else None,
        spec.kind != "main",
    )
    model = ("gpt-5.1-codex", "gpt-5.2", "gpt-5-codex")[spec.index % 3]
    filler = _filler(spec, seed, {"CWD": spec.cwd, "MODEL": model})
    entry.prompt = text.prose(filler.rng, 1)[:300]
    folder.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as handle:
        if not spec.empty:
            write_header(handle, filler, codex_header(spec, parent, pools, entry.prompt), entry)
            write_body(handle, filler, pools, pools.codex, spec, entry, pools.codex_compaction)
    entry.empty = spec.empty
    entry.size = path.stat().st_size
    os.utime(path, (filler.clock, filler.clock))
    return entry


def codex_header(spec: Spec, parent: Spec | None, pools: Pools, prompt: str) -> list[dict[str, Any]]:
    """Return session_meta, the injected context and a first short turn."""
    meta: dict[str, Any] = {
        "id": spec.id,
        "timestamp": turns.T,
        "cwd": spec.cwd,
        "originator": "codex-tui",
        "cli_version": "0.125.0",
        "source": "cli",
        "model_provider": "openai",
        "base_instructions": {"text": pools.instructions},
        "git": {
            "commit_hash": f"{spec.index:040x}",
            "branch": "main",
            "repository_url": f"git@github.com:dev/{spec.cwd.rsplit('/', 1)[1]}.git",
        },
    }
    if spec.kind == "exec":
        meta.update(originator="codex_exec", source="exec")
    elif parent is not None:
        spawn = {
            "parent_thread_id": parent.id,
            "depth": 1,
            "agent_nickname": "Euclid",
            "agent_role": "explorer",
        }
        meta.update(
            source={"subagent": {"thread_spawn": spawn}},
            thread_source="subagent",
            agent_nickname="Euclid",
            agent_role="explorer",
        )
    context = f"<environment_context>\n  <cwd>{spec.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
    answer = text.sentence(random.Random(spec.id))
    return [
        {"timestamp": turns.T, "type": "session_meta", "payload": meta},
        turns.codex_event({"type": "task_started", "turn_id": "@@TURN@@", "model_context_window": 258400}),
        turns.codex_message(
            "developer",
            "<permissions instructions>\nApprovals: on-request.\n</permissions instructions>",
        ),
        turns.codex_message(
            "user",
            f"# AGENTS.md instructions for {spec.cwd}\n\n<INSTRUCTIONS>\n{pools.agents_md}\n</INSTRUCTIONS>",
        ),
        turns.codex_message("user", context),
        turns.codex_turn_context(),
        turns.codex_message("user", prompt),
        turns.codex_event({"type": "user_message", "message": prompt, "local_images": [], "text_elements": []}),
        turns.codex_message("assistant", answer, "final_answer"),
        turns.codex_event({"type": "agent_message", "message": answer, "phase": "final_answer"}),
        turns.codex_token_count(),
        turns.codex_event({"type": "task_complete", "turn_id": "@@TURN@@", "last_agent_message": answer}),
    ]


def write_claude(spec: Spec, specs: list[Spec], pools: Pools, home: Path, seed: int) -> SessionEntry:
    """Write one transcript under `projects/<munged cwd>/`, or a sub-agent file beside its parent."""
    project = home / "projects" / munge(spec.cwd)
    parent = specs[spec.parent] if spec.parent is not None else None
    if parent is None:
        path, session_id = project / f"{spec.id}.jsonl", spec.id
    elif spec.old_layout:
        path, session_id = project / f"agent-{spec.id}.jsonl", parent.id
    else:
        path, session_id = project / parent.id / "subagents" / f"agent-{spec.id}.jsonl", parent.id
    entry = SessionEntry(
        "claude",
        spec.kind,
        path.stem,
        str(path),
        spec.cwd,
        parent.id if parent else None,
        parent is not None,
    )
    consts = {
        "CWD": spec.cwd,
        "SID": session_id,
        "AGENT": spec.id,
        "VER": "2.0.76" if spec.old_layout else "2.1.80",
        "MODEL": ("claude-opus-4-6", "claude-sonnet-4-5-20250929")[spec.index % 2],
    }
    filler = _filler(spec, seed, consts)
    entry.prompt = text.prose(filler.rng, 1)[:300]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as handle:
        if not spec.empty:
            write_header(handle, filler, claude_header(spec, entry.prompt, parent is not None), entry)
            pool = pools.claude if parent is None else pools.sidechain
            trailer = ""
            if spec.titled and parent is None:
                entry.title = f"{text.ident(filler.rng).replace('_', ' ')} #{spec.index}"
                trailer = (
                    json.dumps(
                        {
                            "type": "custom-title",
                            "customTitle": entry.title,
                            "sessionId": session_id,
                        }
                    )
                    + "\n"
                )
            compaction = pools.claude_compaction if parent is None else None
            write_body(handle, filler, pools, pool, spec, entry, compaction, trailer)
    if parent is not None and not spec.old_layout:
        meta = {"agentType": "general-purpose", "spawnDepth": 1}
        meta_path = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
        meta_path.write_text(json.dumps(meta))
        os.utime(meta_path, (spec.created, spec.created))
    entry.empty = spec.empty
    entry.size = path.stat().st_size
    os.utime(path, (filler.clock, filler.clock))
    return entry


def claude_header(spec: Spec, prompt: str, sidechain: bool) -> list[dict[str, Any]]:
    """Return the opening records: sometimes a snapshot first (no cwd), then prompt and answer."""
    records: list[dict[str, Any]] = []
    if not sidechain and spec.index % 3 == 0:
        records.append(
            {
                "type": "file-history-snapshot",
                "messageId": "@@U0@@",
                "snapshot": {"messageId": "@@U0@@", "trackedFileBackups": {}, "timestamp": turns.T},
                "isSnapshotUpdate": False,
            }
        )
    first = turns.claude_envelope("user", 0, None, sidechain)
    first["message"] = {"role": "user", "content": prompt}
    answer = {"type": "text", "text": text.sentence(random.Random(spec.id))}
    reply = turns.claude_assistant(1, 0, 0, answer, sidechain)
    reply["_last"] = 1
    return [*records, first, reply]


def prepare(home: Path) -> None:
    """Make `home` empty, refusing to touch a folder the generator did not make."""
    if home.is_dir() and any(home.iterdir()):
        if not (home / MANIFEST).is_file():
            raise WriteRefusedError(f"{home} is not empty and holds no {MANIFEST}, so the corpus will not replace it.")
        shutil.rmtree(home)
    home.mkdir(parents=True, exist_ok=True)


def generate(
    codex_home: Path,
    claude_home: Path,
    sessions: int = 2000,
    total_bytes: int = 2 * GB,
    huge: int = 0,
    huge_bytes: int = 500 * MB,
    seed: int = 7,
    progress: Callable[[int, int], None] | None = None,
    compressed_share: float = 0.0,
    fork_share: float = 0.0,
) -> Manifest:
    """Write a corpus into the two homes and return its manifest.

    `fork_share` of the Codex main threads get a fork (Codex 0.146+: `history_base` names the
    parent, no items copied); then `compressed_share` of them are rewritten as `.jsonl.zst`.
    """
    started = time.perf_counter()
    params: dict[str, Any] = {
        "sessions": sessions,
        "total_bytes": total_bytes,
        "huge": huge,
        "huge_bytes": huge_bytes,
        "seed": seed,
        "version": GENERATOR_VERSION,
    }
    if compressed_share or fork_share:  # absent otherwise, so older corpora still match
        params.update(compressed_share=compressed_share, fork_share=fork_share)
    for home in (codex_home, claude_home):
        prepare(home)
    specs = plan_specs(seed, sessions, total_bytes, huge, huge_bytes)
    specs[0].empty = False
    pools = Pools(seed)
    entries, written = [], 0
    for spec in specs:
        writer = write_codex if spec.agent == "codex" else write_claude
        entry = writer(spec, specs, pools, codex_home if spec.agent == "codex" else claude_home, seed)
        entries.append(entry)
        written += entry.size
        if progress:
            progress(len(entries), written)
    write_session_index(codex_home, specs, entries)
    if fork_share or compressed_share:
        rng = random.Random(f"{seed}:lineage")
        threads = [
            e
            for e in entries
            if e.agent == "codex"
            and e.kind == "main"
            and not e.empty
            and e.truncated_line is None
            and e.size < huge_bytes
        ]
        for parent in rng.sample(threads, _share(len(threads), fork_share)):
            entries.append(write_codex_fork(parent, rng))
        for entry in rng.sample(threads, _share(len(threads), compressed_share)):
            compress_rollout(entry)
    manifest = Manifest(params, entries, round(time.perf_counter() - started, 3))
    manifest.save(codex_home, claude_home)
    return manifest


def _share(count: int, share: float) -> int:
    """How many of `count` make `share` of them: at least one when the share is not zero."""
    return min(count, max(1, round(count * share))) if share > 0 and count else 0


def write_codex_fork(parent: SessionEntry, rng: random.Random) -> SessionEntry:
    """Fork a written thread as Codex 0.171 does: a new rollout whose meta names the parent's history."""
    created = os.stat(parent.path).st_mtime + rng.uniform(60, 3600)
    bits = rng.getrandbits(128)
    ms, raw = f"{int(created * 1000):012x}", f"{bits:032x}"
    thread = f"{ms[:8]}-{ms[8:12]}-7{raw[:3]}-{'89ab'[bits % 4]}{raw[4:7]}-{raw[8:20]}"
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(created))
    iso = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(created))
    path = Path(parent.path).parent / f"rollout-{stamp}-{thread}.jsonl"
    prompt = f"Carry on from the fork: {text.prose(rng, 1)[:200]}"
    answer = text.sentence(rng)
    meta = {
        "id": thread,
        "session_id": thread,
        "forked_from_id": parent.id,
        "timestamp": iso,
        "cwd": parent.cwd,
        "originator": "codex-tui",
        "cli_version": "0.171.0",
        "source": "cli",
        "model_provider": "openai",
        "history_mode": "paginated",
        "history_base": {"thread_id": parent.id, "end_byte_offset": parent.size},
    }
    usage = {
        "input_tokens": 9000,
        "cached_input_tokens": 0,
        "output_tokens": 40,
        "reasoning_output_tokens": 0,
        "total_tokens": 9040,
    }
    items = [
        ("session_meta", meta),
        ("turn_context", {"cwd": parent.cwd, "model": "gpt-5.5", "approval_policy": "on-request"}),
        ("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}),
        (
            "event_msg",
            {
                "type": "item_completed",
                "thread_id": thread,
                "item": {"type": "UserMessage", "content": [{"type": "text", "text": prompt}]},
            },
        ),
        (
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]},
        ),
        (
            "event_msg",
            {
                "type": "token_count",
                "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258400},
            },
        ),
    ]
    lines = [json.dumps({"timestamp": iso, "type": kind, "payload": payload}) for kind, payload in items]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.utime(path, (created, created))
    entry = SessionEntry("codex", "fork", thread, str(path), parent.cwd, parent.id, False, None, prompt)
    entry.size, entry.lines, entry.inherited = path.stat().st_size, len(lines), parent.lines
    return entry


def compress_rollout(entry: SessionEntry) -> None:
    """Rewrite a rollout as `.jsonl.zst` with its mtime, removing the plain file, as Codex does."""
    plain = Path(entry.path)
    packed = Path(f"{plain}.zst")
    stat = plain.stat()
    compress_file(plain, packed)
    os.utime(packed, (stat.st_atime, stat.st_mtime))
    plain.unlink()
    entry.path, entry.compressed = str(packed), True


def write_session_index(home: Path, specs: list[Spec], entries: list[SessionEntry]) -> None:
    """Name some Codex threads in `session_index.jsonl`, as `/rename` would."""
    rows = []
    for spec, entry in zip(specs, entries, strict=True):
        if entry.agent == "codex" and spec.titled and not spec.empty:
            entry.title = f"{text.ident(random.Random(spec.id)).replace('_', ' ')} #{spec.index}"
            rows.append(
                json.dumps(
                    {
                        "id": entry.id,
                        "thread_name": entry.title,
                        "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(spec.created)),
                    }
                )
            )
    index = home / "session_index.jsonl"
    index.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    os.utime(index, (BASE_TIME, BASE_TIME))


def main(argv: list[str] | None = None) -> int:
    """Run the generator from the command line and print what it wrote."""
    parser = argparse.ArgumentParser(prog="python -m smig_devtools.corpus", description=__doc__.split("\n")[0])
    parser.add_argument("--codex-home", type=Path, required=True)
    parser.add_argument("--claude-home", type=Path, required=True)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--total-gb", type=float, default=2.0)
    parser.add_argument("--huge", type=int, default=0, help="how many huge sessions (alternating agents)")
    parser.add_argument("--huge-mb", type=float, default=500.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--compressed-share", type=float, default=0.0, help="share of Codex threads written as .jsonl.zst"
    )
    parser.add_argument(
        "--fork-share", type=float, default=0.0, help="share of Codex threads that get a fork (history_base)"
    )
    args = parser.parse_args(argv)
    try:
        manifest = generate(
            args.codex_home,
            args.claude_home,
            args.sessions,
            int(args.total_gb * GB),
            args.huge,
            int(args.huge_mb * MB),
            args.seed,
            compressed_share=args.compressed_share,
            fork_share=args.fork_share,
        )
    except SmigError as error:
        print(f"corpus: error: {error}", file=sys.stderr)
        return error.exit_code
    sizes = sorted(entry.size for entry in manifest.sessions)
    rate = manifest.total_bytes / MB / max(manifest.seconds, 1e-9)
    print(
        f"{len(sizes)} sessions, {manifest.total_bytes / MB:,.0f} MB in {manifest.seconds:.1f} s "
        f"({rate:,.0f} MB/s); sizes p10 {sizes[len(sizes) // 10] // KB} KB, "
        f"median {sizes[len(sizes) // 2] // KB} KB, p99 {sizes[len(sizes) * 99 // 100] // KB} KB, "
        f"max {sizes[-1] // MB} MB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
