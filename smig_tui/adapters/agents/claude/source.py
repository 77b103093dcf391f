"""Provides the Claude Code session source: quick discovery from file heads and tails, full reads.

Layout read (FORMATS.md Part 2): `$CLAUDE_CONFIG_DIR/projects/<munged cwd>/<session>.jsonl`, with
sub-agent transcripts in `<session>/subagents/agent-*.jsonl` (workflow agents one level deeper, in
`subagents/workflows/wf_<id>/`) or, in 2.0.x, `agent-*.jsonl` beside the session. The directory name is lossy, so the cwd always comes from the records when it can.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from smig_tui.adapters.agents.claude.blocks import SYNTHETIC_MODEL, usage_from
from smig_tui.adapters.agents.claude.home import ClaudeHome
from smig_tui.adapters.agents.claude.scan import (
    LINK_ONLY_TYPES,
    SKIPPED_TYPES,
    first_type,
    looks_absolute,
    own_timestamp,
)
from smig_tui.adapters.agents.claude.titles import TitleFacts, prompt_of
from smig_tui.adapters.fs import not_a_session_file
from smig_tui.adapters.json_parse import loads
from smig_tui.adapters.jsonl import parse_line
from smig_tui.adapters.storage.discovery_cache import DiscoveryCache, cached_ids
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import NAMED_AT_MOST, Appended, ResumePoint, WarningSink
from smig_tui.core.timeline import later, written_at

HEAD_BYTES = 64 * 1024
HEAD_RETRY_BYTES = 1024 * 1024
"""A second, larger head read for files whose first lines are huge (pasted images, big prompts)."""
TAIL_BYTES = 256 * 1024
_TITLE_MARKERS = (b'-title"', b'"summary"')
"""Byte markers of custom-title, ai-title and summary records; the parse then checks the type."""
_HEAD_SKIP = SKIPPED_TYPES | LINK_ONLY_TYPES


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A transcript file found on disk, before it is opened."""

    path: str
    project: str
    subagent: bool
    parent_id: str | None
    size: int
    mtime: float


@dataclass(slots=True)
class _Facts:
    """What the head and tail of one file say."""

    cwd: str | None = None
    created: str | None = None
    updated: str | None = None
    version: str | None = None
    origin: str | None = None
    branch: str | None = None
    """The latest `gitBranch` (Claude Code writes "" outside a repository)."""
    session_id: str | None = None
    model: str | None = None
    context_tokens: int | None = None
    sidechain: bool | None = None
    """True when every conversation record in the head is a sidechain: a sub-agent's file."""
    main_seen: bool = False
    root_record: str | None = None
    """uuid of the first main-chain conversation record."""
    first_queued: str | None = None
    """Time of the first `queue-operation` line: when this file took its first prompt."""
    written: str | None = None
    """When smig wrote the transcript (its first record's `smigLineage`): a migration lists by it."""
    first_prompts: dict[bool, str | None] = field(default_factory=lambda: {False: None, True: None})
    """First typed prompt among main-chain (False) and sidechain (True) records."""
    titles: TitleFacts = field(default_factory=TitleFacts)
    own_leaf: Callable[[str], bool] = lambda _: False
    """Whether a summary's leafUuid is a record of this file."""

    def head_done(self) -> bool:
        """Tell whether the head has given all it can: cwd, creation time and the first prompt."""
        return (
            self.cwd is not None
            and self.created is not None
            and self.main_seen
            and self.first_prompts[False] is not None
        )


class ClaudeSource:
    """Finds and reads Claude Code transcripts under `$CLAUDE_CONFIG_DIR/projects`."""

    def __init__(self, home: ClaudeHome, listing_cache: Path | None = None) -> None:
        self._home = home
        self._listing_cache = listing_cache
        """Where discovery remembers unchanged files' entries (None: read every file)."""

    @property
    def agent(self) -> Agent:
        """Claude Code."""
        return Agent("claude")

    def cached_ids(self) -> list[str] | None:
        """The ids its last listing found, from the listing cache (no folder read); None without one."""
        return cached_ids(self._listing_cache) if self._listing_cache else None

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every transcript, newest file first, reading only a head and a tail of each."""
        candidates = sorted(_candidates(str(self._home.projects), warn), key=lambda c: -c.mtime)
        cache = DiscoveryCache(self._listing_cache) if self._listing_cache else None
        found: list[SessionInfo] = []
        for candidate in candidates:
            if cache is None:
                info = _peek(candidate, warn)
            else:
                info = cache.lookup(candidate.path, lambda: _peek(candidate, warn))  # noqa: B023
            if info is not None:
                found.append(info)
        if cache is not None:
            cache.save()
        yield from mark_forks(found)

    def listed_as(self, resolved: str, warn: WarningSink) -> SessionInfo | None:
        """The entry `discover` gives the transcript at `resolved`, reading only its project folder.

        None (list the home) when it is no transcript.
        """
        root = str(self._home.projects)
        relative = os.path.relpath(resolved, os.path.realpath(root))
        folder = relative.split(os.sep, 1)[0]
        project = next((entry for entry in _scan_dir(root, warn) if entry.name == folder), None)
        if relative.startswith(os.pardir) or project is None or not _is_dir(project):
            return None
        candidates = list(_project_candidates(project, warn))
        mine = next((c for c in candidates if os.path.realpath(c.path) == resolved), None)
        if mine is None:
            return None
        peek, cache = self._peeker()
        try:
            return _entry(mine, candidates, peek, warn)
        finally:
            if cache is not None:
                cache.save_seen()

    def listed_with_id(self, prefix: str, warn: WarningSink) -> list[SessionInfo] | None:
        """The transcripts whose id (the file's name) starts with `prefix`, newest first."""
        candidates = list(_candidates(str(self._home.projects), _ignore_warning))
        named = [c for c in candidates if os.path.basename(c.path).removesuffix(".jsonl").startswith(prefix)]
        if len(named) > NAMED_AT_MOST:
            return None
        peek, cache = self._peeker()
        entries = [_entry(mine, candidates, peek, warn) for mine in sorted(named, key=lambda c: -c.mtime)]
        if cache is not None:
            cache.save_seen()
        return None if None in entries else [info for info in entries if info is not None]

    def _peeker(self) -> tuple[Callable[[_Candidate, WarningSink], SessionInfo | None], DiscoveryCache | None]:
        """`_peek` through the listing cache, once per file, and that cache: what a partial pass built is
        added to it (`save_seen`), so the next lookup by id or path reads no transcript again."""
        cache = DiscoveryCache(self._listing_cache) if self._listing_cache else None
        seen: dict[str, SessionInfo | None] = {}

        def peek(candidate: _Candidate, warn: WarningSink) -> SessionInfo | None:
            if candidate.path not in seen:

                def build() -> SessionInfo | None:
                    return _peek(candidate, warn)

                seen[candidate.path] = cache.lookup(candidate.path, build) if cache else build()
            return seen[candidate.path]

        return peek, cache

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one transcript in full, streaming it."""
        from smig_tui.adapters.agents.claude.load import load_session  # not on every listing's path

        return load_session(info, warn)

    def resume_point(self, session: Session) -> ResumePoint | None:
        """Where the search index may read this transcript on from after a full load."""
        from smig_tui.adapters.agents.claude.appended import point_after_load

        return point_after_load(session)

    def read_appended(
        self, info: SessionInfo, point: ResumePoint, first_position: int, warn: WarningSink
    ) -> Appended | None:
        """The messages of the lines the transcript gained after `point` (see `appended.read_appended`)."""
        from smig_tui.adapters.agents.claude.appended import read_appended

        return read_appended(info, point, first_position, warn)


def _entry(
    mine: _Candidate,
    candidates: list[_Candidate],
    peek: Callable[[_Candidate, WarningSink], SessionInfo | None],
    warn: WarningSink,
) -> SessionInfo | None:
    """One file's listing entry. Forks are marked within a project (their cwd is the same, so is the
    folder), so the folder's main transcripts are peeked too; their problems are for `list`. Only the
    ones that share its first record are marked with it: marking the whole folder again for each lookup
    costs more than the peeks."""
    info = peek(mine, warn)
    if mine.subagent or info is None or not info.root_record or info.is_subagent or info.parent_id is not None:
        return info
    peers = [c for c in candidates if c is mine or (c.project == mine.project and not c.subagent)]
    found = [info if c is mine else peek(c, _ignore_warning) for c in sorted(peers, key=lambda c: -c.mtime)]
    kin = [i for i in found if i is not None and i.project == info.project and i.root_record == info.root_record]
    return next((entry for entry in mark_forks(kin) if entry.path == mine.path), None)


def mark_forks(infos: list[SessionInfo]) -> list[SessionInfo]:
    """Mark native forks (`/fork`, `--fork-session`, background copies) as forks of their parent.

    A fork is a new file that copies its parent's records, uuids included: sessions of one project
    whose first record is the same are one conversation. The file that started first is the
    original; the others get it as `parent_id` (a fork of a fork is marked against the original).
    """
    groups: dict[tuple[str | None, str], list[int]] = {}
    for index, info in enumerate(infos):
        if info.root_record and not info.is_subagent and info.parent_id is None:
            groups.setdefault((info.project, info.root_record), []).append(index)
    marked = list(infos)
    for members in groups.values():
        if len(members) < 2:
            continue
        ordered = sorted(members, key=lambda i: (infos[i].created or "", infos[i].mtime))
        original = infos[ordered[0]].id
        for index in ordered[1:]:
            marked[index] = replace(infos[index], parent_id=original)
    return marked


def _ignore_warning(_warning: ReadWarning) -> None:
    """Drop a warning about a file the user did not ask for."""


def _scan_dir(path: str, warn: WarningSink) -> list[os.DirEntry[str]]:
    """List a directory; a missing one is empty, an unreadable one is a warning."""
    try:
        with os.scandir(path) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        warn(ReadWarning(path, None, f"cannot read directory ({error.strerror or error}); skipped"))
        return []


def _candidates(root: str, warn: WarningSink) -> Iterator[_Candidate]:
    """Find main and sub-agent transcripts in every project directory."""
    for project in _scan_dir(root, warn):
        if _is_dir(project):
            yield from _project_candidates(project, warn)


def _project_candidates(project: os.DirEntry[str], warn: WarningSink) -> Iterator[_Candidate]:
    """Find main and sub-agent transcripts in one project directory."""
    for entry in _scan_dir(project.path, warn):
        if entry.name.endswith(".jsonl") and _is_file(entry):
            old_agent = entry.name.startswith("agent-")
            yield from _candidate(entry, project.name, old_agent, None, warn)
        elif entry.name.endswith(".jsonl"):
            _not_a_transcript(entry, warn)
        elif _is_dir(entry):
            yield from _subagent_candidates(entry, project.name, warn)


def _subagent_candidates(session_dir: os.DirEntry[str], project: str, warn: WarningSink) -> Iterator[_Candidate]:
    """Find a session's sub-agents: `subagents/agent-*.jsonl`, and the agents of its workflow runs
    in `subagents/workflows/wf_<id>/agent-*.jsonl` (2.1.3xx; their `journal.jsonl` is a ledger)."""
    folder = os.path.join(session_dir.path, "subagents")
    for child in _scan_dir(folder, warn):
        if child.name.endswith(".jsonl") and _is_file(child):
            yield from _candidate(child, project, True, session_dir.name, warn)
        elif child.name.endswith(".jsonl"):
            _not_a_transcript(child, warn)
        elif child.name == "workflows" and _is_dir(child):
            for run in _scan_dir(child.path, warn):
                if not run.name.startswith("wf_") or not _is_dir(run):
                    continue
                for agent in _scan_dir(run.path, warn):
                    if _is_agent_file(agent):
                        yield from _candidate(agent, project, True, session_dir.name, warn)


def _is_agent_file(entry: os.DirEntry[str]) -> bool:
    """Tell whether a directory entry is a sub-agent transcript (`agent-*.jsonl`, a regular file)."""
    return entry.name.startswith("agent-") and entry.name.endswith(".jsonl") and _is_file(entry)


def _not_a_transcript(entry: os.DirEntry[str], warn: WarningSink) -> None:
    """Say once why a `*.jsonl` entry that is no regular file (FIFO, folder, broken link) is skipped."""
    warn(ReadWarning(entry.path, None, not_a_session_file(entry) or "not a regular file; skipped"))


def _candidate(
    entry: os.DirEntry[str], project: str, subagent: bool, parent: str | None, warn: WarningSink
) -> Iterator[_Candidate]:
    """Stat one file into a candidate."""
    try:
        stat = entry.stat()
    except OSError as error:
        warn(ReadWarning(entry.path, None, f"cannot stat file ({error.strerror or error}); skipped"))
        return
    yield _Candidate(entry.path, project, subagent, parent, stat.st_size, stat.st_mtime)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Tell whether an entry is a directory, treating errors as no."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Tell whether an entry is a regular file, treating errors as no."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _peek(candidate: _Candidate, warn: WarningSink) -> SessionInfo | None:
    """Build a SessionInfo from a file's head and tail; None, with a warning, if unusable."""
    path = candidate.path
    if candidate.size == 0:
        warn(ReadWarning(path, None, "empty file; skipped"))
        return None
    facts = _Facts()
    try:
        with open(path, "rb") as handle:
            head = _read_head(handle, path, candidate.size, facts)
            tail = _read_tail(handle, candidate.size, facts, candidate.subagent)
    except OSError as error:
        warn(ReadWarning(path, None, f"cannot read file ({error.strerror or error}); skipped"))
        return None
    if candidate.size > TAIL_BYTES:
        _title_records(head, facts)  # old builds wrote summary records at the top
    _title_records(tail, facts)
    facts.own_leaf = lambda leaf: _has_uuid(head, leaf) or _has_uuid(tail, leaf)
    return _info(candidate, facts)


def _info(candidate: _Candidate, facts: _Facts) -> SessionInfo:
    """Combine what the path and the records say into a SessionInfo."""
    stem = os.path.basename(candidate.path)[: -len(".jsonl")]
    subagent = candidate.subagent or facts.sidechain is True
    facts.titles.first_prompt = facts.first_prompts[subagent] or facts.first_prompts[not subagent]
    parent = candidate.parent_id
    if subagent and parent is None and facts.session_id and facts.session_id != stem:
        parent = facts.session_id
    mtime_iso = datetime.fromtimestamp(candidate.mtime, UTC).isoformat().replace("+00:00", "Z")
    return SessionInfo(
        id=stem,
        agent=Agent("claude"),
        path=candidate.path,
        cwd=facts.cwd or unmunge(candidate.project),
        title=facts.titles.title(facts.own_leaf),
        model=facts.model,
        created=_created(facts),
        updated=later(facts.updated or mtime_iso, facts.written),
        source_version=facts.version,
        origin=facts.origin,
        parent_id=parent,
        is_subagent=subagent,
        size=candidate.size,
        mtime=candidate.mtime,
        context_tokens=facts.context_tokens,
        project=candidate.project,
        root_record=facts.root_record,
        git_branch=facts.branch,
    )


def _created(facts: _Facts) -> str | None:
    """When the file began: its first record's time, unless the records were copied from an
    older session (a native fork), whose own first prompt was queued later."""
    if facts.created and facts.first_queued and facts.first_queued > facts.created:
        return facts.first_queued
    return facts.created


def unmunge(project: str) -> str | None:
    """Best guess at a cwd from a project directory name, used only when no record has a cwd."""
    if not project.startswith("-"):
        return project or None
    return "/" + project[1:].replace("-", "/")


def _read_head(handle: BinaryIO, path: str, size: int, facts: _Facts) -> bytes:
    """Parse the first lines until cwd, creation time and first prompt are known; return the bytes.

    Damaged lines are left for the full read to report with their line numbers: a listing should
    not warn about a session that is merely being written right now.
    """
    blob = b""
    for budget in (HEAD_BYTES, HEAD_RETRY_BYTES):
        handle.seek(0)
        blob = handle.read(budget)
        cut = len(blob) < size
        lines = blob.split(b"\n")
        if cut:
            lines = lines[:-1]  # cut by the budget, not by the writer
        for number, raw in enumerate(lines, start=1):
            _head_line(raw, path, number, facts)
            if facts.head_done():
                return blob
        if facts.cwd is not None or not cut:
            return blob
    return blob


def _quiet(_: ReadWarning) -> None:
    """Drop a warning the full read will give again, with more context."""


def _head_line(raw: bytes, path: str, number: int, facts: _Facts) -> None:
    """Take what one head line tells (title records are found separately, by a byte search)."""
    kind = first_type(raw)
    if kind == b"queue-operation" and facts.first_queued is None:
        facts.first_queued = own_timestamp(raw)
    if not raw.strip() or kind in _HEAD_SKIP:
        return
    data = parse_line(raw, path, number, True, _quiet)
    if data is None:
        return
    _envelope(data, facts, head=True)
    lineage = data.get("smigLineage")
    if facts.written is None and isinstance(lineage, dict):
        facts.written = written_at(lineage.get("migrationId"))
    if data.get("type") in ("user", "assistant"):
        side = bool(data.get("isSidechain"))
        facts.main_seen = facts.main_seen or not side
        if not side and facts.root_record is None and isinstance(data.get("uuid"), str):
            facts.root_record = data["uuid"]
        facts.sidechain = not facts.main_seen
        if facts.first_prompts[side] is None:
            facts.first_prompts[side] = prompt_of(data)


def _envelope(data: dict[str, Any], facts: _Facts, head: bool) -> None:
    """Note the envelope fields every conversation record repeats."""
    if facts.cwd is None and looks_absolute(data.get("cwd")):
        facts.cwd = data["cwd"]
    stamp = data.get("timestamp")
    if head and facts.created is None and isinstance(stamp, str):
        facts.created = stamp
    if facts.session_id is None and isinstance(data.get("sessionId"), str):
        facts.session_id = data["sessionId"]
    if isinstance(data.get("version"), str) and (not head or facts.version is None):
        facts.version = data["version"]
    if isinstance(data.get("entrypoint"), str) and (not head or facts.origin is None):
        facts.origin = data["entrypoint"]
    if isinstance(data.get("gitBranch"), str) and data["gitBranch"] and (not head or facts.branch is None):
        facts.branch = data["gitBranch"]


def _read_tail(handle: BinaryIO, size: int, facts: _Facts, subagent: bool) -> bytes:
    """Walk the last lines backwards for the latest usage, model and timestamp; return the bytes."""
    start = max(0, size - TAIL_BYTES)
    handle.seek(start)
    blob = handle.read()
    floor = blob.find(b"\n") + 1 if start > 0 else 0  # skip the line the seek cut
    end = len(blob)
    found_usage = False
    while end > floor:
        begin = max(blob.rfind(b"\n", floor, end) + 1, floor)
        raw = blob[begin:end]
        end = begin - 1
        if facts.updated is None:
            facts.updated = own_timestamp(raw)
        if not found_usage and b'"assistant"' in raw and first_type(raw) not in SKIPPED_TYPES:
            found_usage = _tail_usage(raw, facts, subagent or facts.sidechain is True)
        if found_usage and facts.updated is not None:
            break
    return blob


def _title_records(blob: bytes, facts: _Facts) -> None:
    """Parse the title records in a block of lines, found by byte search, not line by line."""
    for marker in _TITLE_MARKERS:
        position = blob.find(marker)
        while position >= 0:
            begin = blob.rfind(b"\n", 0, position) + 1
            end = blob.find(b"\n", position)
            end = len(blob) if end < 0 else end
            data = _loads(blob[begin:end])
            if data is not None:
                facts.titles.take(data)
            position = blob.find(marker, end)


def _has_uuid(blob: bytes, uuid: str) -> bool:
    """Tell whether a record with this uuid is in a block of lines."""
    return f'"uuid":"{uuid}"'.encode() in blob


def _tail_usage(raw: bytes, facts: _Facts, sidechain_ok: bool) -> bool:
    """Take model and context size from an assistant record; True once found."""
    data = _loads(raw)
    if data is None or data.get("type") != "assistant":
        return False
    if data.get("isSidechain") and not sidechain_ok:
        return False
    message = data.get("message")
    if not isinstance(message, dict) or message.get("model") == SYNTHETIC_MODEL:
        return False
    usage = usage_from(message.get("usage"))
    if usage is None or usage.context_tokens == 0:
        return False
    facts.model = message.get("model") if isinstance(message.get("model"), str) else None
    facts.context_tokens = usage.context_tokens
    _envelope(data, facts, head=False)
    return True


def _loads(raw: bytes) -> dict[str, Any] | None:
    """Parse a tail line quietly; damage there is reported by the full read, with line numbers."""
    try:
        data = loads(raw)
    except (ValueError, RecursionError):  # damaged or nested too deeply
        return None
    return data if isinstance(data, dict) else None
