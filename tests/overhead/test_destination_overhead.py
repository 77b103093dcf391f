"""The plan takes off the overhead of the agent the session goes to, when the destination is named.

Without a destination the receiving agent is the one the model's provider implies (Claude Code for
an Anthropic model); `smig migrate --to opencode` plans for OpenCode's own, smaller, overhead.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.models import Strategy
from smig_tui.services import build_services

WINDOW, RESERVE = 200_000, 1_000
"""The probe model: an Anthropic model counted exactly by o200k, so overheads apply uncalibrated
(an agent's overhead applies with a harness share, so it has one: the whole room)."""


def _probe_model(homes: dict[str, Path]) -> str:
    config = homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"[models.probe]\ncontext_window = {WINDOW}\nmax_output = {RESERVE}\n"
        f"harness_window = {WINDOW - RESERVE}\n"
        'provider = "anthropic"\nencoding = "o200k_base"\n\n[agents.opencode]\noverhead = 6000\n',
        encoding="utf-8",
    )
    return "probe"


def test_the_named_agent_s_overhead_replaces_the_one_the_provider_implies(fake_home: dict[str, Path]) -> None:
    target = _probe_model(fake_home)
    services = build_services()
    session = services.load_session(services.list_sessions()[0])
    by_agent = {
        agent: services.plan(session, target, Strategy.AS_IS, agent=agent).decision.overhead
        for agent in (None, "claude", "codex", "gemini", "opencode")
    }
    shipped = services.agent_overheads
    assert by_agent == {
        None: shipped["claude"].tokens,
        "claude": shipped["claude"].tokens,
        "codex": shipped["codex"].tokens,
        "gemini": shipped["gemini"].tokens,
        "opencode": 6000,
    }
    assert services.overhead_for(services.capacities.lookup(target), "opencode").source.endswith(
        "[agents.opencode]"
    )  # the config's figure, not the shipped one


def test_the_shipped_opencode_overhead_is_the_measured_one(isolated_homes: dict[str, Path]) -> None:
    overhead = build_services().agent_overheads["opencode"]
    assert (overhead.tokens, overhead.source) == (6901, "measured with OpenCode 1.18.33")


def _budget(argv: list[str]) -> int:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["migrate", *argv, "--dry-run", "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return int(json.loads(out.stdout.getvalue())["record"]["decision"]["budget"])


def test_migrate_plans_for_the_destination_s_overhead(fake_home: dict[str, Path]) -> None:
    target = _probe_model(fake_home)
    [info, *_] = build_services().list_sessions()
    claude = build_services().agent_overheads["claude"].tokens
    base = [info.id, "--target", target]
    assert _budget([*base, "--to", "claude"]) == WINDOW - RESERVE - claude
    assert _budget([*base, "--to", "gemini"]) == WINDOW - RESERVE - 6504
    assert _budget([*base, "--to", "opencode"]) == WINDOW - RESERVE - 6000  # the config's [agents.opencode]
    assert _budget(base) == WINDOW - RESERVE - claude  # no agent named: the one the model implies
    assert _budget([*base, "--to", "codex", "--to", "gemini"]) == WINDOW - RESERVE - claude  # two: by the model


def test_mcp_commit_plans_for_the_destination_s_overhead(fake_home: dict[str, Path]) -> None:
    from smig_tui.mcp.tools import SmigTools

    target = _probe_model(fake_home)
    services = build_services()
    session_id = services.list_sessions()[0].id
    tools = SmigTools(services)
    to_opencode = tools.commit_migration(session_id, target, to=["opencode"], dry_run=True)["decision"]
    to_claude = tools.commit_migration(session_id, target, to=["claude"], dry_run=True)["decision"]
    assert (to_opencode["overhead"], to_claude["overhead"]) == (
        6000,
        services.agent_overheads["claude"].tokens,
    )
