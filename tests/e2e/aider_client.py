"""Runs the real Aider (PyPI `aider-chat` 0.86.2) against the fake model server (Chat Completions), in an isolated home.

Aider lives in its own venv (its ~120 dependencies must not enter smig's): `SMIG_AIDER_BIN` names its
`aider`, else `~/.cache/smig-aider/bin/aider`, else the test skips. It reaches the fake through
LiteLLM's OpenAI provider (`--openai-api-base`, a model named `openai/...`). Offline it would try
three downloads, each failing harmlessly but printing an error: LiteLLM's model price map
(`LITELLM_LOCAL_MODEL_COST_MAP` keeps the bundled copy), the same map for Aider's own cache (a
non-empty cache file younger than a day stops it) and, without `--no-check-update`, PyPI.
`--analytics-disable` records the opt-out in the home's `.aider/analytics.json`.

A window smaller than the model's is given as `window=N`: written to a model metadata file, which
also sets when Aider summarises its chat history (`max_input_tokens / 16`, at least 1,024 tokens).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from client_runs import clean_env, run_client
from fake_model_server import FakeModelServer

MODEL = "openai/gpt-4.1"
"""A model LiteLLM knows (window, prices, Aider's `diff` edit format and `gpt-4.1-mini` weak model)."""
QUIET = ("--no-check-update", "--analytics-disable", "--no-show-release-notes", "--no-pretty", "--no-fancy-input")
_DEFAULT_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-aider" / "bin" / "aider"


def aider_binary() -> str:
    """The installed `aider`, or skip."""
    for candidate in (os.environ.get("SMIG_AIDER_BIN"), str(_DEFAULT_BIN)):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("aider is not installed (set SMIG_AIDER_BIN or install aider-chat==0.86.2 in ~/.cache/smig-aider)")


def prepare_home(home: Path) -> None:
    """Give the home a fresh model-price cache, so Aider does not try to download one."""
    cache = home / ".aider" / "caches" / "model_prices_and_context_window.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"smig-offline": {"note": "stops Aider's download of this map"}}), encoding="utf-8")


def metadata_file(home: Path, model: str, window: int) -> Path:
    """A `--model-metadata-file` giving `model` a `window`-token context (LiteLLM's fields)."""
    path = home / "model-metadata.json"
    entry = {
        "max_input_tokens": window,
        "max_tokens": 4096,
        "max_output_tokens": 4096,
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    path.write_text(json.dumps({model: entry}), encoding="utf-8")
    return path


def aider_env(home: Path) -> dict[str, str]:
    """Only the temp home and what Aider needs: a dummy key, no colours, no downloads."""
    return clean_env(home, OPENAI_API_KEY="smig-test", LITELLM_LOCAL_MODEL_COST_MAP="True", TERM="dumb", NO_COLOR="1")


def run_aider(
    home: Path,
    cwd: Path,
    server: FakeModelServer,
    *args: str,
    model: str = MODEL,
    window: int | None = None,
    typed: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`aider ARGS` in `cwd` against `server`; fails the test on a non-zero exit.

    Without `typed` every question is answered yes (`--yes-always`, which still declines to run a
    shell command the model suggests); with it, Aider reads `typed` as the keyboard: prompts and
    answers, one a line (a plain pipe: `--no-fancy-input`).
    """
    prepare_home(home)
    argv = [aider_binary(), "--model", model, "--openai-api-base", f"{server.url}/v1", *QUIET]
    if typed is None:
        argv.append("--yes-always")
    if window is not None:
        argv += ["--model-metadata-file", str(metadata_file(home, model, window))]
    return run_client([*argv, *args], cwd, aider_env(home), typed)


def every_request(_body: object) -> bool:
    """Aider offers no tools: every request (a turn, a commit message, a summary) takes the next step."""
    return True


def handwritten_history(tag: str) -> str:
    """A two-turn chat with a shell call in Aider's chat-history Markdown, as a migration would write it.

    User lines start `#### ` and end in two spaces (as Aider writes them); a reply line that would
    read as markup on restore (`#` is dropped, `>` is tool output, `####` a user line) is indented
    by one space; the call and its output are text of the reply, the only form Aider has for them.
    """
    return (
        "\n# aider chat started at 2026-12-01 10:00:00\n\n"
        f"> smig: migrated from a Codex CLI session ({tag})  \n\n"
        f"#### {tag}-1: what does plan.txt say?  \n"
        "#### (a second line of the question)  \n\n"
        f"I'll look.\n\n $ cat plan.txt\n\n```\n{tag}-OUTPUT: migrate by friday\n```\n\n"
        " # not a heading\n > not a quote\n\n"
        f"#### {tag}-2: and then?  \n\n"
        f"{tag}-REPLY-2: ship it on friday.\n\n"
    )
