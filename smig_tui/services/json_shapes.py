"""Provides the one JSON shape of each object smig prints with `--json` and returns from its MCP tools.

A session, a decision, a plan and its items, a model, a migration's result, a stored migration (whole,
and listed), a search hit, a memory sync and `smig doctor`'s diagnosis each have one function here; the CLI and the MCP server both call it, so
the same figure has the same key everywhere. A front end only adds what is its own around an object (the
MCP tools their paging and the homes searched, the CLI the stored record of a commit), never another
spelling of the same figure. `SHAPES` lists every key with its meaning: docs/json.md is generated from
it (`scripts/docs.py`), and tests/test_json_shapes.py holds each function to its list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from smig_tui.core.models import PlanItems, SessionInfo

if TYPE_CHECKING:
    from smig_tui.adapters.archive import ArchiveRun, ArchiveStatus
    from smig_tui.adapters.memory_store import ApplyResult
    from smig_tui.adapters.search_query import SearchHit
    from smig_tui.core.memory_model import MemoryPlan
    from smig_tui.core.migration import MigrationRecord, MigrationResult
    from smig_tui.core.models import Decision, ModelCapacity, Plan, PlanItem, Session
    from smig_tui.core.summary import SummaryResult
    from smig_tui.services.doctor import Diagnosis
    from smig_tui.services.plan import Planning


# --- session ------------------------------------------------------------------------------------

SESSION_INFO_KEYS = tuple(spec.name for spec in fields(SessionInfo))
"""A listing entry's keys: every field of `SessionInfo`, by its name."""


def session_json(info: SessionInfo) -> dict[str, Any]:
    """One session as `smig list --json` and MCP's `list_sessions` give it: every listing fact, by its field name."""
    shape = {key: getattr(info, key) for key in SESSION_INFO_KEYS}
    shape["agent"] = info.agent.value
    return shape


# --- decision, plan, item -----------------------------------------------------------------------


def decision_json(decision: Decision) -> dict[str, Any]:
    """Whether the session fits the target as it is, with every figure the budget is made of."""
    return {
        "target": decision.target,
        "fits": decision.fits,
        "session_tokens": decision.session_tokens,
        "budget": decision.budget,
        "window": decision.window,
        "reserve": decision.reserve,
        "prompt_limit": decision.prompt_limit,
        "harness": decision.harness,
        "harness_agent": decision.harness_agent,
        "overhead": decision.overhead,
        "over_by": decision.over_by,
        "exact": decision.exact,
        "partial": decision.partial,
    }


def plan_totals(plan: Plan) -> dict[str, Any]:
    """A plan's decision and totals, the part every plan-shaped reply shares (`migrate_session` and a
    commit's result too). `dropped_count` and `dropped_tokens` are the messages the omission note counts,
    so the two agree; messages no plan migrates are counted apart in `not_migrated_count`."""
    from smig_tui.core.plans import left_out, omitted  # planning code: not on `smig list --json`'s path

    dropped = len(plan.dropped)
    omitted_count, omitted_tokens = omitted(plan)
    return {
        "target": plan.decision.target,
        "decision": decision_json(plan.decision),
        "strategy": plan.strategy.value,
        "tokens_before": plan.tokens_before,
        "tokens_after": plan.tokens_after,
        "kept_count": len(plan.kept),
        "dropped_count": omitted_count,
        "dropped_tokens": omitted_tokens,
        "not_migrated_count": dropped - omitted_count,
        "shortened_count": sum(1 for item in plan.kept if item.text is not None),
        "left_out": dict(zip(("messages", "tokens"), left_out(plan), strict=True)),
        "placeholder": plan.placeholder,
        "summary": plan.summary,
        "summary_budget": plan.summary_budget,
        "notes": list(plan.notes),
    }


def plan_json(
    services: Planning, session: Session, plan: Plan, agent: str | None = None, *, stored: bool = True
) -> dict[str, Any]:
    """A plan as `smig plan --json` and MCP's `preview_migration` give it, less its `items` (`plan_items`:
    the CLI adds them whole, MCP in pages): the totals, the counter, the receiving agent's overhead and
    the ± of the count. `agent` is the receiving agent chosen (`--to`); `stored` False leaves out the
    session's id and agent, for a conversation that is no stored session (`migrate_session`)."""
    capacity = services.capacities.lookup(plan.decision.target)
    overhead = services.overhead_for(capacity, agent, session.info.cwd) if plan.decision.overhead else None
    head = {"session_id": session.id, "agent": session.info.agent.value} if stored else {}
    return {
        **head,
        **plan_totals(plan),
        "counter": services.counter_for(capacity).name,
        "usable_window": _usable_window(services.capacity_for(capacity, agent), agent)
        if plan.decision.harness
        else None,
        "agent_overhead": None
        if not plan.decision.overhead
        else {
            "agent": overhead.agent if overhead else None,
            "tokens": plan.decision.overhead,
            "source": overhead.source if overhead else None,
            "assumed": agent is None,
        },
        **_calibration(services, session, capacity),
    }


def _usable_window(capacity: ModelCapacity, agent: str | None) -> dict[str, Any]:
    """The usable window a plan fits into: whose compaction rule gave it, and the figure's source."""
    from smig_tui.core.capacity import harness_agent

    return {
        "tokens": capacity.harness_window,
        "agent": harness_agent(capacity),
        "source": capacity.source_of("harness_window"),
        "assumed": agent is None,
    }


def _calibration(services: Planning, session: Session, capacity: ModelCapacity) -> dict[str, Any]:
    """The ± of the target's count of this session: its mix of text classes' for a family measured per
    class, else the model's (`calibration_error` 0.0: exact; null: not measured)."""
    from smig_tui.core.capacity import counted_exactly

    if counted_exactly(capacity):
        return {"calibration_error": 0.0, "calibration_mix": None}
    mix = services.count_mix(session, capacity)
    if mix is None:
        return {"calibration_error": capacity.calibration_error, "calibration_mix": None}
    shares = {name: round(share, 3) for name, share in mix.shares.items()}
    return {"calibration_error": None if mix.error is None else round(mix.error, 4), "calibration_mix": shares}


def plan_item_json(item: PlanItem) -> dict[str, Any]:
    """One source message's fate in a plan."""
    message = item.message
    return {
        "index": message.index,
        "id": message.id,
        "role": message.role.value,
        "kind": message.kind.value,
        "tokens": item.tokens,
        "kept": item.kept,
        "reason": item.reason,
        "shortened": item.text is not None,
        "original_tokens": item.original_tokens,
    }


def plan_items(plan: Plan) -> list[dict[str, Any]]:
    """Every source message's fate, in source order."""
    return list(plan_item_rows(plan))


def plan_item_rows(plan: Plan) -> Iterator[dict[str, Any]]:
    """`plan_item_json` of every item, in source order, made one at a time; from the plan's columns
    when it has them (`PlanItems.fields_at`), no item built."""
    items = plan.items
    if not isinstance(items, PlanItems):
        yield from map(plan_item_json, items)
        return
    for message, tokens, kept, reason, text, original in items.fields_at(range(len(items))):
        yield {
            "index": message.index,
            "id": message.id,
            "role": message.role.value,
            "kind": message.kind.value,
            "tokens": tokens,
            "kept": kept,
            "reason": reason,
            "shortened": text is not None,
            "original_tokens": original,
        }


# --- model --------------------------------------------------------------------------------------

MODEL_SOURCED = ("context_window", "max_output", "max_input", "calibration", "harness_window")
"""The figures whose source `sources` names one by one."""


def model_json(model: ModelCapacity) -> dict[str, Any]:
    """One model of the capacity table, every figure with where it comes from (`smig models --json`, MCP's
    `model_context_window` and `list_known_models`)."""
    return {
        "name": model.name,
        "provider": model.provider,
        "status": model.status,
        "retired": model.retired,
        "replacement": model.replacement,
        "released": model.released,
        "context_window": model.context_window,
        "max_output": model.max_output,
        "max_input": model.max_input,
        "encoding": model.encoding,
        "tokenizer": model.tokenizer,
        "calibration": model.calibration,
        "calibration_error": model.calibration_error,
        "calibration_classes": [
            {"class": name, "factor": factor, "error": error} for name, factor, error in model.class_calibration
        ],
        "harness_window": model.harness_window,
        "agents": [
            {"agent": a.agent, "window": a.window, "usable": a.usable, "max_window": a.max_window, "source": a.source}
            for a in model.agents
        ],
        "source": model.source,
        "sources": {figure: model.source_of(figure) for figure in MODEL_SOURCED},
        "aliases": list(model.aliases),
    }


# --- migration ----------------------------------------------------------------------------------


def migration_json(result: MigrationResult, plan: Plan) -> dict[str, Any]:
    """A committed (or dry-run) migration as `smig migrate --json` and MCP's `commit_migration` give it:
    where everything went, how to resume it, and the figures of the plan it wrote."""
    from smig_tui.core.encoding import utf8

    record = result.record
    totals = plan_totals(plan)
    files = [
        {
            "destination": f.destination.value,
            "path": f.path,
            "bytes": len(utf8(f.data)),
            "session_id": f.native.session_id if f.native else None,
            "resume_command": f.native.resume_command if f.native else None,
            # The same command as data, for a caller that starts it itself (no shell quoting to undo).
            "resume_argv": list(f.native.argv) if f.native else None,
            "resume_cwd": f.native.cwd if f.native else None,
        }
        for f in result.files
    ]
    return {
        "migration_id": result.migration_id,
        "dry_run": result.dry_run,
        "record_path": result.record_path,
        "workspace": record.source.cwd,
        "files": files,
        "resume_commands": list(result.resume_commands),
        "continue_latest": [asdict(fact) for fact in result.continue_latest],
        "recovered": [f"smig {note}" for note in result.recovered],
        "redactions": dict(result.redactions),
        "decision": totals["decision"],
        "strategy": record.strategy,
        "kept": len(record.kept_ids),
        "dropped": len(record.dropped_ids),
        "dropped_count": totals["dropped_count"],
        "dropped_tokens": totals["dropped_tokens"],
        "tokens_before": record.tokens_before,
        "tokens_after": record.tokens_after,
        "left_out": {"messages": record.left_out, "tokens": record.left_out_tokens},
    }


STORED_MIGRATION_LISTED = (
    "id",
    "created",
    "source",
    "target",
    "strategy",
    "tokens_before",
    "tokens_after",
    "outputs",
    "files",
    "redactions",
    "left_out",
    "left_out_tokens",
)
"""The keys of a stored migration that `smig history --json` lists and MCP's `get_handoff` heads its pages
with: the record less its conversation (`messages`, `kept_ids`, `dropped_ids`, `summary`, `placeholder`:
they grow with the session, and `get_handoff` pages the messages as `content`), its plan's `decision`,
the store's folder name `workspace` and `schema_version`."""


def stored_migration_json(record: MigrationRecord) -> dict[str, Any]:
    """A stored migration whole, as it is on disk: `smig history show --json`, and `record` in `smig migrate --json`."""
    from smig_tui.core.migration import record_to_json

    return record_to_json(record)


def stored_migration_listed(record: MigrationRecord) -> dict[str, Any]:
    """A stored migration as `smig history --json` lists it and MCP's `get_handoff` gives it above the
    handoff: the keys `STORED_MIGRATION_LISTED` names, cut from the whole record so each key holds the
    same value there."""
    whole = stored_migration_json(record)
    return {key: whole[key] for key in STORED_MIGRATION_LISTED}


# --- summary, archive ---------------------------------------------------------------------------


def summary_json(result: SummaryResult) -> dict[str, Any]:
    """A written summary as `smig summarize --json` gives it."""
    return {
        "text": result.text,
        "provider": result.provider,
        "model": result.model,
        "redactions": result.redactions,
        "chunks": result.chunks,
        "requests": result.requests,
        "cached": result.cached,
        "truncated": result.truncated,
        "prompt_version": result.prompt_version,
    }


def archive_run_json(run: ArchiveRun) -> dict[str, Any]:
    """An archive pass (`smig archive --json`): its counts, and how many sessions the agents listed (not every
    path: that set is the run's working state, thousands of paths)."""
    counts = {key: value for key, value in asdict(run).items() if key != "listed"}
    return counts | {"sessions_listed": len(run.listed)}


def archive_status_json(status: ArchiveStatus) -> dict[str, Any]:
    """What the archive holds and what a run would add (`smig archive --status --json`)."""
    return {
        "sessions": status.sessions,
        "original_bytes": status.original_bytes,
        "stored_bytes": status.stored_bytes,
        "originals_missing": status.originals_missing,
        "pending": archive_run_json(status.pending),
    }


# --- search hit ---------------------------------------------------------------------------------


def search_hit_json(hit: SearchHit) -> dict[str, Any]:
    """One search hit as `smig search --json` and MCP's `search_sessions` give it: the raw snippet with
    the matches' spans, and the same snippet with each match between « and »."""
    from smig_tui.core.search import Snippet

    return {
        "session_id": hit.session_id,
        "agent": hit.agent,
        "title": hit.title,
        "cwd": hit.cwd,
        "path": hit.path,
        "message_id": hit.message_id,
        "position": hit.position,
        "role": hit.role,
        "kind": hit.kind,
        "timestamp": hit.timestamp,
        "archived": hit.archived,
        "compacted": hit.compacted,
        "snippet": hit.snippet,
        "spans": [list(span) for span in hit.spans],
        "marked": Snippet(hit.snippet, hit.spans).marked("«", "»"),
    }


# --- memory sync --------------------------------------------------------------------------------


def memory_sync_json(plan: MemoryPlan, result: ApplyResult | None, show_diffs: bool) -> dict[str, Any]:
    """A memory sync as `smig memory … --json` and MCP's `memory_sync` give it: each direction with its
    sources, each write (its diff only when asked: MCP never names a file's text), the problems, and
    what applying it wrote or skipped (`result`, None when nothing was applied)."""
    directions = []
    for report in plan.reports:
        sources = [
            {"path": s.path, "role": s.role.value, "size": s.size, "project": s.project, "agent": s.owner}
            for s in report.sources
        ]
        by_agent: dict[str | None, int] = {}
        for source in report.sources:
            by_agent[source.owner] = by_agent.get(source.owner, 0) + 1
        directions.append(
            {
                "direction": report.direction.value,
                "mode": report.mode.value if report.mode else None,
                "bundle_bytes": report.bundle_bytes,
                "redactions": report.redactions,
                "note": report.note,
                "sources": sources,
                "sources_by_agent": by_agent,
            }
        )
    return {
        "applied": result is not None,
        "directions": directions,
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
        "written": [write.path for write in result.written] if result else [],
        "skipped": list(result.skipped) if result else [],
    }


# --- doctor -------------------------------------------------------------------------------------


def diagnosis_json(found: Diagnosis) -> dict[str, Any]:
    """`smig doctor --json`: every fact of the diagnosis; `config` is `invalid` whenever it has problems."""
    return asdict(found) | {"config": "invalid" if found.config_problems else found.config}


# --- the documented keys ------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One object's JSON shape as docs/json.md shows it: who gives it, and each key with its meaning."""

    name: str
    given_by: str
    keys: tuple[tuple[str, str], ...]
    note: str = ""

    @property
    def key_names(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.keys)


_SESSION_MEANINGS = {
    "id": "the session's id (what every command and tool that takes a session accepts, or a unique prefix)",
    "agent": "the agent that wrote it",
    "path": "its file (or database) on this machine",
    "cwd": "the project folder it ran in",
    "title": "its title, or its first prompt",
    "model": "the model it last used",
    "created": "when it started (ISO 8601, UTC)",
    "updated": "its last record (ISO 8601, UTC; else the file's time)",
    "source_version": "the version of the agent that wrote it",
    "origin": "how it was started, as its agent recorded it",
    "parent_id": "the session it was forked or spawned from",
    "is_subagent": "a sub-agent, review, compaction or `exec` session (listed only with `--all`)",
    "size": "its file's size in bytes",
    "mtime": "its file's modification time (seconds since the epoch)",
    "message_count": "its messages (null until smig read or counted it)",
    "context_tokens": "the context in use at its last model call, as its agent logged it",
    "context_window": "the source model's window, where its agent logged it",
    "project": "the grouping its agent keeps (a project folder's name, or its cwd)",
    "counted_tokens": "smig's count of what would migrate, when counted before and unchanged since",
    "root_record": "the first conversation record, shared by a session and its forks (for an agent that forks)",
    "archived": "read from smig's archive: the agent deleted the original",
    "git_branch": "the git branch it was last on as its agent recorded it (what `smig list --branch` matches)",
}

_DECISION = (
    ("target", "the target model"),
    ("fits", "whether the session fits as it is"),
    ("session_tokens", "the session's tokens, counted for the target"),
    ("budget", "what the migrated conversation may hold"),
    ("window", "the target's context window"),
    ("reserve", "tokens kept free for the reply"),
    ("prompt_limit", "the input limit or the agent harness's usable share, when lower than window − reserve"),
    ("harness", "whether the agent harness's share was applied"),
    (
        "harness_agent",
        "the agent whose compaction rule gave that share (the receiving agent); null when the config's "
        "`harness_window` gave it or none applied",
    ),
    ("overhead", "the receiving agent's tokens per request (system prompt, tools), taken off the budget"),
    ("over_by", "tokens over the budget (0 when it fits)"),
    ("exact", "counted with the target's own tokenizer"),
    ("partial", "some counts are still estimates"),
)

_PLAN_TOTALS = (
    ("target", "the target model"),
    ("decision", "the decision (above)"),
    ("strategy", "as-is, truncate, tools-first, summary or summary-tail"),
    ("tokens_before", "the session's tokens"),
    ("tokens_after", "the migrated conversation's tokens"),
    ("kept_count", "messages kept"),
    ("dropped_count", "messages left out that the omission note counts"),
    ("dropped_tokens", "their tokens"),
    ("not_migrated_count", "harness context, opaque reasoning, orphaned tool halves: never migrated by any plan"),
    ("shortened_count", "kept messages shortened (a tool output's middle cut)"),
    ("left_out", "`messages` and `tokens` of the conversation left out"),
    ("placeholder", "the note that stands for what was left out"),
    ("summary", "the summary of what was left out (summary strategies)"),
    ("summary_budget", "tokens the summary may take"),
    ("notes", "sentences about the plan (a retired target, guessed counts)"),
)

_STORED_MIGRATION = (
    ("id", "the stored migration's id (32 hex digits: `smig history show`, MCP `recall_omitted`)"),
    ("created", "when it was committed (ISO 8601, UTC)"),
    ("workspace", "the name of the folder of smig's store it is kept in, made from `source.cwd`"),
    (
        "source",
        "the session migrated, pinned: `agent`, `id`, `path`, `sha256` and `size` (of the bytes read), "
        "`mtime`, `cwd` (its project folder), `title`, `model`",
    ),
    ("target", "the target model"),
    (
        "decision",
        "the plan's decision: its `target`, `session_tokens`, `window`, `reserve`, `budget`, `fits` and "
        "`over_by` (as in a decision, above)",
    ),
    ("strategy", "the strategy the plan used"),
    ("kept_ids", "the ids of the messages kept, in order"),
    ("dropped_ids", "the ids of the messages left out, every kind (what `recall_omitted` reads back)"),
    ("tokens_before", "the session's tokens"),
    ("tokens_after", "the migrated conversation's tokens"),
    ("messages", "the migrated conversation, every message whole, secrets redacted"),
    ("summary", "the summary of what was left out (summary strategies), else null"),
    ("placeholder", "the note that stands for what was left out, else null"),
    (
        "outputs",
        "each native session written: `agent`, `path`, `session_id`, `argv` and `cwd` (the command that "
        "resumes it, as data) and `resume_command` (the same as one shell line)",
    ),
    ("files", "the export files written beside it"),
    ("redactions", "secrets redacted, by kind"),
    ("left_out", "conversation messages left out (the figure the omission note gives)"),
    ("left_out_tokens", "their tokens"),
    ("schema_version", "the version of the stored document"),
)

SHAPES: tuple[Shape, ...] = (
    Shape(
        "session",
        "`smig list --json` (a list of them), `smig show --json` (as `info`), MCP `list_sessions` (`sessions`)",
        tuple((key, _SESSION_MEANINGS[key]) for key in SESSION_INFO_KEYS),
    ),
    Shape(
        "session document",
        "`smig show --json` (written by the CLI's streaming encoder, `cli/sessions.session_to_json`)",
        (
            ("info", "the session (above)"),
            ("messages", "every message on the conversation path, each with every field and its whole text"),
            ("warnings", "what reading it warned about, one sentence each"),
            ("instructions", "the system or base instructions it ran with, where recorded"),
            ("measured_context_tokens", "the context in use at its last model call, from logged usage"),
            ("compactions", "how many times its agent compacted it"),
            ("extra", "small facts the agent's reader found worth showing"),
        ),
    ),
    Shape("decision", "inside every plan and migration (`decision`)", _DECISION),
    Shape(
        "plan",
        "`smig plan --json`, MCP `preview_migration`; MCP `migrate_session` gives the same keys but "
        "`session_id`, `agent` and `items`",
        (
            ("session_id", "the planned session"),
            ("agent", "the agent that wrote it"),
            *_PLAN_TOTALS,
            ("counter", "the tokenizer the counts were made with"),
            (
                "usable_window",
                "null (no agent harness applied), or the window before the receiving agent compacts: `tokens`, "
                "`agent` (whose rule; null when the config's `harness_window` gave it), `source` and `assumed` "
                "(true: the model's home agent, not one chosen with --to)",
            ),
            (
                "agent_overhead",
                "null, or the overhead taken off: `agent`, `tokens`, `source` (where the figure comes from) "
                "and `assumed` (true: the agent the target's provider implies, not one chosen with --to)",
            ),
            ("calibration_error", "the ± of an estimated count (0.16: ±16%); 0.0 when exact, null when not measured"),
            ("calibration_mix", "for a target measured per class of text: the session's share of each class"),
            ("items", "one item per source message, in order (MCP: paged)"),
        ),
    ),
    Shape(
        "item",
        "each of a plan's `items`",
        (
            ("index", "the message's # in the tables"),
            ("id", "its id (what a pin names)"),
            ("role", "user, assistant, tool, system or developer"),
            ("kind", "text, tool_call, tool_result, reasoning, summary or image"),
            ("tokens", "its tokens for the target, as migrated"),
            ("kept", "whether the plan keeps it"),
            ("reason", "why it is kept or left out"),
            ("shortened", "kept with its middle cut"),
            ("original_tokens", "its tokens before shortening, else null"),
        ),
    ),
    Shape(
        "model",
        "`smig models --json` (a list of them), MCP `model_context_window`, `list_known_models` (`models`)",
        (
            ("name", "the model's name"),
            ("provider", "who serves it"),
            ("status", "current, legacy or retired"),
            ("retired", "the date it was retired, else null"),
            ("replacement", "the model to use instead of a retired one"),
            ("released", "its release date, when known"),
            ("context_window", "its context window in tokens"),
            ("max_output", "its output cap"),
            ("max_input", "its input cap, when lower than the window"),
            ("encoding", "the tokenizer encoding smig counts with"),
            ("tokenizer", "its tokenizer family"),
            ("calibration", "the factor from the encoding's count to the model's"),
            ("calibration_error", "the measured worst error of that count (0.16: ±16%); null when not measured"),
            ("calibration_classes", "per class of text: `class`, `factor` and `error`"),
            ("harness_window", "the usable window inside an agent harness, when known"),
            ("agents", "per agent: `agent`, `window`, `usable`, `max_window`, `source`"),
            ("source", "where the figures come from"),
            ("sources", "where each figure comes from, by figure"),
            ("aliases", "other names it is found by"),
        ),
    ),
    Shape(
        "migration",
        "`smig migrate --json`, MCP `commit_migration`",
        (
            ("migration_id", "the stored migration's id (`smig history show`, `recall_omitted`)"),
            ("dry_run", "true: nothing was written"),
            ("record_path", "the stored record"),
            ("workspace", "the project folder the session ran in"),
            (
                "files",
                "each file written: `destination`, `path`, `bytes`, and for a native session `session_id`, "
                "`resume_command`, `resume_argv` and `resume_cwd` (null for an export)",
            ),
            ("resume_commands", "how to resume each native session"),
            (
                "continue_latest",
                "per native session, what the client's `continue the latest` picks in that folder: `agent`, "
                "`command`, `folder`, `picks`, `migration` (true: it picks the migration), `sentence`",
            ),
            ("recovered", "what smig did first to commits a kill had interrupted, one sentence each"),
            ("redactions", "secrets redacted, by kind"),
            ("decision", "the decision (above)"),
            ("strategy", "the strategy the plan used"),
            ("kept", "messages kept"),
            ("dropped", "messages left out, every kind"),
            ("dropped_count", "as the plan's"),
            ("dropped_tokens", "as the plan's"),
            ("tokens_before", "the session's tokens"),
            ("tokens_after", "the migrated conversation's tokens"),
            ("left_out", "`messages` and `tokens` of the conversation left out"),
        ),
        note="`smig migrate --json` also gives `record`, the stored migration whole (below; MCP's `get_handoff` "
        "reads it back), and on a dry run each file's `data`.",
    ),
    Shape(
        "stored migration",
        "`smig history show --json`, `smig migrate --json` (as `record`): the record as smig stores it",
        _STORED_MIGRATION,
    ),
    Shape(
        "stored migration, listed",
        "`smig history --json` (a list of them), MCP `get_handoff` (above its paged `content`, with the "
        "handoff's `format`, a `recall` hint when messages were left out, and on a page too small for the "
        "whole head `head_left_out`, the keys `outputs`, `files`, `source` it left out in that order, and "
        "`head_note`, the `max_chars` that brings them back)",
        tuple((key, dict(_STORED_MIGRATION)[key]) for key in STORED_MIGRATION_LISTED),
        note="The stored migration (above) less what grows with the conversation (`messages`, `kept_ids`, "
        "`dropped_ids`, `summary`, `placeholder`), its `decision`, `workspace` and `schema_version`: each key "
        "holds the value the whole record holds (MCP redacts secrets in its strings). The project folder is "
        "`source.cwd`; each output's `resume_command` is how to resume it.",
    ),
    Shape(
        "search hit",
        "`smig search --json` (a list of them), MCP `search_sessions` (`hits`)",
        (
            ("session_id", "the session the message is in"),
            ("agent", "its agent"),
            ("title", "its title"),
            ("cwd", "its project folder"),
            ("path", "its file"),
            ("message_id", "the matching message"),
            ("position", "the message's place in the session"),
            ("role", "its role"),
            ("kind", "its kind"),
            ("timestamp", "when it was written"),
            ("archived", "found in smig's archive"),
            ("compacted", "an agent's compaction took it out of the history it resumes"),
            ("snippet", "the text around the match, secrets redacted"),
            ("spans", "each match in the snippet as [start, end] character offsets"),
            ("marked", "the snippet with each match between « and »"),
        ),
    ),
    Shape(
        "memory sync",
        "`smig memory status|sync --json`, MCP `memory_sync`",
        (
            ("applied", "true: the writes were made"),
            (
                "directions",
                "per receiving agent: `direction`, `mode`, `bundle_bytes`, `redactions`, `note`, `sources` "
                "(`path`, `role`, `size`, `project`, `agent`) and `sources_by_agent` (their count per agent)",
            ),
            (
                "writes",
                "each write a sync makes: `path`, `direction`, `action`, `reason`, and its `diff` when "
                "nothing is applied (never from MCP, which names files, never their text)",
            ),
            ("problems", "what smig will not write through: `direction`, `path`, `message`, `new`"),
            ("written", "the files written"),
            ("skipped", "the writes refused, one sentence each"),
        ),
    ),
    Shape(
        "summary",
        "`smig summarize --json`",
        (
            ("text", "the summary"),
            ("provider", "the summarizer's provider"),
            ("model", "its model"),
            ("redactions", "secrets redacted before sending, by kind"),
            ("chunks", "parts the conversation was sent in"),
            ("requests", "requests made (0: from the cache)"),
            ("cached", "read from the cache; nothing was sent"),
            ("truncated", "a reply may be incomplete (its output cap, or a stream that ended early)"),
            ("prompt_version", "the version of smig's summary prompt"),
        ),
    ),
    Shape(
        "archive run",
        "`smig archive --json`, and as `pending` in `smig archive --status --json`",
        (
            ("new", "session files archived for the first time"),
            ("grown", "files that only grew since"),
            ("changed", "files rewritten since"),
            ("unchanged", "files already held as they are"),
            ("bytes_read", "bytes read"),
            ("bytes_stored", "compressed bytes the run added"),
            ("sessions_listed", "sessions the agents listed"),
        ),
    ),
    Shape(
        "archive status",
        "`smig archive --status --json`",
        (
            ("sessions", "session files the archive holds"),
            ("original_bytes", "their size as the agents wrote them"),
            ("stored_bytes", "their size in the archive"),
            ("originals_missing", "files no longer in the agent's folder"),
            ("pending", "what a run would do (an archive run)"),
        ),
    ),
    Shape(
        "diagnosis",
        "`smig doctor --json`",
        (
            ("version", "smig's version"),
            ("config_file", "where smig reads its config"),
            ("config", "absent, ok or invalid"),
            ("config_problems", "why it does not validate"),
            ("data_dir", "smig's data folder"),
            ("cache_dir", "smig's cache folder"),
            (
                "agents",
                "per agent: `agent`, `name`, `home`, `found`, `sessions`, `sub_agents`, `archived`, `skipped`, "
                "`program`, `client`, `client_problem`",
            ),
            ("tokenizer_files", "per encoding: `encoding`, `path`, `found`, `folder_from`"),
            ("summarizer", "`provider`, `model`, `base_url`, `ready`, `problem`"),
            ("clipboard", "how a copy reaches the clipboard"),
            ("migrations", "stored migrations"),
            ("skipped", "every warning discovery gave: `agent`, `path`, `line`, `message`"),
        ),
    ),
)
"""Every object's keys, in the order the functions above give them: docs/json.md is made from this."""


def shapes_markdown() -> str:
    """docs/json.md's list of shapes (`scripts/docs.py` writes it)."""
    lines: list[str] = []
    for shape in SHAPES:
        lines += [f"### {shape.name}", "", f"Given by {shape.given_by}.", ""]
        lines += [f"- `{key}`: {meaning}" for key, meaning in shape.keys]
        if shape.note:
            lines += ["", shape.note]
        lines.append("")
    return "\n".join(lines).rstrip("\n")
