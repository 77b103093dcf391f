"""Live and configured figures against a local fake `/models` server in each shape (OpenAI, OpenRouter,
vLLM, LiteLLM `/model/info`), read through the real `openai` client by `smig models --refresh`.

What they prove: an agent window is the smaller of the model's window and the agent's own (a
larger or smaller live window never scales it); implausible figures are refused with a warning;
a figure one provider reports holds for that provider's route only; every figure names its true
source; a refresh where some provider failed exits non-zero.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import build_services

CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"


class Listings(BaseHTTPRequestHandler):
    """Answers `GET <path>` with the JSON body a test put in `bodies`; anything else is a 500."""

    bodies: ClassVar[dict[str, Any]] = {}

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = self.bodies.get(self.path)
        status, data = (200, json.dumps(body).encode()) if body is not None else (500, b'{"error": "down"}')
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Listings)
    Listings.bodies = {}
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _config(homes: dict[str, Path], text: str) -> None:
    folder = homes["smig"] / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(argv, Context(out=out))
    return code, out.stdout.getvalue(), out.stderr.getvalue()  # type: ignore[attr-defined]


def _model(name: str) -> dict[str, Any]:
    code, stdout, _ = _run(["models", name, "--json"])
    assert code == 0
    found = [row for row in json.loads(stdout) if row["name"] == name]
    assert len(found) == 1, stdout
    return found[0]


def _codex(row: dict[str, Any]) -> tuple[int, int]:
    (agent,) = [a for a in row["agents"] if a["agent"] == "codex"]
    return agent["window"], agent["usable"]


@pytest.mark.usefixtures("exact_tokens")
def test_a_live_window_leaves_the_codex_window_as_codex_runs_it(fake_home, server) -> None:
    """Before: a live 640,000 made Codex's prompt limit 157,500 (budget 149,680) and `plan` disagreed with `models`."""
    Listings.bodies["/openai/v1/models"] = {
        "object": "list",
        "data": [{"id": "gpt-5.6-sol", "context_window": 640_000}],
    }
    _config(fake_home, f'[providers.openai]\nbase_url = "{server}/openai/v1"\n')
    code, stdout, stderr = _run(["models", "--refresh", "--provider", "openai"])
    assert (code, stderr) == (0, "") and "openai: 1 models with a context length" in stdout

    row = _model("gpt-5.6-sol")
    assert row["context_window"] == 640_000 and row["sources"]["context_window"].startswith("live from openai")
    assert _codex(row) == (272_000, 258_400) and row["harness_window"] == 258_400
    assert row["max_input"] == 640_000 and row["sources"]["max_input"].startswith("held to the 640,000 window (live")
    assert row["sources"]["harness_window"].startswith("Codex CLI 0.171.0's bundled model catalog")

    code, stdout, _ = _run(["plan", CODEX_MAIN, "--target", "gpt-5.6-sol", "--json"])
    decision = json.loads(stdout)["decision"]
    assert code == 0 and decision["prompt_limit"] == 258_400  # what `smig models` says Codex can fill
    assert decision["budget"] == 258_400 - decision["overhead"]


@pytest.mark.usefixtures("exact_tokens")
def test_a_configured_window_leaves_the_codex_window_too(fake_home) -> None:
    """Before: `context_window = 500000` made the Codex share 123,046."""
    _config(fake_home, '[models."gpt-5.6-sol"]\ncontext_window = 500000\n')
    row = _model("gpt-5.6-sol")
    assert row["context_window"] == 500_000 and _codex(row) == (272_000, 258_400)
    assert row["harness_window"] == 258_400 and "config.toml" in row["sources"]["max_input"]
    code, stdout, _ = _run(["plan", CODEX_MAIN, "--target", "gpt-5.6-sol", "--json"])
    assert code == 0 and json.loads(stdout)["decision"]["prompt_limit"] == 258_400


def test_a_window_below_the_agent_window_holds_the_agent_to_it(isolated_homes) -> None:
    _config(isolated_homes, '[models."gpt-5.6-sol"]\ncontext_window = 200000\n')
    row = _model("gpt-5.6-sol")
    assert _codex(row) == (200_000, 190_000) and row["harness_window"] == 190_000
    (agent,) = row["agents"]
    assert agent["source"].endswith(
        "held to the 200,000 window (" + str(isolated_homes["smig"] / "config" / "config.toml") + ")"
    )


def test_an_absurd_figure_is_refused_with_a_warning_naming_provider_and_figure(isolated_homes, server) -> None:
    Listings.bodies["/or/models"] = {
        "data": [
            {"id": "deepseek/deepseek-flash", "context_length": 10**15},
            {"id": "acme/tiny", "context_length": 8},
            {"id": "acme/fine", "context_length": 131_072, "top_provider": {"max_completion_tokens": 16_384}},
        ]
    }
    _config(isolated_homes, f'[providers.openrouter]\nbase_url = "{server}/or"\n')
    code, stdout, stderr = _run(["models", "--refresh", "--provider", "openrouter"])
    assert code == 0
    assert "openrouter: 1 models with a context length, 2 refused as implausible" in stdout
    warnings = stderr.splitlines()
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "smig: warning: openrouter reports a context length of 1,000,000,000,000,000 for deepseek/deepseek-flash"
    )
    assert "a context length of 8 for acme/tiny" in warnings[1] and "refused" in warnings[1]
    table = build_services().capacities
    assert table.lookup("deepseek-flash").context_window == 1_048_576
    assert table.lookup("openrouter/deepseek/deepseek-flash").route is None  # no route figure: the maker's
    assert table.get("acme/tiny") is None
    assert table.lookup("acme/fine").context_window == 131_072


def test_an_absurd_figure_already_in_the_cache_is_ignored(isolated_homes) -> None:
    cache = isolated_homes["smig"] / "cache" / "provider-capacities.json"
    cache.parent.mkdir(parents=True)
    listing = {"fetched": "2026-12-01T00:00:00Z", "models": [{"id": "gpt-5.6-sol", "context_window": 10**15}]}
    cache.write_text(json.dumps({"version": 1, "providers": {"openai": listing}}), encoding="utf-8")
    model = build_services().capacities.lookup("gpt-5.6-sol")
    assert model.context_window == 1_050_000 and model.source_of("context_window").startswith("https://")


def test_one_providers_figure_holds_for_its_route_only(isolated_homes, server) -> None:
    """Before: OpenRouter's 163,840 replaced DeepSeek's own 1M for everyone, with max output 40,960
    credited to DeepSeek's page (which says 384K)."""
    Listings.bodies["/or/models"] = {"data": [{"id": "deepseek/deepseek-flash", "context_length": 163_840}]}
    _config(isolated_homes, f'[providers.openrouter]\nbase_url = "{server}/or"\n')
    assert _run(["models", "--refresh", "--provider", "openrouter"])[0] == 0

    own = _model("deepseek-flash")
    assert (own["context_window"], own["max_output"]) == (1_048_576, 393_216)
    assert own["sources"]["context_window"].startswith("https://api-docs.deepseek.com")

    routed = _model("openrouter/deepseek/deepseek-flash")
    assert (routed["context_window"], routed["max_output"]) == (163_840, 40_960)
    assert routed["sources"]["context_window"].startswith("live from openrouter, fetched ")
    assert routed["sources"]["max_output"].startswith("smig's assumption, a quarter of the 163,840 window (live")
    assert "api-docs.deepseek.com" not in routed["sources"]["max_output"]
    assert routed["sources"]["calibration"].startswith("tokenizer family deepseek")

    code, stdout, _ = _run(["models", "deepseek-flash"])
    assert code == 0 and "window 1,048,576: https://api-docs.deepseek.com" in stdout


def test_vllm_figures_name_what_vllm_reported_and_what_smig_assumed(isolated_homes, server) -> None:
    """Before: a max output smig made up was credited "live from vllm"."""
    Listings.bodies["/vllm/v1/models"] = {
        "object": "list",
        "data": [{"id": "my-finetune", "object": "model", "max_model_len": 32_768}],
    }
    _config(isolated_homes, f'[providers.vllm]\nbase_url = "{server}/vllm/v1"\n')
    assert _run(["models", "--refresh", "--provider", "vllm"])[0] == 0
    row = _model("my-finetune")
    assert (row["provider"], row["context_window"], row["max_output"]) == ("vllm", 32_768, 8_192)
    assert row["sources"]["context_window"].startswith("live from vllm, fetched ")
    assert row["sources"]["max_output"] == "smig's default, a quarter of the window up to 32,000 (vllm gives none)"
    assert row["sources"]["calibration"] == "smig's default, counted as o200k_base (vllm names no tokenizer)"
    assert row["sources"]["max_input"] == ""  # no input cap, so no source for one


def test_litellm_model_info_gives_the_input_cap(isolated_homes, server) -> None:
    Listings.bodies["/model/info"] = {
        "data": [
            {
                "model_name": "team-sonnet",
                "litellm_params": {"model": "anthropic/claude-sonnet-4-6"},
                "model_info": {"max_input_tokens": 200_000, "max_output_tokens": 64_000, "max_tokens": 64_000},
            },
            {
                "model_name": "gpt-5.6-sol",
                "litellm_params": {"model": "openai/gpt-5.6-sol"},
                "model_info": {"max_input_tokens": 272_000, "max_output_tokens": 128_000},
            },
            {"model_name": "no-info", "litellm_params": {"model": "x/y"}, "model_info": {}},
        ]
    }
    _config(isolated_homes, f'[providers.litellm]\nbase_url = "{server}"\n')
    code, stdout, stderr = _run(["models", "--refresh", "--provider", "litellm"])
    assert (code, stderr) == (0, "") and "litellm: 2 models with a context length" in stdout

    team = _model("team-sonnet")  # unknown name: the input cap is all the prompt can hold
    assert (team["provider"], team["context_window"], team["max_output"]) == ("litellm", 200_000, 64_000)
    assert team["sources"]["max_output"].startswith("live from litellm")

    routed = _model("litellm/gpt-5.6-sol")  # a known model through the proxy: its input cap, the model's window
    assert (routed["context_window"], routed["max_input"]) == (1_050_000, 272_000)
    assert routed["sources"]["max_input"].startswith("live from litellm, fetched ")
    assert routed["sources"]["context_window"].startswith("https://")
    assert _model("gpt-5.6-sol")["max_input"] == 922_000


def test_refresh_of_every_provider_exits_non_zero_when_some_failed(isolated_homes, server) -> None:
    Listings.bodies["/vllm/v1/models"] = {"data": [{"id": "local-a", "max_model_len": 16_384}]}
    _config(
        isolated_homes,
        f'[providers.vllm]\nbase_url = "{server}/vllm/v1"\n'
        f'[providers.down]\nbase_url = "{server}/down"\n'
        f'[providers.gone]\nbase_url = "{server}/gone"\nkind = "litellm"\n',
    )
    code, stdout, stderr = _run(["models", "--refresh"])
    assert code == 1
    assert stdout.startswith("vllm: 1 models with a context length, live from vllm")
    lines = stderr.splitlines()
    assert any(line.startswith("smig: warning: down at ") and "HTTP 500" in line for line in lines)
    assert any(line.startswith("smig: warning: gone at ") for line in lines)
    assert lines[-1] == "smig: 2 of 3 providers gave no figures (down, gone); their previous figures stay."
    assert build_services().capacities.lookup("local-a").context_window == 16_384  # what did answer is kept

    code, stdout, _ = _run(["models", "--refresh", "--json"])
    rows = {row["provider"]: row["ok"] for row in json.loads(stdout)}
    assert code == 1 and rows == {"vllm": True, "down": False, "gone": False}
