"""The listing cache's detector fingerprint follows the detector's rules."""

from __future__ import annotations

from smig_tui.core.redact import detector_version
from smig_tui.core.redact_version import DETECTOR_VERSION


def test_the_shipped_fingerprint_is_the_detectors_own() -> None:
    # When this fails, the rules changed: set DETECTOR_VERSION to the new figure so cached titles are
    # redacted again by the new rules.
    assert detector_version() == DETECTOR_VERSION, f"set DETECTOR_VERSION = {detector_version()!r}"
