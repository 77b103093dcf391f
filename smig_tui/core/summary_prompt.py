"""Provides the handoff prompts: the fixed sections, the map (per part) and reduce (merge) requests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PROMPT_VERSION = "handoff-v1"
"""Bumped whenever the prompts change, so summaries cached from older prompts are not reused."""
SECTIONS = (
    "Goal",
    "Current state",
    "Decisions",
    "Open questions",
    "Next steps",
    "Key files and commands",
)
"""The headings every handoff summary carries, in order."""
ChatMessages = list[dict[str, str]]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of consecutive blocks sent in one map request."""

    text: str
    tokens: int
    first_index: int
    last_index: int


def _system_prompt(target_chars: int) -> str:
    """Return the instructions every request shares."""
    headings = "\n".join(f"## {name}" for name in SECTIONS)
    return (
        "You write handoff notes so that another coding agent, which has never seen this "
        "conversation, can pick the work up without asking anything.\n"
        "Write Markdown with exactly these headings, in this order:\n"
        f"{headings}\n"
        "Be concrete: name files, functions, commands, error messages, versions and numbers. "
        "Record what was tried and failed, and what the user asked for or ruled out. "
        "Write 'None.' under a heading with nothing to report. Do not invent anything. "
        "Text like [REDACTED:kind] stands for a secret that was removed: keep the marker, "
        "never guess it. "
        f"Aim for about {target_chars:,} characters and never exceed {int(target_chars * 1.25):,}."
    )


def map_prompt(chunk: Chunk, part: int, parts: int, target_chars: int, head_only: bool) -> ChatMessages:
    """Build the request that summarises one chunk (or the whole transcript when `parts` is 1)."""
    if parts == 1:
        scope = "Here is the conversation, oldest message first."
    else:
        scope = (
            f"Here is part {part} of {parts} of a long conversation (messages "
            f"{chunk.first_index}–{chunk.last_index}), oldest first. Write notes on this part "
            "only; they will be merged later."
        )
    if head_only:
        scope += " The newest messages are handed over verbatim after your note, so cover only what is below."
    return [
        {"role": "system", "content": _system_prompt(target_chars)},
        {"role": "user", "content": f"{scope}\n\n<transcript>\n{chunk.text}\n</transcript>"},
    ]


def reduce_prompt(notes: Sequence[str], target_chars: int, head_only: bool) -> ChatMessages:
    """Build the request that merges notes on consecutive parts into one handoff summary."""
    joined = "\n\n".join(f'<part number="{n}">\n{text.strip()}\n</part>' for n, text in enumerate(notes, 1))
    tail = " The newest messages follow your note verbatim." if head_only else ""
    return [
        {"role": "system", "content": _system_prompt(target_chars)},
        {
            "role": "user",
            "content": "Below are handoff notes on consecutive parts of one conversation, "
            "oldest first. "
            "Merge them into a single handoff note; where a later part contradicts an earlier one, "
            f"the later part is the current truth.{tail}\n\n{joined}",
        },
    ]
