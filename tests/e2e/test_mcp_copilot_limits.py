"""Pins what smig's page size for GitHub Copilot CLI rests on, with the real client (1.0.102, `copilot -p`):
a tool result of 20,480 UTF-8 bytes reaches the model whole, one byte more is saved to a file and the
model gets a note instead, and structured content is appended to a result's text unless the text is
already that content as compact JSON (smig's is). A small stdio MCP server written by the test returns
results of the sizes asked; skips when Copilot CLI is not installed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_clients import copilot_home, run_copilot

pytestmark = pytest.mark.e2e

SERVER = r"""
import json, sys
TOOL = {"name": "sized", "description": "a result of n characters", "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}, "char": {"type": "string"},
                        "as_json": {"type": "boolean"}}, "required": ["n", "char"]}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "sized", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        args = params["arguments"]
        structured = {"t": args["char"] * args["n"]}
        compact = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        text = compact if args.get("as_json") else "<" + args["char"] * (args["n"] - 2) + ">"
        result = {"content": [{"type": "text", "text": text}], "structuredContent": structured}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                     "error": {"code": -32601, "message": "no such method"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""
LIMIT = 20_480
"""The largest result, in UTF-8 bytes, Copilot CLI 1.0.102 hands the model whole."""


def test_copilot_passes_20_480_bytes_whole_and_files_away_more(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    server = tmp_path / "sized_server.py"
    server.write_text(SERVER, encoding="utf-8")

    def configure(env: dict[str, str]) -> None:
        config = {"mcpServers": {"sized": {"command": sys.executable, "args": [str(server)]}}}
        copilot_home(isolated_homes).mkdir(parents=True)
        (copilot_home(isolated_homes) / "mcp-config.json").write_text(json.dumps(config), encoding="utf-8")

    calls: list[tuple[str, dict[str, Any]]] = [
        ("sized", {"n": LIMIT - 8, "char": "x", "as_json": True}),  # {"t":"…"}: 20,480 bytes
        ("sized", {"n": LIMIT - 7, "char": "x", "as_json": True}),
        ("sized", {"n": (LIMIT - 8) // 3, "char": "移", "as_json": True}),  # bytes count, not characters
        ("sized", {"n": (LIMIT - 8) // 3 + 1, "char": "移", "as_json": True}),
        ("sized", {"n": 100, "char": "y"}),  # a text that is not its structured content
    ]
    project = tmp_path / "project"
    project.mkdir()
    results = run_copilot(isolated_homes, project, calls, configure, server_name="sized")
    whole, over, ja_whole, ja_over, plain = results
    assert len(whole.encode()) == LIMIT and json.loads(whole) == {"t": "x" * (LIMIT - 8)}
    assert len(ja_whole.encode()) <= LIMIT and json.loads(ja_whole)["t"].count("移") == (LIMIT - 8) // 3
    for note in (over, ja_over):
        assert note.startswith("Output too large to read at once (20.0 KB). Saved to: ") and len(note) < 1_000
        assert "Preview (first 500 chars):" in note
    assert plain == "<" + "y" * 98 + ">" + "\n\n" + json.dumps({"t": "y" * 100}, separators=(",", ":"))
