"""Records real-client sessions for `tests/fixtures/real/<agent>/`: each run's requests, and the overhead.

A fixture's `make.py` runs a client (`run_copilot`, `run_pi`, `run_qwen`, `run_kilo`, `run_aider`)
through `Recording.run`: a fresh fake model server per run (the client's scripted replies), every
request the client sent kept with its scenario, run number and command line, so a reader can be
checked against what the model saw. `overhead` splits one request (Anthropic Messages or Chat
Completions) into what the client adds to a typed prompt (system prompt, tool definitions, injected
context), counted by o200k_base as `smig_tui/data/agent_overhead.json` is.
"""

from __future__ import annotations

import json
import lzma
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fake_model_server import REPLY, FakeModelServer, offers_tools
from terminal import Terminal

Runner = Callable[..., subprocess.CompletedProcess[str]]


class Recording:
    """One agent's recording: a home and project folders under `root`, requests kept per scenario."""

    def __init__(
        self,
        root: Path,
        runner: Runner,
        scrub: dict[str, str] | None = None,
        takes_step: Callable[[dict[str, Any]], bool] = offers_tools,
    ) -> None:
        """`scrub` maps machine-specific text (an install path a system prompt names) to a stand-in;
        `takes_step` picks the requests a scripted step answers (Aider's, offering no tools: all;
        Kilo's: its compaction request too)."""
        if root.exists():
            shutil.rmtree(root)
        self.root = root
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.runner = runner
        self.scrub = scrub or {}
        self.takes_step = takes_step
        self.requests: dict[str, list[dict[str, Any]]] = {}

    def project(self, name: str, files: dict[str, str] | None = None) -> Path:
        """A project folder `root/work/NAME` holding `files`."""
        folder = self.root / "work" / name
        folder.mkdir(parents=True, exist_ok=True)
        for relative, text in (files or {}).items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text, encoding="utf-8")
        return folder

    def run(
        self,
        scenario: str,
        cwd: Path,
        steps: list[dict[str, Any]],
        *args: str,
        reply: str = REPLY,
        **options: Any,
    ) -> subprocess.CompletedProcess[str]:
        """Run the client once with its own fake server; keep the requests it sent under `scenario`.

        `reply` answers what no step does (a client's side requests, such as a compaction summary).
        """
        kept = self.requests.setdefault(scenario, [])
        run_number = len({entry["run"] for entry in kept}) + 1
        with FakeModelServer(steps, reply=reply, takes_step=self.takes_step) as server:
            result = self.runner(self.home, cwd, server, *args, **options)
            for method, path, body in server.requests:
                entry = {"scenario": scenario, "run": run_number, "argv": list(args), "method": method, "path": path}
                kept.append(entry | {"body": body})
        return result

    def run_interactive(
        self,
        scenario: str,
        cwd: Path,
        command: list[str],
        env: Callable[[FakeModelServer], dict[str, str]],
        ready: str,
        prompt: str,
    ) -> None:
        """Type `prompt` into the client's own terminal UI once it shows `ready`; keep the first turn's requests.

        The interactive mode is what a user resumes a migrated session in, and its system prompt and
        tools differ from the one-prompt mode's (`-p`), so the overhead is measured there too.
        """
        kept = self.requests.setdefault(scenario, [])
        with FakeModelServer() as server:
            child_env = env(server)
            child_env.pop("CI", None)  # some clients keep their terminal UI off under CI
            terminal = Terminal(command, cwd, child_env)
            try:
                terminal.wait_for(terminal.shows(ready), "the client's prompt")
                terminal.type_until(prompt, terminal.shows(prompt), "the prompt to be typed")
                terminal.type_until("\r", server.answered.is_set, "the client's request", attempt=10.0)
            finally:
                terminal.close()
            for method, path, body in server.requests:
                entry = {"scenario": scenario, "run": 1, "argv": ["(interactive)", prompt], "method": method}
                kept.append(entry | {"path": path, "body": body})

    def save_requests(self, path: Path) -> None:
        """`requests.jsonl.xz`: one line per request (scenario, run number, argv, path, body).

        xz, not gzip: every request repeats the same system prompt and tools (tens of KB), which
        xz's large window stores once; the file stays about 20 KB.
        """
        text = "".join(
            json.dumps(entry, ensure_ascii=False) + "\n" for entries in self.requests.values() for entry in entries
        )
        for machine, stand_in in self.scrub.items():
            text = text.replace(machine, stand_in)
        with lzma.open(path, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as out:
            out.write(text)

    def keep(self, fixture: Path, files: Iterable[Path]) -> None:
        """Copy `files` (under the recording's home) and `as-written/` into `fixture`, replacing the old copies."""
        for name in ("home", "as-written"):
            if (fixture / name).exists():
                shutil.rmtree(fixture / name)
        for path in files:
            target = fixture / path.relative_to(self.root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        shutil.copytree(self.root / "as-written", fixture / "as-written")

    def overheads(self, runs: dict[str, str], prompt: str) -> dict[str, dict[str, int]]:
        """`overhead` of each named run's first request (`runs` maps a name to its scenario)."""
        return {name: overhead(self.requests[scenario][0]["body"], prompt) for name, scenario in runs.items()}


def load_requests(path: Path, scenario: str | None = None) -> list[dict[str, Any]]:
    """The recorded requests of `path` (all, or one scenario's), in the order the client sent them."""
    with lzma.open(path, "rt", encoding="utf-8") as source:
        entries = [json.loads(line) for line in source if line.strip()]
    return [entry for entry in entries if scenario is None or entry["scenario"] == scenario]


def conversation(body: dict[str, Any]) -> list[tuple[str, str]]:
    """A request's conversation as (kind, text) items, system prompt left out, in the order sent.

    Kinds: `user`, `assistant`, `call:NAME` (its arguments as JSON, with `#ID`), `result` (with
    `#ID`). Reads the Anthropic Messages shape (content blocks) and the Chat Completions shape
    (`tool_calls`, `role: tool`), so a test can compare what two clients sent item by item.
    """
    items: list[tuple[str, str]] = []
    for message in body.get("messages") or []:
        role = message.get("role")
        if role == "system":
            continue
        content = message.get("content")
        if role == "tool":
            text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])
            items.append(("result", f"#{message.get('tool_call_id')} {text}"))
            continue
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input"), ensure_ascii=False)
                items.append((f"call:{block.get('name')}", f"#{block.get('id')} {arguments}"))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else "".join(b.get("text", "") for b in inner or [])
                items.append(("result", f"#{block.get('tool_use_id')} {text}"))
            elif isinstance(block.get("text"), str):
                items.append((role, block["text"]))
        for call in message.get("tool_calls") or []:
            function = call["function"]
            items.append((f"call:{function['name']}", f"#{call['id']} {function['arguments']}"))
    return items


def system_text(body: dict[str, Any]) -> str:
    """The system prompt: Anthropic's `system` (text or blocks) or the Chat Completions system message(s)."""
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(block.get("text", "") for block in system)
    parts = [m["content"] for m in body.get("messages") or [] if m.get("role") == "system"]
    return "\n".join(part if isinstance(part, str) else json.dumps(part, ensure_ascii=False) for part in parts)


def overhead(body: dict[str, Any], prompt: str) -> dict[str, int]:
    """What the client adds to `prompt` in one request, by o200k_base: system, tools, injected context.

    Injected context is every conversation item's text less the typed prompt (Kilo's
    `<environment_details>`, Aider's example conversation and file notices).
    """
    from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

    counter = make_counter("o200k_base")
    tools = body.get("tools") or []  # none (Aider): 0 tokens, not the 1 of "[]"
    sent = sum(
        counter.count(text.split(" ", 1)[-1] if kind != "user" and kind != "assistant" else text)
        for kind, text in conversation(body)
    )
    parts = {
        "system prompt": counter.count(system_text(body)),
        f"tool definitions ({len(tools)} tools)": counter.count(json.dumps(tools, ensure_ascii=False)) if tools else 0,
        "injected context": sent - counter.count(prompt),
    }
    return parts | {"total": sum(parts.values())}
