"""A listing reads an Aider history's head and tail only: its entry must be the whole read's, the message
count aside (left None when the file is not read whole), on the real client's files, generated ones and odd ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from smig_devtools.aider_corpus import generate_aider
from smig_devtools.corpus import SessionEntry
from smig_tui.adapters.agents.aider import source as aider_source
from smig_tui.core.models import ReadWarning

PROJECTS = Path(__file__).parents[1] / "fixtures" / "real" / "aider" / "projects"
HEADS = (16, 64, 256, 4096, aider_source.HEAD_BYTES)
"""Head sizes: the small ones make the real client's short files take the head-and-tail way."""


def _compare(path: Path, monkeypatch: Any, warned: bool = False) -> list[bool]:
    """For each head size, whether the listing left the count out; the entries are checked equal."""
    source = aider_source.AiderSource(lambda: ([], [path]))
    whole_warnings: list[ReadWarning] = []
    whole = source.describe(path, whole_warnings.append, whole=True)
    cheap_ways = []
    for head in HEADS:
        monkeypatch.setattr(aider_source, "HEAD_BYTES", head)
        warnings: list[ReadWarning] = []
        cheap = source.describe(path, warnings.append)
        if whole is None:
            assert cheap is None, (path, head)  # never listed where the whole read lists nothing
            continue
        assert cheap is not None, (path, head)
        assert cheap.message_count in (None, whole.message_count)
        assert cheap == replace(whole, message_count=cheap.message_count), (path, head)
        if warnings or warned:
            assert warnings == whole_warnings != []  # a damaged head or tail warns as the whole read does
        cheap_ways.append(cheap.message_count is None)
    return cheap_ways


def _histories(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob(".aider*") if path.is_file())


@pytest.mark.parametrize("path", _histories(PROJECTS), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_real_clients_histories_list_as_read_whole(path: Path, monkeypatch: Any) -> None:
    _compare(path, monkeypatch)


def test_most_real_histories_take_the_cheap_way_with_a_small_head(monkeypatch: Any) -> None:
    cheap = [_compare(path, monkeypatch)[0] for path in _histories(PROJECTS)]
    assert sum(cheap) >= len(cheap) - 1  # all but the one whose first prompt runs past 16 KB


def test_generated_histories_list_as_read_whole(tmp_path: Path, monkeypatch: Any) -> None:
    entries = [
        SessionEntry("claude", "main", f"s{n}", "", str(tmp_path / f"p{n}"), prompt=f"task {n}\nmore", size=size)
        for n, size in enumerate((2_000, 40_000, 150_000))
    ]
    generate_aider(tmp_path / "mark", entries)
    ways = [_compare(Path(entry.cwd) / ".aider.chat.history.md", monkeypatch) for entry in entries]
    assert ways[2][-1]  # 150 KB: the default head leaves the middle unread


HEADER = "\n# aider chat started at 2026-03-01 10:00:00\n\n"
RUN = HEADER + "> Aider v0.86.2  \n> Main model: openai/gpt-4.1 with diff edit format  \n"
LONG = "".join(f"#### line {n} of a long first prompt  \n" for n in range(400))
REPLY = "".join(f"reply line {n}\n" for n in range(300))
ODD: dict[str, bytes | str] = {
    "no-header": "#### hello  \n\nhi\n",
    "long-prompt": RUN + LONG + "\nok\n" + REPLY,
    "late-smig-title": RUN + "#### first  \n\n" + REPLY + "> smig: not a title  \n" + REPLY,
    "smig-title": HEADER + "> smig: Named by smig  \n" + LONG + REPLY,
    "model-only-first": RUN + "#### a  \n\n" + REPLY + HEADER + "#### b  \n\n" + REPLY * 3,
    "two-models": RUN + "#### a  \n\n" + REPLY + RUN.replace("gpt-4.1", "o9").replace("0.86.2", "0.90.0  ") + REPLY,
    "crlf": (RUN + "#### a  \n\n" + REPLY * 2).replace("\n", "\r\n"),
    "lone-cr": (RUN + "#### a  \n\n" + REPLY * 2).replace("\n", "\r"),
    "odd-breaks": RUN + "#### a\x85> Main model: x  \n\u2028#### b\x0c\n" + REPLY + "tail\x1c> Main model: late\n",
    "latin-1-head": (RUN + "#### caf\xe9  \n\n" + REPLY * 2).encode("latin-1"),
    "latin-1-tail": (RUN + "#### cafe  \n\n" + REPLY * 2 + "d\xe9j\xe0\n").encode("latin-1"),
    "only-notices": RUN + "> Tokens: 1k sent  \n" * 200,
    "whitespace": RUN + "####    \n\n   \n" * 300,
    "one-line": RUN + "#### " + "x" * 70_000,
    "model-last-line": RUN + "#### a  \n\n" + REPLY * 2 + "> Main model: at/the-end",
    "hashes": RUN + "####no space\n#x\n" + REPLY,
    "blank-prompt-first": RUN + "####   \n\n" + "#### \n" * 100 + "> note  \n#### real one  \n\n" + REPLY,
    "empty": "",
    "late-header": "#### hello  \n\nhi\n" * 50 + RUN + REPLY,
    # the last 64 bytes start inside a reply line, where it quotes a notice
    "mid-line": RUN + "#### a  \n\n" + REPLY + "a reply quoting > Main model: " + "w" * 31 + "\n> Aider v0.99.0  \n",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_histories_list_as_read_whole(name: str, tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / ".aider.chat.history.md"
    data = ODD[name]
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    _compare(path, monkeypatch, warned=name.startswith("latin-1"))
