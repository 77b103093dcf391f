"""Provides the two small text helpers every layer shows things with: one line of text, and a size."""

from __future__ import annotations


def one_line(text: str, width: int) -> str:
    """Collapse whitespace and cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def human_size(size: float) -> str:
    """Bytes as a short human figure: `512 B`, `3.4 KB`, `1.2 MB`, `2.0 GB`."""
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
