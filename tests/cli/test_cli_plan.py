"""`smig plan` and `smig models` in-process on the fixture homes: data on stdout, diagnostics on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from smig_tui.adapters.agents import claude
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import Services

CLAUDE_MAIN = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"


def _run(argv: list[str], config: dict | None = None) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    paths = resolve_paths()
    ctx.__dict__["services"] = Services(
        paths=paths, config=config or {}, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())]
    )
    code = main(argv, ctx)
    return code, out.stdout.getvalue(), out.stderr.getvalue()  # type: ignore[attr-defined]


@pytest.mark.usefixtures("exact_tokens")
def test_plan_fits_as_is(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["plan", CODEX_MAIN, "--target", "gpt-5"])
    assert code == 0 and stderr == ""
    first = stdout.splitlines()[0]
    assert first.startswith("gpt-5: fits as-is: session ") and "to spare" in first
    assert "as-is: keeps" in stdout


@pytest.mark.usefixtures("exact_tokens")
def test_plan_must_compress_json(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(
        ["plan", CLAUDE_MAIN, "-t", "gpt-4", "--reserve", "7900", "--pin-first", "--json", "--no-harness"]
    )
    assert code == 0
    data = json.loads(stdout)
    decision = data["decision"]
    assert not decision["fits"] and decision["budget"] == 8192 - 7900
    assert decision["over_by"] == decision["session_tokens"] - decision["budget"]
    assert data["tokens_after"] <= decision["budget"] and data["strategy"] == "truncate"
    assert data["placeholder"].startswith("[smig: ")
    kept = [item for item in data["items"] if item["kept"]]
    assert kept[0]["reason"] == "first user message"
    assert data["counter"] == "cl100k_base"


@pytest.mark.usefixtures("exact_tokens")
def test_plan_json_writes_its_items_as_they_are_made_as_the_whole_list_would_read(fake_home: dict[str, Path]) -> None:
    """`--json` makes each item as it is written (a 300,000-message session's items took 70 MB at once): the
    text is the one `json.dumps` gives for the plan with its items as a list, byte for byte."""
    from smig_tui.core.models import Strategy
    from smig_tui.services import build_services, json_shapes

    code, stdout, _ = _run(["plan", CLAUDE_MAIN, "-t", "gpt-4", "--json", "--no-harness"])
    services = build_services()
    session = services.load_session(services.find_session(CLAUDE_MAIN))
    plan = services.plan(session, "gpt-4", Strategy.TRUNCATE, harness=False)
    whole = json_shapes.plan_json(services, session, plan, None) | {"items": json_shapes.plan_items(plan)}
    assert code == 0 and len(whole["items"]) > 10
    assert stdout == json.dumps(whole, indent=2, ensure_ascii=False, default=str) + "\n"


def test_plan_text_says_by_how_much(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(
        ["plan", CLAUDE_MAIN, "-t", "gpt-4", "--reserve", "7.9k", "-s", "tools-first", "--no-harness"]
    )
    assert code == 0
    assert "must compress" in stdout.splitlines()[0] and "over by" in stdout.splitlines()[0]
    assert stdout.splitlines()[1].startswith("tools-first: keeps")


@pytest.mark.usefixtures("exact_tokens")
def test_a_plan_whose_counts_are_all_cached_loads_no_tokenizer(fake_home, monkeypatch) -> None:
    """The second `smig plan` of a session finds every count in the token cache and counts nothing, so it
    loads no encoding (0.17 s of its 0.45 s); what it prints is the first plan's."""
    import tiktoken
    from tiktoken_ext import openai_public

    from smig_tui.adapters.tokenizers import tiktoken_counter

    def fresh(name: str) -> tiktoken.Encoding:  # as a new process's tiktoken gives it, its ranks whole
        return tiktoken.Encoding(**getattr(openai_public, name)())

    monkeypatch.setattr(tiktoken_counter.tiktoken, "get_encoding", fresh)
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    first = _run(["plan", CODEX_MAIN, "-t", "gpt-5", "--json"])
    assert first[0] == 0 and "o200k_base" in tiktoken_counter._LOADED
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})  # the next process
    assert _run(["plan", CODEX_MAIN, "-t", "gpt-5", "--json"]) == first
    assert tiktoken_counter._LOADED == {}
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})
    code, stdout, _ = _run(["plan", CODEX_MAIN, "-t", "gpt-4", "--json"])  # cl100k: not counted yet
    assert code == 0 and json.loads(stdout)["decision"]["exact"] and set(tiktoken_counter._LOADED) == {"cl100k_base"}


def test_plan_labels_estimates_when_tiktoken_cannot_load(fake_home, monkeypatch) -> None:
    from smig_tui.adapters.tokenizers import tiktoken_counter

    def offline(name: str):
        raise OSError("no network")

    monkeypatch.setattr(tiktoken_counter.tiktoken, "get_encoding", offline)
    monkeypatch.setattr(tiktoken_counter, "_LOADED", {})  # a new process, with no saved ranks (fresh home)
    code, stdout, stderr = _run(["plan", CODEX_MAIN, "-t", "gpt-5"])
    assert code == 0
    assert "(estimate)" in stdout.splitlines()[0]
    assert "counts are estimates" in stderr


def test_reserve_from_config_and_flag(fake_home: dict[str, Path]) -> None:
    _, stdout, _ = _run(["plan", CODEX_MAIN, "-t", "gpt-4", "--json"], config={"plan": {"reserve": 1000}})
    assert json.loads(stdout)["decision"]["reserve"] == 1000
    _, stdout, _ = _run(
        ["plan", CODEX_MAIN, "-t", "gpt-4", "--json", "--reserve", "0"], config={"plan": {"reserve": 1000}}
    )
    assert json.loads(stdout)["decision"]["reserve"] == 0


def test_unknown_target_exit_3_with_suggestions(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["plan", CODEX_MAIN, "-t", "claude-sonet-4-5"])
    assert code == 3 and stdout == ""
    assert "Unknown model 'claude-sonet-4-5'" in stderr and "claude-sonnet-4-5" in stderr


def test_bad_reserve_is_usage_error(fake_home: dict[str, Path], capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        _run(["plan", CODEX_MAIN, "-t", "gpt-5", "--reserve", "lots"])
    assert caught.value.code == 2


def test_models_table_and_query(isolated_homes) -> None:
    code, stdout, _ = _run(["models", "--json"])
    rows = json.loads(stdout)
    assert code == 0 and len(rows) > 80
    assert {"name", "context_window", "max_output", "encoding", "harness_window", "source", "aliases"} <= set(rows[0])
    code, stdout, _ = _run(["models", "haiku"])
    assert code == 0 and "claude-haiku-4-5" in stdout and "gpt-5" not in stdout


def test_models_unknown_query(isolated_homes) -> None:
    code, stdout, stderr = _run(["models", "zzzzzz"])
    assert code == 3 and stdout == "" and "Unknown model" in stderr


def test_models_config_error_names_file(isolated_homes) -> None:
    code, _, stderr = _run(["models"], config={"models": {"gpt-4o": {"context_window": -1}}})
    assert code == 1 and "config.toml: models.gpt-4o.context_window must be a positive" in stderr


@pytest.mark.usefixtures("exact_tokens")
def test_plan_shows_and_subtracts_the_receiving_agents_overhead(fake_home: dict[str, Path]) -> None:
    shipped = claude.PROFILE.overhead
    assert shipped is not None and shipped.client == "Claude Code 2.1.332"
    assert shipped.tokens == sum(tokens for _, tokens in shipped.parts)
    _, stdout, _ = _run(["plan", CODEX_MAIN, "-t", "claude-sonnet-4-5", "--json"])
    data = json.loads(stdout)
    decision, overhead = data["decision"], data["agent_overhead"]
    assert overhead["agent"] == "claude" and overhead["source"] == "measured with Claude Code 2.1.332"
    assert decision["overhead"] == overhead["tokens"] >= shipped.tokens  # calibrated for Anthropic's tokenizer
    assert (
        decision["budget"]
        == min(decision["window"] - decision["reserve"], decision["prompt_limit"]) - decision["overhead"]
    )
    assert data["left_out"] == {"messages": 0, "tokens": 0}
    _, stdout, _ = _run(
        ["plan", CODEX_MAIN, "-t", "claude-sonnet-4-5", "--json"], config={"agents": {"claude": {"overhead": 30_000}}}
    )
    assert json.loads(stdout)["agent_overhead"]["source"].endswith("[agents.claude]")
    _, stdout, _ = _run(["plan", CODEX_MAIN, "-t", "gpt-5.5"])
    assert "agent overhead 7,820" in stdout.splitlines()[0]
    assert "tokens that codex adds to every request" in stdout and "measured with Codex CLI 0.171.0" in stdout
    _, stdout, _ = _run(["plan", CODEX_MAIN, "-t", "gpt-5.5", "--no-harness", "--json"])
    assert json.loads(stdout)["decision"]["overhead"] == 0 and json.loads(stdout)["agent_overhead"] is None


@pytest.mark.usefixtures("exact_tokens")
def test_a_retired_target_is_warned_about_with_its_replacement(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(["plan", CODEX_MAIN, "--target", "claude-sonnet-4"])
    assert code == 0
    assert "note: claude-sonnet-4 was retired on 2026-06-15; use claude-sonnet-5-5 instead" in stdout
    still_served = {"models": {"claude-sonnet-4": {"status": "current"}}}
    code, stdout, _ = _run(["plan", CODEX_MAIN, "--target", "claude-sonnet-4"], config=still_served)
    assert code == 0 and "was retired" not in stdout
