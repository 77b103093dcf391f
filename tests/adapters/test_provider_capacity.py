"""`smig models --refresh` against local servers that answer like OpenRouter, vLLM, Ollama, LM Studio and OpenAI."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import build_services

OPENROUTER = {
    "data": [
        {
            "id": "qwen/qwen3.6-plus",
            "context_length": 1_000_000,
            "top_provider": {"context_length": 1_000_000, "max_completion_tokens": 65_536},
        },
        {"id": "acme/brand-new-model", "context_length": 131_072, "top_provider": {"max_completion_tokens": 16_384}},
        {"id": "acme/no-length"},
    ]
}
VLLM = {
    "object": "list",
    "data": [{"id": "Qwen/Qwen3-Coder-30B-A3B-Instruct", "object": "model", "max_model_len": 65_536}],
}
LMSTUDIO = {
    "object": "list",
    "data": [
        {
            "id": "devstral-small-2",
            "type": "llm",
            "state": "loaded",
            "max_context_length": 262_144,
            "loaded_context_length": 32_768,
        },
        {"id": "mistral-large-3", "type": "llm", "state": "not-loaded", "max_context_length": 262_144},
    ],
}
OLLAMA_TAGS = {"models": [{"name": "qwen3-coder:30b", "model": "qwen3-coder:30b"}, {"name": "llama3.3:70b"}]}
OLLAMA_SHOW = {
    "qwen3-coder:30b": {
        "parameters": "temperature 0.7\nnum_ctx 32768",
        "model_info": {"qwen3moe.context_length": 262_144},
    },
    "llama3.3:70b": {"parameters": "", "model_info": {"llama.context_length": 131_072}},
}
OPENAI = {"object": "list", "data": [{"id": "gpt-5.6-sol", "object": "model", "owned_by": "openai"}]}


class Shapes(BaseHTTPRequestHandler):
    """Answers each provider's listing paths; `/garbage/...` answers HTML, `/broken/...` a 500."""

    seen: list[tuple[str, str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.seen.append(("GET", self.path))
        answers = {
            "/openrouter/models": OPENROUTER,
            "/vllm/v1/models": VLLM,
            "/lms/api/v0/models": LMSTUDIO,
            "/ollama/api/tags": OLLAMA_TAGS,
            "/openai/v1/models": OPENAI,
        }
        if self.path.startswith("/garbage"):
            self._send(200, b"<html>not an API</html>", "text/html")
        elif self.path.startswith("/broken"):
            self._send(500, b'{"error": "down"}')
        elif self.path in answers:
            self._send(200, json.dumps(answers[self.path]).encode())
        else:
            self._send(404, b'{"error": "no"}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.seen.append(("POST", f"{self.path} {body.get('model')}"))
        if self.path == "/ollama/api/show" and body.get("model") in OLLAMA_SHOW:
            self._send(200, json.dumps(OLLAMA_SHOW[body["model"]]).encode())
        else:
            self._send(404, b'{"error": "no"}')


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Shapes)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Shapes.seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _config(isolated_homes, text: str) -> None:
    folder = isolated_homes["smig"] / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def _providers(server: str) -> str:
    return (
        f'[providers.openrouter]\nbase_url = "{server}/openrouter"\napi_key_env = "OPENROUTER_API_KEY"\n'
        f'[providers.vllm]\nbase_url = "{server}/vllm/v1"\n'
        f'[providers.ollama]\nbase_url = "{server}/ollama"\n'
        f'[providers.lmstudio]\nbase_url = "{server}/lms"\n'
        f'[providers.openai]\nbase_url = "{server}/openai/v1"\n'
        f'[providers.junk]\nbase_url = "{server}/garbage"\n'
        f'[providers.down]\nbase_url = "{server}/broken"\n'
    )


def _run(argv: list[str]) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(argv, Context(out=out))
    return code, out.stdout.getvalue(), out.stderr.getvalue()  # type: ignore[attr-defined]


def test_offline_says_it_uses_the_shipped_table(isolated_homes) -> None:
    code, stdout, stderr = _run(["models", "gpt-5.6-sol"])
    assert code == 0 and "922,000" in stdout
    assert "no live figures (offline until `smig models --refresh`)" in stderr


def test_refresh_reads_each_shape_and_credits_it(isolated_homes, server, monkeypatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    _config(isolated_homes, _providers(server))
    code, stdout, stderr = _run(
        [
            "models",
            "--refresh",
            "--provider",
            "openrouter",
            "--provider",
            "vllm",
            "--provider",
            "ollama",
            "--provider",
            "lmstudio",
        ]
    )
    assert code == 0 and stderr == ""
    assert "openrouter: 2 models with a context length, live from openrouter, fetched " in stdout
    assert ("POST", "/ollama/api/show qwen3-coder:30b") in Shapes.seen

    table = build_services().capacities
    # a known model OpenRouter resells: its figures hold for the OpenRouter route only, credited to it
    qwen = table.lookup("openrouter/qwen/qwen3.6-plus")
    assert (qwen.route, qwen.context_window, qwen.max_output) == ("openrouter", 1_000_000, 65_536)
    assert qwen.source_of("context_window").startswith("live from openrouter, fetched ")
    assert qwen.source_of("max_output").startswith("live from openrouter, fetched ")
    assert table.lookup("qwen3.6-plus").source_of("context_window").startswith("https://")  # the maker's stays
    new = table.lookup("brand-new-model")  # unknown: added under its provider
    assert (new.provider, new.context_window, new.max_output) == ("openrouter", 131_072, 16_384)
    served = table.lookup("vllm/Qwen/Qwen3-Coder-30B-A3B-Instruct")  # vLLM's max_model_len, on its route
    assert served.context_window == 65_536 and "vllm gives none" not in served.source_of("max_output")
    assert served.source_of("max_output").startswith("smig's assumption, a quarter of the 65,536 window")
    assert table.lookup("Qwen/Qwen3-Coder-30B-A3B-Instruct").context_window == 262_144  # the maker's figure
    assert table.lookup("qwen3-coder:30b").context_window == 32_768  # Ollama num_ctx beats the native 262,144
    assert table.lookup("llama3.3:70b").context_window == 131_072
    assert table.lookup("lmstudio/devstral-small-2").context_window == 32_768  # LM Studio: as loaded
    assert table.lookup("devstral-small-2").context_window == 262_144
    large = table.lookup("lmstudio/mistral-large-3")
    assert large.context_window == 262_144 and large.max_output < large.context_window

    code, stdout, stderr = _run(["models", "openrouter/qwen/qwen3.6-plus"])
    assert "window 1,000,000: live from openrouter, fetched" in stdout
    assert "updated by live from openrouter" in stderr and "live from ollama" in stderr


def test_config_overrides_live_figures(isolated_homes, server) -> None:
    _config(
        isolated_homes, _providers(server) + '[models."Qwen/Qwen3-Coder-30B-A3B-Instruct"]\ncontext_window = 40000\n'
    )
    assert _run(["models", "--refresh", "--provider", "vllm"])[0] == 0
    model = build_services().capacities.lookup("Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert model.context_window == 40_000 and "config.toml" in model.source_of("context_window")


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("junk", "junk at http://127.0.0.1:"),
        ("down", "answered HTTP 500; the shipped figures stay."),
        ("openai", "openai lists 1 models but reports no context lengths; the shipped figures stay."),
        ("nowhere", "nowhere is not a provider smig knows"),
    ],
)
def test_a_provider_answering_garbage_gets_one_line_and_changes_nothing(
    isolated_homes,
    server,
    provider: str,
    expected: str,
) -> None:
    _config(isolated_homes, _providers(server))
    assert _run(["models", "--refresh", "--provider", "vllm"])[0] == 0
    cache = isolated_homes["smig"] / "cache" / "provider-capacities.json"
    before = cache.read_bytes()
    code, stdout, stderr = _run(["models", "--refresh", "--provider", provider])
    assert code == 1 and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("smig: warning: ") and expected in stderr
    assert cache.read_bytes() == before
    assert build_services().capacities.lookup("gpt-5.6-sol").source_of("context_window").startswith("https://")


def test_refresh_without_a_provider_says_how_to_name_one(isolated_homes) -> None:
    code, stdout, stderr = _run(["models", "--refresh"])
    assert code == 1 and stdout == "" and "--provider" in stderr


def test_a_cloud_provider_without_its_key_is_not_asked(isolated_homes) -> None:
    code, _, stderr = _run(["models", "--refresh", "--provider", "openrouter"])
    assert code == 1 and "set OPENROUTER_API_KEY" in stderr
