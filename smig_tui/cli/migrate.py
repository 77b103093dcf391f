"""Provides `smig migrate`, `smig export` and `smig history`: committing, exporting and recalling handoffs."""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.cli.plan import add_plan_options, given_plan_options, plan_options
from smig_tui.cli.table import SESSION_HELP, Column, unique_prefixes
from smig_tui.core.agent_rules import refused_destination
from smig_tui.core.encoding import utf8
from smig_tui.core.errors import AmbiguousIdError, MigrationNotFoundError, UsageError
from smig_tui.core.export import ExportFormat
from smig_tui.core.migration import MigrationRecord, MigrationResult
from smig_tui.core.models import Plan, Session, Strategy
from smig_tui.core.native import Destination, NativeOutput, export_targets, receiving_agent_of
from smig_tui.core.plans import left_out
from smig_tui.core.words import age_text, name_list, plural
from smig_tui.plugins import destination_choices
from smig_tui.services import agent_profiles, json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context

_STRATEGIES = [strategy.value for strategy in Strategy]


def _writable(name: str) -> str:
    """`--to NAME` as given, refused with the reason when it names an agent smig only reads."""
    refused = refused_destination(name)
    if refused:
        raise argparse.ArgumentTypeError(refused)
    return name


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `migrate`, `export` and `history` to the CLI."""
    migrate = subparsers.add_parser("migrate", help="commit a migration: store it, write native sessions or exports")
    migrate.add_argument("id", help=SESSION_HELP)
    migrate.add_argument("--target", "-t", required=True, metavar="MODEL", help="model to continue in")
    migrate.add_argument(
        "--to",
        action="append",
        type=_writable,
        choices=[d.value for d in destination_choices()],
        default=[],
        help="destination, repeatable (default: store only; storage always records a commit)",
    )
    migrate.add_argument(
        "--strategy",
        "-s",
        choices=_STRATEGIES,
        help="compression (default: truncate, which migrates as-is when it fits)",
    )
    add_plan_options(migrate)
    migrate.add_argument("--out", type=Path, metavar="FILE", help="file for --to markdown/json")
    agents = [entry.id for entry in agent_profiles() if entry.writer is not None]
    migrate.add_argument(
        "--cwd",
        metavar="PATH",
        help=f"write the native session (--to {', '.join(agents)}) for this project folder instead of the source's",
    )
    migrate.add_argument("--force", action="store_true", help="replace an existing --out file")
    migrate.add_argument("--dry-run", action="store_true", help="show exactly what would be written, write nothing")
    migrate.add_argument("--json", action="store_true", help="print JSON for scripts")
    migrate.add_argument(
        "--no-redact",
        action="store_true",
        help="keep secrets (API keys, tokens) as they are instead of [REDACTED:kind]",
    )
    migrate.add_argument(
        "--yes-send", action="store_true", help="summary strategies: send the redacted conversation to the summarizer"
    )
    migrate.add_argument(
        "--continue",
        dest="continue_now",
        action="store_true",
        help="then start the receiving client on the migrated session in its folder (one native --to)",
    )
    migrate.set_defaults(handler=run_migrate)

    export = subparsers.add_parser("export", help="export a session (or its migration to a target) as Markdown/JSON")
    export.add_argument("id", help=SESSION_HELP)
    export.add_argument("--format", choices=[f.value for f in ExportFormat], default="markdown")
    export.add_argument("--target", "-t", metavar="MODEL", help="export the conversation as migrated to MODEL")
    export.add_argument("--strategy", "-s", choices=_STRATEGIES, help="compression when --target is given")
    add_plan_options(export)
    export.add_argument("--out", type=Path, metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--force", action="store_true", help="replace an existing --out file")
    export.add_argument(
        "--clipboard",
        action="store_true",
        help="copy to the clipboard (tmux's own in tmux, else OSC 52 or a system tool)",
    )
    export.add_argument("--no-redact", action="store_true", help="keep secrets as they are")
    export.add_argument(
        "--yes-send", action="store_true", help="summary strategies: send the redacted conversation to the summarizer"
    )
    export.set_defaults(handler=run_export)

    history = subparsers.add_parser("history", help="list committed migrations")
    history.add_argument("--workspace", metavar="PATH", help="only migrations of sessions in PATH")
    history.add_argument("--json", action="store_true", help="print JSON for scripts")
    history.set_defaults(handler=run_history)
    sub = history.add_subparsers(dest="history_command", metavar="COMMAND")
    show = sub.add_parser("show", help="show one stored migration")
    show.add_argument("migration_id", help="id from `smig history` (or a unique prefix of one)")
    show.add_argument("--json", action="store_true", help="print the stored JSON document")
    show.add_argument(
        "--continue",
        dest="continue_now",
        action="store_true",
        help="then start the receiving client on the session it wrote, in its folder",
    )
    agents = [entry.id for entry in agent_profiles()]
    show.add_argument(
        "--to", choices=agents, metavar="AGENT", help="with --continue, which written session (when it wrote several)"
    )
    show.set_defaults(handler=run_history_show)


def _plan(
    ctx: Context,
    session: Session,
    args: argparse.Namespace,
    agent: str | None = None,
) -> Plan:
    """Plan as `smig plan` would with the same options (`--strategy`, `--pin`, `--pin-first`, `--reserve`,
    `--no-harness`); by default truncation, which keeps everything when it fits."""
    from smig_tui.core.capacity import retired_warning

    retired = retired_warning(ctx.services.capacities.lookup(args.target))
    if retired:
        ctx.out.diag(f"smig: warning: {retired}")
    options = plan_options(args, session) | {"agent": agent}
    if args.strategy in (Strategy.SUMMARY.value, Strategy.SUMMARY_TAIL.value):
        from smig_tui.cli.summarize import summarized_plan

        return summarized_plan(ctx, session, args.target, Strategy(args.strategy), yes_send=args.yes_send, **options)
    return ctx.services.plan(session, args.target, Strategy(args.strategy or Strategy.TRUNCATE), **options)


def _load(ctx: Context, ref: str, outs: Collection[Path] = (), force: bool = False) -> Session:
    """Find and read the session named on the command line, once the output files are known to be
    allowed (a 500 MB session takes seconds to read: a bad `--out` is refused before that)."""
    info = ctx.services.find_session(ref, warn=ctx.out.warn)
    for out in outs:
        ctx.services.check_output(out, force=force, source=info.path)
    return ctx.services.load_session(info, warn=ctx.out.warn)


def run_migrate(args: argparse.Namespace, ctx: Context) -> int:
    """Commit (or dry-run) a migration and print where everything went."""
    destinations = {Destination(value) for value in args.to} or {Destination.STORE}
    outs = [] if args.out is None else [Path(path) for path in export_targets(args.out, destinations).values()]
    if args.out is not None and not outs:
        raise UsageError("--out names the file for --to markdown or --to json; add one of them.")
    if args.continue_now:
        _check_continue(ctx, destinations, args.json)
    session = _load(ctx, args.id, outs, args.force)
    plan = _plan(ctx, session, args, receiving_agent_of(destinations))
    cwd = _landing_folder(ctx, args.cwd, destinations) if args.cwd is not None else None
    result = ctx.services.migrate(
        session,
        plan,
        destinations,
        dry_run=args.dry_run,
        out=args.out,
        force=args.force,
        redact=not args.no_redact,
        cwd=cwd,
    )
    for note in result.recovered:  # commits a kill interrupted, finished or cleaned up first
        ctx.out.diag(f"smig: {note}")
    if result.redactions:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(result.redactions.items()))
        count = plural(sum(result.redactions.values()), "secret")
        ctx.out.diag(f"smig: redacted {count} ({kinds}); --no-redact keeps them")
    if args.json:
        ctx.out.json(result_to_json(result, plan, include_data=args.dry_run))
        return 0
    _print_result(ctx, result, plan)
    if args.continue_now:
        [output] = result.outputs
        _start_later(ctx, output, result.dry_run)
    return 0


def _check_continue(ctx: Context, destinations: set[Destination], as_json: bool) -> None:
    """Refuse `--continue` before anything is read or written when it cannot mean one client."""
    agents = [entry.id for entry in ctx.services.agents]
    natives = [destination for destination in destinations if destination.value in agents]
    if len(natives) != 1:
        raise UsageError(
            "--continue starts the client of one native session; name exactly one of "
            f"--to {', '.join(agents[:-1])} or {agents[-1]}."
        )
    if as_json:
        raise UsageError("--continue hands the terminal to a client; it does not go with --json.")


def _landing_folder(ctx: Context, value: str, destinations: set[Destination]) -> str:
    """The absolute project folder `--cwd` names; it may be another machine's path, so it need not exist."""
    agents = [entry.id for entry in ctx.services.agents]
    if not {destination.value for destination in destinations} & set(agents):
        raise UsageError(
            f"--cwd names the project folder of a native session; add --to {', '.join(agents[:-1])} or {agents[-1]}."
        )
    folder = ctx.services.landing_folder(value)
    if folder is None:
        raise UsageError("--cwd needs a folder.")
    if not os.path.isdir(folder):
        ctx.out.diag(f"smig: {folder} is not a folder here; the session is written for it anyway")
    return folder


def _print_result(ctx: Context, result: MigrationResult, plan: Plan) -> None:
    """The human summary of a migration: decision, every path, the resume commands."""
    record = result.record
    verdict = "fits as-is" if plan.decision.fits else f"over by {plural(plan.decision.over_by, 'token')}"
    omitted, omitted_tokens = left_out(plan)
    ctx.out.data(
        f"{'Dry run: would migrate' if result.dry_run else 'Migrated'} {record.source.agent} session "
        f"{record.source.id} to {record.target} ({verdict}; {record.strategy}, kept "
        f"{plural(len(record.kept_ids), 'message')}, left out {omitted:,} ({plural(omitted_tokens, 'token')}), "
        f"{record.tokens_before:,} → {plural(record.tokens_after, 'token')})"
    )
    ctx.out.data(f"  migration id: {result.migration_id}")
    verb = "would write" if result.dry_run else "wrote"
    ctx.out.data(f"  store: {verb} {result.record_path}")
    for planned in result.files:
        size = len(utf8(planned.data))
        ctx.out.data(f"  {planned.destination.value}: {verb} {planned.path} ({size:,} bytes)")
        entry = ctx.services.agent_profile(planned.destination.value)
        if entry is not None and entry.import_command and planned.native:  # the file is smig's import document
            how = "would import" if result.dry_run else "imported"
            ctx.out.data(f"  {entry.id}: {how} it as session {planned.native.session_id} (`{entry.import_command}`)")
    for command in result.resume_commands:
        ctx.out.data(f"  resume: {command}")
    for fact in result.continue_latest:
        ctx.out.data(f"  latest: {fact.sentence}")
    if result.dry_run:
        ctx.out.diag("smig: dry run: nothing was written")


def result_to_json(result: MigrationResult, plan: Plan, include_data: bool = False) -> dict[str, Any]:
    """A migration result for `--json`: the shape MCP's `commit_migration` gives (`json_shapes`), with the
    stored record whole and, for a dry run, every file's content."""
    shape = json_shapes.migration_json(result, plan)
    if include_data:
        for entry, planned in zip(shape["files"], result.files, strict=True):
            entry["data"] = planned.data
    return shape | {"record": json_shapes.stored_migration_json(result.record)}


def run_export(args: argparse.Namespace, ctx: Context) -> int:
    """Print, save or copy a session's export."""
    shaping = (["--strategy"] if args.strategy else []) + given_plan_options(args)
    if shaping and not args.target:
        verb = "shapes" if len(shaping) == 1 else "shape"
        raise UsageError(f"{name_list(shaping, 'and')} {verb} the export for a model: add --target MODEL.")
    session = _load(ctx, args.id, [] if args.out is None else [args.out], args.force)
    plan = _plan(ctx, session, args) if args.target else None
    chunks = ctx.services.export_chunks(session, ExportFormat(args.format), plan, redact=not args.no_redact)
    if args.out is None and not args.clipboard:
        ctx.out.write_blocks(chunks)
        return 0
    if not args.clipboard:  # a file only: streamed, never one string in memory
        path = ctx.services.save_export(chunks, args.out, force=args.force, source=session.info.path)
        ctx.out.diag(f"smig: wrote {path} ({path.stat().st_size:,} bytes)")
        return 0
    text = "".join(chunks)
    if args.out is not None:
        path = ctx.services.save_export(text, args.out, force=args.force, source=session.info.path)
        ctx.out.diag(f"smig: wrote {path} ({len(utf8(text)):,} bytes)")
    if args.clipboard:
        how = ctx.services.copy_text(text)
        ctx.out.diag(f"smig: copied {plural(len(text), 'character')} to the clipboard via {how}")
    return 0


def run_history(args: argparse.Namespace, ctx: Context) -> int:
    """List stored migrations, newest first."""
    workspace = os.path.abspath(os.path.expanduser(args.workspace)) if args.workspace else None
    for note in ctx.services.recover_commits():
        ctx.out.diag(f"smig: {note}")
    records = ctx.services.store.list(workspace, warn=ctx.out.warn)
    if args.json:
        ctx.out.json([json_shapes.stored_migration_listed(record) for record in records])
        return 0
    if not records:
        ctx.out.diag(f"smig: no migrations stored under {ctx.services.store.root}")
        return 0
    ids = unique_prefixes([record.id for record in records])
    sources = unique_prefixes([record.source.id for record in records])
    rows = [
        (
            ids[record.id],
            age_text(record.created),
            f"{record.source.agent}:{sources[record.source.id]}",
            record.target,
            f"{record.tokens_before:,} → {record.tokens_after:,}",
            ", ".join(output.agent for output in record.outputs) or "store",
            record.strategy,
        )
        for record in records
    ]
    ctx.out.table(HISTORY_COLUMNS, rows)
    return 0


HISTORY_COLUMNS = (
    Column("id"),
    Column("created", right=True),
    Column("source"),
    Column("target"),
    Column("tokens", right=True),
    Column("outputs", drop=2),
    Column("strategy", drop=1),
)
"""Ids (the shortest unique prefixes, which `history show` takes), age, source, target and tokens are never
cut; where the outputs went and the strategy follow when they fit (`history show ID` has everything)."""


def run_history_show(args: argparse.Namespace, ctx: Context) -> int:
    """Show one stored migration (by its id or a unique prefix of it, as `smig history` shows them);
    with `--continue`, then start the client of the session it wrote, as `migrate --continue` does."""
    if args.continue_now and args.json:
        raise UsageError("--continue hands the terminal to a client; it does not go with --json.")
    if args.to and not args.continue_now:
        raise UsageError("--to picks the session --continue starts; add --continue.")
    record = ctx.services.store.get(_migration_id(ctx, args.migration_id.strip()))
    output = _output_to_continue(record, args.to) if args.continue_now else None
    if args.json:
        ctx.out.json(json_shapes.stored_migration_json(record))
        return 0
    facts = [
        ("id", record.id),
        ("created", record.created),
        ("source", f"{record.source.agent} {record.source.id}"),
        ("source file", record.source.path),
        ("source sha256", record.source.sha256),
        ("cwd", record.source.cwd or ""),
        ("target", record.target),
        ("strategy", record.strategy),
        ("fits", "yes" if record.decision.get("fits") else "no"),
        ("tokens", f"{record.tokens_before:,} → {record.tokens_after:,}"),
        ("messages", f"{len(record.kept_ids)} kept, {record.left_out} left out ({record.left_out_tokens:,} tokens)"),
    ]
    for key, value in facts:
        ctx.out.data(f"{key:>13}: {value}")
    for output in record.outputs:
        ctx.out.data(f"{output.agent:>13}: {output.path}")
        ctx.out.data(f"{'resume':>13}: {output.resume_command}")
    for path in record.files:
        ctx.out.data(f"{'export':>13}: {path}")
    if output is not None:
        _start_later(ctx, output)
    return 0


def _output_to_continue(record: MigrationRecord, agent: str | None) -> NativeOutput:
    """The written session `history show --continue` starts: the only one, or the one `--to` names."""
    written = [output.agent for output in record.outputs]
    if not written:
        raise UsageError(
            f"Migration {record.id} wrote no native session to continue (store only); "
            f"`smig migrate {record.source.id} -t {record.target} --to AGENT --continue` writes one."
        )
    if agent is None and len(written) > 1:
        choices = name_list([f"--to {name}" for name in written])
        raise UsageError(f"Migration {record.id} wrote sessions for {name_list(written, 'and')}; add {choices}.")
    chosen = [output for output in record.outputs if agent in (None, output.agent)]
    if not chosen:
        raise UsageError(f"Migration {record.id} wrote no {agent} session; it wrote {name_list(written, 'and')}.")
    return chosen[0]


def _start_later(ctx: Context, output: NativeOutput, dry_run: bool = False) -> None:
    """Have `main` start the client of `output` once smig is done; when it cannot start here, say why and
    print the command (the exit code stays 0: the migration is written)."""
    from smig_tui.cli.main import not_continued
    from smig_tui.services import client_launch

    try:
        launch = ctx.services.continue_launch(output)
    except client_launch.ContinueRefused as refused:
        not_continued(ctx, refused)
        return
    if dry_run:
        ctx.out.diag(f"smig: dry run: would start {launch.client}: {launch.command}")
        return
    ctx.out.diag(f"smig: starting {launch.client}: {launch.command}")
    ctx.continue_with = launch


def _migration_id(ctx: Context, given: str) -> str:
    """The stored migration id that `given` is, or is the only one to start with."""
    from smig_tui.core.migration import MIGRATION_ID_RE

    if MIGRATION_ID_RE.match(given) or not given.isalnum():
        return given  # the store says what a migration id looks like
    matches = [record.id for record in ctx.services.store.list(warn=ctx.out.warn) if record.id.startswith(given)]
    if len(matches) == 1 and given:
        return matches[0]
    if not matches or not given:
        raise MigrationNotFoundError(
            f"No stored migration has an id starting with {given!r}; `smig history` lists them."
        )
    raise AmbiguousIdError(
        f"{given!r} starts the ids of {len(matches):,} stored migrations ({', '.join(matches[:4])}); give more of the id."
    )
