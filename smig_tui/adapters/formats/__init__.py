"""Provides readers and writers for the agents' on-disk session formats."""
