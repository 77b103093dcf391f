"""Provides `smig models`: the capacity table with every figure's source, and `--refresh` from providers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from smig_tui.cli.table import Column
from smig_tui.core.agent_rules import rules_of
from smig_tui.core.capacity import calibration_margin, counted_exactly, normalise
from smig_tui.core.errors import UnknownModelError, UsageError
from smig_tui.core.models import ModelCapacity
from smig_tui.services import json_shapes, profile_of

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.core.capacity import LiveListing


def _agent_name(agent: str) -> str:
    """An agent's name as its users write it (the registry's), its id for one smig does not know."""
    entry = profile_of(agent)
    return entry.name if entry else agent


DESCRIPTION = (
    "List the models smig plans for: each one's window, input cap, max output, the window\n"
    "usable inside each agent, and the tokenizer calibration; `smig models NAME` gives every\n"
    'figure with its source. Add a model or change a figure under [models."NAME"] in\n'
)


class _EndsWithConfigFile(argparse.RawDescriptionHelpFormatter):
    """Puts the config file's path after the description, on a line of its own (wrapping would break it at
    a hyphen), when help is shown: the environment places it, and a parser may serve several commands."""

    def add_text(self, text: str | None) -> None:
        if text is DESCRIPTION:
            from smig_tui.services import config_file_path

            text = f"{text}{config_file_path()}"
        super().add_text(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `models` to the CLI."""
    models = subparsers.add_parser(
        "models",
        help="list the models smig knows, with their windows and sources",
        description=DESCRIPTION,
        formatter_class=_EndsWithConfigFile,
    )
    models.add_argument("query", nargs="?", default="", help="only models whose name, alias or provider contains this")
    models.add_argument("--json", action="store_true", help="print JSON for scripts")
    models.add_argument(
        "--refresh",
        action="store_true",
        help="fetch windows live from providers (those in [providers] or with an API key set) and cache them",
    )
    models.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help="with --refresh: ask this provider (openai, openrouter, deepseek, ollama, vllm, lmstudio, litellm, "
        "or a [providers.NAME] table); repeatable",
    )
    models.set_defaults(handler=run_models)


def run_models(args: argparse.Namespace, ctx: Context) -> int:
    """Print the capacity table; a query naming one model prints its every figure with the source.

    A query nothing matches is an unknown model (exit 3), with the similar names, labelled, when any.
    """
    if args.provider and not args.refresh:
        raise UsageError("--provider needs --refresh.")
    if args.refresh:
        return _refresh(args, ctx)
    table = ctx.services.capacities
    models = table.search(args.query, similar=False)
    if not models:
        similar = [model for name in table.suggest(args.query, limit=10) if (model := table.get(name))]
        ctx.out.error(str(UnknownModelError(args.query, config_file=table.config_file)))
        if similar and not args.json:
            ctx.out.diag("similar:")
            ctx.out.table(MODEL_COLUMNS, [_model_row(model) for model in similar], to_stderr=True)
        return UnknownModelError.exit_code
    if args.json:
        ctx.out.json([json_shapes.model_json(model) for model in models])
        return 0
    named = table.get(args.query) if args.query else None
    if named is not None and (len(models) == 1 or normalise(args.query) == normalise(named.name)):
        _print_detail(ctx, named)
    else:
        ctx.out.table(MODEL_COLUMNS, [_model_row(model) for model in models])
    ctx.out.diag(origin_line(ctx.services.live_capacities()))
    return 0


def _refresh(args: argparse.Namespace, ctx: Context) -> int:
    """Ask the providers, cache what they report, and say what happened in one line each."""
    results = ctx.services.refresh_capacities(args.provider)
    if not results:
        ctx.out.diag(
            "smig: no provider to ask: name one with --provider (openai, openrouter, deepseek, ollama, "
            f"vllm, lmstudio, litellm) or add [providers.NAME] with base_url to {ctx.services.paths.config_file}."
        )
        return 1
    rows = []
    for name, outcome in results:
        if isinstance(outcome, str):
            ctx.out.diag(f"smig: warning: {outcome}")
            rows.append({"provider": name, "ok": False, "message": outcome})
            continue
        for refusal in outcome.refused:
            ctx.out.diag(f"smig: warning: {refusal}")
        refused = f", {len(outcome.refused)} refused as implausible" if outcome.refused else ""
        line = f"{name}: {len(outcome.models)} models with a context length{refused}, {outcome.provenance}"
        rows.append(
            {
                "provider": name,
                "ok": True,
                "fetched": outcome.fetched,
                "models": len(outcome.models),
                "refused": list(outcome.refused),
            }
        )
        if not args.json:
            ctx.out.data(line)
    failed = [name for name, outcome in results if isinstance(outcome, str)]
    if failed and len(rows) > 1:
        ctx.out.diag(
            f"smig: {len(failed)} of {len(rows)} providers gave no figures ({', '.join(failed)}); "
            "their previous figures stay."
        )
    if args.json:
        ctx.out.json(rows)
    return 1 if failed else 0


def origin_line(live: list[LiveListing]) -> str:
    """Say where the table's figures come from: the shipped table, and any live listings in the cache."""
    from smig_tui.services import table_date

    shipped = f"Figures: the table shipped with smig (checked {table_date()})"
    if not live:
        return f"{shipped}; no live figures (offline until `smig models --refresh`)."
    fetched = "; ".join(f"{listing.provenance} ({len(listing.models)} models)" for listing in live)
    return f"{shipped}, updated by {fetched}."


def _agent_cell(model: ModelCapacity) -> str:
    """The usable window inside each agent, by the agent's id as `--to` takes it: `codex 258,400`."""
    return ", ".join(f"{a.agent} {a.usable:,}" for a in model.agents)


def _status_cell(model: ModelCapacity) -> str:
    """`current`, `legacy`, or `retired 2026-06-15`."""
    return f"retired {model.retired}" if model.status == "retired" and model.retired else model.status


MODEL_COLUMNS = (
    Column("model"),
    Column("status", drop=4),
    Column("window", right=True),
    Column("input cap", right=True, drop=2),
    Column("max out", right=True, drop=3),
    Column("usable in agent"),
    Column("calib.", right=True, drop=1),
)
"""Every figure whole; at 80 columns the least needed go first (calibration, input cap, max output,
status): `smig models NAME` shows all of one model's figures with their sources."""


def _model_row(model: ModelCapacity) -> tuple[str, ...]:
    """One model's row: status, the three windows, max output, calibration."""
    return (
        model.name,
        _status_cell(model),
        f"{model.context_window:,}",
        f"{model.max_input:,}" if model.max_input else "",
        f"{model.max_output:,}",
        _agent_cell(model),
        f"{model.calibration:g}",
    )


def _print_detail(ctx: Context, model: ModelCapacity) -> None:
    """Every figure of one model, each with where it comes from."""
    say = ctx.out.data
    status = _status_cell(model)
    if model.replacement:
        status += f" (use {model.replacement})"
    say(f"{model.name} ({model.provider}), {status}" + (f", released {model.released}" if model.released else ""))
    if model.aliases:
        say(f"  aliases: {', '.join(model.aliases)}")
    say(f"  window {model.context_window:,}: {model.source_of('context_window')}")
    say(f"  max output {model.max_output:,}: {model.source_of('max_output')}")
    if model.max_input:
        say(f"  input cap {model.max_input:,}: {model.source_of('max_input')}")
    for agent in model.agents:
        rules = rules_of(agent.agent)
        how = f" {rules.max_window_how}" if rules is not None and rules.max_window_how else ""
        most = f", up to {agent.max_window:,}{how}" if agent.max_window else ""
        say(f"  in {_agent_name(agent.agent)}: usable {agent.usable:,} of {agent.window:,}{most}: {agent.source}")
    if model.harness_window and dict(model.sources).get("harness_window"):
        say(f"  usable window {model.harness_window:,}: {model.source_of('harness_window')}")
    margin = calibration_margin(model)
    exact = "exact" if counted_exactly(model) else f"estimate{' ' + margin if margin else ''}"
    say(
        f"  counted with {model.encoding} x {model.calibration:g} ({exact}, {model.tokenizer or 'no'} tokenizer family): "
        f"{model.source_of('calibration') or model.source}"
    )
    if model.class_calibration:
        from smig_tui.core.text_classes import LABELS

        classes = ", ".join(
            f"{LABELS[name]} x {factor:g} ±{error:.0%}" for name, factor, error in model.class_calibration
        )
        say(f"  per class of text (a session's ± is its mix of these, held out): {classes}")
