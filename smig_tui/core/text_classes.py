"""Provides the classes of text that tokenizers count differently, and the error of a session's mix of them.

Measured against the providers' own tokenizers (`devtools/calibrate_tokenizer.py`), one factor per
tokenizer family holds for English prose and code but not for what users also paste: Gemma's
tokenizer counts Japanese at 0.72 of o200k's count and Qwen's counts Korean at 1.15, while both
count English close to 1. So a family gives a factor per class, and smig counts each message with
the factor of its class. The classes are the ones the data separates: Chinese, Japanese (kana with
Han), Korean, number-heavy text (tables, logs, metrics, hex), code, and prose.

A message's class is decided from its first `HEAD_CHARS` characters, so a megabyte of tool output
costs no more than a short message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from smig_tui.core.models import Kind, Message

CLASSES = ("prose", "code", "numbers", "chinese", "japanese", "korean")
"""The text classes, in the order they are shown."""
LABELS = {
    "prose": "prose",
    "code": "code",
    "numbers": "numbers",
    "chinese": "Chinese",
    "japanese": "Japanese",
    "korean": "Korean",
}
HEAD_CHARS = 1024
"""Characters of a text its class is decided from."""
CJK_SHARE = 0.15
"""Share of a text's visible characters in a CJK script from which it counts as that script."""
KANA_SHARE = 0.05
"""Share of kana among them from which Han text is Japanese rather than Chinese."""
DIGIT_SHARE = 0.25
"""Share of digits from which a text is number-heavy."""
CODE_SHARE = 0.04
"""Share of code punctuation (braces, brackets, `=`, `;`, `_`, …) from which a text is code."""

_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_SPACE = b" \t\n\r\f\v"
_DIGITS = b"0123456789"
_CODE = b"{}()[];=<>_\\|&*$#@`"
"""Counting a class of characters as what deleting them from the head's UTF-8 takes away: one pass in
C over a byte table (a message's class is decided for every message counted). They are all ASCII,
and no byte of a longer character is ASCII, so bytes deleted are characters deleted; `str.translate`
looked every character up in a dict, 20 µs a call on a head past Latin-1."""


def text_class(text: str) -> str:
    """The class of `text` (see the module docstring), from its head."""
    head = text[:HEAD_CHARS]
    raw = head.encode("utf-8", "surrogatepass")
    visible = len(head) - (len(raw) - len(raw.translate(None, _SPACE)))
    if visible <= 0:
        return "prose"
    if not head.isascii():
        if len(_HANGUL.findall(head)) >= CJK_SHARE * visible:
            return "korean"
        kana = len(_KANA.findall(head))
        if kana + len(_HAN.findall(head)) >= CJK_SHARE * visible:
            return "japanese" if kana >= KANA_SHARE * visible else "chinese"
    if len(raw) - len(raw.translate(None, _DIGITS)) >= DIGIT_SHARE * visible:
        return "numbers"
    if b"```" in raw or len(raw) - len(raw.translate(None, _CODE)) >= CODE_SHARE * visible:
        return "code"
    return "prose"


def mix_error(shares: Mapping[str, float], errors: Mapping[str, float], whole: float | None = None) -> float | None:
    """The error bound of a count whose tokens fall in classes by `shares` (fractions adding to 1),
    each class counted within its own `errors`: their weighted sum (errors of one sign add up). When
    a class with tokens has no measured error, `whole` (the worst miss on whole held-out sessions).

    The sum is the bound even where `whole` is smaller: on 200 random held-out sessions the smaller
    of the two left 8 of DeepSeek's outside, the sum none."""
    total = 0.0
    for name, share in shares.items():
        if share <= 0:
            continue
        if name not in errors:
            return whole
        total += share * errors[name]
    return total


def describe_mix(shares: Mapping[str, float], limit: int = 3) -> str:
    """`prose 71%, Chinese 22%, code 7%`: the largest classes of a mix, for labels."""
    ranked = sorted(((share, name) for name, share in shares.items() if share >= 0.005), reverse=True)
    return ", ".join(f"{LABELS.get(name, name)} {share:.0%}" for share, name in ranked[:limit])


def message_class(message: Message) -> str:
    """The class of a message as the counter sees it (a tool call is its name, then its arguments),
    from its first `HEAD_CHARS` characters: a packed text unpacks them (`class_head`), so packing never
    changes a class; a text left on disk gives the head its reader kept, so no file is read again."""
    body = message.body
    head = body if isinstance(body, str) else body.class_head
    if message.kind is Kind.TOOL_CALL:
        head = f"{message.tool_name or 'tool'}\n{head}"
    return text_class(head)


@dataclass(frozen=True, slots=True)
class CountMix:
    """How one session's tokens fall in text classes for a target measured per class, and the ± that gives."""

    shares: dict[str, float]
    """Each class's share of the session's tokens (as counted for the target)."""
    error: float | None
    """`mix_error` of those shares (None when a class with tokens has no measured error)."""

    @property
    def label(self) -> str:
        """`±6% for this session's mix (prose 71%, Chinese 22%, code 7%)`."""
        if self.error is None:
            return "± not measured for this session's mix"
        return f"±{max(self.error, 0.005):.0%} for this session's mix ({describe_mix(self.shares)})"


def count_mix(
    messages: Sequence[Message], counts: Sequence[int], errors: Mapping[str, float], whole: float | None
) -> CountMix:
    """The session's class shares by its counts, and their ± from each class's measured `errors`."""
    tokens: dict[str, int] = {}
    for message, n in zip(messages, counts, strict=True):
        if n:
            name = message_class(message)
            tokens[name] = tokens.get(name, 0) + n
    total = sum(tokens.values())
    shares = {name: n / total for name, n in tokens.items()} if total else {"prose": 1.0}
    return CountMix(shares, mix_error(shares, errors, whole))
