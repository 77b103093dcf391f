"""Provides what Gemini CLI adds to every request for the project folder it runs in.

Measured with 0.61.0 (the real client against tests/e2e's fake API, o200k tokens): its
`<session_context>` draws the folder as a tree of up to 200 entries (files and folders, gathered breadth
first; a folder it does not walk, such as `.git`, shows as `name/...`), about 9 tokens per entry; and inside a
git work tree its system prompt gains a section on git use, 379 tokens more. The shipped overhead was
measured in an empty folder outside git, so these come on top of it, for the folder the session is
resumed in.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

MAX_ENTRIES = 200
"""Gemini CLI lists at most this many files and folders."""
GIT_SECTION = 379
"""o200k tokens the system prompt gains inside a git work tree (0.61.0, a fresh `git init` folder)."""
ELIDED_NOTE = 24
"""o200k tokens of the note the listing carries once a folder is left unwalked or the 200 are reached."""
NOT_WALKED = frozenset({".git", "node_modules"})
"""Folders listed but not walked."""


def folder_listing(folder: str) -> tuple[str, int]:
    """The tree Gemini CLI draws of `folder`, to count, and the tokens it adds besides (its git section
    and the elided-entries note); ('', 0) when the folder is not there."""
    root = Path(folder)
    if not folder or not root.is_dir():
        return "", 0
    lines, elided = _tree(root)
    extra = (GIT_SECTION if _in_git(root) else 0) + (ELIDED_NOTE if elided else 0)
    return "\n".join(lines), extra


def _tree(root: Path) -> tuple[list[str], bool]:
    """The tree's lines, as the client draws them: entries gathered breadth first up to `MAX_ENTRIES`,
    drawn depth first with `├───`/`└───` and `│` under open folders; whether any were left out."""
    gathered: dict[Path, list[os.DirEntry[str]]] = {}
    cut: set[Path] = set()
    elided = False
    count = 0
    queue: deque[Path] = deque([root])
    while queue and count < MAX_ENTRIES:
        folder = queue.popleft()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        kept = gathered.setdefault(folder, [])
        for entry in entries:
            if count >= MAX_ENTRIES:
                cut.add(folder)
                elided = True
                break
            kept.append(entry)
            count += 1
            if entry.is_dir(follow_symlinks=False):
                if entry.name in NOT_WALKED:
                    elided = True
                else:
                    queue.append(Path(entry.path))
    elided |= bool(queue)
    lines: list[str] = []
    _draw(root, "", gathered, cut, lines)
    return lines, elided


def _draw(
    folder: Path, prefix: str, gathered: dict[Path, list[os.DirEntry[str]]], cut: set[Path], lines: list[str]
) -> None:
    """Draw one folder's gathered entries under `prefix`, and each walked subfolder's under them."""
    entries = gathered.get(folder, [])
    for index, entry in enumerate(entries):
        last = index == len(entries) - 1 and folder not in cut
        is_dir = entry.is_dir(follow_symlinks=False)
        suffix = ("/..." if entry.name in NOT_WALKED else "/") if is_dir else ""
        lines.append(f"{prefix}{'└───' if last else '├───'}{entry.name}{suffix}")
        if is_dir and entry.name not in NOT_WALKED:
            _draw(Path(entry.path), prefix + ("    " if last else "│   "), gathered, cut, lines)
    if folder in cut:
        lines.append(f"{prefix}└───...")


def _in_git(folder: Path) -> bool:
    """Whether `folder` is inside a git work tree (a `.git` folder or file here or above)."""
    return any((parent / ".git").exists() for parent in (folder, *folder.parents))
