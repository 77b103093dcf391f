"""Provides the pure planner for long-term memory sync among the agents set up here.

The adapter reads every agent's memory files and the current text of every file smig may touch; this
module decides what each agent should see and returns a `MemoryPlan`: planned writes with their
diffs and reasons, obstructions it will not write through, and redaction counts. No I/O here.

Each agent gets one bundle smig owns, holding the other agents' memory (secrets redacted), and one line
in its own index or instructions that makes it read the bundle. What an agent gives and how it takes
its bundle (its size limits, its pointer line, its import syntax) are its rules (`MemoryRules`), which
its plugin hands the core: the planner applies them without a branch per agent.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from smig_tui.core.agent_rules import rules_of
from smig_tui.core.memory_agents import all_directions, memory_rules, takes_part
from smig_tui.core.memory_model import (
    FOREIGN_GENERATED,
    MARKER,
    Action,
    AgentMemory,
    Direction,
    DirectionReport,
    FileRole,
    MemoryFile,
    MemoryInputs,
    MemoryPlan,
    MemoryRules,
    MemoryState,
    Mode,
    PlannedWrite,
    Problem,
    is_owned,
    sha256,
)
from smig_tui.core.memory_render import demote_headings, parse_frontmatter
from smig_tui.core.redact import redact
from smig_tui.core.words import size_text

__all__ = [
    "Action",
    "AgentMemory",
    "Direction",
    "DirectionReport",
    "FOREIGN_GENERATED",
    "FileRole",
    "MARKER",
    "MemoryFile",
    "MemoryInputs",
    "MemoryPlan",
    "MemoryRules",
    "MemoryState",
    "Mode",
    "PlannedWrite",
    "Problem",
    "demote_headings",
    "instruction_sources",
    "is_owned",
    "parse_frontmatter",
    "plan_memory_sync",
    "redaction_counts",
    "sha256",
]

_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z\-]+)\]")
"""What `redact` leaves in place of a secret; counted in the final bundle."""


def plan_memory_sync(
    inputs: MemoryInputs,
    directions: Sequence[Direction] | None = None,
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
    directions = [d for d in (all_directions() if directions is None else directions) if inputs.of(d.agent).bundle]
    for direction in directions:
        report, bundle = _bundle_for(inputs, direction, mode, budget)
        reports.append(report)
        new_writes: list[PlannedWrite] = []
        new_problems: list[Problem] = []
        if bundle is not None:
            new_writes, new_problems = _writes_for(inputs, direction, bundle, report)
        follow_up = memory_rules(direction).follow_up
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
    receiver = direction.agent
    givers = [agent for agent in inputs.memories if agent != receiver and takes_part(agent)]
    sources = tuple(source for agent in givers for source in memory_rules(agent).sources(inputs.of(agent)))
    rules = memory_rules(direction)
    own = inputs.of(receiver)
    limit, hard = rules.full_budget, rules.max_bytes(own)
    if not sources:
        others = [memory_rules(agent).memory_kind for agent in givers]
        empty = "No " + "; no ".join(others) + "."
        return DirectionReport(direction, (), None, note=empty), None

    def render(mode: Mode, folders: bool = False) -> str:
        def sections(headless: tuple[str, ...] = ()) -> list[str]:
            lines: list[str] = []
            for agent in givers:
                files = [source for source in cleaned if source.agent == agent]
                if files:
                    lines += memory_rules(agent).section(inputs, files, mode, folders, agent not in headless)
            return lines

        return rules.render(inputs, cleaned, mode, folders, sections)

    # Each file is redacted once, before any rendering, so no form of the bundle can leak.
    cleaned = tuple(replace(source, text=_redacted_text(source)) for source in sources)
    threshold = min(limit, budget) if budget else limit
    chosen = Mode.FULL if mode is Mode.AUTO else mode
    text = render(chosen)
    note = ""
    if mode is Mode.AUTO and _size(text) > threshold:
        chosen, note = Mode.INDEX, f" (full text is over the {threshold:,}-byte budget)"
        text = render(chosen)
        if _size(text) > min(hard, threshold):
            text = render(chosen, folders=True)
            note = f" per folder (a line per file is over the {min(hard, threshold):,}-byte budget)"
    text = rules.escape(text)
    size = _size(text)
    note = f"{len(sources)} file(s), {chosen.value}{note}, {size_text(size)} bundle{rules.caveat(own)}"
    counts = Counter(match.group(1) for match in _PLACEHOLDER.finditer(text))
    return DirectionReport(direction, sources, chosen, size, dict(counts), note), text


def _redacted_text(source: MemoryFile) -> str:
    """A source's text as it may cross; raw notes are listed by path only, so none of theirs."""
    return "" if source.role is FileRole.RAW else redact(source.text).text


def _writes_for(
    inputs: MemoryInputs, direction: Direction, bundle: str, report: DirectionReport
) -> tuple[list[PlannedWrite], list[Problem]]:
    """Plan the bundle write and the one pointer line, or say why not."""
    own = inputs.of(direction.agent)
    bundle_path, pointer_path = own.bundle, own.pointer
    hard_limit, agent = memory_rules(direction).max_bytes(own), _name(direction.agent)
    if report.bundle_bytes > hard_limit:
        hint = "" if report.mode is Mode.INDEX else "; the index mode (or auto) writes less"
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
    rules = memory_rules(direction)
    own = inputs.of(direction.agent)
    current = inputs.current.get(path)
    text = current or ""
    needle, line = rules.pointer(own)
    if needle in text:
        return None, None
    if current is None and rules.creating_refused is not None:
        refused = rules.creating_refused(own, path)
        if refused:
            return None, Problem(direction, path, refused, f"{direction.value}:fallback:{path}")
    after = text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
    why = rules.unseen(own, path, after)
    if why:
        return None, Problem(direction, path, why, f"{direction.value}:pointer:{path}:{sha256(text)}")
    action = Action.CREATE if current is None else Action.APPEND
    reason = "add the one line that points the agent at the bundle"
    return PlannedWrite(path, direction, action, current, after, reason, owned=False), None


def _name(agent: str) -> str:
    """An agent as its users write it."""
    rules = rules_of(agent)
    return rules.name if rules is not None else agent


POINTER_START = "- At session start, also read "
POINTER_END = "synced by smig."
"""How every pointer line smig has written begins (then the bundle's path and a colon) and ends, whatever
words it gave between: how a line an earlier version wrote is still known as smig's."""


def pointer_line(bundle_path: str) -> str:
    """The line smig adds to an agent's instruction file that cannot import (OpenCode, Kilo, Pi, Codex): it
    names the bundle, which holds every other agent's memory (no list of agents: it grows with the plugins)."""
    return (
        f"{POINTER_START}{bundle_path}: the user's memory from their other coding agents "
        f"(preferences, feedback, project notes), {POINTER_END}"
    )


def is_pointer_line(line: str, bundle_path: str) -> bool:
    """Whether `line` is smig's pointer at `bundle_path`, in this version's words or an earlier one's
    (`… (Codex, Claude Code, Gemini CLI), synced by smig.`, `… the user's Claude Code memory …`)."""
    text = line.strip()
    return text.startswith(f"{POINTER_START}{bundle_path}:") and text.endswith(POINTER_END)


def instruction_sources(files: Iterable[MemoryFile], own_line: str, bundle: str = "") -> tuple[MemoryFile, ...]:
    """Global instruction files minus smig's own line (any version's pointer at `bundle`, when given), so a
    bundle never carries itself back."""
    chosen = []
    for source in files:
        kept = [
            line
            for line in source.text.splitlines()
            if line.strip() != own_line and not (bundle and is_pointer_line(line, bundle))
        ]
        text = "\n".join(kept)
        if text.strip() and not any(stamp in text for stamp in FOREIGN_GENERATED):
            chosen.append(replace(source, text=text))
    return tuple(chosen)


def _size(text: str) -> int:
    """Bytes the text takes on disk."""
    return len(text.encode("utf-8"))


def redaction_counts(plan: MemoryPlan) -> Counter[str]:
    """All redactions across the plan's directions, by kind."""
    total: Counter[str] = Counter()
    for report in plan.reports:
        total.update(report.redactions)
    return total
