"""Gemini CLI (`@google/gemini-cli`, checked with 0.61.0): its sessions read, and written for it to resume."""
