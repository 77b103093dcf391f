"""The secret detector's fingerprint, kept apart from the detector so a warm listing need not compile it.

The listing cache stores titles already redacted; it keys them by this fingerprint so titles an older,
weaker detector let through are redacted again. `tests/core/test_redact_version.py` fails when the
detector's rules change and this figure was not updated with them.
"""

from __future__ import annotations

DETECTOR_VERSION = "2689c85144c4"
"""`smig_tui.core.redact.detector_version()` of the rules this release ships."""
