"""Builders shared by the planner tests: sessions made by hand and a one-token-per-word counter."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.models import Agent, Kind, Message, ModelCapacity, Role, Session, SessionInfo
from smig_tui.core.tokens import MESSAGE_OVERHEAD
from smig_tui.services import Services, build_services


class WordCounter:
    """Deterministic fake: one token per whitespace-separated word."""

    name = "words"
    exact = True

    def __init__(self) -> None:
        self.calls: list[int] = []

    def count(self, text: str) -> int:
        return len(text.split())

    def count_many(self, texts: Sequence[str]) -> list[int]:
        self.calls.append(len(texts))
        return [len(t.split()) for t in texts]


class EveryTextCounter(WordCounter):
    """The word counter, remembering every text it counts, one at a time or in batches."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return super().count(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        self.texts.extend(texts)
        return super().count_many(texts)


def measure(text: str) -> int:
    """Count a synthetic message like the services do, with the word counter."""
    return len(text.split()) + MESSAGE_OVERHEAD


class Builder:
    """Appends messages with sequential ids."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add(self, role: Role, kind: Kind, text: str, **fields: object) -> Message:
        message = Message(
            index=len(self.messages),
            id=fields.pop("id", f"m{len(self.messages)}"),  # type: ignore[arg-type]
            role=role,
            kind=kind,
            body=text,
            **fields,
        )  # type: ignore[arg-type]
        self.messages.append(message)
        return message

    def user(self, text: str, **fields: object) -> Message:
        return self.add(Role.USER, Kind.TEXT, text, **fields)

    def assistant(self, text: str, **fields: object) -> Message:
        return self.add(Role.ASSISTANT, Kind.TEXT, text, **fields)

    def tool(self, call_id: str, args: str, output: str) -> None:
        self.add(Role.ASSISTANT, Kind.TOOL_CALL, args, tool_name="shell", call_id=call_id)
        self.add(Role.TOOL, Kind.TOOL_RESULT, output, call_id=call_id)

    def session(self) -> Session:
        info = SessionInfo(id="s1", agent=Agent("codex"), path="/nowhere/s1.jsonl")
        return Session(info=info, messages=tuple(self.messages))


def words(n: int, word: str = "w") -> str:
    return " ".join([word] * n)


def capacity(window: int, max_output: int = 10, **fields: object) -> ModelCapacity:
    return ModelCapacity(
        name="target", provider="test", context_window=window, max_output=max_output, encoding="o200k_base", **fields
    )  # type: ignore[arg-type]


def services_with(tmp_path: Path, counter: WordCounter, models: dict[str, int]) -> Services:
    """Services whose o200k counter is `counter`, with test models of the given windows."""
    config = resolve_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "".join(
            f'[models."{name}"]\ncontext_window = {window}\nmax_output = 100\n\n' for name, window in models.items()
        ),
        encoding="utf-8",
    )
    services = build_services()
    services.counters.put("o200k_base", counter)
    return services


def huge_session(path: Path, n: int, size: int = 30) -> Session:
    """`n` alternating user/assistant messages of `size` words each, every text unique."""
    builder = Builder()
    for i in range(n):
        text = f"m{i} " + words(size - 1)
        (builder.user if i % 2 == 0 else builder.assistant)(text)
    path.write_text("{}\n", encoding="utf-8")  # the cache keys on a real file's size and mtime
    info = SessionInfo(id="huge", agent=Agent("codex"), path=str(path))
    return Session(info=info, messages=tuple(builder.messages))


def exact_count(text: str) -> int:
    """A text's framed count by the word counter."""
    return len(text.split()) + MESSAGE_OVERHEAD
