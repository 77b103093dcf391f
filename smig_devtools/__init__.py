"""Provides developer tools shipped with smig: a synthetic session corpus and the benchmark."""
