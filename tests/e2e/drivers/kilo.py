"""Kilo Code CLI 7.7.7 in the real-client matrix: a session the real client recorded (tests/fixtures/real/kilo,
the `tools` scenario: three tool calls) as the source, `kilo import` (smig's writer) then
`kilo run -s ID PROMPT` against the fake server's Chat Completions as the receiver.

Where the module keeps client servers (`servers.clients`), the receiver is the module's one `kilo serve`
(tests/e2e/served_clients.py): smig writes into its database and the resume is the request `kilo run -s`
sends it; a case whose temp home already holds a Kilo database (Kilo is the source too) runs `kilo run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kilo_builders import RECORDED_ROOT, install_database
from kilo_client import QUIET, configure, database, kilo_binary, kilo_env, run_kilo
from served_clients import ServedClient

from drivers import PROMPT, Servers, last_turn, write_note
from smig_tui.core.models import Agent
from smig_tui.services import build_services

AGENT = "kilo"
TARGET = "gpt-4.1"
PROVIDER = "openai"
"""Kilo runs the model its config names (`fake/gpt-4.1`, OpenAI-compatible), whatever the plan's target."""
CARRIES = (
    "TOOLS-1: read notes.txt with bash and with read",
    "cat notes.txt",
    "codename: OSPREY",
    "TOOLS-REPLY: the codename is OSPREY, release 93.",
)
"""The first prompt, a bash call's command, the file's text its tools read, the last reply."""


DB = "KILO_DB"
"""Where Kilo, its `import` and smig find Kilo's database."""
SERVED = True
"""The matrix runs the cases Kilo receives on one worker (`xdist_group`), so one `kilo serve` serves them all."""


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    """smig writes through `kilo import`: the client, and its quiet switches."""
    return {"SMIG_KILO_BIN": kilo_binary()} | QUIET


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    install_database(homes["home"] / ".local" / "share" / "kilo" / "kilo.db")
    services = build_services()
    [info] = [i for i in services.list_sessions(agent=Agent("kilo")) if i.cwd == f"{RECORDED_ROOT}/tools"]
    return info.id


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> dict[str, str] | None:
    """Kilo's config: the provider `fake` at the server (smig's writer names its model on the messages);
    with the module's `kilo serve`, its database for smig to write into."""
    configure(homes["home"], servers.model)

    def start(home: Path) -> ServedClient:
        configure(home, servers.model)
        return ServedClient("kilo", kilo_binary(), home, kilo_env(home), database(home))

    return None if servers.clients is None else servers.clients.database_env(AGENT, DB, database(homes["home"]), start)


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`kilo run [ARGS] PROMPT`; the request of that turn."""
    servers.clear()
    run_kilo(homes["home"], project, servers.model, "run", *args, PROMPT)
    return _last(servers)


def _last(servers: Servers) -> dict[str, Any]:
    """The last request of the turn (the title request offers no tools)."""
    return last_turn([body for body in servers.model.bodies("/chat/completions") if body.get("tools")], "Kilo")


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    servers.clear()
    if servers.clients is not None and servers.clients.resumed(AGENT, DB, session_id, project, PROMPT):
        return _last(servers)
    return _turn(homes, project, servers, "-s", session_id)  # smig wrote into the temp home


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """Kilo's global rules, `~/.config/kilo/AGENTS.md` (as OpenCode's)."""
    write_note(homes["home"] / ".config" / "kilo" / "AGENTS.md", f"# Rules\n\n- {note}\n")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Kilo loads its global AGENTS.md (no imports, as OpenCode): its own note and smig's line naming the bundle."""
    return [notes[AGENT], f"also read {homes['home'] / '.config' / 'kilo' / 'smig_memory.md'}"]
