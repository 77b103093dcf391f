"""A plan fits into the usable window of the agent the session goes to, under that agent's own rule.

`smig plan ID --to pi` plans for Pi's compaction (the window less 16,384, or the user's `reserveTokens`),
not for the model's home agent's; an explicit `harness_window` in the config holds for every agent.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from smig_tui.adapters.capacity_table import load_builtin
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.capacity import for_agent, harness_agent
from smig_tui.core.decide import decide
from smig_tui.core.models import AgentWindow, ModelCapacity, Strategy
from smig_tui.mcp.server import SmigToolRunner
from smig_tui.services import build_services

WINDOW = 200_000
HOME = AgentWindow("codex", WINDOW, 190_000, "probe table")
PROBE = ModelCapacity("probe", "openai", WINDOW, 1_000, "o200k_base", harness_window=190_000, agents=(HOME,))

RULES = {
    "codex": 190_000,  # 95% of the window
    "claude": 167_000,  # 33,000 before it
    "gemini": 100_000,  # half of it
    "opencode": 200_000,  # compacts only when a request overflows
    "qwen": 167_000,
    "kilo": 168_000,  # the window less Kilo's 32,000 reply reserve
    "copilot": 160_000,  # 80% of the prompt limit
    "pi": 183_616,  # the window less 16,384
}
"""Each agent's usable share of a 200,000-token window it has no catalog entry for, by its own rule."""


@pytest.mark.parametrize(("agent", "usable"), RULES.items())
def test_each_agent_s_rule_gives_the_usable_window(agent: str, usable: int) -> None:
    probe = PROBE if agent != "codex" else ModelCapacity("probe", "anthropic", WINDOW, 1_000, "o200k_base")
    ran = for_agent(probe, agent)
    assert (ran.harness_window, harness_agent(ran)) == (usable, agent)
    decision = decide(0, ran, reserve=1_000)
    assert (decision.prompt_limit, decision.harness_agent) == (usable, agent)
    assert decision.budget == min(WINDOW - 1_000, usable)


def test_without_an_agent_or_for_the_home_agent_the_model_is_as_the_table_has_it() -> None:
    assert for_agent(PROBE, None) is PROBE
    assert for_agent(PROBE, "codex") is PROBE
    assert harness_agent(PROBE) == "codex"


def test_an_agent_the_table_lists_keeps_its_catalog_window() -> None:
    """gpt-6.2-astra: Codex runs it at 272,000 of 1,050,000; Pi, which has no catalog entry, at the whole window."""
    astra = load_builtin().lookup("gpt-6.2-astra")
    assert for_agent(astra, "codex").harness_window == 258_400
    assert for_agent(astra, "pi").harness_window == astra.context_window - 16_384
    assert decide(0, for_agent(astra, "pi")).prompt_limit == astra.max_input  # the provider's cap still holds


def test_a_harness_window_given_by_hand_holds_for_every_agent() -> None:
    given = ModelCapacity("probe", "openai", WINDOW, 1_000, "o200k_base", harness_window=150_000, agents=(HOME,))
    assert for_agent(given, "pi") is given
    assert harness_agent(given) is None
    assert decide(0, for_agent(given, "pi")).harness_agent is None


def test_the_user_s_settings_of_the_receiving_agent_move_its_window() -> None:
    def reserve_30k(_model: ModelCapacity, window: AgentWindow, _lookup: Any) -> AgentWindow:
        return AgentWindow(window.agent, window.window, window.window - 30_000, "settings.json")

    assert for_agent(PROBE, "pi", reserve_30k).harness_window == 170_000


def _config(homes: dict[str, Path], extra: str = "") -> None:
    config = homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[models.probe]\ncontext_window = {WINDOW}\nmax_output = 1000\nprovider = "openai"\n'
        f'encoding = "o200k_base"\n{extra}'
        f'agents = {{ codex = {{ window = {WINDOW}, source = "probe" }} }}\n',
        encoding="utf-8",
    )


def _plan(argv: list[str]) -> tuple[dict[str, Any], str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["plan", *argv, "--target", "probe", "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    text = io.StringIO()
    main(["plan", *argv, "--target", "probe"], Context(out=Output(stdout=text, stderr=io.StringIO())))
    return json.loads(out.stdout.getvalue()), text.getvalue()


def test_cli_plan_to_pi_and_to_codex_give_each_agent_s_budget(fake_home: dict[str, Path]) -> None:
    _config(fake_home)
    [info, *_] = build_services().list_sessions()
    overheads = build_services().agent_overheads
    pi, pi_text = _plan([info.id, "--to", "pi"])
    codex, codex_text = _plan([info.id, "--to", "codex"])
    home, _ = _plan([info.id])
    assert pi["decision"]["budget"] == RULES["pi"] - overheads["pi"].tokens
    assert codex["decision"]["budget"] == RULES["codex"] - overheads["codex"].tokens
    assert home["decision"]["budget"] == codex["decision"]["budget"]  # no --to: the home agent, as before
    assert (pi["decision"]["harness_agent"], codex["decision"]["harness_agent"]) == ("pi", "codex")
    assert pi["usable_window"] == {
        "tokens": RULES["pi"],
        "agent": "pi",
        "source": "Pi's rule on the model's 200,000-token window",
        "assumed": False,
    }
    assert home["usable_window"]["assumed"] is True
    assert "Pi share 183,616" in pi_text and "usable window: 183,616 before Pi compacts" in pi_text
    assert "usable window: 190,000 before Codex compacts" in codex_text


def test_pi_s_own_reserve_setting_moves_the_plan(fake_home: dict[str, Path]) -> None:
    _config(fake_home)
    settings = fake_home["home"] / ".pi" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"compaction": {"reserveTokens": 30000}}', encoding="utf-8")
    [info, *_] = build_services().list_sessions()
    pi, _ = _plan([info.id, "--to", "pi"])
    assert pi["usable_window"]["tokens"] == WINDOW - 30_000
    assert f"reserveTokens 30,000 in {settings}" in pi["usable_window"]["source"]


def test_an_explicit_harness_window_in_the_config_keeps_winning(fake_home: dict[str, Path]) -> None:
    _config(fake_home, "harness_window = 150000\n")
    [info, *_] = build_services().list_sessions()
    pi, text = _plan([info.id, "--to", "pi"])
    assert pi["decision"]["prompt_limit"] == 150_000
    assert pi["decision"]["harness_agent"] is None and pi["usable_window"]["agent"] is None
    assert "harness_window in your config" in text


def test_mcp_preview_and_commit_plan_for_the_named_agent(fake_home: dict[str, Path]) -> None:
    _config(fake_home)
    services = build_services()
    [info, *_] = services.list_sessions()
    runner = SmigToolRunner(services)

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        reply = runner(name, {"session_id": info.id, "target_model": "probe", **arguments})
        assert not reply.get("isError"), reply
        result: dict[str, Any] = reply["structuredContent"]
        return result

    pi, codex = call("preview_migration", to="pi"), call("preview_migration", to="codex")
    assert pi["decision"]["budget"] == RULES["pi"] - services.agent_overheads["pi"].tokens
    assert codex["decision"]["budget"] == RULES["codex"] - services.agent_overheads["codex"].tokens
    assert (pi["decision"]["harness_agent"], call("preview_migration")["decision"]["harness_agent"]) == ("pi", "codex")
    committed = call("commit_migration", to=["pi"], dry_run=True)
    assert committed["decision"]["budget"] == pi["decision"]["budget"]
    refused = runner("preview_migration", {"session_id": info.id, "target_model": "probe", "to": "nobody"})
    assert refused.get("isError")


def test_the_planning_service_plans_for_the_agent(fake_home: dict[str, Path]) -> None:
    _config(fake_home)
    services = build_services()
    session = services.load_session(services.list_sessions()[0])
    plans = {agent: services.plan(session, "probe", Strategy.AS_IS, agent=agent) for agent in ("pi", "copilot")}
    assert plans["pi"].decision.prompt_limit == RULES["pi"]
    assert plans["copilot"].decision.prompt_limit == RULES["copilot"]


def test_the_tui_card_names_whose_share_limits_the_room() -> None:
    from smig_tui.tui.widgets.session_card import decision_markup

    pi = decide(0, for_agent(PROBE, "pi"), reserve=1_000)
    assert "Pi share 183,616" in decision_markup(PROBE, pi)
    by_hand = ModelCapacity("probe", "openai", WINDOW, 1_000, "o200k_base", harness_window=150_000, agents=(HOME,))
    assert "usable share 150,000" in decision_markup(by_hand, decide(0, by_hand, reserve=1_000))
    assert "share" not in decision_markup(PROBE, decide(0, PROBE, reserve=1_000, harness=False))
