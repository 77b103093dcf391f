"""Provides how text leaves smig as bytes: UTF-8, with what UTF-8 cannot hold escaped, never a crash.

A session's JSON may hold a lone UTF-16 surrogate (`"\\ud800"`, half of a pair cut in two), which
Python keeps in the string. No UTF-8 stream or file can take one: it is written as its `\\u`
escape, which is the same string again when the JSON it is in is read back, and a readable
`\\ud800` in Markdown or on a terminal.
"""

from __future__ import annotations

import re

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(text: str) -> str:
    """`text` with every lone surrogate written as its escape (`\\ud800`)."""
    if not LONE_SURROGATE.search(text):
        return text
    return LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def utf8(text: str) -> bytes:
    """`text` as UTF-8 bytes, lone surrogates escaped (`escaped`)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escaped(text).encode("utf-8")
