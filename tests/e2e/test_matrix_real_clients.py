"""Every direction between the agents that have a driver, as-is and truncated, proven by the receiving real client.

Each source is a session the agent's real client wrote (tests/e2e/drivers/<agent>.py says which: a
recorded fixture here or in ../shared). `smig migrate --to AGENT` writes it for the receiving agent;
that agent's real client resumes it against a local fake model server, and the request it sent must
carry smig's handoff note, the kept text and, when truncated, the placeholder instead of the text the
plan dropped. One fake server of each kind serves the whole module, and one `kilo serve` and one
`opencode serve` (tests/e2e/served_clients.py) receive the Kilo and OpenCode cases.

Every pair runs as-is. Truncated runs for the pairs among the first four agents and, for every other
agent, once as the source and once as the receiver (`TRUNCATED`): truncation is the planner's, the same
for every pair, and the real clients cost CI about 10 s a case. A pair a client cannot do skips with
the reason its driver gives (`gap`).
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from drivers import Servers, all_drivers, gap
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from real_clients import escaped, prose
from served_clients import ServedClients

from smig_tui.adapters.agents.registry import BUILT_IN
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Kind, Message, Strategy
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

DRIVERS = all_drivers()
AGENTS = list(DRIVERS)
FIRST_FOUR = ("codex", "claude", "gemini", "opencode")
"""The agents the matrix began with: all their pairs run truncated too."""


def _truncated_pairs(agents: list[str]) -> set[tuple[str, str]]:
    """The first four's 16 pairs, and each agent to the next one in name order (the last to the first):
    every agent once more as a truncated source and once as a truncated receiver."""
    pairs = {(source, receiver) for source in FIRST_FOUR for receiver in FIRST_FOUR}
    pairs |= {(agents[i], agents[(i + 1) % len(agents)]) for i in range(len(agents))}
    return pairs


TRUNCATED = _truncated_pairs(AGENTS)
CASES = [
    pytest.param(
        source,
        receiver,
        truncated,
        id=f"{source}-{receiver}-{'truncated' if truncated else 'as-is'}",
        # a receiver served by one long-lived client server (drivers/kilo.py): its cases on one worker, one server
        marks=[pytest.mark.xdist_group(f"matrix-to-{receiver}")] if getattr(DRIVERS[receiver], "SERVED", False) else [],
    )
    for source in AGENTS
    for receiver in AGENTS
    for truncated in (False, True)
    if not truncated or (source, receiver) in TRUNCATED
]


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with FakeModelServer() as model, FakeGeminiServer() as gemini:
        clients = ServedClients()
        try:
            yield Servers(model, gemini, clients)
        finally:
            clients.close()


def _smig(*argv: str) -> dict[str, Any]:
    """`smig ARGV --json` in-process; its parsed output (fails the test on a non-zero exit)."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main([*argv, "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return dict(json.loads(out.stdout.getvalue()))


def _half_target(homes: dict[str, Path], session_id: str, receiver: str) -> str:
    """A model in smig's config, of the receiver's provider, whose room holds about half of the session."""
    config = homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    before = config.read_text(encoding="utf-8") if config.is_file() else ""  # a source's own (Aider's folders)

    def write(window: int) -> None:
        # harness_window set by hand: it holds whatever agent receives the session (each agent's own
        # compaction rule on so small a window, Claude Code's 33,000 below it, would leave no room)
        config.write_text(
            f'{before}\n[models."half-{receiver}"]\ncontext_window = {window}\nmax_output = 500\n'
            f'harness_window = {window}\nprovider = "{DRIVERS[receiver].PROVIDER}"\nencoding = "o200k_base"\n',
            encoding="utf-8",
        )

    write(10**7)
    services = build_services()
    session = services.load_session(services.find_session(session_id))
    decision = services.plan(session, f"half-{receiver}", Strategy.AS_IS, agent=receiver).decision
    write(decision.session_tokens // 2 + decision.overhead + decision.reserve)
    return f"half-{receiver}"


def _gone(dropped: list[Message], kept_text: str) -> list[str]:
    """The first line (up to 60 characters) of each dropped text long enough to be told apart and not kept
    elsewhere; when there is none, of each dropped tool output (a short session's dropped prose may all be
    quoted in the placeholder, its outputs are not), skipping a wrapper's tag line such as `<untrusted_context>`."""
    lines = prose([{"kind": m.kind.value, "role": m.role.value, "text": m.text} for m in dropped])
    gone = [line for line in lines if line not in kept_text]
    if gone:
        return gone
    for message in dropped:
        text = [line for line in message.text.strip().splitlines() if not re.fullmatch(r"\s*<[^>]*>\s*", line)]
        if message.kind == Kind.TOOL_RESULT and text and len(text[0]) >= 12 and text[0][:60] not in kept_text:
            gone.append(text[0][:60])
    return gone


def test_every_built_in_agent_has_a_whole_driver() -> None:
    """No agent is left out of the matrix silently: what one cannot do is its driver's `gap`, with the reason."""
    assert set(AGENTS) == set(BUILT_IN)
    needed = ("TARGET", "PROVIDER", "smig_env", "install_source", "prepare_receiver", "resume")
    assert {agent: [name for name in needed if not hasattr(DRIVERS[agent], name)] for agent in AGENTS} == {
        agent: [] for agent in AGENTS
    }


def test_every_agent_is_a_truncated_source_and_receiver_at_least_once() -> None:
    assert {source for source, _ in TRUNCATED} == set(AGENTS) == {receiver for _, receiver in TRUNCATED}


@pytest.mark.parametrize(("source", "receiver", "truncated"), CASES)
def test_the_receiving_client_resumes_the_migrated_session(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: Servers,
    source: str,
    receiver: str,
    truncated: bool,
) -> None:
    reason = gap(source, receiver, truncated)
    if reason:
        pytest.skip(reason)
    sender, taker = DRIVERS[source], DRIVERS[receiver]
    for key, value in taker.smig_env(isolated_homes).items():  # e.g. the client a writer runs (skips if absent)
        monkeypatch.setenv(key, value)
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = sender.install_source(isolated_homes, project, tmp_path)
    target = _half_target(isolated_homes, session_id, receiver) if truncated else taker.TARGET
    strategy = "truncate" if truncated else "as-is"
    for key, value in (taker.prepare_receiver(isolated_homes, servers) or {}).items():
        monkeypatch.setenv(key, value)  # where the receiver's server keeps its sessions
    result = _smig(
        "migrate", session_id, "--target", target, "--strategy", strategy, "--to", receiver, "--cwd", str(project)
    )
    record = result["record"]
    [written] = [entry for entry in result["files"] if entry["destination"] == receiver and entry.get("session_id")]

    sent = json.dumps(taker.resume(written["session_id"], isolated_homes, project, servers), ensure_ascii=False)

    kept = prose(record["messages"])
    assert kept, "the migration kept no prose to look for"
    for text in [NOTE_PREFIX, result["migration_id"], kept[0], kept[-1]]:
        assert escaped(text) in sent, text
    assert (record["left_out"] > 0) is truncated  # as-is leaves out only harness context
    if not truncated:
        assert [text for text in getattr(sender, "CARRIES", ()) if escaped(text) not in sent] == []
        if receiver != source:  # the agent's own client adds such text to its new turn itself
            assert [text for text in getattr(sender, "LEFT_BEHIND", ()) if escaped(text) in sent] == []
    if truncated:
        placeholder = record["placeholder"]
        assert placeholder and escaped(placeholder.split("«")[0]) in sent
        services = build_services()
        original = services.load_session(services.find_session(session_id))
        dropped = set(record["dropped_ids"])
        kept_text = placeholder + "".join(message["text"] for message in record["messages"])
        gone = _gone([m for m in original.messages if m.id in dropped and not m.injected], kept_text)
        assert gone, "the truncation left out no distinctive text"
        assert not [line for line in gone if escaped(line) in sent]
