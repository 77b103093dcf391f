"""Runs the real Qwen Code CLI against the fake model server, in an isolated home.

Qwen Code's OpenAI auth speaks Chat Completions: `OPENAI_BASE_URL` (the fake's `/v1`), any
`OPENAI_API_KEY` and `OPENAI_MODEL`, selected by `security.auth.selectedType = "openai"` in
`~/.qwen/settings.json` (`QWEN_HOME` moves that folder). The settings file also turns off the usage
statistics, the update check and the managed auto-memory (by default a memory-extractor subagent
sends a request of its own, with tools, after every turn), so the only requests are the agent's. The positional
prompt runs one turn and exits (`-p` is deprecated); `--approval-mode yolo` lets tools run there.
`NO_RELAUNCH` keeps it in one node process (Gemini CLI's relaunch with a larger heap, inherited).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from client_runs import clean_env, new_client, run_client
from fake_model_server import FakeModelServer

MODEL = "qwen3-coder-plus"
NO_RELAUNCH = {"QWEN_CODE_NO_RELAUNCH": "true"}
"""What the CLI sets for the child it relaunches itself as (0.24.4): with it, the first process is that
child, the same code with node's default heap (ample here). About 3.0 -> 2.0 s of CPU a run."""


def qwen_binary() -> str:
    """The installed `qwen`, or skip."""
    return new_client("qwen")


def prepare_home(home: Path, extra: dict[str, Any] | None = None) -> Path:
    """`~/.qwen/settings.json` selecting OpenAI auth, quiet; written once, `extra` merged in; the folder."""
    folder = home / ".qwen"
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "settings.json"
    if not settings.exists() or extra:
        current = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
        base = {
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False},
            "model": {"name": MODEL},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
        }
        settings.write_text(json.dumps(_merge(_merge(base, current), extra or {}), indent=2), encoding="utf-8")
    return folder


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        merged[key] = (
            _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
        )
    return merged


def qwen_env(home: Path, server: FakeModelServer) -> dict[str, str]:
    """Only the temp home and the OpenAI settings: nothing from a real profile or a parent agent."""
    prepare_home(home)
    return clean_env(
        home,
        OPENAI_BASE_URL=f"{server.url}/v1",
        OPENAI_API_KEY="smig-test",
        OPENAI_MODEL=MODEL,
        NO_COLOR="1",
        CI="1",
        **NO_RELAUNCH,
    )


def run_qwen(
    home: Path, cwd: Path, server: FakeModelServer, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`qwen ARGS` in `cwd` with only the temp home in its environment; fails on a non-zero exit."""
    return run_client([qwen_binary(), *args], cwd, qwen_env(home, server) | (env or {}))
