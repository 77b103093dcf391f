"""Provides `smig doctor`'s findings: every fact a user needs to see why smig lists or counts what it does."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from smig_tui.adapters import client_launch, clipboard
from smig_tui.adapters.config_file import load_config
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.errors import ConfigError, SmigError
from smig_tui.core.models import ReadWarning
from smig_tui.plugins import agent_profiles
from smig_tui.services.archive import with_archive
from smig_tui.services.root import Services

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile


@dataclass(frozen=True, slots=True)
class AgentReport:
    """One agent of the registry as `smig doctor` found it."""

    agent: str
    name: str
    home: str | None
    """Where its sessions are read from (a folder, or OpenCode's database); None when unknown."""
    found: bool
    sessions: int = 0
    """Sessions listed, sub-agent and archived ones included."""
    sub_agents: int = 0
    archived: int = 0
    skipped: int = 0
    """Warnings discovery gave for its files (each a skipped or partly unreadable file)."""
    program: str | None = None
    """Its client's executable name (`claude`), what `--continue` starts; None when it has none."""
    client: str | None = None
    """The executable found for it (`SMIG_<PROGRAM>_BIN`, else PATH); None when not installed here."""
    client_problem: str | None = None
    """Why no executable was found: `not on PATH, SMIG_CLAUDE_BIN unset`."""


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What `smig doctor` reports: every fact a user needs to see why smig lists or counts what it does."""

    version: str
    config_file: str
    config: str
    """`absent` (the defaults apply), `ok`, or `invalid`."""
    config_problems: list[str]
    data_dir: str
    cache_dir: str
    agents: list[AgentReport]
    tokenizer_files: list[dict[str, Any]]
    """Per encoding the capacity table uses: `encoding`, `path`, `found`, `folder_from`."""
    summarizer: dict[str, Any]
    """`provider`, `model`, `base_url`, `ready` and the `problem` when it is not."""
    clipboard: str
    migrations: int
    skipped: list[dict[str, Any]]
    """Every warning discovery gave (`agent`, `path`, `line`, `message`), whether shown before or not."""


def diagnose(env: dict[str, str] | None = None, agents: Sequence[AgentProfile] | None = None) -> Diagnosis:
    """Gather what `smig doctor` reports; a config file that does not parse is a finding, not an error."""
    import sys

    from smig_tui import __version__
    from smig_tui.adapters.tokenizers.tiktoken_counter import vocabulary_file

    paths = resolve_paths(env)
    environ = os.environ if env is None else env
    problems: list[str] = []
    state = "ok" if paths.config_file.is_file() else "absent"
    try:
        config = load_config(paths.config_file)
    except ConfigError as error:
        config, state = {}, "invalid"
        problems.append(str(error))
    entries = tuple(agent_profiles() if agents is None else agents)
    services = Services(paths=paths, config=config, sources=[], env=env, agents=entries)
    if state == "ok":
        problems += config_problems(services)
        state = "invalid" if problems else "ok"
    reports, skipped = [], []
    for entry in entries:
        home = entry.home(env)
        source = entry.source(paths, env) if home is not None else None
        counts = {"sessions": 0, "sub_agents": 0, "archived": 0, "skipped": 0}
        if source is not None:
            wrapped = with_archive(paths, [source], env)[0]

            def collect(warning: ReadWarning, agent: str = entry.id, tally: dict[str, int] = counts) -> None:
                tally["skipped"] += 1
                skipped.append({"agent": agent, "path": warning.path, "line": warning.line, "message": warning.message})

            for info in wrapped.discover(collect):
                counts["sessions"] += 1
                counts["sub_agents"] += info.is_subagent
                counts["archived"] += info.archived
        client, client_problem = None, None
        if entry.program:
            client = client_launch.find_client(entry.program, environ)
            variable = client_launch.bin_env(entry.program)
            named = environ.get(variable)
            if client is None:
                client_problem = (
                    f"{variable} names {named}, not an executable" if named else f"not on PATH, {variable} unset"
                )
        found = bool(home and home.exists())
        reports.append(
            AgentReport(
                entry.id,
                entry.name,
                str(home) if home else None,
                found,
                **counts,
                program=entry.program,
                client=client,
                client_problem=client_problem,
            )
        )
    try:
        capacities = services.capacities
    except SmigError:
        from smig_tui.adapters.capacity_table import load_builtin

        capacities = load_builtin()
    tokenizers = []
    for encoding in sorted({model.encoding for model in capacities.models}):
        path, chosen_by, found = vocabulary_file(encoding, environ)
        tokenizers.append({"encoding": encoding, "path": path, "found": found, "folder_from": chosen_by})
    try:
        summarizer = services.summarizer.config
        ready = services.summary_key_problem()
        summary = {
            "provider": summarizer.provider,
            "model": summarizer.model,
            "base_url": summarizer.base_url,
            "ready": ready is None,
            "problem": ready,
        }
    except SmigError as error:
        summary = {"provider": None, "model": None, "base_url": None, "ready": False, "problem": str(error)}
    try:
        migrations = len(services.store.list())
    except (SmigError, OSError):
        migrations = 0
    return Diagnosis(
        version=f"{__version__} (Python {sys.version.split()[0]})",
        config_file=str(paths.config_file),
        config=state,
        config_problems=problems,
        data_dir=str(paths.data_dir),
        cache_dir=str(paths.cache_dir),
        agents=reports,
        tokenizer_files=tokenizers,
        summarizer=summary,
        clipboard=clipboard.describe_route(environ, on_terminal=sys.stdout.isatty()),
        migrations=migrations,
        skipped=skipped,
    )


def config_problems(services: Services) -> list[str]:
    """What is wrong in the config file, one sentence per table that does not validate (for `smig doctor`)."""
    from smig_tui.adapters.provider_capacity import providers_from_config
    from smig_tui.core.config_schema import config_problems as schema_problems
    from smig_tui.core.decide import parse_plan_settings

    where = str(services.paths.config_file)
    problems = schema_problems(services.config, where)  # every table against the schema, unknown ones too
    checks: list[Callable[[], object]] = [  # then what each feature checks beyond it
        lambda: services.capacities,
        lambda: parse_plan_settings(services.config, where),
        lambda: services.agent_overheads,
        lambda: services.summarizer,
        lambda: providers_from_config(services.config, where),
    ]
    for check in checks:
        try:
            check()
        except SmigError as error:
            if str(error) not in problems:
                problems.append(str(error))
    return problems
