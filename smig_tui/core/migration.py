"""Provides the record of a committed migration and what a migration writes, as plain data."""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import asdict, dataclass, field
from typing import Any

from smig_tui.core.errors import Hint, MigrationNotFoundError
from smig_tui.core.models import Kind, Message, Plan, Role, Session
from smig_tui.core.native import ContinueLatest, NativeOutput, PlannedFile
from smig_tui.core.plans import left_out as plan_left_out
from smig_tui.core.timeline import MIGRATION_ID_RE as MIGRATION_ID_RE  # a migration id names when it was written
from smig_tui.core.timeline import later as later
from smig_tui.core.timeline import written_at as written_at

SCHEMA_VERSION = 1
"""Version of the stored JSON document; bumped only with a reader for the old shape."""

_WORKSPACE_KEY_RE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


@dataclass(frozen=True, slots=True)
class SourceRef:
    """The session a migration read, pinned by hash so a later change can be noticed."""

    agent: str
    id: str
    path: str
    sha256: str
    size: int
    mtime: float
    cwd: str | None = None
    title: str | None = None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class MigrationRecord:
    """One committed migration as stored under smig's data folder."""

    id: str
    created: str
    workspace: str
    source: SourceRef
    target: str
    decision: dict[str, Any]
    strategy: str
    kept_ids: tuple[str, ...]
    dropped_ids: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    messages: tuple[dict[str, Any], ...]
    summary: str | None = None
    placeholder: str | None = None
    outputs: tuple[NativeOutput, ...] = ()
    files: tuple[str, ...] = ()
    """Export files (Markdown/JSON) written alongside."""
    redactions: dict[str, int] = field(default_factory=dict)
    """Secrets replaced before anything was written, by kind."""
    left_out: int = 0
    """Conversation messages the plan left out (`plans.left_out`: the lineage note's figure)."""
    left_out_tokens: int = 0
    schema_version: int = SCHEMA_VERSION


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """What `services.migrate` did, or would do in a dry run."""

    migration_id: str
    dry_run: bool
    files: tuple[PlannedFile, ...]
    record: MigrationRecord
    record_path: str | None = None
    """Where the record is (or would be) stored; None when storage was not requested."""
    outputs: tuple[NativeOutput, ...] = field(default=())
    redactions: dict[str, int] = field(default_factory=dict)
    """Secrets replaced in what was written, by kind (empty when none, or with redaction off)."""
    continue_latest: tuple[ContinueLatest, ...] = field(default=())
    """After a commit, each receiving client's "continue the latest" pick in the folder (none in a dry run)."""
    recovered: tuple[str, ...] = field(default=())
    """What smig did, before this commit, to commits a kill had interrupted: one clause each that follows
    "smig " (`finished migration …, which was interrupted …`), for every front end to report."""

    @property
    def resume_commands(self) -> tuple[str, ...]:
        """The commands that continue the migrated conversation in each target agent."""
        return tuple(output.resume_command for output in self.outputs)


def validate_migration_id(value: str) -> str:
    """Return `value` if it is a well-formed migration id, else raise MigrationNotFoundError."""
    if not MIGRATION_ID_RE.match(value):
        raise MigrationNotFoundError(f"{value!r} is not a migration id (32 hex digits).", hint=Hint.LIST_MIGRATIONS)
    return value


def workspace_key(cwd: str | None) -> str:
    """Turn a session's cwd into a folder name: readable tail plus a short hash, never a path."""
    cwd = cwd.rstrip("/\\") or cwd[:1] if cwd else cwd
    if not cwd:
        return "no-cwd"
    tail = [part for part in re.split(r"[\\/]+", cwd) if part][-2:]
    readable = re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(tail)).strip("-_")[:48] or "root"
    digest = hashlib.sha256(cwd.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{readable}-{digest}"


def is_workspace_key(value: str) -> bool:
    """Tell whether `value` is safe as a folder name under the store (no separators, no dots)."""
    return bool(_WORKSPACE_KEY_RE.match(value))


_MESSAGE_FIELDS = (
    "index",
    "id",
    "role",
    "kind",
    "text",
    "tool_name",
    "call_id",
    "timestamp",
    "line",
    "offset",
    "usage",
    "is_error",
    "opaque",
    "injected",
    "full_output_path",
)


def message_to_json(message: Message) -> dict[str, Any]:
    """Serialise a migrated message for storage and JSON export, leaving out empty fields.

    Built by hand rather than with `asdict`, whose deep copies dominate a 5,000-message commit.
    """
    data: dict[str, Any] = {}
    for name in _MESSAGE_FIELDS:
        value = getattr(message, name)
        if value is None or value is False:
            continue
        if name == "usage":
            value = value.as_dict()
        elif name in ("role", "kind"):
            value = value.value
        data[name] = value
    return data


def message_from_json(data: dict[str, Any]) -> Message:
    """Rebuild a Message stored by `message_to_json` (usage is not restored: it is history)."""
    return Message(
        index=int(data.get("index", 0)),
        id=str(data.get("id", "")),
        role=Role(data.get("role", "user")),
        kind=Kind(data.get("kind", "text")),
        body=str(data.get("text", "")),
        tool_name=data.get("tool_name"),
        call_id=data.get("call_id"),
        timestamp=data.get("timestamp"),
        is_error=bool(data.get("is_error", False)),
        injected=bool(data.get("injected", False)),
        full_output_path=data.get("full_output_path") if isinstance(data.get("full_output_path"), str) else None,
    )


def build_record(
    migration_id: str,
    created: str,
    source: SourceRef,
    plan: Plan,
    messages: tuple[Message, ...],
    outputs: tuple[NativeOutput, ...] = (),
    files: tuple[str, ...] = (),
    redactions: dict[str, int] | None = None,
) -> MigrationRecord:
    """Assemble the stored record of one migration from its plan and results."""
    decision = plan.decision
    left_out = plan_left_out(plan)
    return MigrationRecord(
        id=migration_id,
        created=created,
        workspace=workspace_key(source.cwd),
        source=source,
        target=decision.target,
        decision={
            "target": decision.target,
            "session_tokens": decision.session_tokens,
            "window": decision.window,
            "reserve": decision.reserve,
            "budget": decision.budget,
            "fits": decision.fits,
            "over_by": decision.over_by,
        },
        strategy=plan.strategy.value,
        kept_ids=tuple(item.message.id for item in plan.kept),
        dropped_ids=tuple(item.message.id for item in plan.dropped),
        tokens_before=plan.tokens_before,
        tokens_after=plan.tokens_after,
        messages=tuple(message_to_json(message) for message in messages),
        summary=plan.summary,
        placeholder=plan.placeholder,
        outputs=outputs,
        files=files,
        redactions=dict(redactions or {}),
        left_out=left_out[0],
        left_out_tokens=left_out[1],
    )


def source_ref(session: Session, sha256: str, size: int, mtime: float) -> SourceRef:
    """Describe the source session of a migration."""
    info = session.info
    return SourceRef(
        agent=info.agent.value,
        id=info.id,
        path=info.path,
        sha256=sha256,
        size=size,
        mtime=mtime,
        cwd=info.cwd,
        title=info.title,
        model=info.model,
    )


def record_to_json(record: MigrationRecord) -> dict[str, Any]:
    """Serialise a record to the stored JSON document."""
    data = {name: getattr(record, name) for name in record.__dataclass_fields__}
    data["source"] = asdict(record.source)
    data["decision"] = dict(record.decision)
    data["kept_ids"] = list(record.kept_ids)
    data["dropped_ids"] = list(record.dropped_ids)
    data["messages"] = list(record.messages)
    data["outputs"] = [output_to_json(output) for output in record.outputs]
    data["files"] = list(record.files)
    data["redactions"] = dict(record.redactions)
    return data


def record_from_json(data: dict[str, Any]) -> MigrationRecord:
    """Rebuild a record from its stored JSON document (KeyError/TypeError on a damaged one)."""
    return MigrationRecord(
        id=data["id"],
        created=data["created"],
        workspace=data["workspace"],
        source=SourceRef(**data["source"]),
        target=data["target"],
        decision=dict(data["decision"]),
        strategy=data["strategy"],
        kept_ids=tuple(data["kept_ids"]),
        dropped_ids=tuple(data["dropped_ids"]),
        tokens_before=int(data["tokens_before"]),
        tokens_after=int(data["tokens_after"]),
        messages=tuple(data["messages"]),
        summary=data.get("summary"),
        placeholder=data.get("placeholder"),
        outputs=tuple(output_from_json(output) for output in data.get("outputs", [])),
        files=tuple(data.get("files", [])),
        redactions=dict(data.get("redactions", {})),
        left_out=int(data.get("left_out", 0)),
        left_out_tokens=int(data.get("left_out_tokens", 0)),
        schema_version=int(data.get("schema_version", SCHEMA_VERSION)),
    )


def output_to_json(output: NativeOutput) -> dict[str, Any]:
    """Serialise a written session: its continue command as data, and as the line shown for readers."""
    return {
        "agent": output.agent,
        "path": output.path,
        "session_id": output.session_id,
        "argv": list(output.argv),
        "cwd": output.cwd,
        "resume_command": output.resume_command,
    }


def output_from_json(data: dict[str, Any]) -> NativeOutput:
    """Rebuild a written session; records stored before `argv` existed keep only the shown line
    (`cd FOLDER && COMMAND`, which smig always wrote quoted), so it is split back into both."""
    if "argv" in data:
        argv, cwd = tuple(str(word) for word in data["argv"]), data.get("cwd")
    else:
        argv, cwd = _split_shown(str(data["resume_command"]))
    return NativeOutput(str(data["agent"]), str(data["path"]), str(data["session_id"]), argv, cwd)


def _split_shown(command: str) -> tuple[tuple[str, ...], str | None]:
    """The argv and folder of a line `shown_command` wrote."""
    try:
        words = shlex.split(command)
    except ValueError:  # not a line smig wrote: keep its words as they are
        words = command.split()
    if len(words) > 3 and words[0] == "cd" and words[2] == "&&":
        return tuple(words[3:]), words[1]
    return tuple(words), None
