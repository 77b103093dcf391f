"""Records real-client sessions against the fake Chat Completions server, for `tests/fixtures/real/<agent>/`.

A fixture's `make.py` runs its client (`run_kilo`, `run_aider`) through `ChatRecording.run`: a fresh
`FakeChatServer` per run with that run's scripted replies, every request kept with its scenario,
run number and command line, so a reader can be checked against what the model saw. `overhead`
splits one request into what the client adds to the typed prompt, counted by o200k_base as
`smig_tui/data/agent_overhead.json` is.
"""

from __future__ import annotations

import json
import lzma
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fake_chat_server import FakeChatServer, offers_tools

Runner = Callable[..., subprocess.CompletedProcess[str]]


class ChatRecording:
    """One agent's recording: a home and project folders under `root`, requests kept per scenario."""

    def __init__(self, root: Path, runner: Runner, takes_step: Callable[[dict[str, Any]], bool] = offers_tools) -> None:
        if root.exists():
            shutil.rmtree(root)
        self.root = root
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.runner = runner
        self.takes_step = takes_step
        self.entries: list[dict[str, Any]] = []

    def project(self, name: str, files: dict[str, str] | None = None) -> Path:
        """A project folder `root/work/NAME` holding `files`."""
        folder = self.root / "work" / name
        folder.mkdir(parents=True, exist_ok=True)
        for relative, text in (files or {}).items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text, encoding="utf-8")
        return folder

    def run(
        self, scenario: str, cwd: Path, steps: list[dict[str, Any]], *args: str, **options: Any
    ) -> subprocess.CompletedProcess[str]:
        """Run the client once with its own fake server; keep the requests it sent under `scenario`."""
        run_number = 1 + len({entry["run"] for entry in self.entries if entry["scenario"] == scenario})
        with FakeChatServer(steps, takes_step=self.takes_step) as server:
            result = self.runner(self.home, cwd, server, *args, **options)
            for method, path, body in server.requests:
                entry = {"scenario": scenario, "run": run_number, "argv": list(args), "method": method, "path": path}
                self.entries.append(entry | {"body": body})
        return result

    def save_requests(self, path: Path) -> None:
        """`requests.jsonl.xz`: one line per request (scenario, run, argv, method, path, body).

        xz: every request repeats the same system prompt and tools, which xz stores once.
        """
        text = "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in self.entries)
        with lzma.open(path, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as out:
            out.write(text)


def load_requests(path: Path, scenario: str | None = None) -> list[dict[str, Any]]:
    """The recorded requests of `path` (all, or one scenario's), in the order the client sent them."""
    with lzma.open(path, "rt", encoding="utf-8") as source:
        entries = [json.loads(line) for line in source if line.strip()]
    return [entry for entry in entries if scenario is None or entry["scenario"] == scenario]


def _text(content: Any) -> str:
    """A Chat Completions content (a string or text parts) as one string."""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def overhead(body: dict[str, Any], prompt: str) -> dict[str, int]:
    """What a Chat Completions request adds to `prompt`, by o200k_base: system, tools, injected context.

    `injected` is every non-system message's text less the typed prompt (Kilo's
    `<environment_details>`, Aider's example conversation and file notices).
    """
    from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

    count = make_counter("o200k_base").count
    messages = body.get("messages") or []
    system = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
    others = "\n".join(_text(m.get("content")) for m in messages if m.get("role") != "system")
    tools = json.dumps(body.get("tools") or [], ensure_ascii=False) if body.get("tools") else ""
    injected = count(others.replace(prompt, "", 1)) if others else 0
    parts = {"system": count(system) if system else 0, "tools": count(tools) if tools else 0, "injected": injected}
    return parts | {"total": sum(parts.values())}
