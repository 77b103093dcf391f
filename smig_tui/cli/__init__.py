"""Provides the headless command line."""
