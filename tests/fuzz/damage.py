"""Seeded damage for real session files: the variants the fuzz suite feeds through every front door.

Each variant is a base session (a checked-in fixture, or a real public one from tests/fixtures/public)
with one kind of damage: truncation, bit flips, invalid UTF-8, NULs, deep nesting,
wrong types, Claude parentUuid cycles, reordered or duplicated lines; or the file itself replaced
by something that is no regular file, or vanishing while smig reads it. The same seed always gives
the same variants, so a failure names a case that can be run again alone.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
OWN = TESTS / "fixtures"
SHARED = TESTS.parent / "fixtures" / "public"
SEED = 20261203
MAX_BASE_BYTES = 400_000
"""Larger real sessions are left out so the suite stays within a minute or two on two cores."""

DEEP_MARK = "\u2063deep\u2063"
CONTENT_KINDS = ("truncate", "bitflip", "utf8", "nul", "deep-line", "deep-value", "wrong-type", "cycle", "shuffle")
FILE_KINDS = ("fifo", "dangling", "loop", "folder", "vanish-before-read", "vanish-after-read")
WRONG_VALUES: tuple[Any, ...] = (
    None,
    0,
    -1,
    1e308,
    "",
    "x" * 3,
    [],
    {},
    [1, "a", None],
    {"a": None},
    True,
    {"type": "text"},
    [{"type": 7}],
)


KEY_FIELDS = frozenset(
    {
        "type",
        "payload",
        "message",
        "content",
        "role",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "timestamp",
        "name",
        "arguments",
        "input",
        "call_id",
        "id",
        "tool_use_id",
        "output",
        "text",
        "usage",
        "model",
        "cwd",
        "sessionId",
        "isSidechain",
        "toolUseResult",
        "summary",
        "leafUuid",
        "replacement_history",
        "info",
        "last_token_usage",
        "total_token_usage",
        "model_context_window",
        "encrypted_content",
        "is_error",
        "subtype",
        "compactMetadata",
        "customTitle",
        "title",
        "git",
        "originator",
        "source",
        "thread_name",
    }
)
"""Keys Codex and Claude Code records carry that smig's readers look at: the likeliest to break them."""


@dataclass(frozen=True)
class Base:
    """A real session file and the agent that wrote it."""

    agent: str
    """`claude` or `codex`."""
    name: str
    data: bytes


@dataclass(frozen=True)
class Variant:
    """One damaged case: where it goes and its bytes (None for the file-level kinds)."""

    case_id: str
    agent: str
    kind: str
    file_name: str
    data: bytes


def bases() -> list[Base]:
    """The real sessions to damage: the checked-in homes and the public sessions in tests/fixtures/public."""
    found: list[Base] = []
    for agent, tree in (("claude", OWN / "claude_home"), ("codex", OWN / "codex_home")):
        for path in sorted(tree.rglob("*.jsonl")):
            if path.name != "session_index.jsonl":
                found.append(Base(agent, path.name, path.read_bytes()))
    for agent in ("claude", "codex"):
        folder = SHARED / agent
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            if path.stat().st_size <= MAX_BASE_BYTES:
                found.append(Base(agent, path.name, path.read_bytes()))
    return found


def file_name(base: Base, index: int) -> str:
    """A name the agent's discovery accepts: a uuid for Claude, a dated rollout name for Codex."""
    stable = uuid.uuid5(uuid.NAMESPACE_URL, f"{base.name}/{index}")
    if base.agent == "claude":
        return f"{stable}.jsonl"
    return f"rollout-2026-01-01T00-00-00-{stable}.jsonl"


def variants(per_kind: int = 34) -> list[Variant]:
    """Every case, seeded: `per_kind` of each content damage spread over the bases, then the file kinds."""
    rng = random.Random(SEED)
    pool = bases()
    cases: list[Variant] = []
    for kind in CONTENT_KINDS:
        for number in range(per_kind):
            base = pool[(number * 7 + len(kind)) % len(pool)]
            if kind == "cycle" and base.agent != "claude":
                base = next(b for b in pool[number % len(pool) :] + pool if b.agent == "claude")
            data = DAMAGE[kind](base.data, rng)
            cases.append(Variant(f"{base.agent}-{kind}-{number:02d}", base.agent, kind, file_name(base, number), data))
    for kind in FILE_KINDS:
        for agent in ("claude", "codex"):
            base = next(b for b in pool if b.agent == agent)
            cases.append(Variant(f"{agent}-{kind}", agent, kind, file_name(base, 999), base.data))
    return cases


def _lines(data: bytes) -> list[bytes]:
    """The file's lines, the last one possibly empty."""
    return data.split(b"\n")


def truncate(data: bytes, rng: random.Random) -> bytes:
    """Cut the file anywhere, down to nothing."""
    return data[: rng.choice((0, 1, rng.randrange(len(data) + 1)))]


def bitflip(data: bytes, rng: random.Random) -> bytes:
    """Flip a few random bits."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 24)):
        position = rng.randrange(len(buffer))
        buffer[position] ^= 1 << rng.randrange(8)
    return bytes(buffer)


def utf8(data: bytes, rng: random.Random) -> bytes:
    """Insert bytes that are not valid UTF-8 (lone continuation bytes, surrogates, cut sequences)."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        bad = rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"))
        position = rng.randrange(len(buffer) + 1)
        buffer[position:position] = bad
    return bytes(buffer)


def nul(data: bytes, rng: random.Random) -> bytes:
    """NUL bytes, scattered or as a whole line (what a crash leaves in a preallocated file)."""
    lines = _lines(data)
    if rng.random() < 0.5:
        lines[rng.randrange(len(lines))] = b"\x00" * rng.randint(1, 4096)
        return b"\n".join(lines)
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        position = rng.randrange(len(buffer) + 1)
        buffer[position:position] = b"\x00"
    return bytes(buffer)


def deep_line(data: bytes, rng: random.Random) -> bytes:
    """A line that is nothing but deep nesting, of arrays or objects."""
    depth = rng.choice((1_000, 5_000, 100_000))
    nested = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b'{"a":' * depth + b"1" + b"}" * depth
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), nested)
    return b"\n".join(lines)


def deep_value(data: bytes, rng: random.Random) -> bytes:
    """A field of a real record holding deep nesting: parses at some depths, then meets the readers."""
    depth = rng.choice((200, 800, 950, 3_000))
    marked = _rewrite_record(data, rng, lambda value: DEEP_MARK)
    nested = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b'{"a":' * depth + b"1" + b"}" * depth
    return marked.replace(json.dumps(DEEP_MARK).encode(), nested)  # spliced as text: too deep to build


def wrong_type(data: bytes, rng: random.Random) -> bytes:
    """A field of a real record holding a value of the wrong type."""
    return _rewrite_record(data, rng, lambda value: rng.choice(WRONG_VALUES))


def cycle(data: bytes, rng: random.Random) -> bytes:
    """Claude parentUuid cycles: a record pointing at itself or at a later record of its own chain."""
    lines = _lines(data)
    records = [(i, json.loads(line)) for i, line in enumerate(lines) if _is_object(line)]
    with_uuid = [(i, r) for i, r in records if isinstance(r.get("uuid"), str)]
    if len(with_uuid) < 2:
        return data
    for _ in range(rng.randint(1, 3)):
        (i, early), (_, late) = sorted(rng.sample(with_uuid, 2), key=lambda pair: pair[0])
        early["parentUuid"] = early["uuid"] if rng.random() < 0.3 else late["uuid"]
        lines[i] = json.dumps(early).encode()
    return b"\n".join(lines)


def shuffle(data: bytes, rng: random.Random) -> bytes:
    """Lines out of order, some twice."""
    lines = [line for line in _lines(data) if line]
    rng.shuffle(lines)
    lines += rng.sample(lines, min(len(lines), rng.randint(0, 5)))
    return b"\n".join(lines) + b"\n"


def _is_object(line: bytes) -> bool:
    """Whether a line is a JSON object."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _rewrite_record(data: bytes, rng: random.Random, new_value: Any) -> bytes:
    """Replace one randomly chosen value somewhere inside one randomly chosen record."""
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if _is_object(line)]
    if not candidates:
        return data
    for _ in range(rng.randint(1, 3)):
        index = rng.choice(candidates)
        record = json.loads(lines[index])
        holder, key = _random_slot(record, rng)
        holder[key] = new_value(holder[key])
        lines[index] = json.dumps(record).encode()
    return b"\n".join(lines)


def _random_slot(record: dict[str, Any], rng: random.Random) -> tuple[Any, Any]:
    """A random (container, key) pair inside a record: mostly a key the readers rely on, else any."""
    known = [slot for slot in _slots(record) if slot[1] in KEY_FIELDS]
    if known and rng.random() < 0.7:
        return rng.choice(known)
    holder: Any = record
    key: Any = rng.choice(list(record))
    for _ in range(rng.randint(0, 4)):
        child = holder[key]
        if isinstance(child, dict) and child:
            holder, key = child, rng.choice(list(child))
        elif isinstance(child, list) and child:
            holder, key = child, rng.randrange(len(child))
        else:
            break
    return holder, key


def _slots(value: Any, depth: int = 0) -> list[tuple[Any, Any]]:
    """Every (container, key) pair of dicts inside `value`, a few levels down."""
    found: list[tuple[Any, Any]] = []
    if depth > 6:
        return found
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        if isinstance(value, dict):
            found.append((value, key))
        found.extend(_slots(child, depth + 1))
    return found


DAMAGE = {
    "truncate": truncate,
    "bitflip": bitflip,
    "utf8": utf8,
    "nul": nul,
    "deep-line": deep_line,
    "deep-value": deep_value,
    "wrong-type": wrong_type,
    "cycle": cycle,
    "shuffle": shuffle,
}
