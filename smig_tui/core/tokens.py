# smig: compiled with mypyc where it can (setup.py)
"""Provides token counting over messages as a target model would receive them, and usage maths.

What is counted for each message (`render_for_count`):

- text, summaries and visible reasoning: the text itself;
- tool calls: the tool name, a newline, then the arguments (JSON or patch text);
- tool results: the output text;
- images: the placeholder text the reader kept (the pixels are not sent as text);
- opaque reasoning (Codex `encrypted_content`): nothing. It cannot be decoded, and no other
  provider would accept it, so it is never migrated and costs 0 tokens.

Each message also pays `MESSAGE_OVERHEAD` tokens of chat framing (role markers and separators:
OpenAI's chat format spends 3 per message plus the role name, Anthropic's is similar), except an
opaque reasoning item, which is not sent at all.

Counts come from one tiktoken encoding; for providers with their own tokenizer the target's
`calibration` factor scales them (`calibrate`) and the result is labelled an estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Sequence

from smig_tui.core.agent_rules import rules_of
from smig_tui.core.models import Agent, Kind, Message, Usage
from smig_tui.core.ports import PartCounter, TokenCounter

MESSAGE_OVERHEAD = 4
"""Tokens of chat framing per message (`<|start|>role ... <|end|>` and the like)."""


def render_for_count(message: Message) -> str:
    """Return the text the target would receive for `message` (empty when nothing is sent)."""
    if message.opaque or (message.kind is Kind.REASONING and not message.text_length):
        return ""
    if message.kind is Kind.TOOL_CALL:
        name = message.tool_name or "tool"
        return f"{name}\n{message.text}" if message.text else name
    return message.text


def is_sent(message: Message) -> bool:
    """Tell whether a message reaches the target at all (opaque reasoning does not)."""
    return not message.opaque


def framed(raw: int, message: Message) -> int:
    """Add the per-message framing to a raw text count."""
    return raw + MESSAGE_OVERHEAD if is_sent(message) else 0


def count_messages(messages: Sequence[Message], counter: TokenCounter) -> list[int]:
    """Return each message's tokens as the target would receive it, framing included."""
    texts = [render_for_count(message) for message in messages]
    raw = counter.count_many(texts)
    return [framed(n, message) for n, message in zip(raw, messages, strict=True)]


def calibrate(counts: Iterable[int], factor: float) -> list[int]:
    """Scale encoding counts to a provider's tokenizer, rounding up so fits are never overstated."""
    if factor == 1.0:
        return list(counts)
    return [math.ceil(n * factor) for n in counts]


def calibrate_one(count: int, factor: float) -> int:
    """Scale a single count like `calibrate`."""
    return count if factor == 1.0 else math.ceil(count * factor)


def usage_context(usage: Usage, agent: Agent) -> int:
    """Return the prompt size one logged model call had: the figure held against a window.

    Agents log it differently: some split uncached input, cache reads and cache writes (they add up,
    the agent's rules say so); others log all prompt tokens as `input_tokens`, cached ones a subset.
    A reader's `context_tokens` wins when set.
    """
    if usage.context_tokens:
        return usage.context_tokens
    rules = rules_of(agent)
    if rules is not None and rules.usage_context is not None:
        return rules.usage_context(usage)
    return usage.input_tokens


def measured_ratio(measured: int | None, counted: int) -> float | None:
    """Return how the agent's logged context compares with smig's count (None when unknown).

    The logged figure also holds the source agent's system prompt and tool schemas, so a ratio
    above 1 is normal; it is shown for orientation, never used to decide.
    """
    if not measured or counted <= 0:
        return None
    return measured / counted


CHARS_PER_TOKEN = 3.0
"""Characters per token assumed by `estimate`: o200k averages about 4 on prose and code, so this
over-estimates (a guess should lean towards "does not fit")."""


def estimate(message: Message) -> int:
    """Guess a message's tokens from its length, framing included, without a tokenizer (`estimates`)."""
    return estimates((message,))[0]


def estimates(messages: Sequence[Message]) -> list[int]:
    """Guess each message's tokens from its length, framing included, without a tokenizer: opaque
    content counts 0, a tool call its name too (the length `render_for_count` gives, without building
    it), and a stored text is never read back. One loop, not a call and a property read per message:
    a plan of a session with no counts yet guesses all of them, 150,000 for a 500 MB one."""
    call, per_token, overhead, ceil = Kind.TOOL_CALL, CHARS_PER_TOKEN, MESSAGE_OVERHEAD, math.ceil
    guesses: list[int] = []
    append = guesses.append
    for message in messages:
        if message.opaque:
            append(0)
            continue
        body = message.body
        chars = len(body) if isinstance(body, str) else body.length  # `text_length`, inlined
        if message.kind is call:
            chars += len(message.tool_name or "tool") + (1 if chars else 0)
        append(ceil(chars / per_token) + overhead)
    return guesses


BATCH = 2_048
"""Most messages sent to the tokenizer at once while counting newest-first."""
PART_COUNTED_FROM = 4 << 20
"""Characters from which a message that alone would carry the tail past what is needed is counted
only until it does (`count_at_least`): a 100 MB tool output is 25 million tokens, 5 s of CPU, where
the first megabyte or so already says it cannot be kept whole."""

AtLeast = Callable[[int, float], tuple[int, int | None]]
"""`(index, limit) -> (framed count, guess)`: a message counted until it passes `limit`; the guess is None
when the count is exact, else the whole message's tokens guessed from the part counted."""


def count_at_least(message: Message, counter: TokenCounter, limit: float) -> tuple[int, int | None]:
    """A message's framed count, counted only until it passes `limit` where the counter can stop early:
    (the exact count, None), or (a lower bound of it, a guess of it: the bound scaled to the whole length)."""
    text = render_for_count(message)
    if not isinstance(counter, PartCounter):
        return framed(counter.count(text), message), None
    raw, done = counter.count_at_least(text, limit)
    if done >= len(text):
        return framed(raw, message), None
    return framed(raw, message), framed(math.ceil(raw * len(text) / max(done, 1)), message)


def count_newest(
    messages: Sequence[Message],
    known: list[int | None],
    need: float,
    count: Callable[[list[int]], list[int]],
    skip: Container[int] = (),
    factor: float = 1.0,
    at_least: AtLeast | None = None,
    parts: dict[int, tuple[int, int]] | None = None,
) -> int:
    """Count exactly from the newest message back until the exact migratable tail exceeds `need`.

    `known` holds exact framed counts (None where not counted) and is filled in place; `count`
    returns the framed counts of the given indices. Messages in `skip` are never migrated, so
    they add nothing to the tail. Guesses (`estimate`) only size each batch, so the tokenizer
    sees little more than the tail needs. Returns how many messages were counted.

    With `at_least`, a message of `PART_COUNTED_FROM` characters or more that alone would pass `need`
    is counted only until it does: it stays a guess, made from the part counted, and the tail passes
    `need` on that part's count, a lower bound (all the plan asks of it). `parts` keeps each such
    message's (bound, guess), so a later call that needs no more of it counts it no further.
    """
    tail, counted, i = 0, 0, len(messages) - 1
    while i >= 0 and tail <= need:
        batch: list[int] = []
        guess = tail
        while i >= 0 and len(batch) < BATCH and guess <= need:
            n = known[i]
            if n is None:
                guessed = 0 if i in skip else calibrate_one(estimate(messages[i]), factor)
                if at_least and messages[i].text_length >= PART_COUNTED_FROM and guessed > 2 * (need - guess):
                    limit = (need - guess) / factor
                    bound, whole_guess = parts[i] if parts and parts.get(i, (0, 0))[0] > limit else at_least(i, limit)
                    if whole_guess is None:
                        known[i] = bound
                        counted += 1
                    elif parts is not None:
                        parts[i] = bound, whole_guess
                    tail += calibrate_one(bound, factor)
                    guess += calibrate_one(bound, factor)
                else:
                    batch.append(i)
                    guess += guessed
            elif i not in skip:
                tail += calibrate_one(n, factor)
                guess += calibrate_one(n, factor)
            i -= 1
        for j, n in zip(batch, count(batch) if batch else [], strict=True):
            known[j] = n
            tail += 0 if j in skip else calibrate_one(n, factor)
        counted += len(batch)
    return counted
