"""The real Codex CLI resumes the compressed, forked and reverted threads of tests/fixtures/real/codex,
and the history it sends the model is the conversation smig reads from them, item for item.

Skips when Codex is not installed (`.ci/run` installs it from npm into SMIG_E2E_BIN).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer

from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "codex"
_DEFAULT_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-e2e" / "node_modules" / ".bin"
INJECTED = (
    "<environment_context",
    "# AGENTS.md",
    "<user_instructions",
    "<skills_instructions",
    "<permissions",
    "<turn_aborted",
    "<collaboration_mode",
    "<INSTRUCTIONS",
)
"""Context Codex adds by itself (and renders afresh on resume): left out on both sides."""


def _codex() -> str:
    for folder in (os.environ.get("SMIG_E2E_BIN"), str(_DEFAULT_BIN)):
        if folder and (Path(folder) / "codex").is_file():
            return str(Path(folder) / "codex")
    found = shutil.which("codex")
    if not found:
        pytest.skip("codex is not installed (set SMIG_E2E_BIN or run .ci/run)")
    return found


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _sent(body: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """The conversation in a Responses request: (role, text, call id), Codex's own context left out."""
    rows: list[tuple[str, str, str | None]] = []
    for item in body.get("input") or []:
        kind = item.get("type", "message")
        if kind == "message":
            text = _text(item.get("content"))
            if item.get("role") in ("user", "assistant") and not text.lstrip().startswith(INJECTED):
                rows.append((item["role"], text, None))
        elif kind == "function_call":
            rows.append(("assistant", item.get("arguments", ""), item.get("call_id")))
        elif kind == "function_call_output":
            output = item.get("output")
            rows.append(("tool", output if isinstance(output, str) else _text(output), item.get("call_id")))
    return rows


def _read(thread: str) -> list[tuple[str, str, str | None]]:
    """What smig reads for the thread, in the same form."""
    services = build_services()
    session = services.load_session(services.find_session(thread))
    return [(m.role.value, m.text, m.call_id) for m in session.messages if not m.injected]


@pytest.mark.parametrize(
    ("scenario", "thread"),
    [
        ("fork_lineage", "01a23b78-db78-7dd2-bcf7-a002f58cba32"),  # fork of a fork; grandparent .jsonl.zst
        ("compressed", "01a23b78-167b-7f32-b718-2bab157d4425"),  # a rollout Codex compressed
        ("revert_segments", "01a23b89-18b2-74f2-a65a-6314008766f2"),  # two files after thread/revert
    ],
)
def test_codex_resumes_what_smig_reads(
    isolated_homes: dict[str, Path], tmp_path: Path, scenario: str, thread: str
) -> None:
    codex = _codex()
    shutil.copytree(REAL / scenario / "codex_home", isolated_homes["codex"], dirs_exist_ok=True)
    expected = json.loads((REAL / scenario / "expected.json").read_text(encoding="utf-8"))
    for rel, mtime in expected["mtimes"].items():
        os.utime(isolated_homes["codex"] / rel, (mtime, mtime))
    read = _read(thread)
    project = tmp_path / "work"
    project.mkdir()
    with FakeModelServer() as server:
        (isolated_homes["codex"] / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
            encoding="utf-8",
        )
        env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
        env.update(
            HOME=str(isolated_homes["home"]),
            CODEX_HOME=str(isolated_homes["codex"]),
            NO_COLOR="1",
            CI="1",
            SMIG_FAKE_KEY="test",
        )
        run = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", "resume", thread, "continue"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            stdin=subprocess.DEVNULL,
        )
        bodies = server.bodies("/responses")
    assert run.returncode == 0, run.stderr[-2000:]
    assert REPLY in run.stdout and bodies
    assert _sent(bodies[-1]) == [*read, ("user", "continue", None)]
