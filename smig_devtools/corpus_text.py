"""Provides seeded text of the kinds agent sessions hold: prose, code, paths and shell output.

The point is realistic token density (about 3.5-4.5 characters per token under o200k_base), so the
benchmark's token counts mean something; a file of one repeated character would tokenize absurdly.
"""

from __future__ import annotations

import random

_WORD_TEXT = (
    "the a an this that we it is are was be can should will must not and or but so then if when "
    "because while after before each every only also still already just now here there which "
    "function module class method test tests file files path config option value error warning "
    "request response session message token tokens window model agent context history output "
    "input parser reader writer cache index table column row record line offset buffer stream "
    "update change fix add remove rename refactor check verify run build install import export "
    "handle return raise catch retry timeout limit budget size count total first last next "
    "previous newest oldest fits compress truncate summary placeholder pinned dropped kept "
    "branch commit merge rebase diff patch review comment issue bug feature release version "
    "migration schema database query transaction lock atomic write read open close flush sync"
)
_WORDS = tuple(_WORD_TEXT.split())

_NAME_TEXT = (
    "session reader writer parser counter planner budget window record message index cache "
    "config loader store worker handler client server request response payload item entry node "
    "tree chain path offset usage total result plan decision target source"
)
_NAMES = tuple(_NAME_TEXT.split())

_DIRS = ("src", "lib", "app", "core", "adapters", "services", "tests", "utils", "api", "cli", "ui")
_EXTS = (".py", ".ts", ".rs", ".go", ".tsx", ".md", ".json", ".toml")


def ident(rng: random.Random) -> str:
    """Return a snake_case identifier."""
    return "_".join(rng.sample(_NAMES, rng.randint(1, 3)))


def camel(rng: random.Random) -> str:
    """Return a CamelCase class name."""
    return "".join(word.capitalize() for word in rng.sample(_NAMES, rng.randint(1, 3)))


def path(rng: random.Random, root: str = "") -> str:
    """Return a source file path, relative unless `root` is given."""
    parts = [rng.choice(_DIRS) for _ in range(rng.randint(1, 3))]
    rel = "/".join(parts) + "/" + ident(rng) + rng.choice(_EXTS)
    return f"{root.rstrip('/')}/{rel}" if root else rel


def sentence(rng: random.Random) -> str:
    """Return one prose sentence with the odd identifier or path in it."""
    words = rng.choices(_WORDS, k=rng.randint(6, 22))
    if rng.random() < 0.35:
        words.insert(rng.randrange(len(words)), f"`{ident(rng)}()`")
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), path(rng))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice((".", ".", ".", "?", ":"))


def prose(rng: random.Random, sentences: int) -> str:
    """Return paragraphs of prose."""
    out: list[str] = []
    for index in range(sentences):
        out.append(sentence(rng))
        if index % 4 == 3:
            out.append("\n\n")
        else:
            out.append(" ")
    return "".join(out).strip()


def code_line(rng: random.Random, indent: int) -> str:
    """Return one plausible line of Python."""
    pad = "    " * indent
    kind = rng.random()
    a, b = ident(rng), ident(rng)
    if kind < 0.15:
        return f"{pad}def {a}(self, {b}: {camel(rng)}) -> {rng.choice(('int', 'str', 'bool', 'None'))}:"
    if kind < 0.3:
        return f"{pad}if {a} is None or len({b}) > {rng.randint(2, 4096)}:"
    if kind < 0.45:
        return f"{pad}{a} = {b}.{ident(rng)}({rng.randint(0, 99)}, key={ident(rng)!r})"
    if kind < 0.55:
        return f"{pad}for {a} in {b}:"
    if kind < 0.65:
        return f"{pad}return {camel(rng)}({a}={b}, {ident(rng)}={rng.randint(0, 500)})"
    if kind < 0.75:
        return f"{pad}# {sentence(rng)}"
    if kind < 0.85:
        return f'{pad}raise {camel(rng)}Error(f"{rng.choice(_WORDS)} {{{a}}} {rng.choice(_WORDS)}")'
    return f"{pad}self.{a}.append({b}[{rng.randint(0, 9)}:{rng.randint(10, 99)}])"


def code(rng: random.Random, lines: int) -> str:
    """Return a block of Python with sensible indentation."""
    out, indent = [], 0
    for _ in range(lines):
        line = code_line(rng, indent)
        out.append(line)
        indent = min(indent + 1, 4) if line.endswith(":") else max(0, indent - rng.randint(0, 1))
    return "\n".join(out)


def shell_output(rng: random.Random, lines: int, root: str) -> str:
    """Return command output: listings, grep hits, test runs, git logs, numbered file reads."""
    kind = rng.randrange(5)
    out: list[str] = []
    for number in range(1, lines + 1):
        if kind == 0:
            out.append(
                f"-rw-r--r-- 1 dev dev {rng.randint(120, 99999):>6} Nov {rng.randint(1, 30):>2} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {path(rng)}"
            )
        elif kind == 1:
            out.append(f"{path(rng, root)}:{rng.randint(1, 900)}:{code_line(rng, rng.randint(0, 2))}")
        elif kind == 2:
            verdict = rng.choice(("PASSED", "PASSED", "PASSED", "FAILED", "SKIPPED"))
            out.append(f"tests/{path(rng)}::test_{ident(rng)} {verdict} [{number * 100 // lines:>3}%]")
        elif kind == 3:
            out.append(f"{rng.getrandbits(28):07x} {sentence(rng)[:72]}")
        else:
            out.append(f"{number:>6}\t{code_line(rng, rng.randint(0, 3))}")
    return "\n".join(out)


def patch(rng: random.Random, lines: int) -> str:
    """Return an apply_patch body in Codex's freeform grammar."""
    body = [f"*** Begin Patch\n*** Update File: {path(rng)}\n@@ def {ident(rng)}"]
    for _ in range(lines):
        sign = rng.choice(("+", "-", " ", "+"))
        body.append(sign + code_line(rng, rng.randint(0, 2)))
    body.append("*** End Patch")
    return "\n".join(body)


def opaque(rng: random.Random, size: int) -> str:
    """Return a Fernet-looking encrypted blob (`gAAAA…`), as Codex stores reasoning."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "gAAAAA" + "".join(rng.choices(alphabet, k=size))
