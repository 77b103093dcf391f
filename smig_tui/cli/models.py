"""Provides `smig models`: the capacity table with every figure's source, and `--refresh` from providers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from smig_tui.core.capacity import calibration_margin, counted_exactly, normalise
from smig_tui.core.errors import UnknownModelError
from smig_tui.core.models import ModelCapacity
from smig_tui.services import agent_entry_of

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.core.capacity import LiveListing


def _agent_name(agent: str) -> str:
    """An agent's name as its users write it (the registry's), its id for one smig does not know."""
    entry = agent_entry_of(agent)
    return entry.name if entry else agent


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `models` to the CLI."""
    models = subparsers.add_parser("models", help="list the models smig knows, with their windows and sources")
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
        help="with --refresh: ask this provider (openai, openrouter, deepseek, ollama, vllm, lmstudio, "
        "or a [providers.NAME] table); repeatable",
    )
    models.set_defaults(handler=run_models)


def run_models(args: argparse.Namespace, ctx: Context) -> int:
    """Print the capacity table; a query naming one model prints its every figure with the source."""
    if args.provider and not args.refresh:
        raise argparse.ArgumentTypeError("--provider needs --refresh")
    if args.refresh:
        return _refresh(args, ctx)
    table = ctx.services.capacities
    models = table.search(args.query)
    if not models:
        raise UnknownModelError(args.query, table.suggest(args.query))
    if args.json:
        ctx.out.json([model_to_json(model) for model in models])
        return 0
    named = table.get(args.query) if args.query else None
    if named is not None and (len(models) == 1 or normalise(args.query) == normalise(named.name)):
        _print_detail(ctx, named)
    else:
        _print_table(ctx, models)
    ctx.out.diag(origin_line(ctx.services.live_capacities()))
    return 0


def _refresh(args: argparse.Namespace, ctx: Context) -> int:
    """Ask the providers, cache what they report, and say what happened in one line each."""
    results = ctx.services.refresh_capacities(args.provider)
    if not results:
        ctx.out.diag(
            "smig: no provider to ask: name one with --provider (openai, openrouter, deepseek, ollama, "
            "vllm, lmstudio) or add [providers.NAME] with base_url to the config file."
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
    """The usable window inside each agent, e.g. `Codex 258,400`."""
    return ", ".join(f"{_agent_name(a.agent)} {a.usable:,}" for a in model.agents)


def _status_cell(model: ModelCapacity) -> str:
    """`current`, `legacy`, or `retired 2026-06-15`."""
    return f"retired {model.retired}" if model.status == "retired" and model.retired else model.status


def _print_table(ctx: Context, models: list[ModelCapacity]) -> None:
    """One row per model: status, the three windows, max output, calibration."""
    from rich.table import Table

    out = Table(box=None, header_style="bold", pad_edge=False)
    columns = ("model", "status", "window", "input cap", "max out", "usable in agent", "calib.")
    widest = max(len(model.name) for model in models)
    for column in columns:
        left = column in ("model", "status", "usable in agent")
        out.add_column(
            column, no_wrap=True, justify="left" if left else "right", min_width=widest if column == "model" else None
        )  # names are never cut
    for model in models:
        out.add_row(
            model.name,
            _status_cell(model),
            f"{model.context_window:,}",
            f"{model.max_input:,}" if model.max_input else "",
            f"{model.max_output:,}",
            _agent_cell(model),
            f"{model.calibration:g}",
        )
    ctx.out.console.print(out)


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
        how = "with the [1m] model suffix" if agent.agent == "claude" else "via model_context_window"
        most = f", up to {agent.max_window:,} {how}" if agent.max_window else ""
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


def model_to_json(model: ModelCapacity) -> dict[str, Any]:
    """Serialise a capacity row for `--json` output, every figure with its source."""
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
        "sources": {
            figure: model.source_of(figure)
            for figure in ("context_window", "max_output", "max_input", "calibration", "harness_window")
        },
        "aliases": list(model.aliases),
    }
