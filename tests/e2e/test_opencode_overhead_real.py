"""Checks the shipped OpenCode overhead against what the real client (opencode-ai 1.18.33) sends."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from client_env import client_binary

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import FakeModelServer
from real_clients import CLIENT_TIMEOUT, configure_opencode

from smig_tui.services import build_services

pytestmark = pytest.mark.e2e


def test_the_shipped_opencode_overhead_is_what_the_client_adds_to_a_request(
    isolated_homes: dict[str, Path], tmp_path: Path, exact_tokens: None
) -> None:
    """System prompt and tool definitions of a fresh home's first request, by o200k."""
    from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

    project = tmp_path / "empty"
    project.mkdir()
    # OpenCode names its temp folder in the system prompt: a short one as a user's (/tmp/tmpXXXXXXXX), not
    # the run's clients' folder under pytest's temp path (tests/e2e/conftest.py), about 30 tokens longer
    with tempfile.TemporaryDirectory() as scratch, FakeModelServer() as server:
        env = configure_opencode(isolated_homes, server) | {"TMPDIR": scratch}
        run = subprocess.run(
            [client_binary("opencode"), "run", "hello there"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        [body] = [body for body in server.bodies("/messages") if body.get("tools")]
    assert run.returncode == 0, run.stderr[-2000:]
    counter = make_counter("o200k_base")
    system = body["system"] if isinstance(body["system"], str) else "".join(b["text"] for b in body["system"])
    measured = counter.count(system) + counter.count(json.dumps(body["tools"], ensure_ascii=False))
    shipped = build_services().agent_overheads["opencode"]
    assert shipped.source == "measured with OpenCode 1.18.33"
    assert abs(measured - shipped.tokens) <= 30  # the date and the temp folder in the system prompt vary a little
