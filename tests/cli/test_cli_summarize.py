"""Tests `smig summarize` end to end: real sessions, the real openai client, a local fake provider."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_llm_server import FakeLLM, Reply, llm_server_fixture  # noqa: F401 - fixture

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.words import plural

SESSION = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
ROLLOUT = "sessions/2026/11/20/rollout-2026-11-20T10-00-00-01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9.jsonl"
KEY = "sk-test-" + "c" * 32
PLANTED = "sk-proj-" + "CliPlantedKeyThatMustStayHome00001"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Context(out=Output(stdout=out, stderr=err)))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def configured(fake_home: dict[str, Path], llm_server: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> FakeLLM:
    """Point the summarizer at the fake server through the real config file and env."""
    config = fake_home["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "[summarizer]\n"
        'provider = "test"\n'
        f'base_url = "{llm_server.url}"\n'
        'model = "handoff-model"\n'
        'api_key_env = "SMIG_TEST_SUMMARY_KEY"\n'
        "max_retries = 0\n"
        "timeout = 10\n"
    )
    monkeypatch.setenv("SMIG_TEST_SUMMARY_KEY", KEY)
    return llm_server


def plant_secret(codex_home: Path) -> None:
    """Append a user message and a tool output carrying a fake key to a fixture rollout."""
    lines = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": f"Use OPENAI_API_KEY={PLANTED} for the deploy."}],
        },
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command":["env"]}',
            "call_id": "call_env",
        },
        {
            "type": "function_call_output",
            "call_id": "call_env",
            "output": f"HOME=/home/user\nAPI_TOKEN={PLANTED}\n",
        },
    ]
    with (codex_home / ROLLOUT).open("a", encoding="utf-8") as handle:
        for n, payload in enumerate(lines):
            record = {
                "timestamp": f"2026-11-20T10:30:0{n}.000Z",
                "type": "response_item",
                "payload": payload,
            }
            handle.write(json.dumps(record) + "\n")


def test_streams_the_summary_to_stdout_and_diagnostics_to_stderr(configured: FakeLLM) -> None:
    configured.respond = lambda body, n: Reply("## Goal\nShip the parser.\n\n## Next steps\nRun make check.")
    code, out, err = run("summarize", SESSION[:10])
    assert code == 0, err
    assert out == "## Goal\nShip the parser.\n\n## Next steps\nRun make check.\n"
    assert "test/handoff-model" in err and "no secrets redacted" in err and "1 request;" in err
    assert KEY not in out + err
    [body] = configured.requests
    assert body["model"] == "handoff-model" and body["stream"] is True
    sent = body["messages"][1]["content"]
    assert sent.index("How does the CLI parse its arguments?") < sent.index("Created CHANGELOG.md")


def test_planted_secret_is_redacted_and_counted(configured: FakeLLM, fake_home: dict[str, Path]) -> None:
    plant_secret(fake_home["codex"])
    code, _, err = run("summarize", SESSION)
    assert code == 0, err
    assert PLANTED not in configured.bodies
    assert "[REDACTED:openai-key]" in configured.bodies
    assert "2 secrets redacted (openai-key 2)" in err


def test_second_run_is_served_from_the_cache(configured: FakeLLM) -> None:
    first = run("summarize", SESSION)
    second = run("summarize", SESSION)
    assert first[0] == second[0] == 0 and first[1] == second[1]
    assert len(configured.requests) == 1 and "from the cache, nothing sent" in second[2]
    fresh = run("summarize", SESSION, "--no-cache")
    assert fresh[0] == 0 and len(configured.requests) == 2


def test_dry_run_says_what_would_be_sent_and_sends_nothing(configured: FakeLLM) -> None:
    code, out, _ = run("summarize", SESSION, "--dry-run", "--target-chars", "3000")
    assert code == 0 and configured.requests == []
    assert out.startswith("Would send ~") and "to test/handoff-model at http://127.0.0.1:" in out


def test_json_output_for_scripts(configured: FakeLLM) -> None:
    code, out, _ = run("summarize", SESSION, "--json", "--target-tokens", "800")
    record = json.loads(out)
    assert code == 0 and record["provider"] == "test" and record["requests"] == 1 and not record["cached"]
    assert record["text"].startswith("## Goal")
    assert "2,400 characters" in configured.requests[0]["messages"][0]["content"]


def test_flags_override_the_config(configured: FakeLLM) -> None:
    code, _, err = run(
        "summarize",
        SESSION,
        "--model",
        "other-model",
        "--provider",
        "mine",
        "--base-url",
        configured.url,
    )
    assert code == 0, err
    assert configured.requests[0]["model"] == "other-model" and "mine/other-model" in err


def test_no_key_fails_with_the_env_var_to_set(configured: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMIG_TEST_SUMMARY_KEY")
    # A server on this machine needs no key, so name a remote one; the error comes before any request.
    code, out, err = run("summarize", SESSION, "--base-url", "https://llm.example.invalid/v1")
    assert code == 6 and out == "" and configured.requests == []
    assert (
        err.strip()
        == 'smig: error: No API key for the test summarizer: set SMIG_TEST_SUMMARY_KEY (or use provider = "local").'
    )


def test_provider_rejection_is_one_line_with_exit_6(configured: FakeLLM) -> None:
    configured.respond = lambda body, n: Reply(status=401, error_message="bad key")
    code, out, err = run("summarize", SESSION)
    assert code == 6 and out == ""
    assert err.splitlines()[-1] == (
        "smig: error: test rejected the API key from SMIG_TEST_SUMMARY_KEY (HTTP 401); "
        "check the key and its access to handoff-model."
    )
    assert "Traceback" not in err and KEY not in err


def test_bad_config_is_a_clear_error(configured: FakeLLM, fake_home: dict[str, Path]) -> None:
    config = fake_home["smig"] / "config" / "config.toml"
    config.write_text(config.read_text() + "retries = 3\n")
    code, _, err = run("summarize", SESSION)
    assert code == 1 and "summarizer.retries is not a setting" in err and str(config) in err


def test_bad_target_is_a_usage_error(configured: FakeLLM) -> None:
    code, _, err = run("summarize", SESSION, "--target-chars", "0")
    assert code == 2 and "--target-chars must be a positive number" in err


def test_real_codex_rollouts_summarise_without_leaking(
    configured: FakeLLM, fake_home: dict[str, Path], shared_fixtures: Path
) -> None:
    """Every public Codex rollout goes through the reader, redaction and the request path."""
    folder = fake_home["codex"] / "sessions" / "2026" / "01" / "02"
    folder.mkdir(parents=True)
    sources = sorted((shared_fixtures / "codex").glob("*.jsonl"))
    for source in sources:
        shutil.copy(source, folder / ("rollout-" + source.name.split("rollout-")[-1]))
    code, out, err = run("list", "--agent", "codex", "--all", "--json")
    ids = {item["id"] for item in json.loads(out)} - {SESSION}
    assert code == 0 and len(ids) >= 3
    for session_id in sorted(ids):
        before = len(configured.requests)
        code, out, err = run("summarize", session_id, "--target-chars", "1500")
        if "nothing to summarise" in err:
            continue
        assert code == 0, err
        assert out.startswith("## Goal") and len(configured.requests) > before
        sent = configured.requests[-1]["messages"][-1]["content"]
        assert sent.count("[") >= 1 and "<transcript>" in sent or "Merge them" in sent


@pytest.fixture
def tiny_target(configured: FakeLLM, fake_home: dict[str, Path]) -> str:
    """Add a model whose window the fixture session does not fit, so summary strategies must cut."""
    config = fake_home["smig"] / "config" / "config.toml"
    config.write_text(config.read_text() + '\n[models."tiny-test"]\ncontext_window = 500\nmax_output = 100\n')
    return "tiny-test"


def _transcript(server: FakeLLM) -> str:
    return server.requests[-1]["messages"][-1]["content"]


def test_plan_summary_tail_without_consent_previews_and_sends_nothing(configured: FakeLLM, tiny_target: str) -> None:
    code, out, err = run("plan", SESSION, "--target", tiny_target, "--strategy", "summary-tail")
    assert code == 0 and configured.requests == []
    assert "summary not written" in err and "--yes-send" in err and "test/handoff-model" in err
    assert "The summary is not written yet" in out


def test_plan_summary_tail_with_consent_summarises_exactly_the_dropped_head(
    configured: FakeLLM, tiny_target: str
) -> None:
    configured.respond = lambda body, n: Reply("## Goal\nAdd --verbose.")
    code, out, err = run(
        "plan",
        SESSION,
        "--target",
        tiny_target,
        "--strategy",
        "summary-tail",
        "--yes-send",
        "--json",
    )
    assert code == 0, err
    plan = json.loads(out)
    assert plan["summary"] == "## Goal\nAdd --verbose." and "## Goal\nAdd --verbose." in plan["placeholder"]
    sent = _transcript(configured)
    assert "verbatim after your note" in sent
    summarised = [item["index"] for item in plan["items"] if item["reason"] == "summarised"]
    kept = [item["index"] for item in plan["items"] if item["kept"]]
    assert summarised and kept
    assert all(f"[{i}] " in sent for i in summarised)
    assert not any(f"[{i}] " in sent for i in kept)
    again = run("plan", SESSION, "--target", tiny_target, "--strategy", "summary-tail", "--json")
    assert again[0] == 0 and json.loads(again[1])["summary"] == plan["summary"] and len(configured.requests) == 1


def test_migrate_with_a_summary_strategy_requires_yes_send(
    configured: FakeLLM, tiny_target: str, fake_home: dict[str, Path]
) -> None:
    code, out, err = run("migrate", SESSION, "--target", tiny_target, "--strategy", "summary-tail")
    assert code == 2 and out == "" and configured.requests == []
    assert "Confirm with --yes-send" in err and "no secrets redacted" in err
    assert not (fake_home["smig"] / "data" / "migrations").exists()
    code, out, err = run(
        "migrate",
        SESSION,
        "--target",
        tiny_target,
        "--strategy",
        "summary-tail",
        "--yes-send",
        "--json",
    )
    assert code == 0, err
    record = json.loads(out)["record"]
    assert record["summary"].startswith("## Goal") and len(configured.requests) == 1


def test_summarize_head_of_plan_sends_only_the_head(configured: FakeLLM, tiny_target: str) -> None:
    code, out, err = run("summarize", SESSION, "--head-of-plan", tiny_target)
    assert code == 0, err
    assert out.startswith("## Goal") and "head messages to summarise within 100 tokens" in err
    sent = _transcript(configured)
    assert "verbatim after your note" in sent and "Created CHANGELOG.md" not in sent
    assert "400 characters" in configured.requests[0]["messages"][0]["content"]


def test_real_claude_transcripts_chunk_for_a_small_local_window(
    configured: FakeLLM, fake_home: dict[str, Path], shared_fixtures: Path
) -> None:
    """Public Claude Code transcripts, read by the reader, map-reduce within an 8k-token window."""
    project = fake_home["claude"] / "projects" / "-home-user-shared-fixtures"
    project.mkdir(parents=True)
    for source in sorted((shared_fixtures / "claude").glob("*.jsonl")):
        shutil.copy(source, project / source.name.split("__")[-1])
    config = fake_home["smig"] / "config" / "config.toml"
    config.write_text(config.read_text() + "context_window = 8192\n")
    code, out, _ = run("list", "--agent", "claude", "--all", "--json")
    ids = sorted(item["id"] for item in json.loads(out))
    assert code == 0 and len(ids) >= 5
    chunked = 0
    for session_id in ids:
        before = len(configured.requests)
        code, out, err = run("summarize", session_id)
        assert code == 0, err
        made = configured.requests[before:]
        assert out.startswith("## Goal") and made
        assert all(len(json.dumps(body)) < 8192 * 3 for body in made)
        if len(made) > 1:
            chunked += 1
            assert "Merge them into a single handoff note" in made[-1]["messages"][-1]["content"]
            assert f"{plural(len(made) - 1, 'part')}, {plural(len(made), 'request')}" in err
    assert chunked >= 2


def test_openai_is_imported_only_with_the_summarizer() -> None:
    code = (
        "import sys, smig_tui.cli.main as m, smig_tui.services as s\n"
        "m.build_parser()\n"
        "s.build_services().summarizer_for('local', 'x')\n"
        "print('openai' in sys.modules)\n"
    )
    lazy = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert lazy.stdout.strip() == "True"
    parse_only = code.replace("s.build_services().summarizer_for('local', 'x')\n", "")
    eager = subprocess.run([sys.executable, "-c", parse_only], capture_output=True, text=True, check=True)
    assert eager.stdout.strip() == "False"


def test_no_cache_says_it_sends_even_when_a_summary_is_cached(configured: FakeLLM) -> None:
    assert run("summarize", SESSION)[0] == 0
    code, _, err = run("summarize", SESSION, "--no-cache")
    assert code == 0 and len(configured.requests) == 2
    assert "smig: sending ~" in err and "cached" not in err.splitlines()[0]
