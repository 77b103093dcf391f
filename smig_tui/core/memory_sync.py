"""Provides the pure planner for long-term memory sync between Codex, Claude Code, Gemini CLI and OpenCode.

The adapter reads both agents' memory files and the current text of every file smig may touch; this
module decides what each side should see and returns a `MemoryPlan`: planned writes with their
diffs and reasons, obstructions it will not write through, and redaction counts. No I/O here.

What crosses over, and why:
- Codex → Claude: `memory_summary.md` (the distilled summary Codex injects into every session) and
  `MEMORY.md` (its searchable handbook) in full while they fit; `rollout_summaries/*.md` only as an
  index of paths (per-session recaps are many and narrow, worth opening on demand);
  `raw_memories.md` only as a path (unconsolidated stage-1 notes that `MEMORY.md` distils).
- Claude → Codex: every topic file under `projects/*/memory/` (home project first), frontmatter
  turned into a heading and a one-line description; `MEMORY.md` is only Claude's index of them.
- Claude Code gets its bundle as user memory: `~/.claude/CLAUDE.md` imports it with an
  `@smig_memory.md` line, and Claude loads that file in every project (a project's `MEMORY.md`, the
  `--project` target, is loaded only there). Earlier syncs' bundle in the home folder's project is
  retired: smig deletes its own bundle and takes its own index line out of that `MEMORY.md`.
- Gemini CLI and OpenCode keep memory as one global instruction file (`~/.gemini/GEMINI.md`, where
  its `save_memory` tool writes; `~/.config/opencode/AGENTS.md`): each crosses whole (minus smig's
  own line) to every other agent. Each of them gets one bundle with the other three agents' memory:
  Gemini CLI inlines it through an `@./smig_memory.md` import line in `GEMINI.md`; OpenCode gets a
  line in its `AGENTS.md` naming the bundle, as Codex does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from smig_tui.core.memory_agents import ALL_DIRECTIONS, memory_agent
from smig_tui.core.memory_model import (
    CLAUDE_BUNDLE_MAX_BYTES,
    CLAUDE_BUNDLE_NAME,
    CLAUDE_FULL_BUDGET,
    CLAUDE_IMPORT_MAX_BYTES,
    CLAUDE_INDEX_MAX_BYTES,
    CLAUDE_INDEX_MAX_LINES,
    CLAUDE_USER_BUNDLE_NAME,
    CODEX_AGENTS_MAX_BYTES,
    CODEX_BUNDLE_MAX_BYTES,
    CODEX_BUNDLE_NAME,
    FOREIGN_GENERATED,
    GEMINI_BUNDLE_NAME,
    INSTRUCTIONS_BUNDLE_MAX_BYTES,
    MARKER,
    MAX_RECAPS,
    Action,
    Direction,
    DirectionReport,
    FileRole,
    MemoryFile,
    MemoryInputs,
    MemoryPlan,
    MemoryState,
    Mode,
    PlannedWrite,
    Problem,
    SyncTargets,
    claude_project_name,
    is_owned,
    sha256,
)
from smig_tui.core.memory_render import (
    Frontmatter,
    demote_headings,
    human_size,
    parse_frontmatter,
    render_for_claude,
    render_for_codex,
    render_for_instructions,
)
from smig_tui.core.redact import redact

__all__ = [
    "Action",
    "CLAUDE_BUNDLE_MAX_BYTES",
    "CLAUDE_BUNDLE_NAME",
    "CLAUDE_FULL_BUDGET",
    "CLAUDE_INDEX_MAX_BYTES",
    "CLAUDE_INDEX_MAX_LINES",
    "CODEX_AGENTS_MAX_BYTES",
    "CODEX_BUNDLE_MAX_BYTES",
    "CODEX_BUNDLE_NAME",
    "Direction",
    "DirectionReport",
    "FOREIGN_GENERATED",
    "FileRole",
    "Frontmatter",
    "MARKER",
    "MAX_RECAPS",
    "MemoryFile",
    "MemoryInputs",
    "MemoryPlan",
    "MemoryState",
    "Mode",
    "PlannedWrite",
    "Problem",
    "SyncTargets",
    "claude_import_line",
    "claude_index_line",
    "claude_project_name",
    "codex_pointer_line",
    "gemini_import_line",
    "opencode_pointer_line",
    "without_claude_imports",
    "without_gemini_imports",
    "demote_headings",
    "is_owned",
    "memory_plan_json",
    "parse_frontmatter",
    "plan_memory_sync",
    "redaction_counts",
    "render_for_claude",
    "render_for_codex",
    "sha256",
]

_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z\-]+)\]")
"""What `redact` leaves in place of a secret; counted in the final bundle."""


def plan_memory_sync(
    inputs: MemoryInputs,
    directions: Sequence[Direction] = ALL_DIRECTIONS,
    mode: Mode = Mode.AUTO,
    budget: int | None = None,
) -> MemoryPlan:
    """Work out every write and refusal for the chosen directions.

    An agent that is not set up here (no bundle target) is left out: smig does not create an
    agent's folders. `budget` lowers the full-text threshold (bytes); it never raises an agent's
    own limit.
    """
    writes: list[PlannedWrite] = []
    problems: list[Problem] = []
    reports: list[DirectionReport] = []
    directions = [d for d in directions if memory_agent(d).bundle_path(inputs.targets)]
    for direction in directions:
        report, bundle = _bundle_for(inputs, direction, mode, budget)
        reports.append(report)
        new_writes: list[PlannedWrite] = []
        new_problems: list[Problem] = []
        if bundle is not None:
            new_writes, new_problems = _writes_for(inputs, direction, bundle, report)
        follow_up = _RECEIVERS[direction].follow_up
        if follow_up is not None and not new_problems:
            # Only once the new place is fine, so the agent never loses the memory on the way.
            more, new_problems = follow_up(inputs)
            new_writes = new_writes + more
        writes.extend(new_writes)
        problems.extend(new_problems)
    problems = [replace(p, new=p.key not in inputs.state.reported) for p in problems]
    return MemoryPlan(
        writes=tuple(writes),
        problems=tuple(problems),
        reports=tuple(reports),
        state_before=inputs.state,
        state_after=_next_state(inputs.state, writes, problems, directions),
    )


def _next_state(
    state: MemoryState,
    writes: Iterable[PlannedWrite],
    problems: Iterable[Problem],
    directions: Sequence[Direction],
) -> MemoryState:
    """Record hashes of owned writes; remember current problems, forget resolved ones."""
    written = dict(state.written)
    for write in writes:
        if write.action is Action.DELETE:
            written.pop(write.path, None)
        elif write.owned:
            written[write.path] = sha256(write.after)
    prefixes = tuple(f"{direction.value}:" for direction in directions)
    kept = [key for key in state.reported if not key.startswith(prefixes)]
    reported = tuple(sorted(set(kept) | {problem.key for problem in problems}))
    return MemoryState(written=written, reported=reported)


def _bundle_for(
    inputs: MemoryInputs, direction: Direction, mode: Mode, budget: int | None
) -> tuple[DirectionReport, str | None]:
    """Redact, render and size one direction's bundle (None when there is nothing to carry)."""
    receiver = memory_agent(direction)
    sources = tuple(
        source for entry in _SOURCE_ORDER if entry != receiver.agent for source in _sources_of(inputs, entry)
    )
    rules = _RECEIVERS[direction]
    limit, hard = rules.full_budget, rules.max_bytes(inputs)
    render = rules.render
    if not sources:
        others = [memory_agent(entry).memory_kind for entry in _SOURCE_ORDER if entry != receiver.agent]
        empty = "No " + "; no ".join(others) + "."
        return DirectionReport(direction, (), None, note=empty), None
    # Each file is redacted once, before any rendering, so no form of the bundle can leak.
    cleaned = tuple(replace(source, text=_redacted_text(source)) for source in sources)
    threshold = min(limit, budget) if budget else limit
    chosen = Mode.FULL if mode is Mode.AUTO else mode
    text = render(inputs, cleaned, chosen)
    note = ""
    if mode is Mode.AUTO and _size(text) > threshold:
        chosen, note = Mode.INDEX, f" (full text is over the {threshold:,}-byte budget)"
        text = render(inputs, cleaned, chosen)
        if _size(text) > min(hard, threshold):
            text = render(inputs, cleaned, chosen, folders=True)
            note = f" per folder (a line per file is over the {min(hard, threshold):,}-byte budget)"
    text = rules.escape(text)
    size = _size(text)
    note = f"{len(sources)} file(s), {chosen.value}{note}, {human_size(size)} bundle{rules.caveat(inputs)}"
    counts = Counter(match.group(1) for match in _PLACEHOLDER.finditer(text))
    return DirectionReport(direction, sources, chosen, size, dict(counts), note), text


def _redacted_text(source: MemoryFile) -> str:
    """A source's text as it may cross; raw notes are listed by path only, so none of theirs."""
    return "" if source.role is FileRole.RAW else redact(source.text).text


def _writes_for(
    inputs: MemoryInputs, direction: Direction, bundle: str, report: DirectionReport
) -> tuple[list[PlannedWrite], list[Problem]]:
    """Plan the bundle write and the one pointer line, or say why not."""
    receiver = memory_agent(direction)
    bundle_path = receiver.bundle_path(inputs.targets)
    pointer_path = receiver.pointer_path(inputs.targets)
    hard_limit, agent = _RECEIVERS[direction].max_bytes(inputs), receiver.label
    if report.bundle_bytes > hard_limit:
        hint = "" if report.mode is Mode.INDEX else "; use --mode index (or auto)"
        message = (
            f"Not writing {bundle_path}: the {report.mode} bundle is "
            f"{report.bundle_bytes:,} bytes, over the {hard_limit:,} bytes {agent} takes{hint}."
        )
        return [], [Problem(direction, bundle_path, message, f"{direction.value}:refused:{sha256(bundle)}")]
    writes: list[PlannedWrite] = []
    bundle_write, problem = _bundle_write(inputs, direction, bundle_path, bundle)
    if problem is not None:
        return [], [problem]
    if bundle_write is not None:
        writes.append(bundle_write)
    pointer_write, problem = _pointer_write(inputs, direction, pointer_path)
    if pointer_write is not None:
        writes.append(pointer_write)
    return writes, [problem] if problem is not None else []


def _bundle_write(
    inputs: MemoryInputs, direction: Direction, path: str, bundle: str
) -> tuple[PlannedWrite | None, Problem | None]:
    """Create or update the owned bundle; refuse a file at that path that lacks the marker."""
    current = inputs.current.get(path)
    if current is None:
        return PlannedWrite(path, direction, Action.CREATE, None, bundle, "new bundle"), None
    if not is_owned(current):
        message = (
            f"Not writing {path}: it exists without smig's generated-by marker, so it is not "
            "smig's "
            "to overwrite; rename or remove it to let smig sync."
        )
        return None, Problem(direction, path, message, f"{direction.value}:obstructed:{path}:{sha256(current)}")
    if current == bundle:
        return None, None
    reason = "source memory changed"
    last = inputs.state.written.get(path)
    if last is not None and last != sha256(current):
        reason += "; the bundle was edited by hand since smig wrote it, and those edits are replaced"
    return PlannedWrite(path, direction, Action.UPDATE, current, bundle, reason), None


def _pointer_write(inputs: MemoryInputs, direction: Direction, path: str) -> tuple[PlannedWrite | None, Problem | None]:
    """Append the one index/pointer line unless it is there already or would be out of budget."""
    rules = _RECEIVERS[direction]
    current = inputs.current.get(path)
    text = current or ""
    needle, line = rules.pointer(inputs)
    if needle in text:
        return None, None
    if current is None and rules.creating_refused is not None:
        refused = rules.creating_refused(inputs, path)
        if refused:
            return None, Problem(direction, path, refused, f"{direction.value}:fallback:{path}")
    after = text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
    why = rules.unseen(inputs, path, after)
    if why:
        return None, Problem(direction, path, why, f"{direction.value}:pointer:{path}:{sha256(text)}")
    action = Action.CREATE if current is None else Action.APPEND
    reason = "add the one line that points the agent at the bundle"
    return PlannedWrite(path, direction, action, current, after, reason, owned=False), None


def _past_claude_index(inputs: MemoryInputs, path: str, after: str) -> str:
    """Why a line appended to Claude's `MEMORY.md` index would not be loaded ('' when it would);
    the user's `CLAUDE.md` is read whole."""
    if inputs.targets.claude_user:
        return ""
    lines = len(after.splitlines())
    if lines > CLAUDE_INDEX_MAX_LINES or _size(after) > CLAUDE_INDEX_MAX_BYTES:
        return (
            f"Not adding the index line to {path}: it would be line {lines}, past the first "
            f"{CLAUDE_INDEX_MAX_LINES} lines / {CLAUDE_INDEX_MAX_BYTES:,} bytes Claude Code loads, "
            "so Claude would never see it; make room at the top and run again."
        )
    return ""


def _past_codex_budget(inputs: MemoryInputs, path: str, after: str) -> str:
    """Why a line appended to Codex's `AGENTS.md` might not be read ('' when it would)."""
    if _size(after) > CODEX_AGENTS_MAX_BYTES:
        return (
            f"Not adding the pointer line to {path}: the file would be {_size(after):,} bytes, "
            f"past Codex's {CODEX_AGENTS_MAX_BYTES:,}-byte instruction budget, so Codex might "
            "never see it."
        )
    return ""


def _read_whole(inputs: MemoryInputs, path: str, after: str) -> str:
    """Gemini CLI and OpenCode read their global instruction file whole: a line is never unseen."""
    return ""


def _opencode_fallback(inputs: MemoryInputs, path: str) -> str:
    """Why smig must not create OpenCode's `AGENTS.md` ('' when it may): while it is absent OpenCode
    reads Claude's `CLAUDE.md` instead, and would stop once it exists."""
    if not inputs.opencode_claude_fallback:
        return ""
    return (
        f"Not creating {path}: OpenCode now reads {inputs.opencode_claude_fallback} as its global "
        "rules and would stop once this file exists; copy that file there yourself and run again."
    )


def claude_index_line() -> str:
    """The line smig adds to Claude's MEMORY.md, in the format Claude writes its own index."""
    return (
        f"- [{CLAUDE_BUNDLE_NAME}]({CLAUDE_BUNDLE_NAME}) — Codex CLI memory synced by smig: "
        "what OpenAI Codex has learned about this user and their projects"
    )


def claude_import_line() -> str:
    """The line smig adds to the user's `CLAUDE.md`: an import (relative to that file) Claude inlines."""
    return f"@{CLAUDE_USER_BUNDLE_NAME}"


def _claude_max_bytes(inputs: MemoryInputs) -> int:
    """The most a Claude bundle may be: an import rides in every request, a topic file is read on demand."""
    return CLAUDE_IMPORT_MAX_BYTES if inputs.targets.claude_user else CLAUDE_BUNDLE_MAX_BYTES


def _retire_legacy_claude(inputs: MemoryInputs) -> tuple[list[PlannedWrite], list[Problem]]:
    """Undo what earlier syncs wrote in the home folder's project: only smig's bundle and its line."""
    targets, direction = inputs.targets, Direction.TO_CLAUDE
    writes: list[PlannedWrite] = []
    problems: list[Problem] = []
    old = inputs.current.get(targets.claude_legacy_bundle) if targets.claude_legacy_bundle else None
    if old is not None and is_owned(old):
        last = inputs.state.written.get(targets.claude_legacy_bundle)
        if last is not None and last != sha256(old):
            message = (
                f"Left {targets.claude_legacy_bundle} in place: it was edited by hand since smig "
                "wrote it; Claude Code now gets synced memory through CLAUDE.md, so remove it "
                "yourself once you have kept what you need."
            )
            key = f"{direction.value}:legacy-edited:{sha256(old)}"
            problems.append(Problem(direction, targets.claude_legacy_bundle, message, key))
        else:
            reason = "retire an earlier sync's bundle: Claude Code now gets it in every project through CLAUDE.md"
            writes.append(PlannedWrite(targets.claude_legacy_bundle, direction, Action.DELETE, old, "", reason))
    index = inputs.current.get(targets.claude_legacy_index) if targets.claude_legacy_index else None
    if index is not None:
        lines = index.splitlines(keepends=True)
        kept = [line for line in lines if line.rstrip("\r\n") != claude_index_line()]
        if len(kept) != len(lines):
            reason = "take out the index line an earlier sync added (nothing else changes)"
            writes.append(
                PlannedWrite(
                    targets.claude_legacy_index,
                    direction,
                    Action.DROP_LINE,
                    index,
                    "".join(kept),
                    reason,
                    owned=False,
                )
            )
    return writes, problems


def codex_pointer_line(bundle_path: str) -> str:
    """The line smig adds to Codex's global AGENTS.md."""
    return (
        f"- At session start, also read {bundle_path}: the user's Claude Code memory "
        "(preferences, feedback, project notes), synced by smig."
    )


def gemini_import_line() -> str:
    """The line smig adds to Gemini CLI's global `GEMINI.md`: an import Gemini inlines."""
    return f"@./{GEMINI_BUNDLE_NAME}"


_GEMINI_IMPORT = re.compile(r"(^|[ \t\r\n])@(?=[./A-Za-z])")
"""Where Gemini CLI sees an import: `@` at a line start or after a space, then `.`, `/` or a letter."""


def without_gemini_imports(text: str) -> str:
    """Keep Gemini CLI from reading `@path` in carried memory as an import (which would inline that file
    into every request, or swap the words for an "Import failed" comment): a zero-width space goes
    before each such `@`, so it reads the same and no longer follows whitespace."""
    return _GEMINI_IMPORT.sub(lambda match: f"{match.group(1)}\u200b@", text)


_CLAUDE_IMPORT = re.compile(r"(^|\s)@(?=\S)")
"""Where Claude Code sees an import: `@` at a line start or after whitespace, then a path (any
non-space, `~/…` too); it follows imports inside imported files, so the bundle's text is escaped."""


def without_claude_imports(text: str) -> str:
    """Keep Claude Code from reading `@path` in carried memory as an import (checked against 2.1.332:
    the zero-width space before `@` stops it, the words read the same)."""
    return _CLAUDE_IMPORT.sub(lambda match: f"{match.group(1)}\u200b@", text)


def opencode_pointer_line(bundle_path: str) -> str:
    """The line smig adds to OpenCode's global `AGENTS.md` (OpenCode has no import syntax)."""
    return (
        f"- At session start, also read {bundle_path}: the user's memory from their other coding "
        "agents (Codex, Claude Code, Gemini CLI), synced by smig."
    )


@dataclass(frozen=True, slots=True)
class _Receiver:
    """How one agent takes its bundle: the rules the planner applies instead of branching per direction."""

    render: Callable[..., str]
    max_bytes: Callable[[MemoryInputs], int]
    """The most a bundle may be and still be read whole."""
    full_budget: int
    """Past this many bytes the bundle lists files instead of carrying their text."""
    escape: Callable[[str], str]
    """Keeps the agent from following `@path` imports inside carried text (identity: it has none)."""
    pointer: Callable[[MemoryInputs], tuple[str, str]]
    """(text showing the line is there already, the line smig appends to the agent's own file)."""
    unseen: Callable[[MemoryInputs, str, str], str]
    """Why the file with the appended line would hide it from the agent ('' when it would not)."""
    caveat: Callable[[MemoryInputs], str] = lambda inputs: ""
    """A note on the bundle when the agent will not load it as things are."""
    creating_refused: Callable[[MemoryInputs, str], str] | None = None
    """Why the agent's file must not be created ('' when it may)."""
    follow_up: Callable[[MemoryInputs], tuple[list[PlannedWrite], list[Problem]]] | None = None
    """What to tidy once the bundle and its line are fine (Claude: an earlier sync's place)."""


def _claude_pointer(inputs: MemoryInputs) -> tuple[str, str]:
    if inputs.targets.claude_user:
        return claude_import_line(), claude_import_line()
    return f"]({CLAUDE_BUNDLE_NAME})", claude_index_line()


def _claude_caveat(inputs: MemoryInputs) -> str:
    return f"; Claude Code will not load it while {inputs.claude_memory_off}" if inputs.claude_memory_off else ""


def _fixed(size: int) -> Callable[[MemoryInputs], int]:
    return lambda inputs: size


_RECEIVERS: dict[Direction, _Receiver] = {
    Direction.TO_CLAUDE: _Receiver(
        render_for_claude,
        _claude_max_bytes,
        CLAUDE_FULL_BUDGET,
        without_claude_imports,
        _claude_pointer,
        _past_claude_index,
        caveat=_claude_caveat,
        follow_up=lambda inputs: _retire_legacy_claude(inputs),
    ),
    Direction.TO_CODEX: _Receiver(
        render_for_codex,
        _fixed(CODEX_BUNDLE_MAX_BYTES),
        CODEX_BUNDLE_MAX_BYTES,
        lambda text: text,
        lambda inputs: (inputs.targets.codex_bundle, codex_pointer_line(inputs.targets.codex_bundle)),
        _past_codex_budget,
    ),
    Direction.TO_GEMINI: _Receiver(
        render_for_instructions,
        _fixed(INSTRUCTIONS_BUNDLE_MAX_BYTES),
        INSTRUCTIONS_BUNDLE_MAX_BYTES,
        without_gemini_imports,
        lambda inputs: (gemini_import_line(), gemini_import_line()),
        _read_whole,
    ),
    Direction.TO_OPENCODE: _Receiver(
        render_for_instructions,
        _fixed(INSTRUCTIONS_BUNDLE_MAX_BYTES),
        INSTRUCTIONS_BUNDLE_MAX_BYTES,
        lambda text: text,
        lambda inputs: (inputs.targets.opencode_bundle, opencode_pointer_line(inputs.targets.opencode_bundle)),
        _read_whole,
        creating_refused=_opencode_fallback,
    ),
}
"""Each receiving agent's rules; a new agent is one entry here and one in `core/memory_agents.py`."""

_SOURCE_ORDER = ("codex", "claude", "gemini", "opencode")
"""The order agents' memory appears in a bundle."""


def _sources_of(inputs: MemoryInputs, agent: str) -> tuple[MemoryFile, ...]:
    """What one agent contributes to the other agents' bundles."""
    if agent == "codex":
        return _codex_sources(inputs.codex_files)
    if agent == "claude":
        return _claude_sources(inputs.claude_files)
    files = inputs.gemini_files if agent == "gemini" else inputs.opencode_files
    own_line = gemini_import_line() if agent == "gemini" else opencode_pointer_line(inputs.targets.opencode_bundle)
    return _instruction_sources(files, own_line)


def _instruction_sources(files: Iterable[MemoryFile], own_line: str) -> tuple[MemoryFile, ...]:
    """Global instruction files minus smig's own line, so a bundle never carries itself back."""
    chosen = []
    for source in files:
        kept = [line for line in source.text.splitlines() if line.strip() != own_line]
        text = "\n".join(kept)
        if text.strip() and not any(stamp in text for stamp in FOREIGN_GENERATED):
            chosen.append(replace(source, text=text))
    return tuple(chosen)


def _size(text: str) -> int:
    """Bytes the text takes on disk."""
    return len(text.encode("utf-8"))


def _codex_sources(files: Iterable[MemoryFile]) -> tuple[MemoryFile, ...]:
    """Codex files in the order the bundle uses: summary, handbook, recaps, raw notes."""
    order = {FileRole.SUMMARY: 0, FileRole.HANDBOOK: 1, FileRole.RECAP: 2, FileRole.RAW: 3}
    chosen = [f for f in files if f.role in order and f.text.strip()]
    return tuple(sorted(chosen, key=lambda f: order[f.role]))


def _claude_sources(files: Iterable[MemoryFile]) -> tuple[MemoryFile, ...]:
    """Claude topic files to carry: home project first, minus indexes and sync tools' own files."""
    chosen = [
        f
        for f in files
        if f.role is FileRole.TOPIC
        and f.path.rsplit("/", 1)[-1] != "MEMORY.md"
        and f.text.strip()
        and not any(stamp in f.text for stamp in FOREIGN_GENERATED)
    ]
    return tuple(sorted(chosen, key=lambda f: (not f.home, f.project or "", f.path)))


def redaction_counts(plan: MemoryPlan) -> Counter[str]:
    """All redactions across the plan's directions, by kind."""
    total: Counter[str] = Counter()
    for report in plan.reports:
        total.update(report.redactions)
    return total


def memory_plan_json(plan: MemoryPlan, show_diffs: bool) -> dict[str, Any]:
    """A plan as JSON for scripts and MCP: each direction, each write (with its diff if asked), problems."""
    return {
        "directions": [
            {
                "direction": report.direction.value,
                "mode": report.mode.value if report.mode else None,
                "bundle_bytes": report.bundle_bytes,
                "redactions": report.redactions,
                "note": report.note,
                "sources": [
                    {"path": s.path, "role": s.role.value, "size": s.size, "project": s.project, "agent": s.owner}
                    for s in report.sources
                ],
            }
            for report in plan.reports
        ],
        "writes": [
            {
                "path": write.path,
                "direction": write.direction.value,
                "action": write.action.value,
                "reason": write.reason,
                **({"diff": write.diff} if show_diffs else {}),
            }
            for write in plan.writes
        ],
        "problems": [
            {"direction": p.direction.value, "path": p.path, "message": p.message, "new": p.new} for p in plan.problems
        ],
    }
