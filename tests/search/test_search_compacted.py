"""Search finds what a Codex compaction took out of the history: the file still holds it.

Before: replies and tool output before a `compacted` line were not indexed (0 of 5 planted, and the
real Codex 0.171.0 session's pre-compaction reply), while Claude Code's pre-`/compact` text was.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

from search_helpers import codex_line, message_line, tool_lines, write_rollout

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "codex" / "auto_compaction"
COMPACTED = "01a23b78-7adb-74e3-8126-e86b52049d09"


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def _hits(*query: str) -> list[dict[str, object]]:
    code, stdout, stderr = smig("search", *query, "--json")
    assert code == 0, stderr
    return json.loads(stdout)


def test_the_real_codex_sessions_compacted_away_reply_and_tool_output_are_found(isolated_homes) -> None:
    shutil.copytree(REAL / "codex_home", isolated_homes["codex"], dirs_exist_ok=True)
    expected = json.loads((REAL / "expected.json").read_text(encoding="utf-8"))
    for rel, mtime in expected["mtimes"].items():
        os.utime(isolated_homes["codex"] / rel, (mtime, mtime))

    [reply] = _hits("Primed", "reporting")  # the assistant's turn-2 reply, before the first compaction
    assert (reply["session_id"], reply["role"], reply["compacted"]) == (COMPACTED, "assistant", True)
    assert "Primed" in str(reply["snippet"])
    tool = [hit for hit in _hits("step-one") if hit["role"] == "tool"]
    assert tool and all(hit["compacted"] for hit in tool)  # tool output of turn 1
    assert any(hit["compacted"] for hit in _hits("before-auto-compact"))  # cut by the mid-turn compaction
    [kept] = _hits("after", "the", "compaction", "--role", "user")
    assert kept["compacted"] is False  # what Codex resumes is not marked
    code, stdout, _ = smig("search", "Primed", "reporting")
    assert code == 0 and "[compacted away]" in stdout.splitlines()[0]

    code, stdout, _ = smig("show", "--json", COMPACTED)  # the session itself is what Codex resumes, as before
    assert code == 0 and "Primed: reporting" not in stdout


def test_planted_text_before_a_compaction_is_found_after_it(isolated_homes) -> None:
    planted = ["quokka", "narwhal", "axolotl", "pangolin", "okapi"]
    path = write_rollout(isolated_homes["codex"], [("user", "start the survey")])
    stamp = "2026-11-30T10:00:03.000Z"
    lines = [message_line("assistant", f"I logged a {planted[0]} sighting", stamp)]
    lines.append(tool_lines("grep -r sightings", f"notes.txt: {planted[1]} near the pier", "call-1", stamp))
    lines.append(message_line("assistant", f"Also a {planted[2]} in the tank", stamp))
    lines.append(tool_lines("cat log", f"{planted[3]} counted twice", "call-2", stamp))
    lines.append(message_line("user", "keep going", stamp))
    lines.append(message_line("assistant", f"An {planted[4]} at dusk", stamp))
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "start the survey"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "keep going"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Summary: a survey ran."}]},
    ]
    compacted = {"message": "Summary: a survey ran.", "replacement_history": history}
    lines.append(codex_line("compacted", compacted, "2026-11-30T10:00:04.000Z"))
    lines.append(message_line("user", "what did we see?", "2026-11-30T10:00:05.000Z"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))

    found = {word: _hits(word) for word in planted}
    assert {word: len(hits) for word, hits in found.items()} == dict.fromkeys(planted, 1)
    assert all(hits[0]["compacted"] for hits in found.values())
    assert [hit["compacted"] for hit in _hits("keep", "going")] == [False]  # kept by the compaction: once
