"""Provides `smig doctor`: where smig looks, what it found there, and every file it skipped and why.

The other commands report a skipped file once per version of the file (see `Output.warn`); this one
lists every current problem, with the config file, the agents' homes and the tokenizer files.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from smig_tui.core.words import plural
from smig_tui.services import json_shapes

if TYPE_CHECKING:
    from smig_tui.cli.main import Context
    from smig_tui.services import Diagnosis


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `doctor` to the CLI."""
    doctor = subparsers.add_parser(
        "doctor",
        help="say where smig looks and what it found: config file, agent homes, tokenizer files, skipped files",
        description="Report smig's config file (and whether it parses), each agent's home and its sessions, "
        "each agent's client (the program --continue starts), the tokenizer files exact counts need, the "
        "summarizer's readiness, how a copy reaches the clipboard, and every session file discovery skipped, "
        "with the reason. Reads only.",
    )
    doctor.add_argument("--json", action="store_true", help="print JSON for scripts")
    doctor.set_defaults(handler=run_doctor)


def run_doctor(args: argparse.Namespace, ctx: Context) -> int:
    """Print the diagnosis; exit 1 when the config file does not parse (every other command would fail)."""
    from smig_tui.services import diagnose

    found = diagnose()
    broken = bool(found.config_problems)
    if args.json:
        ctx.out.json(json_shapes.diagnosis_json(found))
    else:
        _print(ctx, found)
    return 1 if broken else 0


def _print(ctx: Context, found: Diagnosis) -> None:
    say = ctx.out.data
    say(f"smig {found.version}")
    if found.config == "absent":
        say(f"config     {found.config_file}: not there (the defaults apply)")
    elif found.config_problems or found.config == "invalid":
        say(f"config     {found.config_file}: does not validate")
        for problem in found.config_problems:
            say(f"           {problem}")
    else:
        say(f"config     {found.config_file}: parses")
    say(f"data       {found.data_dir} ({plural(found.migrations, 'stored migration')})")
    say(f"cache      {found.cache_dir}")
    say("")
    say("agents")
    width = max(len(agent.name) for agent in found.agents)
    for agent in found.agents:
        if agent.home is None:
            say(f"  {agent.name:<{width}}  home unknown")
            continue
        if not agent.found:
            say(f"  {agent.name:<{width}}  {agent.home}: not there")
            continue
        extra = [plural(n, what) for n, what in ((agent.sub_agents, "sub-agent"), (agent.archived, "archived")) if n]
        more = f" ({', '.join(extra)})" if extra else ""
        skipped = f", {agent.skipped:,} skipped" if agent.skipped else ""
        say(f"  {agent.name:<{width}}  {agent.home}: {plural(agent.sessions, 'session')}{more}{skipped}")
    say("")
    say("clients (what --continue starts)")
    for agent in found.agents:
        if agent.program is None:
            continue
        if agent.client:
            say(f"  {agent.name:<{width}}  {agent.client}")
        else:
            say(f"  {agent.name:<{width}}  {agent.program}: not found ({agent.client_problem})")
    say("")
    say("tokenizer files (exact counts; without them counts are labelled estimates)")
    by_file: dict[str, list[dict[str, object]]] = {}
    for item in found.tokenizer_files:  # o200k_split_digits reads o200k_base's file
        by_file.setdefault(str(item["path"]), []).append(item)
    for path, items in by_file.items():
        state = "found" if items[0]["found"] else "missing"
        names = ", ".join(str(item["encoding"]) for item in items)
        say(f"  {names}: {state}: {path} (folder from {items[0]['folder_from']})")
    summary = found.summarizer
    ready = "ready" if summary["ready"] else f"not ready: {summary['problem']}"
    name = f"{summary['provider']} {summary['model']}" if summary["provider"] else "not configured"
    say("")
    say(f"summarizer {name}: {ready}")
    say(f"clipboard  {found.clipboard}")
    say("")
    if not found.skipped:
        say("skipped files: none")
        return
    say(f"skipped ({len(found.skipped):,}); the other commands report each once until the file changes")
    for item in found.skipped:
        where = f"{item['path']}:{item['line']}" if item["line"] is not None else item["path"]
        say(f"  {item['agent']}: {where}: {item['message']}")
