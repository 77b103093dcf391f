"""Every path that shortens text redacts it first, or cuts where no secret is: a secret the cut passes
through is gone whole, never half of it left for no pattern to recognise (issue 33: the summarizer
cut first, so the tail of a long token went out verbatim; a plan's shortened tool output and
prompt, redacted when written, kept the tail of a token cut by their tail's cut).

Each case plants a long secret so that the cut point falls inside it, at the head's cut and at the
tail's, in short texts and in texts long enough to be read in windows, and checks that no 8
characters of its random part come out.
"""

from __future__ import annotations

import base64
import random
import string
from collections import Counter

import pytest
from plan_helpers import Builder, capacity
from plan_helpers import measure as plan_measure
from plan_helpers import words as plan_words

from smig_tui.core.decide import decide
from smig_tui.core.handoff import redact_messages
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.plans import (
    EDGE_CHARS,
    migratable_tokens,
    output_edges,
    plan_tools_first,
    plan_truncation,
    preview_of,
    result_messages,
)
from smig_tui.core.redact import LINE_MARGIN, redacted_line
from smig_tui.core.summary import RenderLimits, condense, plan_summary_job, render_message

ALNUM = string.ascii_letters + string.digits


def _random(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(ALNUM) for _ in range(n))


SECRETS = {
    "openai-key": lambda seed: "sk-proj-" + _random(156, seed),
    "private-key": lambda seed: (
        "-----BEGIN PRIVATE KEY-----\n"
        + "\n".join(_random(64, seed + n) for n in range(6))
        + "\n-----END PRIVATE KEY-----"
    ),
    "assignment": lambda seed: "DB_PASSWORD=" + _random(90, seed),
}
LONG_SECRETS = {
    **SECRETS,
    "key-data": lambda seed: (  # a kubeconfig's key: one base64 line of 4 KB, longer than a cut first reads
        "client-key-data: "
        + base64.b64encode(
            (
                "-----BEGIN RSA PRIVATE KEY-----\n"
                + "\n".join(_random(64, seed + n) for n in range(45))
                + "\n-----END RSA PRIVATE KEY-----\n"
            ).encode()
        ).decode()
    ),
}


def leaks(secret: str, text: str) -> list[str]:
    """The 8-character pieces of the secret's random part that show in `text`."""
    body = secret.split("-----")[2] if secret.startswith("-----") else secret[12:]
    body = body.replace("\n", "")
    return [body[at : at + 8] for at in range(len(body) - 8) if body[at : at + 8] in text]


def straddling(secret: str, cut: int, total: int, from_end: bool = False) -> str:
    """Filler with `secret` placed so that position `cut` (from the end when `from_end`) falls inside it."""
    filler = "the build log says nothing interesting here " * (total // 40 + 2)
    inside = min(len(secret) // 2, cut - 1)  # how far into the secret the cut falls
    if from_end:
        tail = " " + filler
        before = total - cut + inside - len(secret) - 1
        return filler[: max(0, before)] + " " + secret + tail[: max(1, cut - inside)]
    before = cut - inside - 1
    text = filler[:before] + " " + secret + " " + filler
    return text[: max(total, before + len(secret) + 2)]


LIMITS = RenderLimits()
CUTS = [
    ("text", LIMITS.text_chars, Kind.TEXT, Role.USER),
    ("tool call", LIMITS.tool_call_chars, Kind.TOOL_CALL, Role.ASSISTANT),
    ("tool result", LIMITS.tool_result_chars, Kind.TOOL_RESULT, Role.TOOL),
    ("reasoning", LIMITS.reasoning_chars, Kind.REASONING, Role.ASSISTANT),
]


@pytest.mark.parametrize("kind", sorted(SECRETS))
@pytest.mark.parametrize(("what", "limit", "message_kind", "role"), CUTS, ids=[cut[0] for cut in CUTS])
@pytest.mark.parametrize("size", ["short", "windowed"])
@pytest.mark.parametrize("end", ["head", "tail"])
def test_the_summarizer_redacts_before_it_shortens(
    kind: str, what: str, limit: int, message_kind: Kind, role: Role, size: str, end: str
) -> None:
    secret = SECRETS[kind](limit)
    total = limit * 3 if size == "short" else limit + 3 * LINE_MARGIN
    head = limit * 2 // 3
    cut = head if end == "head" else limit - head  # the tail keeps the last `limit - head` characters
    text = straddling(secret, cut, total, from_end=end == "tail")
    assert len(text) > limit
    message = Message(index=7, id="m7", role=role, kind=message_kind, body=text)
    rendered = render_message(message, LIMITS)
    assert rendered is not None and "chars omitted" in rendered  # it was shortened
    assert "[REDACTED:" in rendered, rendered
    assert not leaks(secret, rendered), rendered
    job = plan_summary_job([message], context_window=32_000, target_chars=2_000)
    sent = "\n".join(chunk.text for chunk in job.chunks)
    assert not leaks(secret, sent) and sum(job.redactions.values()) >= 1


def test_condense_counts_what_it_replaced() -> None:
    found: Counter[str] = Counter()
    condense(straddling(SECRETS["openai-key"](1), 400, 4_000), 600, found)
    assert found["openai-key"] == 1


@pytest.mark.parametrize("kind", sorted(SECRETS))
@pytest.mark.parametrize("width", [60, 120, 200])
@pytest.mark.parametrize("size", ["short", "long"])
def test_titles_names_and_previews_redact_before_they_are_cut(kind: str, width: int, size: str) -> None:
    secret = SECRETS[kind](width)
    text = straddling(secret, width, width * 4 if size == "short" else 4 * LINE_MARGIN)
    assert len(" ".join(text.split())) > width
    line = redacted_line(text, width)
    assert line is not None and "[REDACTED:" in line and len(line) <= width
    assert not leaks(secret, line), line
    preview = preview_of(Message(index=0, id="m0", role=Role.USER, kind=Kind.TEXT, body=text), width)
    assert not leaks(secret, preview) and "[REDACTED:" in preview, preview


def test_a_title_of_whitespace_then_a_secret_reads_far_enough_to_redact_it() -> None:
    """Collapsing whitespace brings text from far in up to the cut: it is read and redacted too."""
    secret = SECRETS["openai-key"](5)
    text = " " * (3 * LINE_MARGIN) + "x" * 100 + " " + secret + " tail"
    line = redacted_line(text, 120)
    assert line is not None and not leaks(secret, line) and "[REDACTED:" in line


def _straddled_output(head_secret: str, tail_secret: str) -> str:
    """A long tool output (many lines) whose head cut falls inside one secret and tail cut inside another."""
    words = "the build log says nothing interesting here "
    into_head, into_tail = len(head_secret) // 2, len(tail_secret) // 2
    first = (words * 60)[: EDGE_CHARS - into_head - 1]  # no newline: the head is its first EDGE_CHARS
    last = (words * 60)[: EDGE_CHARS - 1 - (len(tail_secret) - into_tail)]
    middle = "\n".join(f"{words}line {n}" for n in range(400))
    return f"{first} {head_secret} more\n{middle}\nthen {tail_secret} {last}"


@pytest.mark.parametrize("kind", sorted(LONG_SECRETS))
def test_a_plan_shortens_tool_output_without_cutting_a_secret(kind: str) -> None:
    """tools-first keeps an old output's head and tail: the secrets its cuts pass through are not
    left in two for the redaction after it (native sessions, exports, the record, MCP handoffs)."""
    head_secret, tail_secret = LONG_SECRETS[kind](11), LONG_SECRETS[kind](12)
    output = _straddled_output(head_secret, tail_secret)
    edges = output_edges(output)
    assert edges is not None
    b = Builder()
    b.user("start")
    b.tool("c0", "cat build.log", output)
    for t in range(1, 6):
        b.tool(f"c{t}", "ls", plan_words(5, f"out{t}"))
        b.assistant(f"step {t} done")
    session = b.session()
    counts = [0 if m.opaque else plan_measure(m.text) for m in session.messages]
    total = migratable_tokens(session, counts)
    decision = decide(total, capacity(total - 100, max_output=0))
    plan = plan_tools_first(session, counts, decision, plan_measure, keep_recent=2)
    [shortened] = [item for item in plan.items if item.text is not None]
    assert "elided by smig" in shortened.text
    sent = "\n".join(message.text for message in redact_messages(result_messages(plan))[0])
    assert not leaks(head_secret, sent) and not leaks(tail_secret, sent), sent


@pytest.mark.parametrize("kind", sorted(LONG_SECRETS))
def test_a_plan_shortens_the_newest_prompt_without_cutting_a_secret(kind: str) -> None:
    """A prompt too big for the target keeps its head and tail around a marker: at every budget, a
    secret a cut would pass through is kept whole or left out, never halved."""
    secret = LONG_SECRETS[kind](21)
    prompt = plan_words(120, "please") + " " + secret + " " + plan_words(120, "thanks") + " " + secret
    b = Builder()
    b.user("set up the project", id="first")
    b.assistant(plan_words(50, "a"))
    b.user(prompt, id="newest")
    b.assistant(plan_words(400, "r"))
    session = b.session()
    counts = [plan_measure(m.text) for m in session.messages]
    shortened = 0
    for budget in range(40, 260, 3):
        plan = plan_truncation(session, counts, decide(sum(counts), capacity(budget, max_output=0)), plan_measure)
        kept = [item for item in plan.kept if item.message.id == "newest"]
        if kept and kept[0].text is not None:
            shortened += 1
        sent = "\n".join(message.text for message in redact_messages(result_messages(plan))[0])
        assert not leaks(secret, sent), (budget, sent)
    assert shortened >= 20
