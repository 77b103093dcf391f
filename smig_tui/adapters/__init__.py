"""Provides the implementations of the core's ports: formats, tokenizers, storage, providers."""
