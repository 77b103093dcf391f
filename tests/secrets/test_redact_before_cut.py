"""Every path that shortens text redacts it first: a secret the cut passes through is gone whole,
never half of it left for no pattern to recognise (issue 33: the summarizer cut first, so the tail
of a long token went out verbatim).

Each case plants a long secret so that the cut point falls inside it, at the head's cut and at the
tail's, in short texts and in texts long enough to be read in windows, and checks that no 8
characters of its random part come out.
"""

from __future__ import annotations

import random
import string
from collections import Counter

import pytest

from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.plans import preview_of
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
