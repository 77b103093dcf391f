"""Aider 0.86.2 in the real-client matrix: its recorded chat history as a source, its real client as a receiver.

Aider keeps its history in the project folder, so the source is the recorded `chat` project's
`.aider.chat.history.md` put into `project`, and smig is pointed at that folder the way a user
would, by `[agents.aider] folders` in its config (the test runs smig from the repository, outside
the temp home, where smig would otherwise not look). A receiver resumes the history smig wrote with
the command the migration recorded (`aider --restore-chat-history --chat-history-file FILE`), plus
`--max-chat-history-tokens` high enough that Aider sends the history as it is rather than having its
weak model summarise it first (what it does past 8,192 tokens for gpt-4.1; docs/formats/aider.md).

Memory: Aider's own is a conventions file its global `~/.aider.conf.yml` reads (`read:`); that list
also names smig's bundle, as smig asks a user whose config has a `read` key to write it, and Aider
sends both files whole in its request.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from aider_client import run_aider

from drivers import PROMPT, Servers
from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider.writer import resume_argv
from smig_tui.adapters.paths import resolve_paths

AGENT = "aider"
TARGET = "gpt-4.1"
PROVIDER = "openai"
RECORDED = Path(__file__).parents[2] / "fixtures" / "real" / "aider" / "projects" / "chat"
HISTORY_LIMIT = "1000000"
"""`--max-chat-history-tokens` on resume: the restored history goes to the model whole, as smig wrote it."""
CARRIES = ("CHAT-1: hello aider", "CHAT-REPLY-3", "DEFAULT-FILE: which")
"""The first prompt, a reply of the third run and a prompt of the default history file."""
LEFT_BEHIND = ("a quoted line",)
"""A reply's line Aider itself never restored (it reads that reply lossily): smig migrates what Aider sends."""


MEMORY_PROMPT = "MEMORY: what do you know?"


def smig_env(_homes: dict[str, Path]) -> dict[str, str]:
    """Nothing: smig writes Aider's history itself."""
    return {}


def look_in(folder: Path) -> None:
    """Name `folder` in smig's config (`[agents.aider] folders`), once."""
    config = resolve_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    text = config.read_text(encoding="utf-8") if config.is_file() else ""
    line = f"folders = [{str(folder)!r}]"
    if "[agents.aider]" in text:
        text = text.replace("[agents.aider]\nfolders = [", f"[agents.aider]\nfolders = [{str(folder)!r}, ", 1)
    else:
        text += f"\n[agents.aider]\n{line}\n"
    config.write_text(text, encoding="utf-8")


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """The recorded `chat` history (three runs, a reply Aider read lossily) in `project`; its id."""
    project.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RECORDED / places.DEFAULT_NAME, project / places.DEFAULT_NAME)
    look_in(project)
    return places.session_id_of(project / places.DEFAULT_NAME)


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Nothing to configure before smig writes: the history names no model (Aider's flags do)."""


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """`aider --restore-chat-history --chat-history-file FILE --message PROMPT` in `project`; its main turn."""
    servers.clear()
    argv = resume_argv(session_id)[1:]
    run_aider(homes["home"], project, servers.model, "--no-git", "--max-chat-history-tokens", HISTORY_LIMIT, *argv,
              "--message", PROMPT)  # fmt: skip
    return main_turn(servers.model.bodies("/chat/completions"), PROMPT)


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """`note` in `~/CONVENTIONS.md`, read by the global config's `read:` list (which names smig's bundle)."""
    home = homes["home"]
    (home / "CONVENTIONS.md").write_text(f"# Conventions\n- {note}\n", encoding="utf-8")
    (home / ".aider.conf.yml").write_text(
        "read:\n  - ~/CONVENTIONS.md\n  - ~/.aider.smig_memory.md\n", encoding="utf-8"
    )


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """A new `aider --message` run in `project`; its model request."""
    servers.clear()
    run_aider(homes["home"], project, servers.model, "--no-git", "--message", MEMORY_PROMPT)
    return main_turn(servers.model.bodies("/chat/completions"), MEMORY_PROMPT)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Aider sends every file its config reads, smig's bundle among them: every agent's note, its own included."""
    return list(notes.values())


def main_turn(bodies: list[dict[str, Any]], prompt: str) -> dict[str, Any]:
    """The request of the turn that sent `prompt` (not a commit-message or summary request)."""
    turns = [body for body in bodies if any(m.get("content") == prompt for m in body.get("messages", []))]
    assert turns, f"Aider sent no request with {prompt!r}"
    return turns[-1]
