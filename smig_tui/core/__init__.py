"""Provides the pure core: models, token maths and plans; stdlib only, no I/O at import."""
