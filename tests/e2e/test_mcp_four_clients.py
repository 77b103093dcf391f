"""Proves, in each of the seven real clients set up by `smig mcp --install` in its real config file, that
a default page and a largest page (`max_chars` at its ceiling) of Japanese and of ASCII reach the model
whole, and that paging through a 1 MB handoff (ASCII, Japanese, emoji outside the BMP, quotes and
backslashes) reassembles it exactly.

The handoffs are committed in-process first, so the scripted model knows every page's offset up front;
each page the client hands the model must equal, value for value, the page smig made. Skips when the
clients are not installed (`SMIG_E2E_BIN`, `SMIG_E2E_NEW_BIN`; CI installs them pinned).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from codex_rollouts import write_rollout
from mcp_clients import (
    Calls,
    install,
    parsed,
    run_claude,
    run_codex,
    run_copilot,
    run_gemini,
    run_kilo,
    run_opencode,
    run_qwen,
)

from smig_tui.mcp.schemas import MAX_PAGE_CHARS, PAGE_CHARS
from smig_tui.mcp.tools import SmigTools, pages_for
from smig_tui.plugins import profile_of
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

IDS = {
    "ascii": "019aa001-0000-7000-8000-00000000a5c1",
    "ja": "019aa002-0000-7000-8000-0000000004a0",
    "big": "019aa003-0000-7000-8000-000000000b19",
}
JAPANESE = (
    "移行したセッションは受け取る側のエージェントでそのまま再開できます。トークン数を数え、窓に収まるかを判断します。"
)
ASCII = 'The parser keeps its flags in one table; "quoted" words and C:\\\\paths stay as written. '
MIXED = [
    ASCII * 4,
    JAPANESE * 3,
    "emoji outside the BMP: 🚀🧪𝄞 and 😀 " * 20,
    "tab\there, a newline\nand <tags> & ampersands " * 8,
]


@pytest.fixture
def handoffs(isolated_homes: dict[str, Path], tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    """Three committed handoffs (ASCII, Japanese, 1 MB mixed), each page smig makes of them for the client
    (its agent's page ceiling, when it has one), and a project."""
    texts = {
        "ascii": [f"step {n}: " + ASCII * 60 for n in range(20)],
        "ja": [f"手順 {n}: " + JAPANESE * 40 for n in range(20)],
        "big": [f"part {n}: " + MIXED[n % len(MIXED)] * 12 for n in range(260)],
    }
    folders = {}
    for name, session_id in IDS.items():
        folders[name] = tmp_path / name
        folders[name].mkdir()
        write_rollout(isolated_homes["codex"], folders[name], session_id, texts[name])
    tools = SmigTools(build_services())
    profile = profile_of(request.node.callspec.params["client"])
    ceiling = profile.mcp.page_chars if profile is not None and profile.mcp is not None else None
    pages: dict[str, list[dict[str, Any]]] = {}
    for session_id in IDS.values():
        tools.commit_migration(session_id, "gemini-2.5-pro", strategy="as-is", to=["store"])
    with pages_for(ceiling):  # what the server does for a call from this client
        for name in IDS:
            offset: int | None = 0
            pages[name] = []
            while offset is not None:
                pages[name].append(tools.get_handoff(str(folders[name]), offset=offset))
                offset = pages[name][-1]["next_offset"]
        largest = {name: tools.get_handoff(str(folders[name]), max_chars=MAX_PAGE_CHARS) for name in ("ascii", "ja")}
    assert sum(len(page["content"].encode()) for page in pages["big"]) > 1_000_000
    project = tmp_path / "project"
    project.mkdir()
    return {
        "folders": folders,
        "pages": pages,
        "largest": largest,
        "project": project,
        "homes": isolated_homes,
        "ceiling": ceiling or MAX_PAGE_CHARS,
    }


def calls_for(handoffs: dict[str, Any]) -> Calls:
    """A largest page of ASCII and of Japanese, a default page of each, then every page of the 1 MB handoff."""
    folders = handoffs["folders"]
    calls: Calls = [
        ("get_handoff", {"workspace": str(folders[name]), "max_chars": MAX_PAGE_CHARS}) for name in ("ascii", "ja")
    ]
    calls += [
        ("get_handoff", {"workspace": str(folders["ascii"])}),
        ("get_handoff", {"workspace": str(folders["ja"])}),
    ]
    calls += [
        ("get_handoff", {"workspace": str(folders["big"]), "offset": page["offset"]})
        for page in handoffs["pages"]["big"]
    ]
    return calls


def check_pages(results: list[str], handoffs: dict[str, Any]) -> None:
    """Every page reached the model whole, and the 1 MB handoff reassembles exactly."""
    pages = handoffs["pages"]
    largest = [handoffs["largest"]["ascii"], handoffs["largest"]["ja"]]
    ceiling = handoffs["ceiling"]
    assert min(_bytes(page) for page in largest) > ceiling - 1_000 and max(_bytes(page) for page in largest) <= ceiling
    expected = [*largest, pages["ascii"][0], pages["ja"][0], *pages["big"]]
    assert len(results) == len(expected), [text[:200] for text in results[-2:]]
    for text, page in zip(results, expected, strict=True):
        assert parsed(text) == page
    results = results[2:]  # the default pages, then the 1 MB handoff's
    ascii_bytes, ja_bytes = (_bytes(page) for page in expected[2:4])
    default = min(PAGE_CHARS, ceiling)
    assert min(ascii_bytes, ja_bytes) > default * 5 // 6 and max(ascii_bytes, ja_bytes) <= default
    assert pages["ja"][0]["content"].count("移行") > default // 400
    whole = "".join(parsed(text)["content"] for text in results[2:])
    assert whole == "".join(page["content"] for page in pages["big"]) and len(whole) == pages["big"][0]["total_chars"]
    assert "🚀🧪𝄞" in whole and JAPANESE in whole and "C:\\\\paths" in whole


def _bytes(page: dict[str, Any]) -> int:
    """UTF-8 bytes of a page as smig sends it."""
    return len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize(
    "client",
    ["claude", "codex", "gemini", "opencode", "qwen", "kilo", "copilot"],
)
def test_default_pages_and_a_1_mb_handoff_reach_the_model_whole(handoffs: dict[str, Any], client: str) -> None:
    runner = {
        "claude": run_claude,
        "codex": run_codex,
        "gemini": run_gemini,
        "opencode": run_opencode,
        "qwen": run_qwen,
        "kilo": run_kilo,
        "copilot": run_copilot,
    }[client]
    results = runner(handoffs["homes"], handoffs["project"], calls_for(handoffs), install(client))
    check_pages(results, handoffs)
