"""Provides generated Aider chat histories for the benchmark: one per corpus entry, of its size.

Aider keeps one `.aider.chat.history.md` per project folder (docs/formats/aider.md), so each entry
names its own folder (`cwd`), one other agents' sessions ran in (that is how smig finds them). The
text has the shape Aider 0.86.2 writes: each run a `# aider chat started at` header and its `> `
notices (version, model, repository), prompts as `#### ` lines, replies with SEARCH/REPLACE edits,
a `> Tokens:` notice after each; a new run every few prompts, restoring the history. The edits pad
each file to its entry's size.
"""

from __future__ import annotations

import random
from pathlib import Path

from smig_devtools.corpus import SessionEntry
from smig_devtools.home_corpus import MIN_SIZE, Text, mark, reusable

VERSION = 1
HISTORY = ".aider.chat.history.md"
PROMPTS_PER_RUN = 4
LINE = 40
"""The mean line length of the edits (code and prose; the reader goes line by line)."""


def generate_aider(home: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write each entry's history into its `cwd` (one entry per folder), the marker into `home` (its own
    folder); return how many (reused when made alike; a history it did not write is never replaced)."""
    wanted = {"version": VERSION, "seed": seed, "sessions": [[e.cwd, e.size] for e in entries]}
    if reusable(home, wanted):
        return len(entries)
    paths = [Path(entry.cwd) / HISTORY for entry in entries]
    if len(set(paths)) != len(paths):
        raise ValueError("Aider keeps one history per folder: give each entry a folder of its own.")
    taken = [str(path) for path in paths if path.exists()]
    if taken:
        raise ValueError(f"{taken[0]} exists and was not made by the corpus generator; refusing to replace it.")
    text = Text(random.Random(seed), line=LINE)
    for number, (entry, path) in enumerate(zip(entries, paths, strict=True)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_history(entry, number, text), encoding="utf-8")
    mark(home, wanted, outside=paths)
    return len(entries)


def _history(entry: SessionEntry, number: int, text: Text) -> str:
    """One chat history of about the entry's size."""
    size = max(entry.size, MIN_SIZE)
    chunks: list[str] = []
    written, turn = 0, 0
    while written < size or turn == 0:
        if turn % PROMPTS_PER_RUN == 0:
            chunks.append(_run_header(number, turn))
            written += len(chunks[-1])
        turn += 1
        prompt = entry.prompt.splitlines()[0] if turn == 1 and entry.prompt.strip() else f"step {turn}: go on"
        edit = text.cut(text.turn_length(size, written)).rstrip("\n")
        chunks.append(
            f"\n#### {prompt}  \n\nREPLY-{turn}: editing notes.txt.\n\nnotes.txt\n```\n<<<<<<< SEARCH\n"
            f"release: {turn}\n=======\n{edit}\n>>>>>>> REPLACE\n```\n\n"
            f"> Tokens: {2 + turn}.{turn % 10}k sent, 35 received. Cost: $0.0053 message, $0.0{turn:03d} session.  \n"
            "> Applied edit to notes.txt  \n"
        )
        written += len(chunks[-1])
    return "".join(chunks)


def _run_header(number: int, turn: int) -> str:
    """The lines Aider writes when a run starts (restoring the history after the first)."""
    restored = "> Restored previous conversation history.  \n" if turn else ""
    return (
        f"\n# aider chat started at 2026-11-{1 + number % 28:02d} {10 + turn // PROMPTS_PER_RUN % 12:02d}:00:00\n\n"
        "> aider --model openai/gpt-4.1 --restore-chat-history  \n"
        "> Aider v0.86.2  \n"
        "> Main model: openai/gpt-4.1 with diff edit format  \n"
        "> Weak model: openai/gpt-4.1-mini  \n"
        "> Git repo: .git with 12 files  \n"
        "> Repo-map: using 4096 tokens, auto refresh  \n"
        f"{restored}"
    )
